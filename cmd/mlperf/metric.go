package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark"
)

// metric is one raw-input scorer of `mlperf accuracy --metric NAME`.
type metric struct {
	summary string
	run     handler
}

// metrics holds the scorers registered with registerMetric.
var metrics = map[string]metric{}

// registerMetric adds a scorer to `mlperf accuracy --metric NAME`. The
// handler gets the arguments without the --metric flag. It must be called
// from init functions only.
func registerMetric(name, summary string, run handler) {
	if _, dup := metrics[name]; dup {
		panic("mlperf: metric registered twice: " + name)
	}
	metrics[name] = metric{summary: summary, run: run}
}

func init() {
	handle("accuracy", "score a benchmark's accuracy log (accuracy <benchmark> --log FILE --data PATH) or raw inputs with one metric (accuracy --metric NAME)", accuracyMetric)
}

// accuracyMetric dispatches `mlperf accuracy --metric NAME [flags]` to a
// metric and `mlperf accuracy <benchmark> [flags]` to the benchmark's
// scorer.
func accuracyMetric(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	name, rest, found := cutMetricFlag(args)
	if !found {
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			b, ok := benchmark.Lookup(args[0])
			if !ok {
				return usageError("%v", benchmark.Unknown(args[0]))
			}
			return accuracyBenchmark(ctx, b, args[1:], stdout, stderr)
		}
		printMetrics(stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usageError("want 'accuracy <benchmark> ...' or 'accuracy --metric NAME ...'")
	}
	m, ok := metrics[name]
	if !ok {
		return usageError("--metric %q: want one of %s", name, strings.Join(metricNames(), ", "))
	}
	return m.run(ctx, rest, stdout, stderr)
}

// cutMetricFlag removes "--metric NAME" or "--metric=NAME" (one or two
// dashes) from args.
func cutMetricFlag(args []string) (name string, rest []string, found bool) {
	for i, a := range args {
		flagName, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || flagName != "metric" {
			continue
		}
		rest = append(append(rest, args[:i]...), args[i+1:]...)
		if hasValue {
			return value, rest, true
		}
		if i+1 >= len(args) {
			return "", rest, true
		}
		rest = append(append([]string(nil), args[:i]...), args[i+2:]...)
		return args[i+1], rest, true
	}
	return "", args, false
}

func metricNames() []string {
	n := make([]string, 0, len(metrics))
	for k := range metrics {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func printMetrics(stderr io.Writer) {
	fmt.Fprintln(stderr, "usage: mlperf accuracy --metric NAME [flags]   (or: mlperf accuracy <benchmark> --log FILE ...)")
	fmt.Fprintln(stderr, "metrics:")
	for _, n := range metricNames() {
		fmt.Fprintf(stderr, "  %-8s %s\n", n, metrics[n].summary)
	}
}

// metricOut holds the flags every metric shares: where to write
// accuracy.txt and which benchmark's targets to judge the score by.
type metricOut struct {
	out, benchmark, hashLog string
}

func (m *metricOut) flags(fs *flag.FlagSet) {
	fs.StringVar(&m.out, "out", "", "also write the score line(s) to this accuracy.txt")
	fs.StringVar(&m.benchmark, "benchmark", "", "judge the printed score against this benchmark's submission-checker targets (e.g. resnet, dlrm-v2-99, 3d-unet-99.9, stable-diffusion-xl); exit status 1 if it fails")
	fs.StringVar(&m.hashLog, "hash", "", "with --out: append 'hash=<sha256 of this file>' (the mlperf_log_accuracy.json) as truncate_accuracy_log.py does")
}

// finish prints lines, writes --out and judges --benchmark on the text
// exactly as the submission checker reads accuracy.txt.
func (m *metricOut) finish(stdout io.Writer, lines []string) error {
	hash := ""
	if m.hashLog != "" {
		if m.out == "" {
			return usageError("--hash needs --out")
		}
		h, err := accuracy.LogHash(m.hashLog)
		if err != nil {
			return err
		}
		hash = h
	}
	text := accuracy.AccuracyText(lines, "")
	fmt.Fprint(stdout, text)
	if m.out != "" {
		if err := accuracy.WriteAccuracyFile(m.out, lines, hash); err != nil {
			return err
		}
	}
	if m.benchmark == "" {
		return nil
	}
	vs, pass, err := accuracy.CheckText(m.benchmark, text)
	if err != nil {
		return usageError("--benchmark: %v", err)
	}
	for _, v := range vs {
		fmt.Fprintf(stdout, "%s: %s\n", m.benchmark, v)
	}
	if !pass {
		return fmt.Errorf("%s: accuracy target not met", m.benchmark)
	}
	return nil
}
