package benchmark

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/internal/redact"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/openai"
)

// RemoteBackends are the backends that run the model on remote serving
// engines rather than in this process: "kserve" (Open Inference Protocol
// over HTTP or gRPC, for tensor models; several --endpoint values make
// this process the Network division's LoadGen node, dispatching
// round-robin), and for the decoders "openai" (OpenAI-compatible
// /v1/completions and /v1/chat/completions servers) and "sglang"
// (SGLang's native /generate), whose several --endpoint values share the
// samples by fewest requests in flight.
var RemoteBackends = []string{"kserve", "openai", "sglang"}

// textBackend reports whether backend is a remote text-generation one
// (openai, sglang).
func textBackend(backend string) bool { return backend == "openai" || backend == "sglang" }

// RemoteInFlight is the default number of requests in flight per remote
// endpoint (--workers overrides the total).
const RemoteInFlight = 16

// Remote reports whether the run's backend is a remote one (no local
// model file is resolved or built).
func (o *Options) Remote() bool { return slices.Contains(RemoteBackends, o.Backend) }

// checkRemote validates the remote options.
func (o *Options) checkRemote(b *spec.Benchmark) error {
	o.Protocol = strings.ToLower(o.Protocol)
	if o.Protocol != "" {
		if o.Backend != "kserve" {
			return spec.UsageError("%s: --protocol %s needs --backend kserve (the Open Inference Protocol's transport)", b.Name, o.Protocol)
		}
		if !slices.Contains(kserve.Protocols, o.Protocol) {
			return spec.UsageError("%s: unknown --protocol %q (want one of %s)", b.Name, o.Protocol, strings.Join(kserve.Protocols, ", "))
		}
	}
	if !o.Remote() {
		for _, f := range []struct{ flag, v string }{
			{"--endpoint", strings.Join(o.Endpoints, ",")}, {"--served-model", o.ServedModel}, {"--api-key-env", o.APIKeyEnv},
		} {
			if f.v != "" {
				return spec.UsageError("%s: %s needs --backend kserve, openai or sglang (a remote engine); with --backend %s it would do nothing", b.Name, f.flag, o.Backend)
			}
		}
	}
	if o.PromptForm != "" {
		if !textBackend(o.Backend) {
			return spec.UsageError("%s: --prompt-form needs --backend openai or sglang (a remote decoder); with --backend %s it would do nothing", b.Name, o.Backend)
		}
		if _, err := openai.ParseForm(o.PromptForm); err != nil {
			return spec.UsageError("%s: --prompt-form %q: want %s", b.Name, o.PromptForm, strings.Join(openai.Forms, ", "))
		}
	}
	if !o.Remote() {
		return nil
	}
	if o.APIKeyEnv != "" && !textBackend(o.Backend) {
		return spec.UsageError("%s: --api-key-env is sent only by --backend openai and sglang; with --backend %s it would do nothing (put credentials in the endpoint URL, http://user:password@host:port)", b.Name, o.Backend)
	}
	if b.LocalOnly != "" {
		return spec.UsageError("%s: --backend %s is not available: %s, which the Network division does not allow of a QDL; run %s locally (--backend %s)", b.Name, o.Backend, b.LocalOnly, b.Name, strings.Join(Backends, ", "))
	}
	if len(o.Endpoints) == 0 {
		return spec.UsageError("%s: --backend %s needs --endpoint host:port (the serving engine)", b.Name, o.Backend)
	}
	if textBackend(o.Backend) && len(o.Endpoints) > openai.MaxEndpoints {
		return spec.UsageError("%s: %d --endpoint values: at most %d", b.Name, len(o.Endpoints), openai.MaxEndpoints)
	}
	for _, ep := range o.Endpoints {
		check := func(ep string) error { return kserve.CheckEndpoint(ep, o.Protocol) }
		if textBackend(o.Backend) {
			check = openai.CheckEndpoint
		}
		if err := check(ep); err != nil {
			return spec.UsageError("%s: --endpoint: %v", b.Name, err)
		}
	}
	if o.APIKeyEnv != "" && os.Getenv(o.APIKeyEnv) == "" {
		return spec.UsageError("%s: --api-key-env %s: that environment variable is empty", b.Name, o.APIKeyEnv)
	}
	return nil
}

// engine is the spec.Engine of a run: ONNX Runtime with the run's
// --backend, --device and --threads, or the remote backend's endpoints.
// It records the remote engine's name for the logs and the server's
// timings into the run's statistics.
type engine struct {
	s *setup
	// remoteName asks the remote engine for its name (a network round
	// trip), set when a remote backend is opened.
	remoteName func() string
	// sampleIO is the bytes of one sample's inputs and outputs over every
	// session opened (backend.SampleBytes); sampleFixed the working bytes
	// of one request of a remote text engine. checkBatchMemory reads them.
	sampleIO, sampleFixed int64
}

// record notes an opened session's contract for the batch memory check.
func (e *engine) record(sess backend.Session) {
	e.sampleIO = satAdd(e.sampleIO, satAdd(backend.SampleBytes(sess.Inputs()), backend.SampleBytes(sess.Outputs())))
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// OpenSession implements spec.Engine.
func (e *engine) OpenSession(path string, outputs []string) (backend.Session, error) {
	o := &e.s.o
	var sess backend.Session
	var err error
	switch o.Backend {
	case "kserve":
		sess, err = e.dialKServe()
	case "openai", "sglang":
		return nil, spec.UsageError("%s: --backend %s is not available for this benchmark: it drives greedy decoders (llama2, llama3.1-8b); tensor models take --backend kserve", e.s.b.Name, o.Backend)
	default:
		sess, err = OpenLocal(o, path, outputs)
	}
	if err != nil {
		return nil, err
	}
	e.record(sess)
	return sess, nil
}

// OpenLocal opens a model file with ONNX Runtime and o's engine settings
// (--backend, --device, --threads), fetching only outputs (nil: all).
func OpenLocal(o *Options, path string, outputs []string) (backend.Session, error) {
	return ort.Open(path, ort.Options{
		Provider:        o.Backend,
		DeviceID:        o.Device,
		ProviderOptions: o.ProviderOptions,
		IntraOpThreads:  o.Threads,
		Outputs:         outputs,
	})
}

// shownEndpoints lists the endpoints for messages and logs, each with
// its password masked.
func (o *Options) shownEndpoints() string {
	shown := make([]string, len(o.Endpoints))
	for i, ep := range o.Endpoints {
		shown[i] = redact.URL(ep)
	}
	return strings.Join(shown, ", ")
}

// servedModel is the model name on the remote server.
func (s *setup) servedModel() string {
	if s.o.ServedModel != "" {
		return s.o.ServedModel
	}
	return s.b.Name
}

// modelDesc names the model for messages: its file, or for a remote
// backend the served model, its endpoints and the fix for a mismatch.
func (s *setup) modelDesc() string {
	if s.o.Remote() {
		return fmt.Sprintf("%s served at %s: serve %s's model there (mlperf serve %s) or name the right one with --served-model",
			s.servedModel(), s.o.shownEndpoints(), s.b.Name, s.b.Name)
	}
	return s.modelPath
}

// remoteTimeout is the per-request deadline of a remote backend: the
// scenario's latency bound times ten, at least a minute (0 bounds: 10
// minutes), so a stalled server fails samples instead of hanging the run.
func (s *setup) remoteTimeout() time.Duration {
	ls, err := Settings(&s.o)
	if err != nil || ls.ServerTargetLatencyNs == 0 {
		return 10 * time.Minute
	}
	return max(time.Minute, 10*time.Duration(ls.ServerTargetLatencyNs))
}

// dialKServe opens the kserve backend: every --endpoint, checked to serve
// the same model contract.
func (e *engine) dialKServe() (backend.Session, error) {
	s := e.s
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := kserve.DialPool(ctx, s.o.Endpoints, kserve.Config{Model: s.servedModel(), Timeout: s.remoteTimeout(), Protocol: s.o.Protocol})
	if errors.Is(err, kserve.ErrModelNotServed) {
		return nil, fmt.Errorf("%s: %w; name the node's model with --served-model NAME, or serve %s's model there (mlperf serve %s)", s.b.Name, err, s.b.Name, s.b.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.b.Name, err)
	}
	name, err := p.Name(ctx)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: %w", s.b.Name, err)
	}
	// The loadgen asks for the name again at the start of the run: each
	// ask is a round trip to every node, as the Network division's Name
	// rule requires.
	if s.o.Batch > 1 {
		fmt.Fprintf(s.stderr, "%s: --batch %d: this LoadGen node batches samples into one request, which the Network division does not allow of a QDL (the SUT node batches); not a conformant Network division run\n", s.b.Name, s.o.Batch)
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
	fmt.Fprintf(s.stderr, "%s: %s\n", s.b.Name, name)
	eps := p.Endpoints()
	s.stats.server.endpoints = make([]endpointStats, len(eps))
	for i, e := range eps {
		s.stats.server.endpoints[i].name = e
	}
	// The harness calls Run; this makes it RunTimed, so that the detail
	// log and stderr get the server-side timings of each request, and
	// each endpoint's requests, errors and round trips.
	return withServerTimings(p, &s.stats.server), nil
}

// OpenCompletions implements spec.Engine: the openai or sglang backend's
// SUT for a decoder benchmark, with c's prompts, tokenizer, vocabulary
// and MaxTokens; the engine sets the endpoints, API, served model, key,
// prompt form, requests in flight and timeout, checks every server and
// records the endpoints' figures for the logs.
func (e *engine) OpenCompletions(c openai.Config) (*openai.SUT, error) {
	s := e.s
	if !textBackend(s.o.Backend) {
		return nil, spec.UsageError("%s: a remote decoder needs --backend openai or sglang", s.b.Name)
	}
	if s.o.APIKeyEnv != "" {
		c.APIKey = os.Getenv(s.o.APIKeyEnv)
	}
	c.Endpoints, c.Model = s.o.Endpoints, s.servedModel()
	c.API = openai.Completions
	if s.o.Backend == "sglang" {
		c.API = openai.SGLang
	}
	form, err := openai.ParseForm(cmp.Or(s.o.PromptForm, "auto"))
	if err != nil {
		return nil, spec.UsageError("%s: --prompt-form: %v", s.b.Name, err)
	}
	c.Form = form
	c.MaxInFlight, c.Timeout = max(s.o.Workers, s.o.Batch), s.remoteTimeout()
	c.Served = s.stats.sampleEP.set
	sut, err := openai.New(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.b.Name, err)
	}
	// A request in flight holds at most a line and its text.
	e.sampleFixed = satAdd(e.sampleFixed, openai.MaxLine+int64(c.MaxTokens)*openai.MaxTokenBytes)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := sut.Check(ctx); err != nil {
		sut.Close()
		return nil, fmt.Errorf("%s: %w", s.b.Name, err)
	}
	e.remoteName = sut.Name
	s.stats.llm = sut
	how := "the tokenizer over the returned text"
	if c.Chunk != nil {
		how = "the vocabulary over each streamed token's text"
	}
	fmt.Fprintf(s.stderr, "%s: %s; %s; generated token ids are the server's where its stream carries them, else %s\n", s.b.Name, sut.Name(), sut.FormNote(), how)
	return sut, nil
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

// firstTokenSUT reports the first n bytes of each response its SUT
// completes as the sample's first token, just before completing it
// (Instance.FirstTokenBytes), passing Flush through. It wraps the
// harness's SUTs, which have no name of their own.
type firstTokenSUT struct {
	loadgen.SUT
	n int
}

func (f firstTokenSUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	if tc, ok := c.(loadgen.TokenCompleter); ok {
		c = firstTokenCompleter{c, tc, f.n}
	}
	f.SUT.IssueQuery(ctx, samples, c)
}

func (f firstTokenSUT) Flush() {
	if fl, ok := f.SUT.(loadgen.Flusher); ok {
		fl.Flush()
	}
}

// firstTokenCompleter sends the first n bytes of every successful
// response of at least n bytes to FirstToken before completing it.
type firstTokenCompleter struct {
	loadgen.Completer
	tc loadgen.TokenCompleter
	n  int
}

func (c firstTokenCompleter) Complete(rs ...loadgen.Response) {
	for _, r := range rs {
		if r.Err == nil && len(r.Data) >= c.n {
			c.tc.FirstToken(r.ID, r.Data[:c.n])
		}
	}
	c.Completer.Complete(rs...)
}
