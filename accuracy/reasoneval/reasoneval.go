// Package reasoneval scores the MLPerf reasoning benchmarks' decoded
// outputs as their reference scripts do, each row by the evaluator of its
// data set family, and prints what they print:
//
//   - DeepSeekR1 is mlcommons/inference language/deepseek-r1/eval_accuracy.py
//     on an accuracy log (process_mlperf_log_accuracy, process_dataframe,
//     print_evaluation_results): exact_match is the mean of 100 for a
//     correct row and 0 otherwise over the logged rows, tokens_per_sample
//     the mean output length in tokens;
//   - GPTOSS is language/gpt-oss-120b/eval_mlperf_accuracy.py: correct and
//     total per data set, each data set's count divided by its repeats in
//     the accuracy set (aime25 8, gpt-oss gpqa_diamond 5,
//     livecodebench_v6 3), final score = Σ correct/repeats over Σ
//     total/repeats.
//
// The families are those of the references' DATASET_EVALUATORS: gpqa
// and mmlu_pro (accuracy/choice), math500 (accuracy/boxed and
// accuracy/mathgrade), aime (accuracy/boxed), livecodebench
// (accuracy/lcb, the programs run in the sandbox), and for gpt-oss mmlu.
package reasoneval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/accuracy/boxed"
	"github.com/mlperf-go/inference/accuracy/choice"
	"github.com/mlperf-go/inference/accuracy/lcb"
	"github.com/mlperf-go/inference/accuracy/mathgrade"
	"github.com/mlperf-go/inference/internal/pynum"
	"github.com/mlperf-go/inference/internal/pystr"
)

// Row is what the scorers read of a data set row: its dataset column, its
// ground_truth (the answer, or a LiveCodeBench question id) as Python's
// str() gives it, and whether it is missing (None or NaN), which counts
// as wrong without parsing. It has the fields of datasets/reasoning's Row
// of the same names.
type Row struct {
	Dataset         string
	GroundTruth     string
	GroundTruthNull bool
}

// Options are what the LiveCodeBench rows need; a log without them needs
// none.
type Options struct {
	// Problems are the LiveCodeBench problems by question id
	// (lcb.LoadRelease: release_v1 for DeepSeek-R1, release_v6 for
	// gpt-oss).
	Problems map[string]*lcb.Problem
	// Grader runs the programs (nil: lcb.NewGrader(nil, 0), closed after).
	Grader *lcb.Grader
	// Workers grade programs at once (0: the number of CPUs, as the
	// references' process pools).
	Workers int
	// Log receives notes (nil discards them).
	Log io.Writer
}

// Result is a scored log.
type Result struct {
	// ExactMatch is the checker's exact_match: DeepSeek-R1's mean
	// accuracy, gpt-oss's final score percentage.
	ExactMatch float64
	// TokensPerSample is the mean output length in tokens.
	TokensPerSample float64
	Samples         int
	// Correct says which outputs were scored correct, in order.
	Correct []bool
	// Lines are the accuracy.txt lines the submission checker parses.
	Lines []string
	// Text is what the reference script prints on stdout.
	Text string
}

// flavour tells the two references' evaluators apart.
type flavour int

const (
	deepseek flavour = iota
	gptoss
)

// family is the DATASET_EVALUATORS key a dataset name belongs to (the
// first contained in it, lower-cased), "" if none.
func family(dataset string, f flavour) string {
	keys := []string{"gpqa", "mmlu_pro", "math500", "aime", "livecodebench"}
	if f == gptoss {
		keys = append(keys, "mmlu")
	}
	d := pystr.Lower(dataset)
	for _, k := range keys {
		if strings.Contains(d, k) {
			return k
		}
	}
	return ""
}

// score decides one non-LiveCodeBench output (parse, then evaluate).
func score(f flavour, fam, text string, row Row) bool {
	if row.GroundTruthNull {
		return false
	}
	switch fam {
	case "gpqa", "mmlu_pro", "mmlu":
		max, opts := byte('D'), choice.GPQA
		if fam != "gpqa" {
			max, opts = 'J', choice.MMLUPro
		}
		var p string
		var ok bool
		if f == deepseek {
			p, ok = choice.ParseR1(text, max)
		} else {
			p, ok = choice.ParseHarmony(text, max)
		}
		return choice.Correct(p, ok, row.GroundTruth, opts)
	case "math500":
		p, ok := boxed.Boxed(text)
		if !ok || p == "" || row.GroundTruth == "" {
			return false
		}
		return mathgrade.Grade(pystr.Strip(p), row.GroundTruth)
	case "aime":
		v, ok := boxed.AIME(text)
		return boxed.AIMECorrect(v, ok, row.GroundTruth)
	}
	return false
}

// parseCode is the flavour's parse_code.
func parseCode(f flavour, text string) (string, bool) {
	if f == deepseek {
		return lcb.ParseR1(text)
	}
	return lcb.ParseHarmony(text)
}

// evaluate scores every output; LiveCodeBench programs are graded in
// parallel.
func evaluate(ctx context.Context, f flavour, rows []Row, outputs []string, opt Options) ([]bool, error) {
	if len(rows) != len(outputs) {
		return nil, fmt.Errorf("reasoneval: %d rows for %d outputs", len(rows), len(outputs))
	}
	correct := make([]bool, len(rows))
	type job struct {
		i    int
		code string
		p    *lcb.Problem
	}
	var jobs []job
	for i, row := range rows {
		if strings.TrimSpace(row.Dataset) == "" {
			return nil, fmt.Errorf("reasoneval: output %d: the row has no dataset name (the reference raises: Dataset name cannot be empty)", i)
		}
		fam := family(row.Dataset, f)
		if fam == "" {
			return nil, fmt.Errorf("reasoneval: output %d: no evaluator for dataset %q (the reference raises; known: gpqa, mmlu_pro, math500, aime, livecodebench)", i, row.Dataset)
		}
		if fam != "livecodebench" {
			correct[i] = score(f, fam, outputs[i], row)
			continue
		}
		code, ok := parseCode(f, outputs[i])
		if !ok || row.GroundTruthNull || code == "" || row.GroundTruth == "" {
			continue
		}
		if opt.Problems == nil {
			return nil, fmt.Errorf("reasoneval: dataset %q holds LiveCodeBench rows, whose tests are not in the data set: give the code_generation_lite problems (lcb.LoadRelease)", row.Dataset)
		}
		p := opt.Problems[row.GroundTruth]
		if p == nil {
			continue // the reference: not found in the benchmark, wrong
		}
		jobs = append(jobs, job{i, code, p})
	}
	if len(jobs) == 0 {
		return correct, nil
	}
	g := opt.Grader
	if g == nil {
		var err error
		if g, err = lcb.NewGrader(nil, 0); err != nil {
			return nil, fmt.Errorf("reasoneval: %w", err)
		}
		defer g.Close()
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	ch := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range min(workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				v, err := g.Grade(ctx, j.p, j.code)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				correct[j.i] = err == nil && v.Passed
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("reasoneval: LiveCodeBench: %w", firstErr)
	}
	return correct, nil
}

// DeepSeekR1 scores a DeepSeek-R1 accuracy log's outputs (the first entry
// of each qsl_idx, decoded without special tokens): rows[i] is output i's
// data set row, tokens[i] its length in token ids.
func DeepSeekR1(ctx context.Context, rows []Row, outputs []string, tokens []int, opt Options) (*Result, error) {
	if len(tokens) != len(outputs) {
		return nil, fmt.Errorf("reasoneval: %d token counts for %d outputs", len(tokens), len(outputs))
	}
	if len(outputs) == 0 {
		return nil, fmt.Errorf("reasoneval: no outputs (the reference raises: No valid predictions found in MLPerf log)")
	}
	correct, err := evaluate(ctx, deepseek, rows, outputs, opt)
	if err != nil {
		return nil, err
	}
	n := 0
	tok := 0
	for i, c := range correct {
		if c {
			n++
		}
		tok += tokens[i]
	}
	r := &Result{Correct: correct, Samples: len(outputs)}
	r.ExactMatch = float64(n*100) / float64(len(outputs))
	r.TokensPerSample = float64(tok) / float64(len(outputs))
	dict := fmt.Sprintf("{'exact_match': %s, 'tokens_per_sample': %s, 'num-samples': %d}",
		pynum.FloatRepr(r.ExactMatch), pynum.FloatRepr(r.TokensPerSample), r.Samples)
	r.Lines = []string{dict}
	r.Text = "\nResults\n\n" + dict + "\n"
	return r, nil
}

// Repeats are eval_mlperf_accuracy.py's DATASET_REPEATS: how many times
// each data set's questions appear in gpt-oss's accuracy set (others 1).
var Repeats = map[string]int{"aime25": 8, "gpqa_diamond": 5, "livecodebench_v6": 3}

// GPTOSS scores a gpt-oss-120b accuracy log's outputs (every entry,
// decoded with special tokens kept): rows[i] is output i's data set row,
// tokens[i] its length in token ids. Text is eval_mlperf_accuracy.py's
// printout; Lines its "'exact_match': x.xxx" line for the checker and a
// "'tokens_per_sample': x" line (eval_accuracy.py's mean output length,
// which the checker bounds above for v6.1).
func GPTOSS(ctx context.Context, rows []Row, outputs []string, tokens []int, opt Options) (*Result, error) {
	if len(tokens) != len(outputs) {
		return nil, fmt.Errorf("reasoneval: %d token counts for %d outputs", len(tokens), len(outputs))
	}
	correct, err := evaluate(ctx, gptoss, rows, outputs, opt)
	if err != nil {
		return nil, err
	}
	type stat struct{ correct, total int }
	stats := map[string]*stat{}
	tok := 0
	for i, row := range rows {
		name := pystr.Lower(row.Dataset)
		s := stats[name]
		if s == nil {
			s = &stat{}
			stats[name] = s
		}
		s.total++
		if correct[i] {
			s.correct++
		}
		tok += tokens[i]
	}
	var names []string
	for k := range stats {
		names = append(names, k)
	}
	sort.Strings(names) // Python's sorted() of str: by code point, as Go's byte order for UTF-8
	totalCorrect, totalSamples := 0, 0
	final, maxScore := 0.0, 0.0
	for _, k := range names {
		s := stats[k]
		totalCorrect += s.correct
		totalSamples += s.total
		rep := repeats(k)
		final += float64(s.correct) / float64(rep)
		maxScore += float64(s.total) / float64(rep)
	}
	overall, pct := 0.0, 0.0
	if totalSamples > 0 {
		overall = float64(totalCorrect) / float64(totalSamples) * 100
	}
	if maxScore > 0 {
		pct = final / maxScore * 100
	}
	var b strings.Builder
	eq, dash := strings.Repeat("=", 80), strings.Repeat("-", 80)
	fmt.Fprintf(&b, "\n%s\nMLPerf Accuracy Evaluation Results\n%s\n", eq, eq)
	fmt.Fprintf(&b, "Total samples evaluated: %d\n", totalSamples)
	fmt.Fprintf(&b, "Overall raw accuracy: %.2f%% (%d/%d)\n%s\n", overall, totalCorrect, totalSamples, eq)
	fmt.Fprintf(&b, "\nPer-Dataset Breakdown:\n%s\n", dash)
	fmt.Fprintf(&b, "%-25s %8s %8s %8s %10s %10s\n%s\n", "Dataset", "Correct", "Total", "Repeats", "Score", "Accuracy", dash)
	var formula, values, results, maxes []string
	for _, k := range names {
		s := stats[k]
		rep := repeats(k)
		comp := float64(s.correct) / float64(rep)
		if s.total > 0 {
			fmt.Fprintf(&b, "%s %8d %8d %8d %10.2f %9.2f%%\n", pad25(k), s.correct, s.total, rep, comp, float64(s.correct)/float64(s.total)*100)
		}
		formula = append(formula, fmt.Sprintf("%s/%d", k, rep))
		values = append(values, fmt.Sprintf("%d/%d", s.correct, rep))
		results = append(results, fmt.Sprintf("%.2f", comp))
		maxes = append(maxes, fmt.Sprintf("%d/%d", s.total, rep))
	}
	fmt.Fprintf(&b, "%s\n\nFinal Score Calculation:\n%s\n", eq, dash)
	fmt.Fprintf(&b, "Formula: %s\n", strings.Join(formula, " + "))
	fmt.Fprintf(&b, "Score:   = %s\n", strings.Join(values, " + "))
	fmt.Fprintf(&b, "         = %s\n", strings.Join(results, " + "))
	fmt.Fprintf(&b, "         = %.2f\n", final)
	fmt.Fprintf(&b, "Max:     = %s\n", strings.Join(maxes, " + "))
	fmt.Fprintf(&b, "         = %.2f\n", maxScore)
	fmt.Fprintf(&b, "\nFINAL SCORE: %.2f%% (%.2f/%.2f)\n%s\n", pct, final, maxScore, eq)
	checker := fmt.Sprintf("'exact_match': %.3f", pct)
	fmt.Fprintf(&b, "\n\nPrinting for submission_checker:\n\n%s\n", checker)
	r := &Result{ExactMatch: pct, Correct: correct, Samples: len(outputs), Text: b.String()}
	if len(outputs) > 0 {
		r.TokensPerSample = float64(tok) / float64(len(outputs))
	}
	r.Lines = []string{checker, "'tokens_per_sample': " + pynum.FloatRepr(r.TokensPerSample)}
	return r, nil
}

func repeats(name string) int {
	if r, ok := Repeats[name]; ok {
		return r
	}
	return 1
}

// pad25 is Python's f"{name:25s}": left-aligned in 25 characters (code
// points), never cut.
func pad25(s string) string {
	n := len([]rune(s))
	if n >= 25 {
		return s
	}
	return s + strings.Repeat(" ", 25-n)
}

// ProblemsDir is the folder, beside a data set file or one folder up,
// where LoadProblems looks for the LiveCodeBench problems when none is
// named: a copy of livecodebench/code_generation_lite, or the synthetic
// problems a synthetic data set writes (lcb.WriteProblems).
const ProblemsDir = "code_generation_lite"

// LoadProblems returns the LiveCodeBench problems of release that rows
// need: none when no row is of the livecodebench family; else those in
// dir, or with dir "" in ProblemsDir beside dataPath (the data set file)
// or in its parent folder. Where none is found it names what to give.
func LoadProblems(rows []Row, dir, dataPath, release string) (map[string]*lcb.Problem, error) {
	need := false
	for _, r := range rows {
		if family(r.Dataset, gptoss) == "livecodebench" {
			need = true
			break
		}
	}
	if !need {
		return nil, nil
	}
	if dir == "" {
		for _, d := range []string{filepath.Dir(dataPath), filepath.Dir(filepath.Dir(dataPath))} {
			if st, err := os.Stat(filepath.Join(d, ProblemsDir)); err == nil && st.IsDir() {
				dir = filepath.Join(d, ProblemsDir)
				break
			}
		}
		if dir == "" {
			return nil, fmt.Errorf("reasoneval: the log holds LiveCodeBench rows, whose tests are not in the data set %s: give --lcb-problems DIR, a copy of the Hugging Face data set livecodebench/code_generation_lite (its %s files), or put it in %s beside the data set", dataPath, release, ProblemsDir)
		}
	}
	ps, err := lcb.LoadRelease(dir, release)
	if err != nil {
		return nil, fmt.Errorf("reasoneval: LiveCodeBench problems: %w", err)
	}
	return ps, nil
}
