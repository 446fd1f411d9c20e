package check

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The trees: testdata/base is a closed-division tree written from this
// suite's loadgen logs: resnet on an edge system (SingleStream,
// MultiStream, Offline, TEST01, TEST04) and llama2-70b-99.9 on a
// datacenter system (Offline, Server with token latencies, TEST06; its
// duration, sample counts and ROUGE edited to the round's values so that
// the tree passes); testdata/mutations.txt breaks it in the ways a
// submitter does (the base_* cases of the corpus, corpus_test.go). mutate
// applies its rules.

const (
	resnetDir = "closed/GoTest/results/go_null_sut/resnet/"
	llmDir    = "closed/GoTest/results/go_llm_box/llama2-70b-99.9/"
)

func expand(tree, p string) string {
	p = strings.Replace(p, "R/", resnetDir, 1)
	return filepath.Join(tree, strings.Replace(p, "L/", llmDir, 1))
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mutate(t testing.TB, tree string, f []string) {
	t.Helper()
	if f[1] == "none" {
		return
	}
	p := expand(tree, f[2])
	args := f[3:]
	switch f[1] {
	case "mv":
		if err := os.Rename(p, expand(tree, args[0])); err != nil {
			t.Fatal(err)
		}
	case "rm":
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	case "write":
		text := ""
		if len(args) > 0 {
			text = strings.ReplaceAll(args[0], `\n`, "\n")
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	case "sub":
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(args[0])) {
			t.Fatalf("%s lacks %q", p, args[0])
		}
		repl := ""
		if len(args) > 1 {
			repl = args[1]
		}
		os.WriteFile(p, bytes.ReplaceAll(b, []byte(args[0]), []byte(repl)), 0o644)
	case "append":
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.ReplaceAll(args[0], `\n`, "\n"))
		f.Close()
	case "pad":
		n, _ := strconv.Atoi(args[0])
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.Write(bytes.Repeat([]byte(" "), n-int(st.Size())))
		f.Close()
	default:
		t.Fatalf("unknown mutation %q", f[1])
	}
}

// An empty folder is an error without a summary that says the
// submission looks OK.
func TestRunEmptyFolder(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	err := Run(dir, Options{}, &out)
	if err == nil || !strings.Contains(err.Error(), "no results under "+dir) || strings.Contains(out.String(), "looks OK") {
		t.Fatalf("empty folder: %v, output:\n%s", err, out.String())
	}
	if _, err := Check(dir, Options{Round: "v9.9"}); err == nil || !strings.Contains(err.Error(), "unknown round") {
		t.Fatalf("unknown round: %v", err)
	}
}

// Run prints the checker's summary and returns ErrFailed on errors.
func TestRunPrintsTheSummaryAndFails(t *testing.T) {
	tree := t.TempDir()
	copyTree(t, "testdata/base", tree)
	var out bytes.Buffer
	if err := Run(tree, Options{}, &out); err != nil {
		t.Fatalf("good tree: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "INFO SUMMARY: submission looks OK") || !strings.Contains(out.String(), "INFO Results "+tree+"/closed/GoTest/results/go_null_sut/resnet/Offline/performance/run_1/mlperf_log_detail.txt 48426000.0") {
		t.Fatalf("output:\n%s", out.String())
	}
	os.Remove(filepath.Join(tree, resnetDir, "SingleStream/user.conf"))
	out.Reset()
	err := Run(tree, Options{Round: "v6.1"}, &out)
	if !errors.Is(err, ErrFailed) || !strings.Contains(out.String(), "ERROR SUMMARY: submission has errors") ||
		!strings.Contains(out.String(), "ERROR NoResults "+tree+"/closed/GoTest/results/go_null_sut/resnet/SingleStream/performance/run_1/mlperf_log_detail.txt") {
		t.Fatalf("err %v, output:\n%s", err, out.String())
	}
}
