// Package benchmark defines what an MLPerf Inference benchmark is to this
// suite, keeps the registry of them, and runs any of them end to end.
//
// Each models/<name> package describes its benchmark with one Benchmark
// value and registers it from an init function; the mlperf command
// blank-imports them all (see package benchmark/all) and is generic over
// the registry: run, perf, accuracy, model build, dataset and list need no
// per-benchmark code. One place holds each fact: names, scenarios,
// defaults and accuracy targets come from the descriptor (or the tables it
// points to, such as accuracy.Targets), never from copies.
//
// The shape follows the reference's split: a benchmark opens its model and
// data into a loadgen SUT and QSL (Open), and scores an accuracy log
// (Score); everything between (settings from mlperf.conf, user.conf and
// audit.config, the loadgen run, the logs, accuracy.txt) is common and
// lives in Run.
package benchmark

import (
	"context"
	"github.com/mlperf-go/inference/accuracy"
	"io"
	"time"

	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// Benchmark describes one benchmark. A Benchmark is registered once and
// read-only afterwards; its funcs must be safe to call from several
// goroutines (two runs may share a process).
type Benchmark struct {
	// Name is the command-line name and registry key, e.g. "resnet50",
	// "unet3d", "dlrm".
	Name string
	// Summary is one line for `mlperf list` and the command help.
	Summary string
	// ConfNames are the model names in mlperf.conf / user.conf this
	// benchmark runs as; the first is the default and the others are
	// chosen with --model-name (e.g. "llama2-70b-interactive"). They are
	// also accepted by Lookup ("3d-unet" finds unet3d).
	ConfNames []string
	// CheckerIDs are the submission checker's names of the benchmark's
	// variants, the keys of accuracy.Targets (e.g. "resnet", or
	// "bert-99" and "bert-99.9").
	CheckerIDs []string
	// Scenarios are the scenarios the benchmark may run in, in the order
	// `mlperf list` shows them.
	Scenarios []loadgen.Scenario
	// Dataset is the name of the registered Dataset the benchmark reads
	// (for `mlperf list` and the dataset commands).
	Dataset string
	// Model describes the synthetic models and the default --model.
	Model Models
	// DefaultBatch is the batch size for a scenario and backend when
	// --batch is not given (nil: 1).
	DefaultBatch func(sc loadgen.Scenario, backend string) int
	// Options are the benchmark's own flags of run, perf and accuracy
	// (e.g. --tokenizer); their values reach Open and Score in Extra.
	Options []Option
	// Check, when set, validates the run's options the benchmark has its
	// own rules for (Extra values, --max-new-tokens) before anything is
	// built or loaded; Options.Validate calls it. Errors should be
	// UsageError.
	Check func(o *Options) error
	// LocalOnly, when set, says why the benchmark cannot run behind a
	// remote backend (--backend kserve or openai): some of its processing
	// (a search loop, a lookup, a pipeline) would stay on the LoadGen
	// node, which the Network division does not allow of a QDL.
	// Options.Validate then refuses a remote backend with it.
	LocalOnly string
	// Open resolves the data set, opens the model and returns what the
	// loadgen runs. It is called once per run or perf measurement.
	Open func(ctx context.Context, env *Env) (*Instance, error)
	// Score scores an accuracy log as the reference's accuracy script
	// does, for `mlperf accuracy <name>` and for runs whose Instance has
	// no Score of its own.
	Score func(ctx context.Context, req *ScoreRequest) (*Score, error)
	// Generator, when set, opens the model of env as a text generator
	// that `mlperf serve` serves over /v1/completions (the decoders); the
	// returned func releases it once the requests in flight are done.
	Generator func(ctx context.Context, env *Env) (openai.Generator, func() error, error)
	// LogShape, when set, describes the responses in the benchmark's
	// accuracy log (element type, count, value range): a log that does
	// not fit (another benchmark's, or another dtype's) is refused before
	// it is scored.
	LogShape *accuracy.LogShape
	// Compliance lists the compliance tests that apply (TEST01, TEST04,
	// TEST06, ...), as the round's rules name them.
	Compliance []string
}

// Models describes a benchmark's synthetic models: the real architecture
// and I/O contract with seeded weights (see the onnx package).
type Models struct {
	// Default is the --model used when none is given, e.g. "synthetic" or
	// "synthetic:tiny".
	Default string
	// Sizes are the synthetic sizes; --model synthetic means Sizes[0],
	// --model synthetic:NAME the size of that name.
	Sizes []Size
	// Seed is the default weight seed.
	Seed uint64
	// BuildSize is the default --size of `mlperf model build` ("":
	// Sizes[0]); the LLMs default to their tiny size there, since their
	// full sizes are tens to hundreds of gigabytes.
	BuildSize string
	// Build writes the synthetic model of a size and seed to path (an
	// .onnx file; weights may go to side files beside it, which is why
	// resolved synthetic models get a folder each). Same size and seed,
	// same bytes.
	Build func(path, size string, seed uint64) error
	// Convert, when set, converts the benchmark's official weights in
	// their upstream format (src: a file or folder, e.g. DLRMv2's
	// torchsnapshot) into the model this suite runs, written under out
	// (`mlperf model convert <name>`); progress goes to stderr.
	Convert func(ctx context.Context, src, out string, stderr io.Writer) error
}

// Size is one synthetic model size.
type Size struct {
	Name    string // e.g. "full", "tiny", "70b"
	Summary string // e.g. "25.6M parameters"
}

// Option is one benchmark- or data-set-specific flag, registered as a
// string flag (a bool flag when Bool is set, valued "true" or "false");
// its value reaches the benchmark in an Extra map.
type Option struct {
	Name    string // flag name without dashes, e.g. "tokenizer"
	Default string // default value; may be computed at registration
	Usage   string
	Bool    bool // a flag given without a value (--official)
	// Deps, when set, says that Default is a side file or folder `make
	// setup` installs, at this slash-separated path inside the deps
	// folder (DepsPath; e.g. "bert/vocab.txt"). CheckDeps checks it.
	Deps string
}

// Extra holds the values of a benchmark's Options by name.
type Extra map[string]string

// Options are the settings of one run, typed and validated by the caller
// (the CLI parses flags into them; see ParseOptions for the checks).
type Options struct {
	Scenario loadgen.Scenario
	Mode     loadgen.Mode
	// Model is a model file (.onnx), or "synthetic" / "synthetic:SIZE".
	Model string
	// ModelName is the mlperf.conf model name; "" means ConfNames[0].
	ModelName string
	// Data is a data set folder or file, or "synthetic".
	Data string
	// Backend is the execution provider: cpu, cuda or tensorrt.
	Backend string
	Device  int // accelerator id
	Threads int // engine intra-op threads (0: the engine's default)
	Workers int // concurrent inference calls (≥ 1 after defaults)
	Batch   int // most samples per inference call (≥ 1 after defaults)
	// Count, if positive, uses only the first Count samples of the data
	// set.
	Count int
	// UserConf and AuditConf are optional conf files.
	UserConf, AuditConf string
	// Out is the folder for the logs and accuracy.txt.
	Out string
	// Cache is a folder of preprocessed samples ("": none).
	Cache string
	// Duration, MinQueries and QPS override min_duration,
	// min_query_count and the Server target / Offline expected QPS when
	// positive.
	Duration   time.Duration
	MinQueries int
	QPS        float64
	// CompletionTimeout, when positive, bounds how long the loadgen waits
	// without any completion (loadgen.Settings.CompletionTimeout; 0: the
	// scenario's default).
	CompletionTimeout time.Duration
	// Seeds, when set, are a submission round's mlperf.conf seeds, which
	// replace the embedded mlperf.conf's (check.Rounds[R].Seeds for
	// --round R).
	Seeds *loadgen.Seeds
	// Extra holds the values of the benchmark's Options.
	Extra Extra
	// Endpoints are the remote servers of --backend kserve / openai
	// (host:port or URLs); ServedModel their name of the model ("": the
	// benchmark's name); APIKeyEnv names the environment variable holding
	// a bearer token for them.
	Endpoints   []string
	ServedModel string
	APIKeyEnv   string
	// Protocol is the Open Inference Protocol transport of --backend
	// kserve: "http" (REST) or "grpc" (kserve.Protocols); "" is http.
	Protocol string
}

// Env is what Open works with: the run's options, the resolved model, and
// where to report. It is owned by the run; Open must not keep it past the
// Instance's Close.
type Env struct {
	Options
	// Benchmark is the descriptor being opened.
	Benchmark *Benchmark
	// ModelPath is the resolved model file (a synthetic one is built into
	// the cache first).
	ModelPath string
	// SyntheticSize is the synthetic size when --model names one, else "".
	SyntheticSize string
	// CacheDir is where generated inputs (synthetic models and data sets)
	// are kept between runs.
	CacheDir string
	// Stderr receives progress and notes; never nil.
	Stderr io.Writer
	// Stdout receives results (Instance.After's reports); never nil.
	Stdout io.Writer

	// remoteName asks the remote engine for its name (a network round
	// trip), set when a remote backend is opened.
	remoteName func() string
	// stats are the run's own measurements beside the loadgen's (see
	// runStats); nil until something records into them.
	stats *runStats
}

// runStats returns the run's measurements, creating them on first use.
func (e *Env) runStats() *runStats {
	if e.stats == nil {
		e.stats = &runStats{}
	}
	return e.stats
}

// Synthetic reports whether the run uses a synthetic (seeded-weights)
// model, whose accuracy is not meaningful.
func (e *Env) Synthetic() bool { return e.SyntheticSize != "" }

// Instance is an opened benchmark: what the loadgen runs and how to score
// and measure it. Close releases it; the caller calls Close exactly once.
type Instance struct {
	// Model is a tensor model the generic harness wraps in the scenario's
	// SUT (harness.ForScenario with Options.Batch and Workers). Set Model
	// or SUT, not both.
	Model harness.Model
	// SUT is a benchmark's own SUT (e.g. the LLMs' continuous batcher).
	SUT loadgen.SUT
	// QSL is the query sample library.
	QSL loadgen.QSL
	// Done, when set, reports samples completed so far (progress line).
	// With Model set and Done nil, Run counts the samples itself.
	Done func() int64
	// Describe is one line printed before the run (model, data, batch).
	Describe string
	// Score scores the run's accuracy log; nil: the Benchmark's Score
	// with Data and Count of the run.
	Score func(ctx context.Context, logPath string) (*Score, error)
	// Raw measures the engine alone for `mlperf perf`: back-to-back
	// inference calls on real loaded samples for about d, returning the
	// samples done and the time they took. nil: perf is not available.
	Raw func(ctx context.Context, d time.Duration) (samples int64, elapsed time.Duration, err error)
	// After, when set, runs after a completed loadgen run (e.g. TEST06's
	// checks on an LLM accuracy log).
	After func(ctx context.Context, res *loadgen.Result) error
	// Close releases the model and data; nil: nothing to release.
	Close func() error
}

// ScoreRequest asks a benchmark to score an accuracy log.
type ScoreRequest struct {
	// Log is the mlperf_log_accuracy.json path.
	Log string
	// Data is the data set (folder or file, or "synthetic" for the one a
	// synthetic run generates).
	Data string
	// Count is the --count of the run (0: the whole data set).
	Count int
	// DType overrides the response element type where the benchmark
	// allows several ("": the reference's).
	DType string
	// Extra holds the values of the benchmark's Options.
	Extra Extra
	// CacheDir and Stderr as in Env.
	CacheDir string
	Stderr   io.Writer
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
