package check

import (
	"bytes"
	"context"
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
// the tree passes); testdata/mutations.txt breaks it in the ways a submitter does; the
// real MLCommons checker's verdict on each variant is in
// testdata/verdicts.txt (its ERROR lines in testdata/verdicts/), recorded
// by testdata/make_golden.py. mutate applies the same rules.

const (
	resnetDir = "closed/GoTest/results/go_null_sut/resnet/"
	llmDir    = "closed/GoTest/results/go_llm_box/llama2-70b-99.9/"
)

func expand(tree, p string) string {
	p = strings.Replace(p, "R/", resnetDir, 1)
	return filepath.Join(tree, strings.Replace(p, "L/", llmDir, 1))
}

func copyTree(t *testing.T, src, dst string) {
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

func mutate(t *testing.T, tree string, f []string) {
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

func TestVerdictsMatchTheMLCommonsChecker(t *testing.T) {
	muts, err := os.ReadFile("testdata/mutations.txt")
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	vb, err := os.ReadFile("testdata/verdicts.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(vb)), "\n") {
		name, v, _ := strings.Cut(l, " ")
		verdicts[name] = v
	}
	// Lines of the same variant apply in order.
	var names []string
	ops := map[string][][]string{}
	for _, line := range strings.Split(string(muts), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if _, seen := ops[f[0]]; !seen {
			names = append(names, f[0])
		}
		ops[f[0]] = append(ops[f[0]], f)
	}
	n := 0
	for _, name := range names {
		want, ok := verdicts[name]
		if !ok {
			t.Fatalf("no verdict for %s", name)
		}
		n++
		t.Run(name, func(t *testing.T) {
			tree := t.TempDir()
			copyTree(t, "testdata/base", tree)
			for _, f := range ops[name] {
				mutate(t, tree, f)
			}
			rep, err := Check(tree, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := "OK"
			if !rep.OK() {
				got = "FAIL"
			}
			if got != want {
				t.Errorf("verdict %s, the MLCommons checker's %s; our errors: %q", got, want, rep.Errors)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

func TestMainExitsNonZeroOnErrorsAndPrintsTheSummary(t *testing.T) {
	tree := t.TempDir()
	copyTree(t, "testdata/base", tree)
	var out bytes.Buffer
	if err := Main(context.Background(), []string{tree}, &out, &out); err != nil {
		t.Fatalf("good tree: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "SUMMARY: submission looks OK") || !strings.Contains(out.String(), "Results ") {
		t.Fatalf("output:\n%s", out.String())
	}
	os.Remove(filepath.Join(tree, resnetDir, "SingleStream/user.conf"))
	out.Reset()
	err := Main(context.Background(), []string{tree, "--round", "v6.1"}, &out, &out)
	if !errors.Is(err, ErrFailed) || !strings.Contains(out.String(), "SUMMARY: submission has errors") {
		t.Fatalf("err %v, output:\n%s", err, out.String())
	}
	if err := Main(context.Background(), []string{tree, "--round", "v9.9"}, &out, &out); err == nil || !strings.Contains(err.Error(), "unknown round") {
		t.Fatalf("unknown round: %v", err)
	}
}

// Retired benchmarks validate only with the rounds that list them.
func TestRoundTables(t *testing.T) {
	for _, c := range []struct {
		round, model string
		want         bool
	}{
		{"v6.1", "resnet", true}, {"v6.1", "retinanet", false}, {"v6.0", "retinanet", true},
		{"v6.1", "gptj-99", false}, {"v5.0", "gptj-99", true}, {"v5.1", "gptj-99", false},
		{"v5.1", "dlrm-v2-99", true}, {"v6.0", "dlrm-v2-99", false}, {"v6.1", "llama2-70b-99.9", true},
	} {
		if _, ok := Rounds[c.round].Models[c.model]; ok != c.want {
			t.Errorf("%s in %s: %v, want %v", c.model, c.round, ok, c.want)
		}
	}
}

// An empty folder is an error without a summary that says the
// submission looks OK, and a second folder is not silently ignored.
func TestMainEmptyFolderAndExtraArgument(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	err := Main(context.Background(), []string{dir}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "no results under "+dir) || strings.Contains(out.String(), "looks OK") {
		t.Fatalf("empty folder: %v, output:\n%s", err, out.String())
	}
	if err := Main(context.Background(), []string{dir, "other"}, &out, &out); err == nil || !strings.Contains(err.Error(), `unexpected argument "other"`) {
		t.Fatalf("extra argument: %v", err)
	}
}
