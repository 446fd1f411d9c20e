package main

// The wiring from a benchmark's run command to the loadgen: settings from
// the conf files and flags, the run itself with a progress line, the
// summary, and the accuracy score in accuracy and submission modes.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/loadgen"
)

// runSpec is one benchmark run for runLoadgen.
type runSpec struct {
	flags     *runFlags
	model     string // model name in mlperf.conf
	sut       loadgen.SUT
	qsl       loadgen.QSL
	score     func(accuracyLog string) (string, error)
	synthetic bool // synthetic weights: the score is not meaningful
	// done, when set, reports the samples completed so far for the
	// progress line (a harness.Counter's Done, for example).
	done func() int64
}

// settingsFor builds the loadgen settings of a run from the flags: the
// embedded mlperf.conf, --user-conf, --audit-conf, then the conveniences
// --duration, --min-queries and --qps.
func settingsFor(model string, f *runFlags) (loadgen.Settings, error) {
	sc, err := loadgen.ParseScenario(f.Scenario)
	if err != nil {
		return loadgen.Settings{}, err
	}
	mode, err := loadgen.ParseMode(f.Mode)
	if err != nil {
		return loadgen.Settings{}, err
	}
	s, err := loadgen.LoadConfigs(model, sc, mode, "", f.UserConf, f.AuditConf)
	if err != nil {
		return s, err
	}
	if f.Duration > 0 {
		s.MinDurationMs = uint64(f.Duration / time.Millisecond)
	}
	if f.QueryN > 0 {
		s.MinQueryCount = uint64(f.QueryN)
	}
	if f.QPS > 0 {
		s.ServerTargetQPS, s.OfflineExpectedQPS = f.QPS, f.QPS
	}
	return s, nil
}

// runLoadgen runs spec through the loadgen, prints the summary and, in
// accuracy and submission modes, the accuracy score (also written to
// accuracy.txt in the output folder).
func runLoadgen(ctx context.Context, spec runSpec) error {
	f := spec.flags
	s, err := settingsFor(spec.model, f)
	if err != nil {
		return err
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = f.Out
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if spec.done == nil {
			<-stop
			return
		}
		watchProgress(os.Stderr, spec.done, 0, stop)
	}()
	res, err := loadgen.Run(ctx, spec.sut, spec.qsl, s, logs)
	close(stop)
	<-finished
	if err != nil {
		return err
	}
	summary, rerr := os.ReadFile(filepath.Join(f.Out, "mlperf_log_summary.txt"))
	if rerr == nil {
		os.Stdout.Write(summary)
	}
	if s.Mode == loadgen.AccuracyOnly || s.Mode == loadgen.SubmissionRun {
		if spec.score == nil {
			return fmt.Errorf("%s: no accuracy scorer in this build", spec.model)
		}
		logPath := filepath.Join(f.Out, "mlperf_log_accuracy.json")
		line, err := spec.score(logPath)
		if err != nil {
			return err
		}
		if err := accuracy.WriteAccuracyFile(filepath.Join(f.Out, "accuracy.txt"), []string{line}, ""); err != nil {
			return err
		}
		fmt.Println(line)
		if spec.synthetic {
			fmt.Println("(synthetic weights: accuracy not meaningful)")
		}
	}
	if res.Mode != loadgen.AccuracyOnly {
		name, v := res.Metric()
		valid := "VALID"
		if !res.Valid {
			valid = "INVALID: " + strings.Join(res.InvalidReasons, "; ")
		}
		fmt.Fprintf(os.Stderr, "%s %s: %s = %.4g (%s); logs in %s\n", spec.model, f.Scenario, name, v, valid, f.Out)
	}
	return nil
}

// offlineRun runs spec as an Offline performance run of about d, with
// the query sized from expectedQPS, and returns the samples it completed
// and the time they took (LoadGen's max latency, the denominator of its
// samples per second).
func offlineRun(ctx context.Context, spec runSpec, d time.Duration, expectedQPS float64) (int64, time.Duration, error) {
	s, err := loadgen.LoadConfigs(spec.model, loadgen.Offline, loadgen.PerformanceOnly, "", "", "")
	if err != nil {
		return 0, 0, err
	}
	s.MinDurationMs = uint64(d / time.Millisecond)
	s.MinQueryCount = 1
	s.OfflineExpectedQPS = max(expectedQPS, 1)
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = spec.flags.Out
	res, err := loadgen.Run(ctx, spec.sut, spec.qsl, s, logs)
	if err != nil {
		return 0, 0, err
	}
	if res.FailedSamples > 0 {
		return 0, 0, fmt.Errorf("the SUT failed %d samples (see %s)", res.FailedSamples, logs.OutDir)
	}
	return int64(res.SampleCount), time.Duration(res.Latency.Max), nil
}

// scoreImagenet scores an ImageNet accuracy log against the labels of the
// data set in dataDir (its val_map.txt), as accuracy-imagenet.py.
func scoreImagenet(logPath, dataDir string, f *runFlags, dtype string) (string, error) {
	if dtype == "" {
		dtype = "float32"
	}
	dt, err := accuracy.ParseDType(dtype)
	if err != nil {
		return "", err
	}
	ds, err := imagenet.Load(dataDir, imagenet.Options{Count: f.Count, Warn: os.Stderr})
	if err != nil {
		return "", err
	}
	labels := make([]int, ds.Len())
	for i := range labels {
		labels[i] = ds.Label(i)
	}
	r, err := accuracy.Top1(logPath, labels, dt)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}

func isSynthetic(model string) bool {
	_, ok := syntheticModel(model)
	return ok
}

// watchProgress prints a progress line of done() every second until
// stop is closed.
func watchProgress(w io.Writer, done func() int64, total int, stop <-chan struct{}) {
	p := newProgress(w, "running", "samples")
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			p.done()
			return
		case <-t.C:
			p.update(int(done()), total)
		}
	}
}
