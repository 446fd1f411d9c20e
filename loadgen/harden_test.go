package loadgen_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/loadgen/schedule"
)

func readLog(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "mlperf_log_"+name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An interrupted Offline run counts only the samples completed before the
// interruption, returns ErrInterrupted and says so in both logs.
func TestInterruptedRunCountsOnlyCompletedSamples(t *testing.T) {
	s := settings(t, loadgen.Offline, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 2000\n")
	sut := &loadgentest.DelaySUT{ServiceTime: 2 * time.Millisecond}
	defer sut.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	dir := t.TempDir()
	res, err := loadgen.Run(ctx, sut, qsl1024(), s, loadgen.LogSettings{OutDir: dir})
	if !errors.Is(err, loadgen.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if res == nil || !res.Interrupted || res.Valid {
		t.Fatalf("result %+v, want an interrupted INVALID result", res)
	}
	// One worker at 2 ms a sample completes at most ~50 in 100 ms; the
	// cancelled rest complete with an error and must not count.
	if res.CompletedSamples <= 0 || res.CompletedSamples > 100 || res.SampleCount != 2000 {
		t.Fatalf("completed %d of %d samples", res.CompletedSamples, res.SampleCount)
	}
	if max := 1.5 / 0.002; res.SamplesPerSec > max {
		t.Fatalf("%.0f samples/s reported for a SUT that can do at most %.0f", res.SamplesPerSec, max)
	}
	if sum := readLog(t, dir, "summary"); !strings.Contains(sum, "interrupted") || strings.Contains(sum, "No errors encountered") {
		t.Fatalf("summary does not report the interruption:\n%s", sum)
	}
	if det := readLog(t, dir, "detail"); !strings.Contains(det, "run interrupted") {
		t.Fatal("detail log does not report the interruption")
	}
}

// A SUT with an hour of service time does not hold the run after Ctrl-C.
func TestInterruptEndsRunDespiteSlowSUT(t *testing.T) {
	for _, sc := range []loadgen.Scenario{loadgen.SingleStream, loadgen.Server, loadgen.Offline} {
		s := settings(t, sc, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 10\n")
		sut := &loadgentest.DelaySUT{ServiceTime: time.Hour}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := loadgen.Run(ctx, sut, qsl1024(), s, loadgen.LogSettings{OutDir: t.TempDir()})
		cancel()
		if !errors.Is(err, loadgen.ErrInterrupted) {
			t.Fatalf("%v: err = %v, want ErrInterrupted", sc, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%v: Run took %v after the interruption", sc, d)
		}
		sut.Close()
	}
}

// An interrupted accuracy run is an error, so that no score is written.
func TestInterruptedAccuracyRunIsAnError(t *testing.T) {
	s := settings(t, loadgen.SingleStream, loadgen.AccuracyOnly, "")
	sut := &loadgentest.DelaySUT{ServiceTime: time.Millisecond}
	defer sut.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	res, err := loadgen.Run(ctx, sut, qsl1024(), s, loadgen.LogSettings{OutDir: t.TempDir()})
	if !errors.Is(err, loadgen.ErrInterrupted) || res == nil || !res.Interrupted {
		t.Fatalf("err = %v, res = %+v", err, res)
	}
}

// A cancelled context before Run starts is an interruption, not a run.
func TestRunWithCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := settings(t, loadgen.Offline, loadgen.PerformanceOnly, "")
	if _, err := loadgen.Run(ctx, &loadgentest.NullSUT{}, qsl1024(), s, loadgen.LogSettings{OutDir: t.TempDir()}); !errors.Is(err, loadgen.ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
}

// A stuck SUT costs one completion timeout, not one per wait.
func TestStuckSingleStreamWaitsOneTimeout(t *testing.T) {
	s := settings(t, loadgen.SingleStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 10\n")
	// A second: room for a loaded machine between one timeout and two.
	s.CompletionTimeout = time.Second
	start := time.Now()
	res, _ := run(t, &loadgentest.DelaySUT{Never: true}, qsl1024(), s)
	if d := time.Since(start); d >= 2*s.CompletionTimeout {
		t.Fatalf("a stuck SUT held the run %v with a %v timeout", d, s.CompletionTimeout)
	}
	if res.Valid {
		t.Fatal("VALID run from a stuck SUT")
	}
}

// Schedules that cannot fit in memory are refused before they are built,
// with the arithmetic in the message.
func TestAbsurdScheduleIsRefusedUpFront(t *testing.T) {
	for _, tc := range []struct {
		sc   loadgen.Scenario
		conf string
		want string
	}{
		{loadgen.Offline, "*.*.min_duration = 1000\n*.Offline.target_qps = 1e12\n", "Offline"},
		{loadgen.Server, "*.*.min_duration = 1000\n*.Server.target_qps = 1e8\n", "Server"},
		{loadgen.SingleStream, "*.*.min_duration = 1000\n*.SingleStream.target_latency = 0.000001\n", "SingleStream"},
		{loadgen.SingleStream, "*.*.min_query_count = 9000000000000000000\n", "min_query_count"},
	} {
		s := settings(t, tc.sc, loadgen.PerformanceOnly, tc.conf)
		s.MaxScheduleBytes = 1 << 30
		start := time.Now()
		_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl1024(), s, loadgen.LogSettings{OutDir: t.TempDir()})
		if !errors.Is(err, loadgen.ErrScheduleTooLarge) || !errors.Is(err, loadgen.ErrSettings) {
			t.Fatalf("%q: err = %v, want ErrScheduleTooLarge", tc.conf, err)
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "GiB") {
			t.Fatalf("%q: message lacks the arithmetic: %v", tc.conf, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%q: refusing took %v", tc.conf, d)
		}
	}
}

// Building a long schedule stops when the context is cancelled.
func TestScheduleGenerationObservesCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := schedule.Params{Scenario: schedule.Server, TargetQPS: 1e7, TargetDurationNs: 100e9, PerformanceSampleCount: 8, TotalSampleCount: 8, SamplesPerQuery: 1}
	start := time.Now()
	if _, err := schedule.GenerateContext(ctx, p, []uint64{0, 1, 2, 3, 4, 5, 6, 7}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
}

// performance_issue_same_index is checked against the samples actually
// loaded (the data set may be smaller than performance_sample_count), in
// every scenario, instead of panicking or wrapping to another sample.
func TestIssueSameIndexCheckedAgainstLoadedSamples(t *testing.T) {
	for _, sc := range []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline, loadgen.MultiStream, loadgen.Server} {
		s := settings(t, sc, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 10\n*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 100\n")
		qsl := &loadgentest.MemQSL{Total: 64, Performance: 1024}
		_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl, s, loadgen.LogSettings{OutDir: t.TempDir()})
		if !errors.Is(err, loadgen.ErrSettings) || !strings.Contains(err.Error(), "0 to 63") {
			t.Fatalf("%v: err = %v", sc, err)
		}
	}
	// In range, Offline issues that very sample in every slot.
	s := settings(t, loadgen.Offline, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 10\n*.*.performance_issue_same = 1\n*.*.performance_issue_same_index = 5\n")
	var rec recorder
	qsl := &loadgentest.MemQSL{Total: 64, Performance: 1024}
	run(t, rec.sut(), qsl, s)
	want := uint64(qsl.Loads()[0][5])
	for _, v := range rec.order {
		if v != want {
			t.Fatalf("issued sample %d, want only %d", v, want)
		}
	}
}

// A QSL that fails to load leaves logs that report the error.
func TestLoadFailureIsInTheLogs(t *testing.T) {
	dir := t.TempDir()
	qsl := &loadgentest.MemQSL{Total: 8, Performance: 8, LoadErr: errors.New("corrupt JPEG in ILSVRC2012_val_00000001.JPEG")}
	s := settings(t, loadgen.Offline, loadgen.PerformanceOnly, "")
	_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl, s, loadgen.LogSettings{OutDir: dir})
	if err == nil || !strings.Contains(err.Error(), "corrupt JPEG") {
		t.Fatalf("err = %v", err)
	}
	if sum := readLog(t, dir, "summary"); strings.Contains(sum, "No errors encountered") {
		t.Fatalf("summary says no errors after a load failure:\n%s", sum)
	}
	if det := readLog(t, dir, "detail"); !strings.Contains(det, "corrupt JPEG") {
		t.Fatal("detail log lacks the load error")
	}
}

// FindPeakPerformance widens its upper bound while runs pass; a SUT that
// never fails must not widen it until the schedule exhausts memory.
func TestFindPeakStopsAtTheScheduleBound(t *testing.T) {
	// 10000 QPS for 0.1 s passes with a null SUT; the next probe, at
	// 1e8 QPS, would need 1e7 queries (~600 MB).
	s := settings(t, loadgen.Server, loadgen.FindPeakPerformance, "*.*.min_duration = 100\n*.*.min_query_count = 1\n*.Server.target_qps = 10000\n*.Server.target_latency = 1000\n")
	s.MaxScheduleBytes = 64 << 20
	s.ServerFindPeakQPSBoundaryStepSize = 1e4
	_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl1024(), s, loadgen.LogSettings{OutDir: t.TempDir()})
	if !errors.Is(err, loadgen.ErrScheduleTooLarge) {
		t.Fatalf("err = %v, want ErrScheduleTooLarge", err)
	}
}

// A log that cannot be written (its disk full: the file links to
// /dev/full) fails the run with an error naming it, for each of the
// summary, detail, accuracy and trace logs; the run's other logs are
// still written.
func TestFullDiskFailsTheRunNamingTheLog(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	for _, name := range []string{"mlperf_log_summary.txt", "mlperf_log_detail.txt", "mlperf_log_accuracy.json", "mlperf_log_trace.json"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Symlink("/dev/full", filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			s := settings(t, loadgen.Offline, loadgen.AccuracyOnly, "")
			_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s,
				loadgen.LogSettings{OutDir: dir, EnableTrace: true})
			want := "writing " + filepath.Join(dir, name) + ": "
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "is the disk full?") {
				t.Fatalf("err = %v, want it to name %s", err, name)
			}
		})
	}
}
