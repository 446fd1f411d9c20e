package reasoneval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/accuracy/lcb"
	"github.com/mlperf-go/inference/sandbox"
)

type pipeline struct {
	Rows []struct{ Dataset, Truth string }
	Log  []struct {
		QSLIdx int `json:"qsl_idx"`
		Text   string
	}
	Stdout  string
	Correct []float64
}

// inputs turns a golden log into what the benchmarks hand the scorer:
// entries past the data set skipped and (DeepSeek-R1) only the first of
// each qsl_idx, as the reference scripts read the log; each id is one
// code point (the goldens' stub tokenizer).
func (p *pipeline) inputs(unique bool) ([]Row, []string, []int) {
	var rows []Row
	var outs []string
	var toks []int
	seen := map[int]bool{}
	for _, e := range p.Log {
		if unique && seen[e.QSLIdx] {
			continue
		}
		seen[e.QSLIdx] = true
		if e.QSLIdx >= len(p.Rows) {
			continue
		}
		r := p.Rows[e.QSLIdx]
		rows = append(rows, Row{Dataset: r.Dataset, GroundTruth: r.Truth})
		outs = append(outs, e.Text)
		toks = append(toks, len([]rune(e.Text)))
	}
	return rows, outs, toks
}

func options(t *testing.T) Options {
	t.Helper()
	ps, err := lcb.LoadFile("../lcb/testdata/problems.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*lcb.Problem{}
	for _, p := range ps {
		m[p.QuestionID] = p
	}
	g, err := lcb.NewGrader(nil, 2*time.Second)
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) || errors.Is(err, sandbox.ErrToolchainMissing) {
			t.Skipf("no sandbox or python3: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return Options{Problems: m, Grader: g, Workers: 2}
}

func load(t *testing.T) map[string]*pipeline {
	t.Helper()
	b, err := os.ReadFile("testdata/pipeline_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]*pipeline
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDeepSeekR1PrintsWhatEvalAccuracyPrints scores the golden log (136
// rows over the five families, a duplicate and an out-of-range entry) and
// compares the printout and each row's verdict with eval_accuracy.py's on
// the same log (testdata/pipeline_golden.json, make_goldens.py pipeline).
func TestDeepSeekR1PrintsWhatEvalAccuracyPrints(t *testing.T) {
	g := load(t)["deepseek"]
	rows, outs, toks := g.inputs(true)
	r, err := DeepSeekR1(context.Background(), rows, outs, toks, options(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != g.Stdout {
		t.Errorf("printed:\n%s\neval_accuracy.py:\n%s", r.Text, g.Stdout)
	}
	if len(r.Correct) != len(g.Correct) {
		t.Fatalf("%d verdicts, reference %d", len(r.Correct), len(g.Correct))
	}
	for i, c := range g.Correct {
		if r.Correct[i] != (c > 0) {
			t.Errorf("row %d (%s, truth %q): correct %v, reference %v\n%s", i, rows[i].Dataset, rows[i].GroundTruth, r.Correct[i], c > 0, outs[i])
		}
	}
	if len(r.Lines) != 1 || !strings.Contains(r.Lines[0], "'exact_match': 50.0, 'tokens_per_sample': ") {
		t.Errorf("accuracy.txt lines %q", r.Lines)
	}
}

// TestGPTOSSPrintsWhatEvalMLPerfAccuracyPrints: the final score table and
// the checker line of eval_mlperf_accuracy.py on the golden log (106 rows
// over aime25, gpqa_diamond, livecodebench_v6 and math500, every entry
// counted, a duplicate included).
func TestGPTOSSPrintsWhatEvalMLPerfAccuracyPrints(t *testing.T) {
	g := load(t)["gptoss"]
	rows, outs, toks := g.inputs(false)
	r, err := GPTOSS(context.Background(), rows, outs, toks, options(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != g.Stdout {
		t.Errorf("printed:\n%s\neval_mlperf_accuracy.py:\n%s", r.Text, g.Stdout)
	}
	if r.Lines[0] != "'exact_match': 54.854" || !strings.HasPrefix(r.Lines[1], "'tokens_per_sample': ") {
		t.Errorf("accuracy.txt lines %q", r.Lines)
	}
}

// TestRefusals: an unknown data set, a missing name and LiveCodeBench rows
// without the problems are errors naming what is missing, not a score.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		rows []Row
		want string
	}{
		{[]Row{{Dataset: "squad", GroundTruth: "x"}}, "no evaluator"},
		{[]Row{{Dataset: " ", GroundTruth: "x"}}, "no dataset name"},
		{[]Row{{Dataset: "livecodebench", GroundTruth: "abc001_a"}}, "code_generation_lite"},
	} {
		_, err := DeepSeekR1(ctx, c.rows, []string{"```python\nprint(1)\n```"}, []int{3}, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.rows, err, c.want)
		}
	}
	if _, err := GPTOSS(ctx, []Row{{Dataset: "aime25", GroundTruth: "1"}}, []string{"a", "b"}, []int{1, 1}, Options{}); err == nil {
		t.Error("rows and outputs of different lengths: no error")
	}
	// gpt-oss knows mmlu; DeepSeek-R1 does not
	if _, err := GPTOSS(ctx, []Row{{Dataset: "mmlu", GroundTruth: "B"}}, []string{"<|channel|>final<|message|>B"}, []int{1}, Options{}); err != nil {
		t.Errorf("gpt-oss mmlu: %v", err)
	}
	if _, err := DeepSeekR1(ctx, []Row{{Dataset: "mmlu", GroundTruth: "B"}}, []string{"ANSWER: B"}, []int{1}, Options{}); err == nil {
		t.Error("deepseek-r1 mmlu: no error")
	}
}
