package lcb

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/sandbox"

	"github.com/mlperf-go/inference/internal/goldentest"
)

// TestParseMatchesReferences holds both code parsers to the references'
// parse_code on 230 recorded outputs (testdata/parse_golden.json.gz, written
// by accuracy/reasoneval/testdata/make_goldens.py parse): fenced and
// unfenced blocks, several blocks, truncated ones, Harmony outputs with
// and without a final channel.
func TestParseMatchesReferences(t *testing.T) {
	b, err := goldentest.ReadFile("testdata/parse_golden.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text, QID   string
		R1, Harmony *string
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 200 {
		t.Fatalf("only %d outputs", len(cases))
	}
	for _, c := range cases {
		for _, f := range []struct {
			name  string
			parse func(string) (string, bool)
			want  *string
		}{{"deepseek-r1", ParseR1, c.R1}, {"gpt-oss", ParseHarmony, c.Harmony}} {
			got, ok := f.parse(c.Text)
			if ok != (f.want != nil) || ok && got != *f.want {
				t.Errorf("%s parse_code(%q) = %q %v, reference %v", f.name, c.Text, got, ok, f.want)
			}
		}
	}
}

// recorded is testdata/recorded_golden.json.gz, written by
// accuracy/reasoneval/testdata/make_goldens.py lcb: whole model outputs
// with each reference's parse_code (nil for None) and whether its
// evaluate_livecodebench passed the program, and LiveCodeBench's verdict
// on every distinct program (2-second alarms).
type recorded struct {
	Outputs []struct {
		Text, QID     string
		R1, Harmony   *string
		R1Passed      bool `json:"r1_passed"`
		HarmonyPassed bool `json:"harmony_passed"`
	}
	Verdicts []verdictCase
}

type verdictCase struct {
	QID, Code string
	Passed    bool
}

func loadProblems(t *testing.T) map[string]*Problem {
	t.Helper()
	ps, err := LoadFile("testdata/problems.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Problem{}
	for _, p := range ps {
		byID[p.QuestionID] = p
	}
	return byID
}

func loadRecorded(t *testing.T) recorded {
	t.Helper()
	b, err := goldentest.ReadFile("testdata/recorded_golden.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	var r recorded
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLoadReadsTheDataSetFormat: public and private tests (the private
// ones base64 / zlib / pickle as the data set ships them) and func_name.
func TestLoadReadsTheDataSetFormat(t *testing.T) {
	byID := loadProblems(t)
	p := byID["two-sum"]
	if p == nil || p.FuncName != "twoSum" || len(p.Tests) != 3 || p.Tests[2].Input != "[3,3]\n6" || p.Tests[2].Output != "[0, 1]" {
		t.Fatalf("two-sum = %+v", p)
	}
	if q := byID["abc001_a"]; q == nil || q.FuncName != "" || len(q.Tests) != 4 || q.Tests[3].Output != "2000000000\n" {
		t.Fatalf("abc001_a = %+v", q)
	}
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/problems.jsonl")
	os.WriteFile(filepath.Join(dir, "test.jsonl"), src, 0o644)
	m, err := LoadRelease(dir, ReleaseDeepSeekR1)
	if err != nil || len(m) != len(byID) {
		t.Fatalf("LoadRelease: %d problems, %v", len(m), err)
	}
	if _, err := LoadRelease(dir, ReleaseGPTOSS); err == nil {
		t.Error("release_v6 without test2..test6.jsonl: no error")
	}
	os.WriteFile(filepath.Join(dir, "test.jsonl"), []byte(`{"question_id": "x", "public_test_cases": "[", "private_test_cases": "[]"}`+"\n"), 0o644)
	if _, err := LoadRelease(dir, ReleaseDeepSeekR1); err == nil {
		t.Error("corrupt public_test_cases: no error")
	}
}

// TestRecordedOutputsScoreAsLiveCodeBench takes the recorded whole
// outputs (378 over 19 problems, standard-input and LeetCode-style) through
// both parsers and the sandbox, and holds every program's verdict and every
// output's score to the references'. The programs are right, wrong,
// crashing, too slow, not Python, and trip over what LiveCodeBench's
// run_test does: stdin patched only for sys.stdin, input and builtins.open
// (the prelude's io.open is not), the program wrapped in a function
// (global and from __future__ fail), one spelling of the __main__ guard
// stripped, "class Solution" looked for as text, output compared line by
// line then as Decimals, call results compared with == after a top-level
// tuple becomes a list, quit() disabled and exit() absorbed, the
// int-to-str limit raised. The distinct programs (over 200) run
// concurrently, a few per CPU.
func TestRecordedOutputsScoreAsLiveCodeBench(t *testing.T) {
	byID := loadProblems(t)
	rec := loadRecorded(t)
	if len(rec.Outputs) < 200 || len(rec.Verdicts) < 200 {
		t.Fatalf("only %d outputs, %d programs", len(rec.Outputs), len(rec.Verdicts))
	}
	golden := map[[2]string]bool{}
	for _, v := range rec.Verdicts {
		golden[[2]string{v.QID, v.Code}] = v.Passed
	}
	// every program the parsers find is one the golden graded
	for _, o := range rec.Outputs {
		for _, f := range []struct {
			name  string
			parse func(string) (string, bool)
			want  *string
		}{{"deepseek-r1", ParseR1, o.R1}, {"gpt-oss", ParseHarmony, o.Harmony}} {
			got, ok := f.parse(o.Text)
			if ok != (f.want != nil) || ok && got != *f.want {
				t.Errorf("%s parse_code(%q) = %q %v, reference %v", f.name, o.Text, got, ok, f.want)
				continue
			}
			if _, graded := golden[[2]string{o.QID, got}]; ok && got != "" && !graded {
				t.Fatalf("%s: program %q has no verdict in the golden", o.QID, got)
			}
		}
	}
	g, err := NewGrader(nil, 2*time.Second)
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) || errors.Is(err, sandbox.ErrToolchainMissing) {
			t.Skipf("no sandbox or python3 here: %v", err)
		}
		t.Fatal(err)
	}
	defer g.Close()
	got := make([]Verdict, len(rec.Verdicts))
	errs := make([]error, len(rec.Verdicts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	for i, v := range rec.Verdicts {
		p := byID[v.QID]
		if p == nil {
			t.Fatalf("no problem %s in testdata/problems.jsonl", v.QID)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			got[i], errs[i] = g.Grade(context.Background(), p, v.Code)
		}()
	}
	wg.Wait()
	passed := map[[2]string]bool{}
	npass := 0
	for i, v := range rec.Verdicts {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		passed[[2]string{v.QID, v.Code}] = got[i].Passed
		if got[i].Passed {
			npass++
		}
		if got[i].Passed != v.Passed {
			t.Errorf("%s:\n%s\npassed %v (results %v, %s; stderr %q), LiveCodeBench %v", v.QID, v.Code, got[i].Passed, got[i].Results, got[i].Run, got[i].Run.Stderr, v.Passed)
		}
	}
	if npass == 0 || npass == len(rec.Verdicts) {
		t.Fatalf("%d of %d programs pass: the set must hold passes and failures", npass, len(rec.Verdicts))
	}
	// each output's score: its program's verdict, false without one
	for _, o := range rec.Outputs {
		for _, f := range []struct {
			name  string
			parse func(string) (string, bool)
			want  bool
		}{{"deepseek-r1", ParseR1, o.R1Passed}, {"gpt-oss", ParseHarmony, o.HarmonyPassed}} {
			code, ok := f.parse(o.Text)
			if score := ok && code != "" && passed[[2]string{o.QID, code}]; score != f.want {
				t.Errorf("%s: %s output scored %v, reference %v:\n%s", o.QID, f.name, score, f.want, o.Text)
			}
		}
	}
	t.Logf("%d outputs, %d programs graded as LiveCodeBench grades them (%d pass)", len(rec.Outputs), len(rec.Verdicts), npass)
}

// WriteProblems writes a folder every release reads back: the problems
// with their tests in order, the functional one's func_name, and nothing
// more in the later files.
func TestWriteProblemsLoadsBackInEveryRelease(t *testing.T) {
	dir := t.TempDir()
	want := []*Problem{
		{QuestionID: "sum_1", Platform: "atcoder", Tests: []Test{{Input: "3 4\n", Output: "7\n", TestType: "stdin"}, {Input: "0 0\n", Output: "0\n", TestType: "stdin"}}},
		{QuestionID: "lc_2", Platform: "leetcode", FuncName: "add", Tests: []Test{{Input: "1\n2", Output: "3", TestType: "functional"}}},
	}
	if err := WriteProblems(dir, want); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"release_v1", "release_v6"} {
		got, err := LoadRelease(dir, rel)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d problems, want %d", rel, len(got), len(want))
		}
		for _, w := range want {
			g := got[w.QuestionID]
			if g == nil || g.Platform != w.Platform || g.FuncName != w.FuncName || !slices.Equal(g.Tests, w.Tests) {
				t.Errorf("%s: %s read back as %+v, want %+v", rel, w.QuestionID, g, w)
			}
		}
	}
}
