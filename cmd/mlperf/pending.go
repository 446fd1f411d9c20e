package main

// Seams to the branches not merged yet (loadgen run, accuracy scorer). Each is replaced by the real wiring when its branch
// lands; until then the commands that need them say so.

import (
	"context"
	"errors"
	"time"

	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

var errPending = errors.New("not available in this build yet")

// runSpec is one benchmark run for runLoadgen.
type runSpec struct {
	flags     *runFlags
	model     string // model name in mlperf.conf
	sut       loadgen.SUT
	qsl       loadgen.QSL
	counter   *harness.Counter
	score     func(accuracyLog string) (string, error)
	synthetic bool // synthetic weights: the score is not meaningful
}

// runLoadgen runs spec through the loadgen and prints the summary.
func runLoadgen(ctx context.Context, spec runSpec) error {
	return errors.New("loadgen: " + errPending.Error())
}

// scoreImagenet scores an ImageNet accuracy log.
func scoreImagenet(logPath, dataDir string, f *runFlags, dtype string) (string, error) {
	return "", errors.New("accuracy: " + errPending.Error())
}

// offlineThroughput runs spec as an Offline performance run of about d,
// its query sized for expectedQPS, and returns the loadgen's samples/s.
func offlineThroughput(ctx context.Context, spec runSpec, d time.Duration, expectedQPS float64) (float64, error) {
	return 0, errors.New("loadgen: " + errPending.Error())
}
