// Package metric holds the raw-input scorers of `mlperf accuracy --metric
// NAME`: one per metric of the suite's benchmarks (top-1, COCO mAP, SQuAD
// F1, ROUGE, ROC AUC, DICE, FID, CLIP), each parsing its own flags and
// printing what the reference's accuracy script prints. Each registers
// itself with Register from an init function.
package metric

import (
	"context"
	"flag"
	"io"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
)

// Func runs one metric on the arguments after --metric NAME, printing
// results on stdout and notes on stderr. Errors caused by the arguments
// match spec.ErrUsage.
type Func func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Metric is one registered scorer.
type Metric struct {
	Name, Summary string
	Run           Func
}

var metrics = map[string]Metric{}

// Register adds a scorer. It must be called from init functions only; it
// panics on a name registered twice.
func Register(name, summary string, run Func) {
	if _, dup := metrics[name]; dup {
		panic("metric: registered twice: " + name)
	}
	metrics[name] = Metric{Name: name, Summary: summary, Run: run}
}

// Lookup finds a registered metric.
func Lookup(name string) (Metric, bool) {
	m, ok := metrics[name]
	return m, ok
}

// Names returns the registered metrics' names, sorted.
func Names() []string {
	n := make([]string, 0, len(metrics))
	for k := range metrics {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

var usageError = spec.UsageError

// parse is benchmark.ParseFlags.
var parse = benchmark.ParseFlags

// Out holds the flags every metric shares: where to write
// accuracy.txt and which benchmark's targets to judge the score by.
type Out struct {
	name, out, benchmark, hashLog string
}

// Flags registers --out, --benchmark and --hash on fs, whose name ends in
// the metric's.
func (m *Out) Flags(fs *flag.FlagSet) {
	m.name = fs.Name()[strings.LastIndex(fs.Name(), " ")+1:]
	fs.StringVar(&m.out, "out", "", "also write the score line(s) to this accuracy.txt")
	fs.StringVar(&m.benchmark, "benchmark", "", "judge the printed score against this benchmark's submission-checker targets (e.g. resnet, dlrm-v2-99, 3d-unet-99.9, stable-diffusion-xl); exit status 1 if it fails")
	fs.StringVar(&m.hashLog, "hash", "", "with --out: append 'hash=<sha256 of this file>' (the mlperf_log_accuracy.json) as truncate_accuracy_log.py does")
}

// Finish records the score lines as every score is recorded
// (benchmark.Record): printed, written to --out, judged by --benchmark
// exactly as the submission checker reads accuracy.txt.
func (m *Out) Finish(stdout io.Writer, lines []string) error {
	return benchmark.Record{Name: m.name, Out: m.out, HashLog: m.hashLog, CheckerID: m.benchmark}.Write(stdout, &spec.Score{Lines: lines})
}
