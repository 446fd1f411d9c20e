package lcb

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mlperf-go/inference/sandbox"
)

// harness grades a program inside its sandbox folder as LiveCodeBench's
// run_test does (our own port, see the file).
//
//go:embed lcb_harness.py
var harness []byte

// Timeout is the reference's per-test alarm: evaluate_livecodebench runs
// get_metrics with timeout=60.
const Timeout = 60 * time.Second

// Grader runs LiveCodeBench programs in a sandbox. Safe for concurrent
// use.
type Grader struct {
	sb      *sandbox.Sandbox
	own     bool
	timeout time.Duration
}

// NewGrader returns a Grader running programs in sb (a new sandbox when
// nil) with timeout per test (Timeout when 0; whole seconds, as
// signal.alarm takes). python3 must be installed where the sandbox finds
// its tools.
func NewGrader(sb *sandbox.Sandbox, timeout time.Duration) (*Grader, error) {
	g := &Grader{sb: sb, timeout: timeout}
	if g.timeout <= 0 {
		g.timeout = Timeout
	}
	if sb == nil {
		var err error
		if g.sb, err = sandbox.New(sandbox.Config{}); err != nil {
			return nil, fmt.Errorf("lcb: %w", err)
		}
		g.own = true
	}
	l, err := sandbox.Lang("python")
	if err != nil {
		return nil, fmt.Errorf("lcb: %w", err)
	}
	if err := g.sb.Toolchain(l); err != nil {
		return nil, fmt.Errorf("lcb: LiveCodeBench programs are Python: %w", err)
	}
	return g, nil
}

// Close closes the sandbox NewGrader made (not one it was given).
func (g *Grader) Close() error {
	if g.own {
		return g.sb.Close()
	}
	return nil
}

// Verdict is how a program did.
type Verdict struct {
	Passed bool
	// Results are run_test's per-test results, as far as it got: true for
	// a pass, -2 wrong answer, -3 time limit, -4 runtime error (a single -4
	// when the program did not load); nil where the run ended before
	// reporting (the whole-run limit, a crash), which fails.
	Results []any
	// Run is the sandbox's account of the run.
	Run sandbox.Result
}

// seconds is the alarm the harness sets: whole seconds, at least one.
func (g *Grader) seconds() int {
	s := int((g.timeout + time.Second - 1) / time.Second)
	return max(s, 1)
}

// Grade runs code against p's tests: passed when every test passes
// (all(g > 0) over run_test's results, as extract_instance_results
// counts). The whole run has check_correctness's global limit, (timeout
// + 1) × the number of tests + 5 seconds. The error is for what kept the
// program from running at all (the sandbox, the context).
func (g *Grader) Grade(ctx context.Context, p *Problem, code string) (Verdict, error) {
	spec := map[string]any{"timeout": g.seconds()}
	var ins, outs []string
	for _, t := range p.Tests {
		ins = append(ins, t.Input)
		outs = append(outs, t.Output)
	}
	spec["inputs"], spec["outputs"] = nonNil(ins), nonNil(outs)
	if p.FuncName != "" {
		spec["fn_name"] = p.FuncName
	} else {
		spec["fn_name"] = nil
	}
	tests, err := json.Marshal(spec)
	if err != nil {
		return Verdict{}, fmt.Errorf("lcb: %w", err)
	}
	var nb [16]byte
	if _, err := rand.Read(nb[:]); err != nil {
		return Verdict{}, fmt.Errorf("lcb: %w", err)
	}
	nonce := "lcb-result-" + hex.EncodeToString(nb[:]) + ":"
	wall := time.Duration((g.seconds()+1)*len(p.Tests)+5) * time.Second
	files := map[string][]byte{"lcb_harness.py": harness, "solution.py": []byte(code), "tests.json": tests}
	res, err := g.sb.Run(ctx, files, sandbox.Step{
		Argv:   []string{"python3", "lcb_harness.py", nonce},
		Env:    []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8"},
		Limits: sandbox.Limits{Wall: wall, CPU: wall},
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("lcb: %s: %w", p.QuestionID, err)
	}
	v := Verdict{Run: res}
	if i := bytes.LastIndex(res.Stdout, []byte(nonce)); i >= 0 {
		line := res.Stdout[i+len(nonce):]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if json.Unmarshal(line, &v.Results) != nil {
			v.Results = nil
		}
	}
	if res.Verdict != sandbox.OK || v.Results == nil {
		return v, nil
	}
	v.Passed = true
	for _, r := range v.Results {
		switch x := r.(type) {
		case bool:
			v.Passed = v.Passed && x
		case float64:
			v.Passed = v.Passed && x > 0
		default:
			v.Passed = false
		}
	}
	return v, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
