package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
)

// runFlags are the flags every benchmark's `run` command shares, with the
// same names and meanings for all of them.
type runFlags struct {
	Scenario  string        // LoadGen scenario name (normalised by check)
	Mode      string        // performance, accuracy, submission or find-peak
	Model     string        // model file, or synthetic / synthetic:tiny
	Data      string        // data set folder, or synthetic
	Backend   string        // cpu, cuda or tensorrt
	Device    int           // accelerator id for cuda / tensorrt
	Threads   int           // engine intra-op threads (0: all cores)
	Workers   int           // concurrent inference calls (Pool SUT workers)
	Batch     int           // most samples per inference call
	UserConf  string        // user.conf
	AuditConf string        // audit.config
	Out       string        // output folder for the logs
	Cache     string        // preprocessed-sample cache folder ("" none)
	Count     int           // use only the first N data set samples (0 all)
	Duration  time.Duration // convenience: min_duration (0 keep conf)
	QueryN    int           // convenience: min_query_count (0 keep conf)
	QPS       float64       // convenience: Server target / Offline expected qps (0 keep conf)
}

// scenarios are the LoadGen scenario names, keyed by their lower-case
// spelling without separators.
var scenarios = map[string]string{
	"singlestream": "SingleStream",
	"multistream":  "MultiStream",
	"server":       "Server",
	"offline":      "Offline",
}

var modes = map[string]string{
	"performance":  "performance",
	"perf":         "performance",
	"accuracy":     "accuracy",
	"acc":          "accuracy",
	"submission":   "submission",
	"findpeak":     "find-peak",
	"find-peak":    "find-peak",
	"findpeakperf": "find-peak",
}

var backends = []string{"cpu", "cuda", "tensorrt"}

// addRunFlags registers the shared flags on fs with the given defaults.
func addRunFlags(fs *flag.FlagSet, d runFlags) *runFlags {
	f := &runFlags{}
	fs.StringVar(&f.Scenario, "scenario", d.Scenario, "LoadGen scenario: SingleStream, MultiStream, Server or Offline")
	fs.StringVar(&f.Mode, "mode", d.Mode, "performance, accuracy, submission (accuracy then performance) or find-peak")
	fs.StringVar(&f.Model, "model", d.Model, "model file (.onnx), or synthetic (full-size, seeded weights) or synthetic:tiny")
	fs.StringVar(&f.Data, "data", d.Data, "data set folder, or synthetic (a small generated data set in the real format)")
	fs.StringVar(&f.Backend, "backend", d.Backend, "execution provider: cpu, cuda or tensorrt")
	fs.IntVar(&f.Device, "device", d.Device, "GPU id for cuda / tensorrt")
	fs.IntVar(&f.Threads, "threads", d.Threads, "inference engine threads (0: all cores)")
	fs.IntVar(&f.Workers, "workers", d.Workers, "concurrent inference calls (0: 1 on cpu, 2 on a GPU)")
	fs.IntVar(&f.Batch, "batch", d.Batch, "most samples per inference call (0: the scenario's default)")
	fs.StringVar(&f.UserConf, "user-conf", d.UserConf, "user.conf with this system's settings (read after mlperf.conf, as LoadGen does)")
	fs.StringVar(&f.AuditConf, "audit-conf", d.AuditConf, "audit.config for compliance tests")
	fs.StringVar(&f.Out, "out", d.Out, "folder for mlperf_log_summary.txt, mlperf_log_detail.txt, mlperf_log_accuracy.json")
	fs.StringVar(&f.Cache, "cache", d.Cache, "folder of preprocessed samples (<sample path>.npy): read if present, written otherwise")
	fs.IntVar(&f.Count, "count", d.Count, "use only the first N samples of the data set (0: all)")
	fs.DurationVar(&f.Duration, "duration", d.Duration, "minimum run duration, overriding the confs' min_duration (e.g. 10s; 0: keep)")
	fs.IntVar(&f.QueryN, "min-queries", d.QueryN, "minimum query count, overriding the confs' min_query_count (0: keep)")
	fs.Float64Var(&f.QPS, "qps", d.QPS, "Server target qps / Offline expected qps, overriding user.conf (0: keep)")
	return f
}

// check normalises the names and rejects bad values with a usage error.
func (f *runFlags) check() error {
	key := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(f.Scenario))
	s, ok := scenarios[key]
	if !ok {
		return usageError("unknown scenario %q; want SingleStream, MultiStream, Server or Offline", f.Scenario)
	}
	f.Scenario = s
	m, ok := modes[strings.ToLower(f.Mode)]
	if !ok {
		return usageError("unknown mode %q; want performance, accuracy, submission or find-peak", f.Mode)
	}
	f.Mode = m
	f.Backend = strings.ToLower(f.Backend)
	known := false
	for _, b := range backends {
		known = known || f.Backend == b
	}
	if !known {
		return usageError("unknown backend %q; want cpu, cuda or tensorrt", f.Backend)
	}
	switch {
	case f.Batch < 0:
		return usageError("--batch %d: want at least 1 (0: the scenario's default)", f.Batch)
	case f.Threads < 0, f.Workers < 0, f.Count < 0, f.Device < 0, f.QueryN < 0:
		return usageError("--threads, --workers, --count, --device and --min-queries take non-negative values")
	case f.Duration < 0, f.QPS < 0:
		return usageError("--duration and --qps take non-negative values")
	case f.Model == "":
		return usageError("--model is required (a .onnx file, synthetic or synthetic:tiny)")
	case f.Data == "":
		return usageError("--data is required (a data set folder or synthetic)")
	}
	for _, p := range []struct{ flag, path string }{{"--user-conf", f.UserConf}, {"--audit-conf", f.AuditConf}} {
		if p.path == "" {
			continue
		}
		if _, err := os.Stat(p.path); err != nil {
			return usageError("%s %s: file not found", p.flag, p.path)
		}
	}
	if f.Workers == 0 {
		f.Workers = 1
		if f.Backend != "cpu" {
			f.Workers = 2
		}
	}
	return nil
}

// syntheticModel reports whether --model names a built-in synthetic model
// and which size ("full" or "tiny").
func syntheticModel(spec string) (size string, ok bool) {
	switch strings.ToLower(spec) {
	case "synthetic", "synthetic:full":
		return "full", true
	case "synthetic:tiny":
		return "tiny", true
	}
	return "", false
}

// parse parses args into fs, turning flag errors into usage errors and
// rejecting positional arguments.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage: mlperf %s [flags]\n", fs.Name())
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return usageError("%v (see mlperf %s -h)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q (see mlperf %s -h)", fs.Arg(0), fs.Name())
	}
	return nil
}

// progress prints a progress line at most every interval: rewritten in
// place on a terminal, one line per update otherwise. It is safe for
// concurrent use.
type progress struct {
	w        io.Writer
	what     string
	unit     string
	tty      bool
	interval time.Duration

	mu      sync.Mutex
	start   time.Time
	last    time.Time
	printed bool
}

func newProgress(w io.Writer, what, unit string) *progress {
	p := &progress{w: w, what: what, unit: unit, interval: 5 * time.Second, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty, p.interval = true, 250*time.Millisecond
		}
	}
	p.last = p.start
	return p
}

// update reports done of total (total ≤ 0: unknown).
func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done <= 1 && total > 0 { // a new series (e.g. one LoadSamples call) starts
		p.start, p.last = now, now
	}
	if now.Sub(p.last) < p.interval && (total <= 0 || done < total) {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el
	}
	line := fmt.Sprintf("%s: %d %s", p.what, done, p.unit)
	if total > 0 {
		line = fmt.Sprintf("%s: %d/%d %s (%.0f%%)", p.what, done, total, p.unit, 100*float64(done)/float64(total))
	}
	line += fmt.Sprintf(", %.1f/s, %.0fs", rate, el)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.printed = true
}

// done ends the progress line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.printed {
		fmt.Fprintln(p.w)
	}
}

// syntheticBuilders write a benchmark's synthetic model of a size ("full"
// or "tiny") to w; benchmarks register theirs in init.
var syntheticBuilders = map[string]func(size string, w io.Writer) error{}

// openModel opens the model --model names: a file, or the benchmark's
// synthetic model, built once into cacheDir.
func openModel(bench string, f *runFlags, outputs []string, stderr io.Writer) (backend.Session, error) {
	path, err := modelFile(bench, f, stderr)
	if err != nil {
		return nil, err
	}
	return openSession(path, f, outputs)
}

// modelFile resolves --model to a file: the given one, which must exist, or
// the benchmark's synthetic model, built once into cacheDir.
func modelFile(bench string, f *runFlags, stderr io.Writer) (string, error) {
	path := f.Model
	if size, ok := syntheticModel(f.Model); ok {
		build := syntheticBuilders[bench]
		if build == nil {
			return "", fmt.Errorf("%s: no synthetic model in this build", bench)
		}
		path = filepath.Join(cacheDir(), fmt.Sprintf("%s-synthetic-%s.onnx", bench, size))
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(stderr, "%s: building the synthetic %s model (seeded random weights) into %s\n", bench, size, path)
			if err := writeFileAtomic(path, func(w io.Writer) error { return build(size, w) }); err != nil {
				return "", err
			}
		}
	} else if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s: model file %s not found (download it with models/%s/download_model.sh, or use --model synthetic)", bench, path, bench)
	}
	return path, nil
}

// openSession opens a model file with ONNX Runtime as the flags ask
// (--backend, --device, --threads), fetching only outputs (nil: all).
func openSession(path string, f *runFlags, outputs []string) (backend.Session, error) {
	s, err := ort.Open(path, ort.Options{
		Provider:       f.Backend,
		DeviceID:       f.Device,
		IntraOpThreads: f.Threads,
		Outputs:        outputs,
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// cacheDir is where generated inputs (synthetic models and data sets) are
// kept between runs: $MLPERF_CACHE_DIR, else mlperf-go in the user's cache
// folder, else .mlperf-cache in the working directory.
func cacheDir() string {
	if d := os.Getenv("MLPERF_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mlperf-go")
	}
	return ".mlperf-cache"
}

// writeFileAtomic writes path through a temporary file in the same folder,
// so that a failed write leaves nothing under the final name.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
