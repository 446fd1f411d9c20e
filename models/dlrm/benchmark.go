package dlrm

// The dlrm benchmark as the framework runs it: its descriptor and driver
// (see package benchmark/spec).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/auc"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlperf.conf and the submission checker).
const (
	// confName is the model name in mlperf.conf and user.conf.
	confName = "dlrm-v2"
	// performanceSampleCount is what the QSL reports at most (the
	// reference README's --samples-per-query-offline); mlperf.conf's
	// override is the same.
	performanceSampleCount = 204800
	// seed is the synthetic models' default weight seed.
	seed = 1
)

// Options of the benchmark (their values reach Open and Score in Extra).
const (
	optAggregateFix   = "samples-to-aggregate-fix"
	optQuantileFile   = "samples-to-aggregate-quantile-file"
	optTraceFile      = "samples-to-aggregate-trace-file"
	optNumpySeed      = "numpy-rand-seed"
	optRowBudget      = "row-budget"
	optDay23File      = "day-23-file"
	optAggregateTrace = "aggregation-trace-file"
	optSynthRows      = "synth-rows"
)

// descriptor is the DLRMv2 benchmark descriptor.
var descriptor = &spec.Benchmark{
	Name:       "dlrm",
	Summary:    "DLRMv2 (DLRM-DCNv2) on multi-hot Criteo 1TB day 23, ROC AUC",
	ConfNames:  []string{confName},
	CheckerIDs: []string{"dlrm-v2-99", "dlrm-v2-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server, loadgen.SingleStream, loadgen.MultiStream},
	Dataset:    "criteo",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: "full", Summary: "the real dense part (16.0M parameters), tables capped at 65,536 rows (real: 204,184,588 rows, 97 GiB)"},
			{Name: "tiny", Summary: "the same graph, 8-d embeddings, tables of at most 64 rows (tests)"},
		},
		Seed: seed,
	},
	Batch: spec.Batches{loadgen.Offline: {CPU: 64}, loadgen.Server: {CPU: 64}, loadgen.MultiStream: {CPU: 64}},
	Options: []spec.Option{
		{Name: optAggregateFix, Usage: "aggregate a fixed number of rows per sample instead of the quantile trace (the reference's --samples-to-aggregate-fix)"},
		{Name: optQuantileFile, Usage: "query-size quantile file (default: the reference's tools/dist_quantile.txt, built in)"},
		{Name: optTraceFile, Usage: "where to write the aggregation trace (default: " + criteo.TraceFile + " in the output folder)"},
		{Name: optNumpySeed, Default: strconv.Itoa(criteo.DefaultNumpySeed), Usage: "numpy seed of the aggregation trace (the reference's --numpy-rand-seed)"},
		{Name: optRowBudget, Default: strconv.Itoa(defaultRowBudget), Usage: "most data rows per dense-graph call; --batch caps the aggregated samples a call may take"},
		{Name: optDay23File, Usage: "accuracy: the raw day_23 TSV; the log then holds predictions only (accuracy-dlrm.py --day-23-file)"},
		{Name: optAggregateTrace, Usage: "accuracy: the aggregation trace of the run, with --day-23-file"},
		{Name: optSynthRows, Usage: "rows of the day that --data synthetic generates (default 20000)"},
	},
	LocalOnly: "this process looks the 26 sparse features up in the embedding tables before the dense ONNX graph runs, so behind a remote backend that lookup would stay on the LoadGen node",
	// mlcommons/inference compliance/TEST01/dlrm-v2/audit.config
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the dlrm benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder (Build).
func (driver) BuildModel(path, size string, seed uint64) error { return build(path, size, seed) }

// ConvertModel implements spec.ModelConverter: the official
// torchsnapshot into this suite's dense graph and tables (Convert).
func (driver) ConvertModel(_ context.Context, src, out string, stderr io.Writer) error {
	return convert(src, out, convertOptions{Progress: stderr})
}

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// Open implements spec.Driver: the data set's aggregation trace (written
// to the output folder), the embedding tables and the dense graph.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (inst *spec.Instance, err error) {
	if env.Cache != "" {
		fmt.Fprintln(env.Stderr, "dlrm: --cache is not used: the samples are read from the --data arrays")
	}
	var closers spec.Closers
	defer func() {
		if err != nil {
			closers.Close()
		}
	}()
	budget, err := intOpt(env.Extra, optRowBudget, defaultRowBudget)
	if err != nil {
		return nil, err
	}
	dir := env.Data
	if dir == "synthetic" {
		rows, err := intOpt(env.Extra, optSynthRows, 0)
		if err != nil {
			return nil, err
		}
		if dir, err = syntheticDataArg(env.CacheDir, rows); err != nil {
			return nil, err
		}
	}
	ds, err := criteo.Open(dir, criteo.Options{})
	if err != nil {
		return nil, err
	}
	closers.Add(ds.Close)
	tr, err := traceFor(env.Extra, ds.Rows)
	if err != nil {
		return nil, err
	}
	tr.Truncate(env.Count)
	tracePath := env.Extra[optTraceFile]
	if tracePath == "" {
		tracePath = filepath.Join(env.Out, criteo.TraceFile)
	}
	if err := criteo.WriteTrace(tracePath, tr); err != nil {
		return nil, err
	}
	emb, err := openEmbeddings(filepath.Dir(env.ModelPath))
	if err != nil {
		return nil, err
	}
	closers.Add(emb.Close)
	sess, err := env.Engine.OpenSession(env.ModelPath, []string{outputProb})
	if err != nil {
		return nil, fmt.Errorf("dlrm: %w", err)
	}
	closers.Add(sess.Close)
	m, err := NewModel(sess, emb, ds, tr, budget)
	if err != nil {
		return nil, err
	}
	q := &qsl{ds: ds, trace: tr}
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
		Close: closers.Close,
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
	day23 := req.Extra[optDay23File]
	if day23 == "" {
		r, err := auc.ScoreDLRM(req.Log, dt, 0)
		if err != nil {
			return nil, err
		}
		line := r.String()
		return &spec.Score{Lines: []string{line}, Text: "Assuming loadgen accuracy log contains ground truth labels.\nParsing loadgen accuracy log...\nCalculating AUC metric...\n" + line + "\n"}, nil
	}
	tp := req.Extra[optAggregateTrace]
	if tp == "" {
		return nil, errors.New("dlrm: --day-23-file needs --aggregation-trace-file (the dlrm_trace_of_aggregated_samples.txt of the run)")
	}
	stderr := req.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	r, err := scorePredictions(req.Log, dt, day23, tp, stderr)
	if err != nil {
		return nil, err
	}
	line := r.String()
	return &spec.Score{Lines: []string{line}, Text: "Assuming loadgen accuracy log does not contain ground truth labels.\nParsing loadgen accuracy log...\nParsing aggregation trace file...\nParsing ground truth labels from day_23 file...\nRe-ordering ground truth labels...\nCalculating AUC metric...\n" + line + "\n"}, nil
}
