package dlrm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// Benchmark facts (mlperf.conf and the submission checker).
const (
	// ConfName is the model name in mlperf.conf and user.conf.
	ConfName = "dlrm-v2"
	// PerformanceSampleCount is what the QSL reports at most (the
	// reference README's --samples-per-query-offline); mlperf.conf's
	// override is the same.
	PerformanceSampleCount = 204800
	// Seed is the synthetic models' default weight seed.
	Seed = 1
)

// Options of the benchmark (their values reach Open and Score in Extra).
const (
	OptAggregateFix   = "samples-to-aggregate-fix"
	OptQuantileFile   = "samples-to-aggregate-quantile-file"
	OptTraceFile      = "samples-to-aggregate-trace-file"
	OptNumpySeed      = "numpy-rand-seed"
	OptRowBudget      = "row-budget"
	OptDay23File      = "day-23-file"
	OptAggregateTrace = "aggregation-trace-file"
	OptSynthRows      = "synth-rows"
)

// Descriptor is the DLRMv2 benchmark descriptor.
var Descriptor = &spec.Benchmark{
	Name:       "dlrm",
	Summary:    "DLRMv2 (DLRM-DCNv2) on multi-hot Criteo 1TB day 23, ROC AUC",
	ConfNames:  []string{ConfName},
	CheckerIDs: []string{"dlrm-v2-99", "dlrm-v2-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server, loadgen.SingleStream, loadgen.MultiStream},
	Dataset:    "criteo",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: "full", Summary: "the real dense part (16.0M parameters), tables capped at 65,536 rows (real: 204,184,588 rows, 97 GiB)"},
			{Name: "tiny", Summary: "the same graph, 8-d embeddings, tables of at most 64 rows (tests)"},
		},
		Seed: Seed,
	},
	Batch: spec.Batches{loadgen.Offline: {CPU: 64}, loadgen.Server: {CPU: 64}, loadgen.MultiStream: {CPU: 64}},
	Options: []spec.Option{
		{Name: OptAggregateFix, Usage: "aggregate a fixed number of rows per sample instead of the quantile trace (the reference's --samples-to-aggregate-fix)"},
		{Name: OptQuantileFile, Usage: "query-size quantile file (default: the reference's tools/dist_quantile.txt, built in)"},
		{Name: OptTraceFile, Usage: "where to write the aggregation trace (default: " + criteo.TraceFile + " in the output folder)"},
		{Name: OptNumpySeed, Default: strconv.Itoa(criteo.DefaultNumpySeed), Usage: "numpy seed of the aggregation trace (the reference's --numpy-rand-seed)"},
		{Name: OptRowBudget, Default: strconv.Itoa(DefaultRowBudget), Usage: "most data rows per dense-graph call; --batch caps the aggregated samples a call may take"},
		{Name: OptDay23File, Usage: "accuracy: the raw day_23 TSV; the log then holds predictions only (accuracy-dlrm.py --day-23-file)"},
		{Name: OptAggregateTrace, Usage: "accuracy: the aggregation trace of the run, with --day-23-file"},
		{Name: OptSynthRows, Usage: "rows of the day that --data synthetic generates (default 20000)"},
	},
	LocalOnly: "this process looks the 26 sparse features up in the embedding tables before the dense ONNX graph runs, so behind a remote backend that lookup would stay on the LoadGen node",
	// mlcommons/inference compliance/TEST01/dlrm-v2/audit.config
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the dlrm benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder (Build).
func (driver) BuildModel(path, size string, seed uint64) error { return Build(path, size, seed) }

// ConvertModel implements spec.ModelConverter: the official
// torchsnapshot into this suite's dense graph and tables (Convert).
func (driver) ConvertModel(_ context.Context, src, out string, stderr io.Writer) error {
	return Convert(src, out, ConvertOptions{Progress: stderr})
}

// Dataset is the criteo data set's commands.
var Dataset = &spec.Dataset{
	Name:     "criteo",
	DataWant: "the Criteo day-23 folder (day_23_labels.npy, day_23_dense.npy, day_23_sparse_multi_hot.npz)",
	Download: "datasets/criteo/download_dataset.sh",
	Summary:  "Criteo 1TB day 23, TorchRec-preprocessed with MLPerf multi-hot ids (DLRMv2)",
	Synth: func(req *spec.DatasetRequest) error {
		if err := criteo.Synth(req.Out, criteo.SynthConfig{Rows: req.N, Seed: req.Seed}); err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "criteo: synthetic day 23 in %s\n", req.Out)
		return nil
	},
	Verify: func(req *spec.DatasetRequest) error {
		rows := req.N
		if !req.NSet {
			rows = criteo.DayRows
		}
		return criteo.Verify(req.Data, rows, req.Stdout)
	},
}

func init() {
	spec.Register(Descriptor)
	spec.RegisterDataset(Dataset)
}

// ArchOf is the architecture of a synthetic size.
func ArchOf(size string) (Arch, error) {
	switch size {
	case "full":
		a := Full
		a.MaxRows = SyntheticFullMaxRows
		return a, nil
	case "tiny":
		return Tiny, nil
	}
	return Arch{}, fmt.Errorf("dlrm: no synthetic size %q (want full or tiny)", size)
}

// Build writes the synthetic model of a size into path's folder: the
// dense graph at path and the seeded tables with their manifest beside it.
func Build(path, size string, seed uint64) error {
	a, err := ArchOf(size)
	if err != nil {
		return err
	}
	g, err := DenseGraph(a, seed, nil)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	return writeSyntheticTables(filepath.Dir(path), a, seed)
}

// SyntheticData writes (once) the synthetic data set of rows rows under
// cacheDir and returns its folder.
func SyntheticData(cacheDir string, rows int) (string, error) {
	if rows < 1 {
		rows = criteo.SynthRows
	}
	dir := filepath.Join(cacheDir, fmt.Sprintf("criteo-synthetic-%d", rows))
	if _, err := os.Stat(filepath.Join(dir, criteo.SparseFile)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("dlrm: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".criteo-synthetic-*")
	if err != nil {
		return "", fmt.Errorf("dlrm: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := criteo.Synth(tmp, criteo.SynthConfig{Rows: rows, Seed: 1}); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, criteo.SparseFile)); serr == nil {
			return dir, nil
		}
		return "", fmt.Errorf("dlrm: %w", err)
	}
	return dir, nil
}

// intOpt reads an integer option ("" is def).
func intOpt(x spec.Extra, name string, def int) (int, error) {
	v := x[name]
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("dlrm: --%s %q: want a non-negative integer", name, v)
	}
	return n, nil
}

// TraceFor builds the aggregation trace a run's options ask for over rows
// rows: --samples-to-aggregate-fix K, else the quantile (the built-in
// dist_quantile.txt or --samples-to-aggregate-quantile-file) with
// --numpy-rand-seed.
func TraceFor(x spec.Extra, rows int) (*criteo.Trace, error) {
	fix, err := intOpt(x, OptAggregateFix, 0)
	if err != nil {
		return nil, err
	}
	if fix > 0 {
		return criteo.FixedTrace(rows, fix)
	}
	q := criteo.DistQuantile
	if p := x[OptQuantileFile]; p != "" {
		if q, err = criteo.ReadQuantile(p); err != nil {
			return nil, err
		}
	}
	seed, err := intOpt(x, OptNumpySeed, criteo.DefaultNumpySeed)
	if err != nil {
		return nil, err
	}
	if seed > 1<<32-1 {
		return nil, fmt.Errorf("dlrm: --%s %d: numpy seeds are below 2^32", OptNumpySeed, seed)
	}
	return criteo.QuantileTrace(rows, q, uint32(seed))
}

// QSL is the DLRMv2 query sample library: sample j is the rows of the
// trace's aggregated sample j, read in place from the memory-mapped data
// set. LoadSamples reads their pages in (untimed); nothing is copied.
type QSL struct {
	ds    *criteo.Dataset
	trace *criteo.Trace
	sink  atomic.Uint32
}

// TotalSampleCount implements loadgen.QSL.
func (q *QSL) TotalSampleCount() int { return q.trace.Len() }

// PerformanceSampleCount implements loadgen.QSL.
func (q *QSL) PerformanceSampleCount() int { return min(q.trace.Len(), PerformanceSampleCount) }

// LoadSamples implements loadgen.QSL.
func (q *QSL) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	var x byte
	for n, i := range idx {
		if int(i) >= q.trace.Len() {
			return fmt.Errorf("dlrm: load sample %d of %d", i, q.trace.Len())
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s, e := q.trace.Rows(int(i))
		x ^= q.ds.Touch(s, e)
	}
	q.sink.Add(uint32(x))
	return nil
}

// UnloadSamples implements loadgen.QSL (the pages stay to the OS).
func (q *QSL) UnloadSamples(context.Context, []loadgen.SampleIndex) error { return nil }

// Open implements spec.Driver: the data set's aggregation trace (written
// to the output folder), the embedding tables and the dense graph.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (inst *spec.Instance, err error) {
	if env.Cache != "" {
		fmt.Fprintln(env.Stderr, "dlrm: --cache is not used: the samples are read from the --data arrays")
	}
	var closers []func() error
	defer func() {
		if err != nil {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i]()
			}
		}
	}()
	budget, err := intOpt(env.Extra, OptRowBudget, DefaultRowBudget)
	if err != nil {
		return nil, err
	}
	dir := env.Data
	if dir == "synthetic" {
		rows, err := intOpt(env.Extra, OptSynthRows, 0)
		if err != nil {
			return nil, err
		}
		if dir, err = SyntheticData(env.CacheDir, rows); err != nil {
			return nil, err
		}
	}
	ds, err := criteo.Open(dir, criteo.Options{})
	if err != nil {
		return nil, err
	}
	closers = append(closers, ds.Close)
	tr, err := TraceFor(env.Extra, ds.Rows)
	if err != nil {
		return nil, err
	}
	tr.Truncate(env.Count)
	tracePath := env.Extra[OptTraceFile]
	if tracePath == "" {
		tracePath = filepath.Join(env.Out, criteo.TraceFile)
	}
	if err := criteo.WriteTrace(tracePath, tr); err != nil {
		return nil, err
	}
	emb, err := OpenEmbeddings(filepath.Dir(env.ModelPath))
	if err != nil {
		return nil, err
	}
	closers = append(closers, emb.Close)
	sess, err := env.Engine.OpenSession(env.ModelPath, []string{OutputProb})
	if err != nil {
		return nil, fmt.Errorf("dlrm: %w", err)
	}
	closers = append(closers, sess.Close)
	m, err := NewModel(sess, emb, ds, tr, budget)
	if err != nil {
		return nil, err
	}
	q := &QSL{ds: ds, trace: tr}
	stored := 0
	for k := range criteo.NumSparse {
		stored += emb.Rows(k)
	}
	capped := ""
	if emb.Wrap {
		capped = " (capped: ids wrap; the real tables hold 204,184,588 rows)"
	}
	return &spec.Instance{
		Model: m,
		QSL:   q,
		Describe: fmt.Sprintf("dlrm: model %s, tables of %d rows in all%s; data %s: %d rows in %d aggregated samples (trace %s); batch %d samples, row budget %d, %d worker(s)",
			env.ModelPath, stored, capped, dir, tr.Offsets[tr.Len()], tr.Len(), tracePath, env.Batch, budget, env.Workers),
		Close: func() error {
			var first error
			for i := len(closers) - 1; i >= 0; i-- {
				if err := closers[i](); err != nil && first == nil {
					first = err
				}
			}
			return first
		},
	}, nil
}

// Score implements spec.Driver: accuracy-dlrm.py
// (mlcommons/inference recommendation/dlrm_v2/pytorch/tools), with
// (prediction, label) pairs in the log, or predictions only with
// --day-23-file and --aggregation-trace-file.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	dt := accuracy.Float32
	if req.DType != "" {
		var err error
		if dt, err = accuracy.ParseDType(req.DType); err != nil {
			return nil, err
		}
		if dt != accuracy.Float32 && dt != accuracy.Int32 && dt != accuracy.Int64 {
			return nil, fmt.Errorf("dlrm: --dtype %s: accuracy-dlrm.py takes float32, int32 or int64", dt)
		}
	}
	day23 := req.Extra[OptDay23File]
	if day23 == "" {
		r, err := auc.ScoreDLRM(req.Log, dt, 0)
		if err != nil {
			return nil, err
		}
		line := r.String()
		return &spec.Score{Lines: []string{line}, Text: "Assuming loadgen accuracy log contains ground truth labels.\nParsing loadgen accuracy log...\nCalculating AUC metric...\n" + line + "\n"}, nil
	}
	tp := req.Extra[OptAggregateTrace]
	if tp == "" {
		return nil, errors.New("dlrm: --day-23-file needs --aggregation-trace-file (the dlrm_trace_of_aggregated_samples.txt of the run)")
	}
	stderr := req.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	r, err := ScorePredictions(req.Log, dt, day23, tp, stderr)
	if err != nil {
		return nil, err
	}
	line := r.String()
	return &spec.Score{Lines: []string{line}, Text: "Assuming loadgen accuracy log does not contain ground truth labels.\nParsing loadgen accuracy log...\nParsing aggregation trace file...\nParsing ground truth labels from day_23 file...\nRe-ordering ground truth labels...\nCalculating AUC metric...\n" + line + "\n"}, nil
}
