package main

import (
	"context"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"strings"

	"github.com/mlperf-go/inference/benchmark/metric"
)

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
			b, ok := spec.Lookup(args[0])
			if !ok {
				return usageError("%v", spec.Unknown(args[0]))
			}
			return accuracyBenchmark(ctx, b, args[1:], stdout, stderr)
		}
		printMetrics(stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usageError("want 'accuracy <benchmark> ...' or 'accuracy --metric NAME ...'")
	}
	m, ok := metric.Lookup(name)
	if !ok {
		return usageError("--metric %q: want one of %s", name, strings.Join(metric.Names(), ", "))
	}
	return m.Run(ctx, rest, stdout, stderr)
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

func printMetrics(stderr io.Writer) {
	fmt.Fprintln(stderr, "usage: mlperf accuracy --metric NAME [flags]   (or: mlperf accuracy <benchmark> --log FILE ...)")
	fmt.Fprintln(stderr, "metrics:")
	for _, n := range metric.Names() {
		m, _ := metric.Lookup(n)
		fmt.Fprintf(stderr, "  %-8s %s\n", n, m.Summary)
	}
}
