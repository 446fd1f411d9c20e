package mbxp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Scored are the languages evaluate_mbxp.py checks, in its order; it skips
// responses in any other.
var Scored = []string{"cpp", "python", "php", "javascript", "typescript", "ruby"}

// ErrNoProblems: no response in a scored language (the reference divides
// by zero).
var ErrNoProblems = errors.New("mbxp: no response in a scored language (cpp, python, php, javascript, typescript, ruby)")

// Problem is one MBXP row of the Mixtral data set with the model's
// response.
type Problem struct {
	Lang       string // from the row's id, "<lang>_<entry point>"
	EntryPoint string
	Test       string // the row's gt_output: the test code
	Response   string // the decoded model output
}

// SplitID splits a data set id "<lang>_<entry point>" as
// evaluate-accuracy.py's create_mbxp_dict does (at the first "_").
func SplitID(id string) (lang, entryPoint string, err error) {
	lang, entryPoint, ok := strings.Cut(id, "_")
	if !ok {
		return "", "", fmt.Errorf("mbxp: id %q is not <language>_<entry point>", id)
	}
	return lang, entryPoint, nil
}

// Case is one checked response.
type Case struct {
	Key      string // "<lang>_<entry point>", the reference's key
	Lang     string
	Passed   bool
	Solution string // what was checked (Solution of the response)
	Message  string // Verdict.Message
}

// Result is an MBXP evaluation.
type Result struct {
	// PassRate is 100 × Passed / Checked, as evaluate_mbxp returns it.
	PassRate        float64
	Passed, Checked int
	// LangPassed and LangChecked count per language.
	LangPassed, LangChecked map[string]int
	// Skipped counts the responses per language not scored.
	Skipped map[string]int
	// Missing maps a language whose toolchain is missing to the error
	// (its responses are counted as failed).
	Missing map[string]error
	// Cases are the checked responses in input order.
	Cases   []Case
	Elapsed time.Duration
}

// Options tune Evaluate.
type Options struct {
	// Workers checks run at once (default runtime.NumCPU(); the reference
	// takes --n_workers, default 2).
	Workers int
	// Log receives warnings: isolation the sandbox could not set up, a
	// missing toolchain (once per language). Nil discards them.
	Log io.Writer
}

// Evaluate checks every problem in a scored language as evaluate_mbxp's
// workers do and returns the pass rate. The error is for what stops the
// evaluation (a sandbox that cannot make a folder, a canceled context,
// ErrNoProblems); a failing program is a failed case, and so is one whose
// toolchain is missing.
func (c *Checker) Evaluate(ctx context.Context, problems []Problem, opt Options) (Result, error) {
	start := time.Now()
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	res := Result{LangPassed: map[string]int{}, LangChecked: map[string]int{}, Skipped: map[string]int{}, Missing: map[string]error{}}
	var todo []int
	for i, p := range problems {
		if slices.Contains(Scored, p.Lang) {
			todo = append(todo, i)
		} else {
			res.Skipped[p.Lang]++
		}
	}
	if len(todo) == 0 {
		return res, ErrNoProblems
	}
	if iso := c.sb.Isolation(); len(iso.Notes) > 0 {
		fmt.Fprintf(log, "mbxp: warning: generated code runs with less isolation here: %s\n", iso)
	}
	for _, lang := range Scored {
		if l := c.langs[lang]; l != nil {
			if err := c.sb.Toolchain(l); err != nil {
				res.Missing[lang] = err
				n := 0
				for _, i := range todo {
					if problems[i].Lang == lang {
						n++
					}
				}
				if n > 0 {
					fmt.Fprintf(log, "mbxp: warning: %v; its %d responses are counted as failed, as the reference counts a check that cannot run\n", err, n)
				}
			}
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	cases := make([]Case, len(todo))
	next := make(chan int)
	var (
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(workers, len(todo)) {
		wg.Go(func() {
			for k := range next {
				p := problems[todo[k]]
				cs := Case{Key: p.Lang + "_" + p.EntryPoint, Lang: p.Lang, Solution: Solution(p.Lang, p.Response)}
				if err := res.Missing[p.Lang]; err != nil {
					cs.Message = err.Error()
				} else {
					v, err := c.Check(ctx, p.Lang, "", cs.Solution, p.Test, p.EntryPoint)
					if err != nil {
						errOnce.Do(func() { first = err; cancel() })
						continue
					}
					cs.Passed, cs.Message = v.Passed, v.Message
				}
				cases[k] = cs
			}
		})
	}
feed:
	for k := range todo {
		select {
		case next <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return res, first
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("mbxp: %w", err)
	}
	res.Cases = cases
	for _, cs := range cases {
		res.Checked++
		res.LangChecked[cs.Lang]++
		res.LangPassed[cs.Lang] += 0 // listed with 0, as the reference's setdefault does
		if cs.Passed {
			res.Passed++
			res.LangPassed[cs.Lang]++
		}
	}
	res.PassRate = float64(100*res.Passed) / float64(res.Checked)
	res.Elapsed = time.Since(start)
	return res, nil
}

// Report prints the lines evaluate_mbxp prints: "Processed N in Ts", the
// pass rate as "% .02f% pass@1", and the per-language passes and counts as
// Python dicts (here in the order of Scored).
func (r Result) Report(w io.Writer) {
	fmt.Fprintf(w, "Processed %d in %gs\n", r.Checked, r.Elapsed.Seconds())
	fmt.Fprintf(w, "% .2f%% pass@1\n", r.PassRate)
	fmt.Fprintf(w, "%s %s\n", pyDict(r.LangPassed), pyDict(r.LangChecked))
}

func pyDict(m map[string]int) string {
	var parts []string
	for _, k := range Scored {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("'%s': %d", k, v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
