package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// baseRuns lays the resnet runs of check/testdata/base (this suite's logs,
// passing round v6.1) out as `mlperf submission --from` reads them.
func baseRuns(t *testing.T) string {
	t.Helper()
	base := "../../check/testdata/base/closed/GoTest/results/go_null_sut/resnet"
	runs := t.TempDir()
	for _, sc := range []string{"SingleStream", "MultiStream", "Offline"} {
		for src, dst := range map[string]string{"performance/run_1": "performance", "accuracy": "accuracy", "TEST01": "TEST01", "TEST04": "TEST04", "user.conf": "user.conf"} {
			copyPath(t, filepath.Join(base, sc, src), filepath.Join(runs, sc, dst))
		}
	}
	return runs
}

func copyPath(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(target), 0o755)
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mlperf submission --from packages passing runs into a tree that mlperf
// check passes, with the checker's flags too.
func TestSubmissionFromRunsPassesCheck(t *testing.T) {
	runs := baseRuns(t)
	out := filepath.Join(t.TempDir(), "tree")
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"submission", "--benchmark", "resnet50", "--from", runs, "--out", out, "--submitter", "GoTest", "--system-name", "box", "--round", "v6.1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := runMain([]string{"check", "--input", out, "--version", "v6.1", "--skip-power-check", "--scenarios-to-skip", "Server"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "SUMMARY: submission looks OK") {
		t.Fatalf("check: exit %d:\n%s", code, stdout.String())
	}
	// The same runs, v6.1's seeds, fail v6.0's check on every log.
	stdout.Reset()
	if code := runMain([]string{"check", out, "--round", "v6.0"}, &stdout, &stderr); code != 1 || strings.Count(stdout.String(), "qsl_rng_seed is wrong, expected=2465351861681999779") != 9 {
		t.Fatalf("check --round v6.0: exit %d:\n%s", code, stdout.String())
	}
}

// Names that would write outside --out are refused, through the binary,
// and nothing is written outside --out.
func TestSubmissionWritesNothingOutsideOut(t *testing.T) {
	runs := baseRuns(t)
	for _, c := range []struct {
		name string
		args []string
		sys  map[string]any
		want string
	}{
		{"submitter", []string{"--submitter", "../../x"}, nil, `"../../x" holds a path separator`},
		{"system json submitter", nil, map[string]any{"system_type": "edge", "submitter": "../../x"}, `"../../x" holds a path separator`},
		{"system name", []string{"--submitter", "GoTest", "--system-name", "a/../../../b"}, nil, `"a/../../../b" holds a path separator`},
		{"division", []string{"--submitter", "GoTest", "--division", "../closed"}, nil, `--division "../closed"`},
		{"scenario", []string{"--submitter", "GoTest", "--scenarios", "../../Offline"}, nil, `scenario "../../Offline" holds a path separator`},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			out := filepath.Join(top, "a", "b", "out")
			args := append([]string{"submission", "--benchmark", "resnet50", "--from", runs, "--out", out}, c.args...)
			if c.sys != nil {
				b, _ := json.Marshal(c.sys)
				sysFile := filepath.Join(t.TempDir(), "box.json")
				os.WriteFile(sysFile, b, 0o644)
				args = append(args, "--system", sysFile)
			}
			var stdout, stderr bytes.Buffer
			code := runMain(args, &stdout, &stderr)
			if code == 0 || !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("exit %d, want an error with %q:\n%s", code, c.want, stderr.String())
			}
			var found []string
			filepath.Walk(top, func(p string, info os.FileInfo, err error) error {
				if err == nil && p != top {
					found = append(found, p)
				}
				return nil
			})
			if len(found) > 0 {
				t.Errorf("wrote %v", found)
			}
		})
	}
	// A symbolic link inside --out that leads out of it is not followed.
	top := t.TempDir()
	out, outside := filepath.Join(top, "out"), filepath.Join(top, "outside")
	os.MkdirAll(out, 0o755)
	os.MkdirAll(outside, 0o755)
	if err := os.Symlink(outside, filepath.Join(out, "closed")); err != nil {
		t.Skip(err)
	}
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"submission", "--benchmark", "resnet50", "--from", runs, "--out", out, "--submitter", "GoTest", "--system-name", "box"}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "outside --out") {
		t.Fatalf("symlink: exit %d:\n%s", code, stderr.String())
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("wrote %d entries through the link", len(ents))
	}
}

// Odd flags are refused before anything runs, naming the flag and what
// it wants; -h is help.
func TestSubmissionRefusesOddFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	runs := baseRuns(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--out", file}, 1, "--out " + file + " is a file"},
		{[]string{"--from", file}, 1, "--from " + file + " is a file"},
		{[]string{"--from", runs, "--scenarios", "Bogus"}, 1, "round v6.1 has no scenario Bogus for resnet on edge systems"},
		{[]string{"--from", runs, "--scenarios", "Offline,"}, 2, "an empty name"},
		{[]string{"--from", runs, "--scenarios", "Offline,Offline"}, 2, "listed twice"},
		{[]string{"--from", runs, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--from", runs, "--system-type", "cloud"}, 1, `--system-type "cloud": want edge, datacenter`},
		{[]string{"--from", runs, "--system", file}, 2, "is not a system description JSON object"},
		{[]string{"--from", runs, "--round", "v4.1"}, 1, `unknown round "v4.1"`},
		{[]string{"--from", runs, "--system-type", "datacenter"}, 1, "round v6.1 lists resnet for edge and datacenter,edge systems only"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"submission", "--benchmark", "resnet50", "--submitter", "Tester", "--system-name", "box", "--out", filepath.Join(dir, "o")}, c.args...)
		if c.args[0] == "--out" {
			args = append([]string{"submission", "--benchmark", "resnet50", "--submitter", "Tester", "--system-name", "box"}, c.args...)
		}
		code := runMain(args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"submission", "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "usage: mlperf submission") {
		t.Errorf("-h: exit %d:\n%s", code, stdout.String())
	}
	if code := runMain([]string{"submission", "system-template", "--system-type", "cloud"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "want edge, datacenter") {
		t.Errorf("system-template --system-type cloud: exit %d", code)
	}
	if code := runMain([]string{"run", "resnet50", "--round", "v9.9"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown round "v9.9"`) {
		t.Errorf("run --round v9.9: exit %d:\n%s", code, stderr.String())
	}
}
