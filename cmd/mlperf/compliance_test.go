package main

import (
	"regexp"
	"strings"
	"testing"
)

// The flag an error asks for exists: `compliance verify test06` without a
// scenario once asked for "-s", which the command does not define; the
// flag named in the message is now accepted and gets past that check.
func TestComplianceVerifyTEST06AsksForAFlagItHas(t *testing.T) {
	dir := t.TempDir()
	code, msg := runMlperf(t, nil, "compliance", "verify", "test06", "--compliance", dir, "--out", dir)
	if code == 0 || !strings.Contains(msg, "needs the scenario") {
		t.Fatalf("no scenario: %d %s", code, msg)
	}
	flag := regexp.MustCompile(`\((--?[a-z-]+) `).FindStringSubmatch(msg)
	if flag == nil || flag[1] != "--scenario" {
		t.Fatalf("the message names %v, want --scenario: %s", flag, msg)
	}
	code, msg = runMlperf(t, nil, "compliance", "verify", "test06", "--compliance", dir, "--out", dir, flag[1], "Server")
	if code == 0 || strings.Contains(msg, "flag provided but not defined") || strings.Contains(msg, "needs the scenario") {
		t.Fatalf("with %s Server: %d %s", flag[1], code, msg)
	}
	if !strings.Contains(msg, "mlperf_log_accuracy.json") {
		t.Errorf("with the scenario, the error should be the missing log: %s", msg)
	}
}
