package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/internal/argcheck"
	"github.com/mlperf-go/inference/internal/outlock"
	"github.com/mlperf-go/inference/internal/samplelog"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

func init() {
	handle("loadgen", "run the loadgen against a built-in synthetic SUT and QSL (compare with the C++ LoadGen)", runLoadgenCmd)
}

func runLoadgenCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	scenario := fs.String("scenario", "SingleStream", "SingleStream, MultiStream, Server or Offline")
	mode := fs.String("mode", "performance", "performance, accuracy, submission or find-peak")
	model := fs.String("model-name", "synthetic", "model name the conf files' keys are looked up under (as run's --model-name)")
	mlperfConf := fs.String("mlperf-conf", "", "mlperf.conf to use instead of the embedded copy")
	userConf := fs.String("user-conf", "", "user.conf")
	auditConf := fs.String("audit-conf", "", "audit.config (compliance tests)")
	total := fs.Int("total-samples", 1024, "QSL total sample count")
	perf := fs.Int("performance-samples", 1024, "QSL performance sample count")
	sutKind := fs.String("sut", "null", "null (completes inside IssueQuery) or delay (fixed service time)")
	service := &argcheck.Duration{Name: "--service-time", AllowZero: true, D: time.Millisecond}
	fs.Var(service, "service-time", "delay SUT: service time per batch")
	workers := fs.Int("workers", 1, "delay SUT: workers")
	batch := fs.Int("batch", 1, "delay SUT: most samples per batch")
	out := fs.String("out", filepath.Join("out", "loadgen"), "folder for the LoadGen logs")
	issueLog := fs.String("issue-log", "", "write query,position,sample_index,scheduled_ns of every issued sample to this CSV")
	qslLog := fs.String("qsl-log", "", "write set,position,sample_index of every LoadSamples call to this CSV")
	trace := fs.Bool("trace", false, "write mlperf_log_trace.json")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	sc, err := loadgen.ParseScenario(*scenario)
	if err != nil {
		return usageError("%v", err)
	}
	m, err := loadgen.ParseMode(*mode)
	if err != nil {
		return usageError("%v", err)
	}
	if *total <= 0 || *perf <= 0 {
		return usageError("--total-samples and --performance-samples must be positive")
	}
	if *workers < 1 || *batch < 1 {
		return usageError("--workers %d, --batch %d: the delay SUT needs at least one worker and batches of at least one sample", *workers, *batch)
	}
	if strings.TrimSpace(*out) == "" {
		return usageError("--out is empty; name the folder for the LoadGen logs (default out/loadgen)")
	}
	s, err := loadgen.LoadConfigs(*model, sc, m, *mlperfConf, *userConf, *auditConf)
	if err != nil {
		return err
	}
	var sut loadgen.SUT
	switch *sutKind {
	case "null":
		sut = &loadgentest.NullSUT{}
	case "delay":
		d := &loadgentest.DelaySUT{ServiceTime: service.D, Workers: *workers, Batch: *batch}
		defer d.Close()
		sut = d
	default:
		return usageError("unknown --sut %q; want null or delay", *sutKind)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("loadgen: --out %s: %w", *out, err)
	}
	lock, err := outlock.Acquire(*out)
	if err != nil {
		return fmt.Errorf("loadgen: --out %s: %w", *out, err)
	}
	defer lock.Release()
	// The CSV logs are flushed and closed after the run, each error
	// named by its flag.
	type csvLog struct {
		flag string
		f    *samplelog.File
	}
	var csvs []csvLog
	defer func() {
		for _, c := range csvs {
			c.f.Close()
		}
	}()
	closeCSVs := func() error {
		var errs []error
		for _, c := range csvs {
			if err := c.f.Close(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", c.flag, err))
			}
		}
		return errors.Join(errs...)
	}
	var qsl loadgen.QSL = &loadgentest.MemQSL{Total: *total, Performance: *perf}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = *out
	logs.EnableTrace = *trace
	if *qslLog != "" {
		f, err := samplelog.Create(*qslLog, samplelog.LoadHeader)
		if err != nil {
			return fmt.Errorf("--qsl-log: %w", err)
		}
		csvs = append(csvs, csvLog{"--qsl-log", f})
		qsl = samplelog.RecordLoads(qsl, f)
	}
	if *issueLog != "" {
		f, err := samplelog.Create(*issueLog, samplelog.IssueHeader)
		if err != nil {
			return fmt.Errorf("--issue-log: %w", err)
		}
		csvs = append(csvs, csvLog{"--issue-log", f})
		logs.OnIssue = samplelog.RecordIssues(f)
	}
	if note := loadgen.LongRunNote(s, qsl.TotalSampleCount(), qsl.PerformanceSampleCount(), 0); note != "" {
		fmt.Fprintln(stderr, "loadgen: "+note)
	}
	start := time.Now()
	res, err := loadgen.Run(ctx, sut, qsl, s, logs)
	if cerr := closeCSVs(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	printLoadgenResult(stdout, res, time.Since(start))
	return nil
}

// printLoadgenResult prints a one-line result of a loadgen run.
func printLoadgenResult(stdout io.Writer, res *loadgen.Result, wall time.Duration) {
	valid := "VALID"
	if !res.Valid {
		valid = "INVALID"
	}
	if res.Mode == loadgen.AccuracyOnly {
		fmt.Fprintf(stdout, "%-12s accuracy: %d queries, %d samples, %s, %.2fs; logs in %s\n", res.Scenario, res.QueryCount, res.SampleCount, valid, wall.Seconds(), res.LogDir)
		return
	}
	name, v := res.Metric()
	fmt.Fprintf(stdout, "%-12s %s: %s = %.6g; %d queries, %d samples, p99 %d ns, %.2fs; logs in %s\n",
		res.Scenario, valid, name, v, res.QueryCount, res.SampleCount, res.Latency.At(0.99), wall.Seconds(), res.LogDir)
	for _, why := range res.InvalidReasons {
		fmt.Fprintf(stdout, "%-12s   why: %s\n", "", why)
	}
}
