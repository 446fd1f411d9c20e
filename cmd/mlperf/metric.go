package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
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
	handle("accuracy", "score raw inputs with one metric: --metric NAME (see 'mlperf accuracy -h')", accuracyMetric)
}

// accuracyMetric dispatches `mlperf accuracy --metric NAME [flags]`.
func accuracyMetric(ctx context.Context, args []string) error {
	name, rest, found := cutMetricFlag(args)
	if !found {
		printMetrics()
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usageError("want 'accuracy <benchmark> ...' or 'accuracy --metric NAME ...'")
	}
	m, ok := metrics[name]
	if !ok {
		return usageError("--metric %q: want one of %s", name, strings.Join(metricNames(), ", "))
	}
	return m.run(ctx, rest)
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

func printMetrics() {
	fmt.Fprintln(os.Stderr, "usage: mlperf accuracy --metric NAME [flags]   (or: mlperf accuracy <benchmark> --log FILE ...)")
	fmt.Fprintln(os.Stderr, "metrics:")
	for _, n := range metricNames() {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", n, metrics[n].summary)
	}
}
