package lcb

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mlperf-go/inference/sandbox"
)

// TestParseMatchesReferences holds both code parsers to the references'
// parse_code on 230 recorded outputs (testdata/parse_golden.json.gz, written
// by accuracy/reasoneval/testdata/make_goldens.py parse): fenced and
// unfenced blocks, several blocks, truncated ones, Harmony outputs with
// and without a final channel.
func TestParseMatchesReferences(t *testing.T) {
	b, err := readGz("testdata/parse_golden.json.gz")
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

type verdictCase struct {
	QID, Code string
	Passed    bool
}

func loadVerdicts(t *testing.T) (map[string]*Problem, []verdictCase) {
	t.Helper()
	ps, err := LoadFile("testdata/problems.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Problem{}
	for _, p := range ps {
		byID[p.QuestionID] = p
	}
	b, err := os.ReadFile("testdata/verdict_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []verdictCase
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return byID, vs
}

// TestLoadReadsTheDataSetFormat: public and private tests (the private
// ones base64 / zlib / pickle as the data set ships them) and func_name.
func TestLoadReadsTheDataSetFormat(t *testing.T) {
	byID, _ := loadVerdicts(t)
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

// fast are the programs TestGradeMatchesReference runs on every test
// run (a few, as LiveCodeBench runs them one Python process each): a
// pass and an extra output line on standard input, output as a float that
// compares equal as a Decimal, a __main__ guard, the disabled os.system,
// an infinite loop (the alarm), a LeetCode method returning a tuple, one
// raising, a misnamed one.
var fast = []string{
	"a, b = map(int, input().split())\nprint(a + b)",
	"a, b = map(int, input().split())\nprint(a + b)\nprint('debug')",
	"a, b = map(int, input().split())\nprint(float(a + b))",
	"def main():\n    a, b = map(int, input().split())\n    print(a + b)\n\nif __name__ == '__main__':\n    main()",
	"import os\nos.system('echo hi')\na, b = map(int, input().split())\nprint(a + b)",
	"while True:\n    pass",
	"class Solution:\n    def twoSum(self, nums, target):\n        for i in range(len(nums)):\n            for j in range(i + 1, len(nums)):\n                if nums[i] + nums[j] == target:\n                    return (i, j)",
	"class Solution:\n    def twoSum(self, nums, target):\n        raise ValueError('no')",
	"class Solution:\n    def two_sum(self, nums, target):\n        return [0, 1]",
}

// TestGradeMatchesReference runs programs in the sandbox and compares the
// verdicts with LiveCodeBench's own grading of them
// (testdata/verdict_golden.json, 60 programs over 6 problems, made by
// accuracy/reasoneval/testdata/make_goldens.py lcb with 2-second alarms).
// MLPERF_LCB_ALL=1 runs all 60 (about 30 s); otherwise the fast ones.
func TestGradeMatchesReference(t *testing.T) {
	byID, vs := loadVerdicts(t)
	all := os.Getenv("MLPERF_LCB_ALL") != ""
	g, err := NewGrader(nil, 2*time.Second)
	if err != nil {
		if !all && (errors.Is(err, sandbox.ErrUnavailable) || errors.Is(err, sandbox.ErrToolchainMissing)) {
			t.Skipf("no sandbox or python3 here: %v", err)
		}
		t.Fatal(err)
	}
	defer g.Close()
	ran, passed := 0, 0
	for _, v := range vs {
		if !all && !slices.Contains(fast, v.Code) {
			continue
		}
		ran++
		got, err := g.Grade(context.Background(), byID[v.QID], v.Code)
		if err != nil {
			t.Fatal(err)
		}
		if got.Passed != v.Passed {
			t.Errorf("%s:\n%s\npassed %v (results %v, %s; stderr %q), LiveCodeBench %v", v.QID, v.Code, got.Passed, got.Results, got.Run, got.Run.Stderr, v.Passed)
		}
		if got.Passed {
			passed++
		}
	}
	if ran < len(fast) || passed == 0 || passed == ran {
		t.Fatalf("ran %d programs, %d passed: the subset must hold passes and failures", ran, passed)
	}
	t.Logf("%d programs graded as LiveCodeBench grades them (%d pass)", ran, passed)
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
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
