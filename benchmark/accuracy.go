package benchmark

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy"
)

// AccuracyRequest is `mlperf accuracy <benchmark>`: score a log, print
// what the reference script prints, optionally write accuracy.txt and
// judge the checker's targets.
type AccuracyRequest struct {
	ScoreRequest
	// Model is the run's --model; a synthetic one adds SyntheticNote.
	Model string
	// Out, if set, is the accuracy.txt to write; HashLog, if set, the log
	// whose sha256 goes on its hash= line (truncate_accuracy_log.py).
	Out, HashLog string
	// CheckerID, if set, judges the score against that variant's targets
	// (one of CheckerIDs); a miss is an error.
	CheckerID string
}

// Accuracy scores an accuracy log with b.Score and prints the result on
// stdout (see AccuracyRequest).
func Accuracy(ctx context.Context, b *Benchmark, req *AccuracyRequest, stdout io.Writer) (*Score, error) {
	if req.Log == "" {
		return nil, fmt.Errorf("%s: --log FILE is required", b.Name)
	}
	log, err := resolveLog(b, req.Log)
	if err != nil {
		return nil, err
	}
	req.Log = log
	if req.HashLog != "" && req.Out == "" {
		return nil, fmt.Errorf("%s: --hash needs --out", b.Name)
	}
	if req.Stderr == nil {
		req.Stderr = io.Discard
	}
	if req.CacheDir == "" {
		req.CacheDir = CacheDir()
	}
	if err := checkLogShape(b, req.Log, req.DType); err != nil {
		return nil, err
	}
	sc, err := b.Score(ctx, &req.ScoreRequest)
	if err != nil {
		return nil, err
	}
	fmt.Fprint(stdout, sc.text())
	if _, ok, _ := SyntheticSize(b, req.Model); ok {
		fmt.Fprintln(stdout, SyntheticNote)
	}
	if req.Out != "" {
		hash := ""
		if req.HashLog != "" {
			if hash, err = accuracy.LogHash(req.HashLog); err != nil {
				return sc, err
			}
		}
		if err := accuracy.WriteAccuracyFile(req.Out, sc.Lines, hash); err != nil {
			return sc, err
		}
	}
	if req.CheckerID == "" {
		return sc, nil
	}
	vs, pass, err := accuracy.CheckText(req.CheckerID, accuracy.AccuracyText(sc.Lines, ""))
	if err != nil {
		return sc, fmt.Errorf("%s: --benchmark: %w", b.Name, err)
	}
	for _, v := range vs {
		fmt.Fprintf(stdout, "%s: %s\n", req.CheckerID, v)
	}
	if !pass {
		return sc, fmt.Errorf("%s: accuracy target of %s not met", b.Name, req.CheckerID)
	}
	return sc, nil
}

// checkLogShape refuses an accuracy log that cannot be b's (see
// Benchmark.LogShape). A --dtype other than the shape's skips the check:
// the user says the log was written another way.
func checkLogShape(b *Benchmark, path, dtype string) error {
	if b.LogShape == nil || (dtype != "" && dtype != string(b.LogShape.DType)) {
		return nil
	}
	_, err := accuracy.CheckLog(path, *b.LogShape)
	return err
}
