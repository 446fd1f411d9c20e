// Package benchmark runs any registered benchmark end to end: the
// framework side of the seam whose benchmark side is package spec.
//
// A benchmark (a models/<name> package) is a spec.Benchmark: data and a
// spec.Driver, registered from init with spec.Register. This package
// calls the Driver only downward. Run validates the run's Options,
// resolves (or builds) the model, gives the Driver an Engine that opens
// model files with the run's backend (ONNX Runtime locally, or KServe and
// OpenAI-compatible servers remotely), checks the model's batch, warms it
// up, wraps it in the scenario's SUT, runs the loadgen with the settings
// of mlperf.conf, user.conf and audit.config, records the run's own
// measurements in the detail log, and in accuracy mode scores the log and
// writes accuracy.txt. Perf measures the same model called directly
// against the same through the loadgen, Accuracy scores a log after the
// fact; every score goes through one path (Score, then Record).
//
// The mlperf command is generic over the registry: run, perf, accuracy,
// model build, dataset and list need no per-benchmark code. One place
// holds each fact: names, scenarios, defaults and accuracy targets come
// from the descriptor (or the tables it points to, such as
// accuracy.Targets), never from copies.
package benchmark

import (
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/internal/boundedread"
	"github.com/mlperf-go/inference/loadgen"
)

// Options are the settings of one run, typed and validated by the caller
// (the CLI parses flags into them; see Validate for the checks).
type Options struct {
	Scenario loadgen.Scenario
	Mode     loadgen.Mode
	// Model is a model file (.onnx), or "synthetic" / "synthetic:SIZE".
	Model string
	// ModelName is the mlperf.conf model name; "" means ConfNames[0].
	ModelName string
	// Data is a data set folder or file, or "synthetic".
	Data string
	// Backend is the execution provider: cpu, cuda or tensorrt; or a
	// remote backend (RemoteBackends).
	Backend string
	Device  int // accelerator id
	// ProviderOptions are key/values for the cuda or tensorrt execution
	// provider (ort.Options.ProviderOptions), e.g. gpu_mem_limit.
	ProviderOptions map[string]string
	Threads         int // engine intra-op threads (0: the engine's default)
	Workers         int // concurrent inference calls (≥ 1 after defaults)
	Batch           int // most samples per inference call (≥ 1 after defaults)
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
	Extra spec.Extra
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
	// PromptForm is how --backend openai and sglang send prompts: "auto"
	// (token ids where every endpoint takes them, else text; "" is auto),
	// "ids" or "text" (openai.Forms).
	PromptForm string
}

// Backends are the execution providers a local run may ask for.
var Backends = []string{"cpu", "cuda", "tensorrt"}

// Validate checks o against b and fills the defaults that depend on the
// benchmark: Batch (b.Batch), Workers (1 on cpu, 2 on a GPU), ModelName
// (ConfNames[0]). The errors name the flag and the valid values.
func (o *Options) Validate(b *spec.Benchmark) error {
	if !slices.Contains(b.Scenarios, o.Scenario) {
		return spec.UsageError("%s: scenario %s is not one of this benchmark's (%s)", b.Name, o.Scenario, scenarioList(b.Scenarios))
	}
	o.Backend = strings.ToLower(o.Backend)
	if !slices.Contains(Backends, o.Backend) && !o.Remote() {
		return spec.UsageError("%s: unknown backend %q; want %s", b.Name, o.Backend, strings.Join(append(slices.Clone(Backends), RemoteBackends...), ", "))
	}
	if err := o.checkRemote(b); err != nil {
		return err
	}
	if o.ModelName == "" {
		o.ModelName = b.ConfNames[0]
	} else if !slices.Contains(b.ConfNames, o.ModelName) {
		return spec.UsageError("%s: --model-name %q: want one of %s", b.Name, o.ModelName, strings.Join(b.ConfNames, ", "))
	}
	switch {
	case o.Batch < 0:
		return spec.UsageError("%s: --batch %d: want at least 1 (0: the scenario's default)", b.Name, o.Batch)
	case o.Threads < 0, o.Workers < 0, o.Count < 0, o.Device < 0, o.MinQueries < 0:
		return spec.UsageError("%s: --threads, --workers, --count, --device and --min-queries take non-negative values", b.Name)
	case o.Duration < 0, o.QPS < 0:
		return spec.UsageError("%s: --duration and --qps take non-negative values", b.Name)
	case math.IsNaN(o.QPS) || math.IsInf(o.QPS, 0):
		return spec.UsageError("%s: --qps %v: want a finite number of queries per second (0: keep the confs' value)", b.Name, o.QPS)
	case o.Model == "" && !o.Remote():
		return spec.UsageError("%s: --model is required (a .onnx file, synthetic or synthetic:SIZE)", b.Name)
	case o.Data == "":
		return spec.UsageError("%s: --data is required (a data set folder or synthetic)", b.Name)
	}
	if err := o.checkWorkers(b); err != nil {
		return err
	}
	for _, p := range []struct{ flag, path string }{{"--user-conf", o.UserConf}, {"--audit-conf", o.AuditConf}} {
		if p.path == "" {
			continue
		}
		st, err := os.Stat(p.path)
		if err != nil {
			return spec.UsageError("%s: %s %s: file not found", b.Name, p.flag, p.path)
		}
		if st.IsDir() {
			return spec.UsageError("%s: %s %s is a folder; name the conf file itself", b.Name, p.flag, p.path)
		}
		if err := boundedread.Check(p.path, p.flag, st, loadgen.MaxConfBytes); err != nil {
			return spec.UsageError("%s: %v", b.Name, err)
		}
	}
	if d, ok := spec.LookupDataset(b.Dataset); ok && b.Dataset != "" {
		if err := d.CheckData(o.Data); err != nil {
			return err
		}
	}
	if o.Cache != "" {
		if st, err := os.Stat(o.Cache); err == nil && !st.IsDir() {
			return spec.UsageError("%s: --cache %s is a file; --cache names a folder of preprocessed samples (<sample>.npy; created if missing)", b.Name, o.Cache)
		}
	}
	if err := CheckOptions(b, o); err != nil {
		return err
	}
	if o.Remote() {
		// Requests in flight, and no batching in the QDL (a Network
		// division rule: the SUT node batches).
		if o.Workers == 0 {
			o.Workers = RemoteInFlight * len(o.Endpoints)
		}
		if o.Batch == 0 {
			o.Batch = 1
		}
	}
	if o.Workers == 0 {
		o.Workers = 1
		if o.Backend != "cpu" {
			o.Workers = 2
		}
	}
	if o.Batch == 0 {
		o.Batch = b.Batch.For(o.Scenario, o.Backend)
	}
	return nil
}

// MaxRemoteInFlight is the most requests in flight a remote backend may
// be asked for per endpoint (--workers): each holds a connection and a
// goroutine on this node, and no serving engine takes more at once.
const MaxRemoteInFlight = 1024

// checkWorkers refuses a --workers no machine can use: more concurrent
// inference calls than backend.MaxThreads locally, more than
// MaxRemoteInFlight requests per endpoint remotely.
func (o *Options) checkWorkers(b *spec.Benchmark) error {
	if o.Remote() {
		if m := MaxRemoteInFlight * max(len(o.Endpoints), 1); o.Workers > m {
			return spec.UsageError("%s: --workers %d: more requests in flight than %d endpoint(s) can take (at most %d each); use at most %d", b.Name, o.Workers, len(o.Endpoints), MaxRemoteInFlight, m)
		}
		return nil
	}
	if m := backend.MaxThreads(); o.Workers > m {
		return spec.UsageError("%s: --workers %d: more concurrent inference calls than this machine can run (%d CPUs); use at most %d", b.Name, o.Workers, runtime.NumCPU(), m)
	}
	return nil
}

// CheckOptions runs b's own checks of o (spec.OptionChecker), if it has
// any; Validate calls it, and so does `mlperf serve`, which validates the
// rest itself.
func CheckOptions(b *spec.Benchmark, o *Options) error {
	c, ok := b.Driver.(spec.OptionChecker)
	if !ok {
		return nil
	}
	ro := o.runOptions()
	return c.CheckOptions(&ro)
}

// runOptions is the benchmark's view of o.
func (o *Options) runOptions() spec.RunOptions {
	return spec.RunOptions{
		Scenario: o.Scenario, Mode: o.Mode, ModelName: o.ModelName, Data: o.Data, Count: o.Count,
		Backend: o.Backend, Remote: o.Remote(), Batch: o.Batch, Workers: o.Workers,
		Cache: o.Cache, Out: o.Out, AuditConf: o.AuditConf, Extra: o.Extra,
	}
}

func scenarioList(s []loadgen.Scenario) string {
	n := make([]string, len(s))
	for i, sc := range s {
		n[i] = sc.String()
	}
	return strings.Join(n, ", ")
}
