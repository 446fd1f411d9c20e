package submission

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark/benchmarktest"
)

// Flags a new user might get wrong are refused before any run, naming the
// flag and what it wants; -h is help, not an error.
func TestMainRefusesOddFlagsBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	runs := filepath.Join(dir, "runs")
	os.Mkdir(runs, 0o755)
	base := []string{"--benchmark", benchmarktest.Name, "--submitter", "Tester", "--system-name", "box"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", file}, "--out " + file + " is a file"},
		{[]string{"--out", filepath.Join(dir, "o"), "--work", file}, "--work " + file + " is a file"},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", file}, "--from " + file + " is a file"},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", runs, "--scenarios", "Bogus"}, `"Bogus" is not a scenario of ` + benchmarktest.Name},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", runs, "--scenarios", "Offline,"}, `"" is not a scenario`},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", runs, "--scenarios", "Offline,Offline"}, "listed twice"},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", runs, "extra"}, `unexpected argument "extra"`},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", runs, "--system-type", "cloud"}, `--system-type "cloud": want edge, datacenter`},
		{[]string{"--out", filepath.Join(dir, "o"), "--from", runs, "--system", file}, "is not a system description JSON object"},
	} {
		var stdout, stderr bytes.Buffer
		err := Main(context.Background(), append(append([]string(nil), base...), c.args...), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
		if strings.Contains(stderr.String(), "running") {
			t.Errorf("%v: a run started:\n%s", c.args, stderr.String())
		}
	}
	var out bytes.Buffer
	if err := Main(context.Background(), []string{"-h"}, &out, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if err := Main(context.Background(), []string{"system-template", "--system-type", "cloud"}, &out, &out); err == nil || !strings.Contains(err.Error(), "want edge, datacenter") {
		t.Fatalf("system-template --system-type cloud: %v", err)
	}
}
