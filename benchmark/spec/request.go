package spec

import (
	"context"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// RunOptions are the settings of one run as a benchmark sees them,
// validated and with the defaults filled (--batch, --workers,
// --model-name). Engine settings (--threads, --device, endpoints) are
// the Engine's, not the benchmark's.
type RunOptions struct {
	Scenario loadgen.Scenario
	Mode     loadgen.Mode
	// ModelName is the mlperf.conf model name (one of ConfNames).
	ModelName string
	// Data is the --data folder or file, or "synthetic".
	Data string
	// Count, if positive, uses only the first Count samples.
	Count int
	// Backend is --backend: cpu, cuda, tensorrt, or a remote one (kserve,
	// openai; then Remote is set).
	Backend string
	Remote  bool
	// Batch is the most samples per inference call, Workers the
	// concurrent calls (both ≥ 1).
	Batch, Workers int
	// Cache is a folder of preprocessed samples ("": none).
	Cache string
	// Out is the run's output folder.
	Out string
	// AuditConf is the audit.config of a compliance run ("": none).
	AuditConf string
	// Extra holds the values of the benchmark's Options.
	Extra Extra
}

// OpenRequest is what Driver.Open gets: the run's options, the resolved
// model, an Engine to open it with, and where to report. It is owned by
// the framework and valid until the Instance is closed.
type OpenRequest struct {
	RunOptions
	// Name is the benchmark's name, for messages.
	Name string
	// Model is the --model as given, or for a remote backend the served
	// model and its endpoints; for messages.
	Model string
	// ModelPath is the resolved model file (a synthetic one is built into
	// the cache first); "" for a remote backend.
	ModelPath string
	// SyntheticSize is the synthetic size when --model names one, else "".
	SyntheticSize string
	// ModelDesc names the model in error messages: its file, or the
	// served model with the fix for a mismatch.
	ModelDesc string
	// CacheDir is where generated inputs (synthetic models and data sets)
	// are kept between runs.
	CacheDir string
	// Engine opens model files with the run's backend.
	Engine Engine
	// Progress starts a progress line on Stderr (see Progress).
	Progress func(what, unit string) Progress
	// Stdout receives results (After's reports), Stderr progress and
	// notes; never nil, safe for concurrent writes.
	Stdout, Stderr io.Writer
}

// Synthetic reports whether the run uses a synthetic (seeded-weights)
// model, whose accuracy is not meaningful.
func (r *OpenRequest) Synthetic() bool { return r.SyntheticSize != "" }

// Describe is the usual line about a tensor-model run: scenario, mode,
// model, backend, batch, workers and the data set's sample count.
func (r *OpenRequest) Describe(samples int) string {
	return fmt.Sprintf("%s: %s %s, model %s, %s backend, batch %d, %d worker(s), %d samples in the data set",
		r.Name, r.Scenario, r.Mode, r.Model, r.Backend, r.Batch, r.Workers, samples)
}

// Engine opens what a benchmark's model runs on, with the run's --backend,
// --device and --threads, or over the remote backend's endpoints. The
// caller closes what it opens. It is safe for concurrent use.
type Engine interface {
	// OpenSession opens a model file, fetching only outputs (nil: all).
	// With --backend kserve it connects to the served model instead and
	// path is not used; --backend openai and sglang refuse it.
	OpenSession(path string, outputs []string) (backend.Session, error)
	// OpenCompletions opens the openai or sglang backend's SUT for a
	// decoder: c carries the benchmark's part (Prompt, Encode, Chunk,
	// MaxTokens, ProbeIDs, Vocab, Chat); the engine sets the endpoints,
	// API, served model, key, prompt form, requests in flight and
	// timeout, and checks the servers. Other backends refuse it.
	OpenCompletions(c openai.Config) (*openai.SUT, error)
}

// Progress is a progress line a long step reports into (loading samples,
// preprocessing). It is safe for concurrent use.
type Progress interface {
	// Update reports done of total (total ≤ 0: unknown); a call with done
	// ≤ 1 and a known total starts a new series.
	Update(done, total int)
	// Done ends the line.
	Done()
}

// FixedBatcher is a model whose file fixes its batch dimension: a
// FixedBatch above 0 and below --batch is a usage error.
type FixedBatcher interface {
	FixedBatch() int
}

// Warmer is a model that warms up: Warmup runs count calls of n samples
// (the framework's n is --batch) before the run.
type Warmer interface {
	Warmup(ctx context.Context, n, count int) error
}

// Instance is an opened benchmark: what the loadgen runs. The framework
// calls Close exactly once.
type Instance struct {
	// Model is a model the framework wraps in the scenario's SUT (with
	// --batch and --workers) and that `mlperf perf` calls directly for its
	// raw side. Set Model or SUT, not both.
	Model harness.Model
	// SUT is a benchmark's own SUT (e.g. the LLMs' continuous batcher).
	SUT loadgen.SUT
	// Raw, with SUT, is the model perf's raw side calls directly (nil:
	// perf is not available).
	Raw harness.Model
	// RawWhole says that perf's raw side hands Raw a whole round's
	// samples in one call, as a loadgen Offline query hands them to the
	// SUT, instead of --batch samples a call from --workers goroutines:
	// for an SUT that batches continuously, whose raw side is the same
	// batcher without the loadgen.
	RawWhole bool
	// QSL is the query sample library.
	QSL loadgen.QSL
	// Warmups is how many warm-up calls of --batch samples the framework
	// makes before the run, if Model is a Warmer.
	Warmups int
	// SampleBytes is the memory one sample of --batch holds while it
	// runs in a local engine, in bytes, where the model's inputs and
	// outputs do not tell it (a decoder's cache at its longest sequence,
	// an encoder's attention scores). 0, or a remote backend: the
	// framework estimates it from the inputs and outputs of the sessions
	// opened through the Engine. The framework refuses a --batch whose samples
	// cannot fit in memory at once, before the run allocates them.
	SampleBytes int64
	// Describe is one line printed before the run (model, data, batch).
	Describe string
	// FirstTokenBytes, when positive, has the framework report the first
	// FirstTokenBytes bytes of each completed response of Model (its first
	// token id) to the loadgen as the sample's first token, just before it
	// completes the sample; not in Offline, where LoadGen asks for no
	// first token. It is for a decoder whose first token is final only
	// with the whole response (beam search picks its best hypothesis at
	// the end), so its time to first token is its latency; TEST06 checks
	// the token against the response.
	FirstTokenBytes int
	// After, when set, runs after a completed loadgen run (e.g. TEST06's
	// checks on an LLM accuracy log).
	After func(ctx context.Context, res *loadgen.Result) error
	// Close releases the model and data; nil: nothing to release.
	Close func() error
}

// ScoreRequest asks a benchmark to score an accuracy log. The framework
// fills it alike for a run in accuracy mode, `mlperf accuracy <name>` and
// the compliance tests.
type ScoreRequest struct {
	// Log is the mlperf_log_accuracy.json path, checked against the
	// benchmark's LogShape already.
	Log string
	// Data is the data set (folder or file, or "synthetic" for the one a
	// synthetic run generates).
	Data string
	// Count is the --count of the run (0: the whole data set).
	Count int
	// ModelName is the run's mlperf.conf model name (one of ConfNames;
	// "" when not known, e.g. `mlperf accuracy` without --model-name),
	// for a benchmark whose variants read different data (Llama 3.1 8B's
	// edge subset).
	ModelName string
	// DType overrides the response element type where the benchmark
	// allows several ("": the reference's).
	DType string
	// Extra holds the values of the benchmark's Options.
	Extra Extra
	// ModelPath is the run's resolved model file ("" when not known, as
	// in `mlperf accuracy`); SyntheticSize its synthetic size ("": not
	// synthetic, or not known).
	ModelPath, SyntheticSize string
	// Out is the run's output folder ("" outside a run).
	Out string
	// CacheDir as in OpenRequest.
	CacheDir string
	// AccuracyFiles are the files a submission round wants in the
	// accuracy folder besides the logs (the checker's
	// REQUIRED_ACC_BENCHMARK entry of the benchmark for --round R:
	// folder → file stems, e.g. sdxl's "images" → the review ids); nil:
	// the benchmark's own default.
	AccuracyFiles map[string][]string
	// Engine opens the scorer's own models (FID, CLIP) on the run's local
	// backend (cpu outside a run).
	Engine Engine
	// Stderr receives notes; never nil.
	Stderr io.Writer
}

// Score is the result of scoring an accuracy log.
type Score struct {
	// Lines are the accuracy.txt lines the submission checker parses
	// (e.g. "accuracy=76.456%, good=38228, total=50000").
	Lines []string
	// Text is what the reference's accuracy script prints, which may be
	// more than Lines (COCO's summarize() table, KiTS19's per-case
	// table); "" means Lines.
	Text string
}
