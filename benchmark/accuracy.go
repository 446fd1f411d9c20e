package benchmark

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
)

// Score scores an accuracy log with b's Driver after checking that the log
// has b's shape (spec.Benchmark.LogShape; a --dtype other than the
// shape's skips the check: the user says the log was written another
// way). It is the one way a benchmark's score is made: by a run in
// accuracy mode, `mlperf accuracy <name>` and the compliance tests.
func Score(ctx context.Context, b *spec.Benchmark, req *spec.ScoreRequest) (*spec.Score, error) {
	if req.Stderr == nil {
		req.Stderr = io.Discard
	}
	if req.CacheDir == "" {
		req.CacheDir = CacheDir()
	}
	if req.Engine == nil {
		req.Engine = localEngine(b, &Options{Backend: "cpu"})
	}
	if b.LogShape != nil && (req.DType == "" || req.DType == string(b.LogShape.DType)) {
		if _, err := accuracy.CheckLog(req.Log, *b.LogShape); err != nil {
			return nil, err
		}
	}
	return b.Driver.Score(ctx, req)
}

// ScoreRun scores an accuracy log of a run of b with the options o (its
// data set, --count and Extra), as Run does; the compliance tests score
// their baseline logs with it.
func ScoreRun(ctx context.Context, b *spec.Benchmark, o Options, log string, stderr io.Writer) (*spec.Score, error) {
	req := &spec.ScoreRequest{Log: log, Data: o.Data, Count: o.Count, ModelName: o.ModelName, Extra: o.Extra, Stderr: stderr}
	if size, ok, err := SyntheticSize(b, o.Model); err == nil && ok {
		req.SyntheticSize = size
	}
	return Score(ctx, b, req)
}

// localEngine is an Engine on this machine with o's engine settings, for
// work outside a run (scoring, serving).
func localEngine(b *spec.Benchmark, o *Options) *engine {
	return &engine{s: &setup{b: b, o: *o, stderr: io.Discard, stdout: io.Discard}}
}

// Record is what becomes of a score: it is printed as the reference's
// script prints it, written to accuracy.txt and judged against the
// submission checker's targets. Every score goes through it: a run's, a
// benchmark's (`mlperf accuracy <name>`) and a metric's (`mlperf accuracy
// --metric`).
type Record struct {
	// Name prefixes the errors (the benchmark's or the metric's name).
	Name string
	// Out, if set, is the accuracy.txt to write; HashLog, if set, the log
	// whose sha256 goes on its hash= line (truncate_accuracy_log.py).
	Out, HashLog string
	// CheckerID, if set, judges the score against that variant's targets;
	// a miss is an error.
	CheckerID string
	// Synthetic adds SyntheticNote under the score.
	Synthetic bool
}

// Write prints sc on stdout, writes Out and judges CheckerID.
func (r Record) Write(stdout io.Writer, sc *spec.Score) error {
	hash := ""
	if r.HashLog != "" {
		if r.Out == "" {
			return spec.UsageError("%s: --hash needs --out", r.Name)
		}
		h, err := accuracy.LogHash(r.HashLog)
		if err != nil {
			return err
		}
		hash = h
	}
	fmt.Fprint(stdout, scoreText(sc))
	if r.Synthetic {
		fmt.Fprintln(stdout, SyntheticNote)
	}
	if r.Out != "" {
		if err := accuracy.WriteAccuracyFile(r.Out, sc.Lines, hash); err != nil {
			return err
		}
	}
	if r.CheckerID == "" {
		return nil
	}
	vs, pass, err := accuracy.CheckText(r.CheckerID, accuracy.AccuracyText(sc.Lines, ""))
	if err != nil {
		return spec.UsageError("%s: --benchmark: %v", r.Name, err)
	}
	for _, v := range vs {
		fmt.Fprintf(stdout, "%s: %s\n", r.CheckerID, v)
	}
	if !pass {
		return fmt.Errorf("%s: accuracy target of %s not met", r.Name, r.CheckerID)
	}
	return nil
}

// scoreText is what a score prints: Text, or the Lines.
func scoreText(s *spec.Score) string {
	if s.Text != "" {
		if !strings.HasSuffix(s.Text, "\n") {
			return s.Text + "\n"
		}
		return s.Text
	}
	return accuracy.AccuracyText(s.Lines, "")
}

// AccuracyRequest is `mlperf accuracy <benchmark>`: score a log, print
// what the reference script prints, optionally write accuracy.txt and
// judge the checker's targets.
type AccuracyRequest struct {
	// Log is the mlperf_log_accuracy.json, or the run folder holding it.
	Log string
	// Data is the data set the run used; Count its --count.
	Data  string
	Count int
	// ModelName is the run's --model-name ("": not given).
	ModelName string
	// DType overrides the response element type ("": the reference's).
	DType string
	// Extra holds the values of the benchmark's Options.
	Extra spec.Extra
	// Model is the run's --model; a synthetic one adds SyntheticNote.
	Model string
	// Out, if set, is the accuracy.txt to write; HashLog, if set, the log
	// whose sha256 goes on its hash= line (truncate_accuracy_log.py).
	Out, HashLog string
	// CheckerID, if set, judges the score against that variant's targets
	// (one of CheckerIDs); a miss is an error.
	CheckerID string
	// Stderr receives notes (nil: discarded).
	Stderr io.Writer
}

// Accuracy scores an accuracy log of b and records the score (see
// AccuracyRequest).
func Accuracy(ctx context.Context, b *spec.Benchmark, req *AccuracyRequest, stdout io.Writer) (*spec.Score, error) {
	if req.Log == "" {
		return nil, fmt.Errorf("%s: --log FILE is required", b.Name)
	}
	log, err := resolveLog(b, req.Log)
	if err != nil {
		return nil, err
	}
	if req.HashLog != "" && req.Out == "" {
		return nil, fmt.Errorf("%s: --hash needs --out", b.Name)
	}
	if req.ModelName != "" && !slices.Contains(b.ConfNames, req.ModelName) {
		return nil, spec.UsageError("%s: --model-name %q: want one of %s", b.Name, req.ModelName, strings.Join(b.ConfNames, ", "))
	}
	size, synthetic, _ := SyntheticSize(b, req.Model)
	sc, err := Score(ctx, b, &spec.ScoreRequest{Log: log, Data: req.Data, Count: req.Count, ModelName: req.ModelName, DType: req.DType, Extra: req.Extra, SyntheticSize: size, Stderr: req.Stderr})
	if err != nil {
		return nil, err
	}
	return sc, Record{Name: b.Name, Out: req.Out, HashLog: req.HashLog, CheckerID: req.CheckerID, Synthetic: synthetic}.Write(stdout, sc)
}
