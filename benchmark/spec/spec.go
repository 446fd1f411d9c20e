// Package spec is what a benchmark implements and what it is given: the
// contract between the suite's framework (package benchmark, which runs
// any benchmark end to end) and one benchmark (a models/<name> package),
// after database/sql/driver.
//
// A benchmark is data and a Driver. The data (Benchmark's fields) says
// what it is: its names, scenarios, default batch sizes, data set,
// synthetic model sizes, own flags, the shape of its accuracy log and
// its compliance tests. The Driver does the per-phase work, one method a
// phase: Open a model and data set into what the loadgen runs, and Score
// an accuracy log. Optional interfaces add the phases not every benchmark
// has (BuildModel, BuildGGUF, ConvertModel, CheckOptions, OpenGenerator).
//
// The framework calls a benchmark only downward and gives it what it
// needs as arguments: an Engine that opens model files with the run's
// backend (local or remote), a Progress sink, the run's typed options,
// the resolved model, and where to write. A benchmark never imports
// package benchmark; everything that touches engine settings, remote
// servers, batch checks, warm-up, progress lines, the loadgen, run
// statistics and logs is the framework's.
//
// # Adding a benchmark
//
// A new models/<name> package declares its descriptor and driver and
// registers them from init; one blank import in cmd/mlperf/benchmarks.go
// makes every command (run, perf, accuracy, model build, serve,
// compliance, submission, list) know it:
//
//	func init() { spec.Register(descriptor) }
//
//	var descriptor = &spec.Benchmark{
//		Name:       "mymodel",
//		Summary:    "one line for mlperf list",
//		ConfNames:  []string{"mymodel"},       // mlperf.conf model names
//		CheckerIDs: []string{"mymodel-99"},    // accuracy.Targets keys
//		Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server},
//		Dataset:    "mydata",                  // a registered spec.Dataset
//		Model:      spec.Models{Default: "synthetic", Sizes: []spec.Size{{Name: "full"}, {Name: "tiny"}}, Seed: 1},
//		Batch:      spec.Batches{loadgen.Offline: {CPU: 8, GPU: 32}},
//		Driver:     driver{},
//	}
//
//	type driver struct{}
//
//	// Open resolves r.Data, builds the QSL and opens the model through
//	// r.Engine; the framework checks the batch, warms up and wraps the
//	// model in the scenario's SUT.
//	func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
//		qsl, err := newQSL(r.Data, r.Count, r.Progress("loading samples", "images"))
//		...
//		sess, err := r.Engine.OpenSession(r.ModelPath, nil)
//		...
//		return &spec.Instance{Model: New(sess, qsl), QSL: qsl, Describe: r.Describe(qsl.TotalSampleCount()), Close: sess.Close}, nil
//	}
//
//	// Score is the reference's accuracy script on r.Log.
//	func (driver) Score(ctx context.Context, r *spec.ScoreRequest) (*spec.Score, error) { ... }
//
//	// BuildModel writes the synthetic model (optional: spec.ModelBuilder).
//	func (driver) BuildModel(path, size string, seed uint64) error { ... }
//
// A model that implements FixedBatcher and Warmer gets its fixed batch
// checked against --batch and Instance.Warmups warm-up calls. Instance
// sets Model (a harness.Model: the framework batches it in the scenario's
// SUT and drives `mlperf perf`'s raw side through the same Predict) or
// SUT (the benchmark's own, e.g. continuous batching; Raw then gives perf
// a model to call directly).
package spec

import (
	"context"
	"io"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// Benchmark describes one benchmark: data, and the Driver that does its
// work. A Benchmark is registered once and read-only afterwards; its
// Driver must be safe to call from several goroutines (two runs may
// share a process).
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
	// (for `mlperf list`, --data checks and the dataset commands).
	Dataset string
	// Model describes the synthetic models and the default --model.
	Model Models
	// Batch is the batch size per scenario and backend when --batch is
	// not given (a scenario not listed: 1).
	Batch Batches
	// Options are the benchmark's own flags of run, perf and accuracy
	// (e.g. --tokenizer); their values reach the Driver in Extra.
	Options []Option
	// LocalOnly, when set, says why the benchmark cannot run behind a
	// remote backend (--backend kserve, openai or sglang): some of its processing
	// (a search loop, a lookup, a pipeline) would stay on the LoadGen
	// node, which the Network division does not allow of a QDL. The
	// framework then refuses a remote backend with it.
	LocalOnly string
	// RemoteOnly, when set, says why the benchmark runs only behind a
	// remote LLM backend (a serving engine), for example that no engine
	// of this suite runs its model (DeepSeek-R1's 671B parameters). The
	// framework then refuses a local backend (cpu, cuda, tensorrt) with
	// it, and the benchmark needs no model file or synthetic model.
	RemoteOnly string
	// LogShape, when set, describes the responses in the benchmark's
	// accuracy log (element type, count, value range): a log that does
	// not fit (another benchmark's, or another dtype's) is refused before
	// it is scored.
	LogShape *accuracy.LogShape
	// Compliance lists the compliance tests that apply (TEST01, TEST04,
	// TEST06, ...), as the round's rules name them.
	Compliance []string
	// Dir is the benchmark's folder under models/ (its scripts and README)
	// when it is not Name (llama3.1-8b lives in models/llama3).
	Dir string
	// EOS is the end-of-sequence id TEST06 counts at the end of each
	// response (Llama 2: 2; Llama 3.1: <|eot_id|>, 128009); unused by
	// benchmarks without TEST06.
	EOS int64
	// Driver does the benchmark's work, phase by phase.
	Driver Driver
}

// Driver is what every benchmark does. The framework calls it; it never
// calls the framework.
type Driver interface {
	// Open resolves the data set, opens the model through r.Engine and
	// returns what the loadgen runs. It is called once per run, perf
	// measurement or compliance run.
	Open(ctx context.Context, r *OpenRequest) (*Instance, error)
	// Score scores an accuracy log as the reference's accuracy script
	// does, for a run in accuracy mode, `mlperf accuracy <name>` and the
	// compliance tests alike.
	Score(ctx context.Context, r *ScoreRequest) (*Score, error)
}

// ModelBuilder is a Driver that writes synthetic models: the real
// architecture and I/O contract with seeded weights (see the onnx
// package). BuildModel writes the model of a size (one of Models.Sizes)
// and seed to path, an .onnx file; weights may go to side files beside
// it. Same size and seed, same bytes.
type ModelBuilder interface {
	BuildModel(path, size string, seed uint64) error
}

// GGUFBuilder is a Driver whose synthetic model can also be written as a
// llama.cpp GGUF (`mlperf model build <name> --format gguf`), for
// llama.cpp-based engines such as ollama: the same weights as
// BuildModel's ONNX graph, with the tokenizer that its Options name in
// extra (--tokenizer).
type GGUFBuilder interface {
	BuildGGUF(path, size string, seed uint64, extra Extra) error
}

// ModelConverter is a Driver that converts the benchmark's official
// weights in their upstream format (src: a file or folder, e.g. DLRMv2's
// torchsnapshot) into the model this suite runs, written under out
// (`mlperf model convert <name>`); progress goes to stderr.
type ModelConverter interface {
	ConvertModel(ctx context.Context, src, out string, stderr io.Writer) error
}

// OptionChecker is a Driver with rules of its own for the run's options
// (Extra values, --batch): CheckOptions is called before anything is
// built or loaded. Its errors should be UsageError.
type OptionChecker interface {
	CheckOptions(o *RunOptions) error
}

// GeneratorOpener is a Driver whose model is a text generator that
// `mlperf serve` serves over /v1/completions and /v1/chat/completions
// (the decoders). The returned
// func releases it once the requests in flight are done.
type GeneratorOpener interface {
	OpenGenerator(ctx context.Context, r *OpenRequest) (openai.Generator, func() error, error)
}

// Models describes a benchmark's synthetic models.
type Models struct {
	// Default is the --model used when none is given, e.g. "synthetic" or
	// "synthetic:tiny".
	Default string
	// Sizes are the synthetic sizes the Driver's BuildModel writes;
	// --model synthetic means Sizes[0], --model synthetic:NAME the size of
	// that name.
	Sizes []Size
	// Seed is the default weight seed.
	Seed uint64
	// BuildSize is the default --size of `mlperf model build` ("":
	// Sizes[0]); the LLMs default to their tiny size there, since their
	// full sizes are tens to hundreds of gigabytes.
	BuildSize string
}

// Size is one synthetic model size.
type Size struct {
	Name    string // e.g. "full", "tiny", "70b"
	Summary string // e.g. "25.6M parameters"
}

// Batch is a default --batch on a CPU and on an accelerator.
type Batch struct {
	CPU int
	// GPU is the batch on cuda and tensorrt; 0 means CPU's.
	GPU int
}

// Batches are default batch sizes by scenario.
type Batches map[loadgen.Scenario]Batch

// For returns the default --batch of scenario sc on backend ("cpu",
// "cuda", ...): the listed value, else 1.
func (b Batches) For(sc loadgen.Scenario, backend string) int {
	v, ok := b[sc]
	switch {
	case !ok || v.CPU < 1:
		return 1
	case backend != "cpu" && v.GPU > 0:
		return v.GPU
	}
	return v.CPU
}

// SizeNames returns the names of the benchmark's synthetic model sizes,
// in Model.Sizes order (the first is the full size).
func (b *Benchmark) SizeNames() []string {
	n := make([]string, len(b.Model.Sizes))
	for i, s := range b.Model.Sizes {
		n[i] = s.Name
	}
	return n
}

// BuildsModels reports whether the benchmark has synthetic models in this
// build: sizes listed and a Driver that is a ModelBuilder.
func (b *Benchmark) BuildsModels() bool {
	_, ok := b.Driver.(ModelBuilder)
	return ok && len(b.Model.Sizes) > 0
}

// Folder is the benchmark's folder in the repository, models/<Dir or
// Name>, for messages that point to its scripts.
func (b *Benchmark) Folder() string {
	if b.Dir != "" {
		return "models/" + b.Dir
	}
	return "models/" + b.Name
}
