package benchmark

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/openai"
)

// RemoteBackends are the backends that run the model on remote serving
// engines rather than in this process: "kserve" (Open Inference Protocol
// over HTTP, for tensor models; several --endpoint values make this
// process the Network division's LoadGen node, dispatching round-robin)
// and "openai" (an OpenAI-compatible /v1/completions server, for the
// decoders).
var RemoteBackends = []string{"kserve", "openai"}

// RemoteInFlight is the default number of requests in flight per remote
// endpoint (--workers overrides the total).
const RemoteInFlight = 16

// Remote reports whether the run's backend is a remote one (no local
// model file is resolved or built).
func (o *Options) Remote() bool { return slices.Contains(RemoteBackends, o.Backend) }

// checkRemote validates the remote options.
func (o *Options) checkRemote(b *Benchmark) error {
	o.Protocol = strings.ToLower(o.Protocol)
	if o.Protocol != "" {
		if o.Backend != "kserve" {
			return UsageError("%s: --protocol %s needs --backend kserve (the Open Inference Protocol's transport)", b.Name, o.Protocol)
		}
		if !slices.Contains(kserve.Protocols, o.Protocol) {
			return UsageError("%s: unknown --protocol %q (want one of %s)", b.Name, o.Protocol, strings.Join(kserve.Protocols, ", "))
		}
	}
	if !o.Remote() {
		if len(o.Endpoints) > 0 {
			return UsageError("%s: --endpoint needs --backend kserve or openai", b.Name)
		}
		return nil
	}
	if b.LocalOnly != "" {
		return UsageError("%s: --backend %s is not available: %s, which the Network division does not allow of a QDL; run %s locally (--backend %s)", b.Name, o.Backend, b.LocalOnly, b.Name, strings.Join(Backends, ", "))
	}
	if len(o.Endpoints) == 0 {
		return UsageError("%s: --backend %s needs --endpoint host:port (the serving engine)", b.Name, o.Backend)
	}
	if o.Backend == "openai" && len(o.Endpoints) > 1 {
		return UsageError("%s: --backend openai takes one --endpoint (put a load balancer in front of several servers)", b.Name)
	}
	for _, ep := range o.Endpoints {
		check := func(ep string) error { return kserve.CheckEndpoint(ep, o.Protocol) }
		if o.Backend == "openai" {
			check = openai.CheckEndpoint
		}
		if err := check(ep); err != nil {
			return UsageError("%s: --endpoint: %v", b.Name, err)
		}
	}
	if o.APIKeyEnv != "" && os.Getenv(o.APIKeyEnv) == "" {
		return UsageError("%s: --api-key-env %s: that environment variable is empty", b.Name, o.APIKeyEnv)
	}
	return nil
}

// servedModel is the model name on the remote server.
func (e *Env) servedModel() string {
	if e.ServedModel != "" {
		return e.ServedModel
	}
	return e.Benchmark.Name
}

// remoteTimeout is the per-request deadline of a remote backend: the
// scenario's latency bound times ten, at least a minute (0 bounds: 10
// minutes), so a stalled server fails samples instead of hanging the run.
func (e *Env) remoteTimeout() time.Duration {
	s, err := Settings(&e.Options)
	if err != nil || s.ServerTargetLatencyNs == 0 {
		return 10 * time.Minute
	}
	return max(time.Minute, 10*time.Duration(s.ServerTargetLatencyNs))
}

// dialKServe opens the kserve backend: every --endpoint, checked to serve
// the same model contract.
func (e *Env) dialKServe() (backend.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := kserve.DialPool(ctx, e.Endpoints, kserve.Config{Model: e.servedModel(), Timeout: e.remoteTimeout(), Protocol: e.Protocol})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Benchmark.Name, err)
	}
	name, err := p.Name(ctx)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: %w", e.Benchmark.Name, err)
	}
	// The loadgen asks for the name again at the start of the run: each
	// ask is a round trip to every node, as the Network division's Name
	// rule requires.
	if e.Batch > 1 {
		fmt.Fprintf(e.Stderr, "%s: --batch %d: this LoadGen node batches samples into one request, which the Network division does not allow of a QDL (the SUT node batches); not a conformant Network division run\n", e.Benchmark.Name, e.Batch)
	}
	e.remoteName = func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		n, err := p.Name(ctx)
		if err != nil {
			return "Network SUT: (the name round trip failed: " + err.Error() + ")"
		}
		return n
	}
	fmt.Fprintf(e.Stderr, "%s: %s\n", e.Benchmark.Name, name)
	// The harness calls Run; this makes it RunTimed, so that the detail
	// log and stderr get the server-side timings of each request.
	return withServerTimings(p, &e.runStats().server), nil
}

// OpenAISUT returns the openai backend's SUT for a decoder benchmark:
// prompt gives a sample's prompt text, encode the benchmark's token ids of
// generated text, chunk (if not nil) the ids of one streamed token's text
// (see openai.Config), maxTokens the generation limit. The caller closes
// it.
func (e *Env) OpenAISUT(prompt func(loadgen.SampleIndex) (string, error), encode, chunk func(string) []int32, maxTokens int) (*openai.SUT, error) {
	key := ""
	if e.APIKeyEnv != "" {
		key = os.Getenv(e.APIKeyEnv)
	}
	s, err := openai.New(openai.Config{
		Endpoint: e.Endpoints[0], Model: e.servedModel(), APIKey: key, MaxTokens: maxTokens,
		MaxInFlight: max(e.Workers, e.Batch), Timeout: e.remoteTimeout(), Prompt: prompt, Encode: encode, Chunk: chunk,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Benchmark.Name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Check(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", e.Benchmark.Name, err)
	}
	e.remoteName = s.Name
	how := "the server's where its stream carries token_ids, else this benchmark's tokenizer over the returned text"
	if chunk != nil {
		how = "the server's where its stream carries token_ids, else this benchmark's vocabulary over each streamed token's text"
	}
	fmt.Fprintf(e.Stderr, "%s: %s; token ids are %s\n", e.Benchmark.Name, s.Name(), how)
	return s, nil
}

// namedSUT gives a SUT the remote engine's name for the logs (asked of
// the engine at each call), passing Flush through.
type namedSUT struct {
	loadgen.SUT
	name func() string
}

func (n namedSUT) Name() string { return n.name() }

func (n namedSUT) Flush() {
	if f, ok := n.SUT.(loadgen.Flusher); ok {
		f.Flush()
	}
}

// ModelDesc names the model for messages: its file, or for a remote
// backend the served model, its endpoints and the fix for a mismatch.
func (e *Env) ModelDesc() string {
	if e.Remote() {
		return fmt.Sprintf("%s served at %s: serve %s's model there (mlperf serve %s) or name the right one with --served-model",
			e.servedModel(), strings.Join(e.Endpoints, ", "), e.Benchmark.Name, e.Benchmark.Name)
	}
	return e.ModelPath
}
