package mbxp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/sandbox"
)

// The goldens come from the reference tools themselves: testdata/
// make_goldens.py runs mxeval's check_correctness_* and evaluate_mbxp.py
// (see its header).

type mbxpProblem struct {
	TaskID            string `json:"task_id"`
	Language          string `json:"language"`
	Prompt            string `json:"prompt"`
	Test              string `json:"test"`
	EntryPoint        string `json:"entry_point"`
	CanonicalSolution string `json:"canonical_solution"`
	MutatedSolution   string `json:"mutated_solution"`
}

type golden struct {
	Check []struct {
		TaskID    string `json:"task_id"`
		Canonical bool
		Mutated   bool
	}
	Runs []struct {
		Name     string
		PassRate float64 `json:"pass_rate"`
		Cases    []struct {
			Lang       string
			EntryPoint string `json:"entry_point"`
			Response   string
			Checked    bool
			Solution   *string
			Passed     *bool
		}
	}
	Postprocess  map[string][]struct{ In, Out string }
	PythonQuirks []struct {
		Completion, Result string
		Passed             bool
	} `json:"python_quirks"`
}

func loadGolden(t *testing.T) ([]mbxpProblem, *golden) {
	t.Helper()
	f, err := os.Open("testdata/mbxp_problems.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []mbxpProblem
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p mbxpProblem
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	b, err := os.ReadFile("testdata/mbxp_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	g := new(golden)
	if err := json.Unmarshal(b, g); err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || len(g.Check) != len(ps) || len(g.Runs) != 3 {
		t.Fatalf("%d problems, %d checks, %d runs", len(ps), len(g.Check), len(g.Runs))
	}
	return ps, g
}

var (
	shared     *Checker
	sharedErr  error
	sharedOnce sync.Once
)

// newChecker is one Checker for the package's tests, so that Go's build
// cache is made once.
func newChecker(t *testing.T) *Checker {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = NewChecker(nil) })
	if sharedErr != nil {
		if errors.Is(sharedErr, sandbox.ErrUnavailable) {
			t.Skip(sharedErr)
		}
		t.Fatal(sharedErr)
	}
	return shared
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

func TestPostprocessMatchesReference(t *testing.T) {
	_, g := loadGolden(t)
	fns := map[string]func(string) string{"golang": PostprocessGolang, "scala": PostprocessScala, "python": PostprocessPython}
	for name, cases := range g.Postprocess {
		fn := fns[name]
		if fn == nil || len(cases) == 0 {
			t.Fatalf("golden postprocess_%s has no Go counterpart or no case", name)
		}
		for _, c := range cases {
			if got := fn(c.In); got != c.Out {
				t.Errorf("postprocess_%s(%q) = %q, want %q", name, c.In, got, c.Out)
			}
		}
	}
}

// TestSolutionMatchesWorker: the text evaluate_mbxp's worker handed to
// the checker, for every response of every run.
func TestSolutionMatchesWorker(t *testing.T) {
	_, g := loadGolden(t)
	n := 0
	for _, r := range g.Runs {
		for _, c := range r.Cases {
			if !c.Checked {
				continue
			}
			n++
			if got := Solution(c.Lang, c.Response); got != *c.Solution {
				t.Errorf("%s %s_%s: solution\n%q\nwant\n%q", r.Name, c.Lang, c.EntryPoint, got, *c.Solution)
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d checked responses in the golden", n)
	}
}

// TestCanonicalSolutionsPassMutatedFail runs real MBXP problems: prompt +
// canonical solution + test passes, the mutated solution fails, as
// mxeval's checkers said, for every language whose toolchain is here
// (two problems each of the compiled languages, whose compilers are slow
// on 2 cores; all four of the others).
func TestCanonicalSolutionsPassMutatedFail(t *testing.T) {
	ps, g := loadGolden(t)
	c := newChecker(t)
	langs := map[string]int{}
	for i, p := range ps {
		want := g.Check[i]
		if want.TaskID != p.TaskID || !want.Canonical || want.Mutated {
			t.Fatalf("golden check %d: %+v for %s", i, want, p.TaskID)
		}
		if c.langs[p.Language].Compile != nil && langs[p.Language] == 2 {
			continue
		}
		langs[p.Language]++
		t.Run(p.TaskID, func(t *testing.T) {
			if p.Language != "go" { // Go's first build fills the cache the others use
				t.Parallel()
			}
			if err := c.sb.Toolchain(c.langs[p.Language]); err != nil {
				t.Skip(err)
			}
			v, err := c.Check(context.Background(), p.Language, p.Prompt, p.CanonicalSolution, p.Test, p.EntryPoint)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed {
				t.Errorf("canonical solution failed: %s (compile %v, run %v)", v.Message, v.Outcome.Compile, v.Outcome.Run)
			}
			v, err = c.Check(context.Background(), p.Language, p.Prompt, p.MutatedSolution, p.Test, p.EntryPoint)
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed {
				t.Errorf("mutated solution passed")
			}
		})
	}
	if len(langs) != 7 {
		t.Fatalf("languages %v, want cpp, python, php, javascript, typescript, ruby, go", langs)
	}
}

// TestEvaluateMatchesReference runs evaluate_mbxp's "mixed" run (per
// language: a response with escaped underscores or none, one with no
// closing fence, a mutated one, a canonical one) plus a Go response,
// which the reference skips.
func TestEvaluateMatchesReference(t *testing.T) {
	_, g := loadGolden(t)
	c := newChecker(t)
	run := g.Runs[2]
	if run.Name != "mixed" {
		t.Fatalf("run %q", run.Name)
	}
	var probs []Problem
	tests := map[string]string{}
	ps, _ := loadGolden(t)
	for _, p := range ps {
		tests[p.Language+"_"+p.EntryPoint] = p.Test
	}
	type want struct {
		key, solution string
		passed        bool
	}
	var checked []want
	for _, cs := range run.Cases {
		if cs.Checked {
			if err := c.sb.Toolchain(c.langs[cs.Lang]); err != nil {
				t.Skipf("the reference's score needs every scored language: %v", err)
			}
			checked = append(checked, want{cs.Lang + "_" + cs.EntryPoint, *cs.Solution, *cs.Passed})
		}
		probs = append(probs, Problem{Lang: cs.Lang, EntryPoint: cs.EntryPoint, Test: tests[cs.Lang+"_"+cs.EntryPoint], Response: cs.Response})
	}
	var log bytes.Buffer
	res, err := c.Evaluate(context.Background(), probs, Options{Workers: 2, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.PassRate != run.PassRate || res.Checked != len(checked) || res.Skipped["go"] != len(run.Cases)-len(checked) || len(checked) != 24 {
		t.Fatalf("pass rate %v over %d (skipped %v), want %v over %d", res.PassRate, res.Checked, res.Skipped, run.PassRate, len(checked))
	}
	for i, w := range checked {
		got := res.Cases[i]
		if got.Passed != w.passed || got.Solution != w.solution || got.Key != w.key {
			t.Errorf("%s: passed %v (%s), want %s %v", got.Key, got.Passed, got.Message, w.key, w.passed)
		}
	}
	var out bytes.Buffer
	res.Report(&out)
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "Processed 24 in ") || lines[1] != " 75.00% pass@1" ||
		lines[2] != "{'cpp': 3, 'python': 3, 'php': 3, 'javascript': 3, 'typescript': 3, 'ruby': 3} {'cpp': 4, 'python': 4, 'php': 4, 'javascript': 4, 'typescript': 4, 'ruby': 4}" {
		t.Fatalf("report:\n%s", out.String())
	}
}

// TestPythonRunsAsMxevalExecs: completions that mxeval's exec with its
// guards treats unlike a plain `python3 main.py` (exit(), sys.exit(0),
// __main__ blocks, input(), os.remove, subprocess, help, KeyboardInterrupt,
// import resource, a syntax error) get mxeval's verdict and message.
func TestPythonRunsAsMxevalExecs(t *testing.T) {
	ps, g := loadGolden(t)
	c := newChecker(t)
	if err := c.sb.Toolchain(c.langs["python"]); err != nil {
		t.Skip(err)
	}
	var p mbxpProblem
	for _, q := range ps {
		if q.TaskID == "MBPP/1" {
			p = q
		}
	}
	if len(g.PythonQuirks) < 10 {
		t.Fatalf("%d quirks in the golden", len(g.PythonQuirks))
	}
	for _, q := range g.PythonQuirks {
		v, err := c.Check(context.Background(), "python", p.Prompt, q.Completion, p.Test, p.EntryPoint)
		if err != nil {
			t.Fatal(err)
		}
		if v.Passed != q.Passed || strings.TrimSuffix(v.Message, "\n") != q.Result {
			last := q.Completion[strings.LastIndex(strings.TrimRight(q.Completion, "\n"), "\n")+1:]
			t.Errorf("completion ending %q: passed %v %q, want %v %q", last, v.Passed, v.Message, q.Passed, q.Result)
		}
	}
}

// TestMissingToolchainsCountAsFailed: with no toolchain at all, every
// response fails, with one warning per language naming its package.
func TestMissingToolchainsCountAsFailed(t *testing.T) {
	sb, err := sandbox.New(sandbox.Config{ToolDirs: []string{t.TempDir()}})
	if err != nil {
		t.Skip(err)
	}
	c, err := NewChecker(sb)
	if err != nil {
		t.Fatal(err)
	}
	probs := []Problem{
		{Lang: "cpp", EntryPoint: "f", Response: "int f() { return 1; }"},
		{Lang: "python", EntryPoint: "f", Response: "def f(): return 1", Test: "def check(c): assert c() == 1"},
		{Lang: "typescript", EntryPoint: "f", Response: "x"},
		{Lang: "kotlin", EntryPoint: "f", Response: "x"},
	}
	var log bytes.Buffer
	res, err := c.Evaluate(context.Background(), probs, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.PassRate != 0 || res.Checked != 3 || res.Skipped["kotlin"] != 1 || len(res.Missing) != len(Scored) {
		t.Fatalf("%+v", res)
	}
	for _, pkg := range []string{"apt-get install g++", "apt-get install python3", "node-typescript"} {
		if !strings.Contains(log.String(), pkg) {
			t.Errorf("no warning naming %q:\n%s", pkg, log.String())
		}
	}
	if strings.Contains(log.String(), "php") {
		t.Errorf("warned about php, which has no response:\n%s", log.String())
	}
}

func TestEvaluateRefusesNothingToScore(t *testing.T) {
	c := newChecker(t)
	_, err := c.Evaluate(context.Background(), []Problem{{Lang: "go"}, {Lang: "scala"}}, Options{})
	if !errors.Is(err, ErrNoProblems) {
		t.Fatalf("err %v", err)
	}
	if _, err := c.Check(context.Background(), "kotlin", "", "", "", ""); !errors.Is(err, ErrLanguage) {
		t.Fatalf("kotlin: %v", err)
	}
}

func TestEvaluateStopsWhenCanceled(t *testing.T) {
	c := newChecker(t)
	if err := c.sb.Toolchain(c.langs["python"]); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var probs []Problem
	for range 20 {
		probs = append(probs, Problem{Lang: "python", EntryPoint: "f", Response: "import time\ndef f():\n    time.sleep(100)\n", Test: "def check(c): c()"})
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := c.Evaluate(ctx, probs, Options{Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

func TestSplitID(t *testing.T) {
	for _, c := range []struct{ id, lang, ep string }{
		{"cpp_minCost", "cpp", "minCost"},
		{"python_min_cost", "python", "min_cost"},
		{"typescript_differ_At_One_Bit_Pos", "typescript", "differ_At_One_Bit_Pos"},
	} {
		l, e, err := SplitID(c.id)
		if err != nil || l != c.lang || e != c.ep {
			t.Errorf("%q: %q %q %v", c.id, l, e, err)
		}
	}
	if _, _, err := SplitID("train.548"); err == nil {
		t.Error("an id without _ accepted")
	}
}
