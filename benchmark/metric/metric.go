// Package metric holds the raw-input scorers of `mlperf accuracy --metric
// NAME`: one per metric of the suite's benchmarks (top-1, COCO mAP, SQuAD
// F1, ROUGE, ROC AUC, DICE, FID, CLIP), each parsing its own flags and
// printing what the reference's accuracy script prints. Each registers
// itself with Register from an init function.
package metric

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark"
)

// Func runs one metric on the arguments after --metric NAME, printing
// results on stdout and notes on stderr. Errors caused by the arguments
// match benchmark.ErrUsage.
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

var usageError = benchmark.UsageError

// parse is benchmark.ParseFlags.
var parse = benchmark.ParseFlags

// Out holds the flags every metric shares: where to write
// accuracy.txt and which benchmark's targets to judge the score by.
type Out struct {
	out, benchmark, hashLog string
}

// Flags registers --out, --benchmark and --hash on fs.
func (m *Out) Flags(fs *flag.FlagSet) {
	fs.StringVar(&m.out, "out", "", "also write the score line(s) to this accuracy.txt")
	fs.StringVar(&m.benchmark, "benchmark", "", "judge the printed score against this benchmark's submission-checker targets (e.g. resnet, dlrm-v2-99, 3d-unet-99.9, stable-diffusion-xl); exit status 1 if it fails")
	fs.StringVar(&m.hashLog, "hash", "", "with --out: append 'hash=<sha256 of this file>' (the mlperf_log_accuracy.json) as truncate_accuracy_log.py does")
}

// Finish prints lines, writes --out and judges --benchmark on the text
// exactly as the submission checker reads accuracy.txt.
func (m *Out) Finish(stdout io.Writer, lines []string) error {
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
