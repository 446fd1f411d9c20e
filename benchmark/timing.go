package benchmark

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/internal/hist"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/querylog"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/openai"
)

// Names (after loadgen.ExtraKeyPrefix) of the detail log entries a run
// adds beside the loadgen's issue lag (loadgen.IssueLagName).
const (
	// QueueWaitName is the Dist of each sample's wait in the harness
	// Pool's queue, IssueQuery to a worker taking it (ns), in the Server
	// and MultiStream scenarios. Issue lag + queue wait is how late a
	// sample reached the model, and with a remote backend the request
	// the network.
	QueueWaitName = "queue_wait_ns"
	// SendLagName is the Dist of each Server sample's lag from its
	// scheduled time to a harness worker taking it to run (ns): the
	// issue lag and the queue wait together, sample by sample — how late
	// it reached the model, and with a remote backend the request the
	// network.
	SendLagName = "send_lag_ns"
	// ServerTimingName is, for a remote backend whose server reports
	// per-request timings (kserve), an object of Dists (ns) per request
	// sent during the performance run: "queue", "compute_input",
	// "compute_infer", "compute_output" as the server reported them (as
	// Triton's perf_analyzer names them), "round_trip" as this client saw
	// it (the request written to the answer decoded) and
	// "client_overhead" = round trip − the server's four (network,
	// HTTP and encoding on both ends; 0 where the clocks disagree).
	ServerTimingName = "server_timing_ns"
	// EndpointsName is, for a remote run (kserve nodes, or the decoder
	// replicas of --backend openai and sglang), a list of objects, one
	// per --endpoint in order: "endpoint" (its base URL, password
	// masked), "requests" and "errors" sent during the performance run,
	// "round_trip", the Dist (ns) of its requests' round trips as this
	// client saw them (for a decoder: sent to the end of the stream), and
	// for a decoder "ttft", the Dist (ns) of sent to the first token.
	EndpointsName = "endpoints"
	// BenchmarkName is the run's benchmark: {"name": ..., "checker_ids":
	// [...]}, so that a report judges accuracy.txt against the right
	// targets.
	BenchmarkName = "benchmark"
)

// endpointStats are one remote endpoint's requests, errors and round
// trips; safe for concurrent use.
type endpointStats struct {
	name               string
	requests, failures atomic.Int64
	roundTrip          hist.Hist
}

// endpointEntry is one EndpointsName object.
type endpointEntry struct {
	Endpoint  string       `json:"endpoint"`
	Requests  int64        `json:"requests"`
	Errors    int64        `json:"errors"`
	RoundTrip loadgen.Dist `json:"round_trip"`
	// TTFT is a decoder endpoint's time to the first token.
	TTFT *loadgen.Dist `json:"ttft,omitempty"`
}

// sampleEndpoints records which endpoint served each sample (by response
// ID, one byte each), for the per-query record. Safe for concurrent use;
// one lock a request, which a network round trip dwarfs.
type sampleEndpoints struct {
	mu  sync.Mutex
	ids []uint8 // ID → endpoint index + 1; 0 unknown
}

func (e *sampleEndpoints) set(id loadgen.ResponseID, node int) {
	if node < 0 || node >= querylog.MaxEndpoints || id > 1<<40 {
		return
	}
	e.mu.Lock()
	if int(id) >= len(e.ids) {
		e.ids = append(e.ids, make([]uint8, int(id)+1-len(e.ids)+len(e.ids)/2)...)
	}
	e.ids[id] = uint8(node + 1)
	e.mu.Unlock()
}

// of is loadgen.LogSettings.EndpointOf.
func (e *sampleEndpoints) of(id loadgen.ResponseID) uint8 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if int(id) >= len(e.ids) || e.ids[id] == 0 {
		return querylog.NoEndpoint
	}
	return e.ids[id] - 1
}

// endpointModel asks the timed session below (through the context) which
// endpoint each batch went to, and records it for the batch's samples.
type endpointModel struct {
	harness.Model
	rec *sampleEndpoints
}

// Predict implements harness.Model.
func (m endpointModel) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	node := -1
	err := m.Model.Predict(context.WithValue(ctx, nodeSlotKey{}, &node), idx, out)
	if node >= 0 {
		for i := range out {
			m.rec.set(out[i].ID, node)
		}
	}
	return err
}

// nodeSlotKey is the context key of endpointModel's slot, which the
// timed session fills with the endpoint the request went to.
type nodeSlotKey struct{}

// serverTimings aggregates the per-request timings of a remote backend
// without locks (internal/hist); safe for concurrent use.
type serverTimings struct {
	queue, input, infer, output, roundTrip, overhead hist.Hist
	// endpoints are per --endpoint, in order (kserve.Pool.Endpoints).
	endpoints []endpointStats
}

func (s *serverTimings) reset() {
	for _, h := range s.all() {
		h.Reset()
	}
	for i := range s.endpoints {
		e := &s.endpoints[i]
		e.requests.Store(0)
		e.failures.Store(0)
		e.roundTrip.Reset()
	}
}

// endpointEntries is the EndpointsName entry's value; nil when no request
// was sent.
func (s *serverTimings) endpointEntries() []endpointEntry {
	var out []endpointEntry
	var n int64
	for i := range s.endpoints {
		e := &s.endpoints[i]
		out = append(out, endpointEntry{Endpoint: e.name, Requests: e.requests.Load(), Errors: e.failures.Load(), RoundTrip: e.roundTrip.Dist()})
		n += e.requests.Load()
	}
	if n == 0 {
		return nil
	}
	return out
}

func (s *serverTimings) all() []*hist.Hist {
	return []*hist.Hist{&s.queue, &s.input, &s.infer, &s.output, &s.roundTrip, &s.overhead}
}

// dists is the ServerTimingName entry's value; nil when no request was
// timed.
func (s *serverTimings) dists() map[string]loadgen.Dist {
	if s.roundTrip.Count() == 0 {
		return nil
	}
	m := map[string]loadgen.Dist{"round_trip": s.roundTrip.Dist()}
	if s.infer.Count() > 0 {
		m["queue"], m["compute_input"], m["compute_infer"], m["compute_output"], m["client_overhead"] = s.queue.Dist(), s.input.Dist(), s.infer.Dist(), s.output.Dist(), s.overhead.Dist()
	}
	return m
}

// timedRunner is what a remote session offers when its server reports
// per-request timings (kserve.Pool and kserve.Node).
type timedRunner interface {
	RunTimed(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, kserve.Timings, error)
}

// timedSession is a Session whose Run goes through RunTimed and records
// the server's timings and the client's round trip.
type timedSession struct {
	backend.Session
	timed timedRunner
	st    *serverTimings
}

// withServerTimings wraps s so that its Runs record into st when s
// reports server timings; otherwise it returns s as it is.
func withServerTimings(s backend.Session, st *serverTimings) backend.Session {
	t, ok := s.(timedRunner)
	if !ok || st == nil {
		return s
	}
	return &timedSession{Session: s, timed: t, st: st}
}

// Run implements backend.Session.
func (t *timedSession) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	node := -1
	t0 := time.Now()
	out, tm, err := t.timed.RunTimed(kserve.WithNodeReport(ctx, &node), in)
	rt := time.Since(t0).Nanoseconds()
	if slot, ok := ctx.Value(nodeSlotKey{}).(*int); ok {
		*slot = node
	}
	if node >= 0 && node < len(t.st.endpoints) {
		e := &t.st.endpoints[node]
		e.requests.Add(1)
		if err != nil {
			e.failures.Add(1)
		} else {
			e.roundTrip.Record(rt)
		}
	}
	if err != nil {
		return out, err
	}
	t.st.roundTrip.Record(rt)
	if server := tm.Queue + tm.Input + tm.Infer + tm.Output; server > 0 {
		t.st.queue.Record(tm.Queue)
		t.st.input.Record(tm.Input)
		t.st.infer.Record(tm.Infer)
		t.st.output.Record(tm.Output)
		t.st.overhead.Record(rt - server)
	}
	return out, nil
}

// runStats are the figures a run measures beside the loadgen's own, for
// the detail log's extra entries and the closing lines on stderr.
type runStats struct {
	queueWait hist.Hist
	sendLag   hist.Hist
	server    serverTimings
	// sampleEP is which endpoint served each sample (remote runs).
	sampleEP sampleEndpoints
	// llm is the remote decoder's SUT, if the run has one.
	llm *openai.SUT
}

// reset starts a series afresh (loadgen.LogSettings.OnSeries).
func (s *runStats) reset(bool) {
	s.queueWait.Reset()
	s.sendLag.Reset()
	s.server.reset()
	if s.llm != nil {
		s.llm.ResetStats()
	}
}

// endpointEntries is the EndpointsName entry's value: the remote
// decoder's endpoints, else the kserve nodes; nil when no request was
// sent.
func (s *runStats) endpointEntries() []endpointEntry {
	if s.llm == nil {
		return s.server.endpointEntries()
	}
	var out []endpointEntry
	var n int64
	for _, e := range s.llm.EndpointStats() {
		ttft := e.TTFT
		out = append(out, endpointEntry{Endpoint: e.Endpoint, Requests: e.Requests, Errors: e.Failed, RoundTrip: e.Latency, TTFT: &ttft})
		n += e.Requests
	}
	if n == 0 {
		return nil
	}
	return out
}

// extra is the loadgen.LogSettings.Extra of a run in scenario sc.
func (s *runStats) extra(sc loadgen.Scenario) func(*loadgen.Result) []loadgen.DetailEntry {
	return func(r *loadgen.Result) []loadgen.DetailEntry {
		var out []loadgen.DetailEntry
		if e, ok := loadgen.ExtraIssueLag(r); ok {
			out = append(out, e)
		}
		if r.Mode == loadgen.FindPeakPerformance {
			// The figures below are of the last probe, which need not
			// be the reported one.
			return out
		}
		// Offline queues its whole query at once by design: the wait
		// there is the run's length, not a lag.
		if (sc == loadgen.Server || sc == loadgen.MultiStream) && s.queueWait.Count() > 0 {
			out = append(out, loadgen.DetailEntry{Name: QueueWaitName, Value: s.queueWait.Dist()})
		}
		if sc == loadgen.Server && s.sendLag.Count() > 0 {
			out = append(out, loadgen.DetailEntry{Name: SendLagName, Value: s.sendLag.Dist()})
		}
		if m := s.server.dists(); m != nil {
			out = append(out, loadgen.DetailEntry{Name: ServerTimingName, Value: m})
		}
		if eps := s.endpointEntries(); eps != nil {
			out = append(out, loadgen.DetailEntry{Name: EndpointsName, Value: eps})
		}
		return out
	}
}

// us formats ns as µs with one decimal, or as ms with two from 10 ms.
func us(ns int64) string {
	if ns >= 10_000_000 {
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
}

// report prints the run's lag and server-timing lines on w, prefixed
// with what (model and scenario).
func (s *runStats) report(w io.Writer, what string, r *loadgen.Result, sc loadgen.Scenario) {
	if l := r.IssueLag; l.Count > 0 {
		fmt.Fprintf(w, "%s: issue lag (IssueQuery call − scheduled time) p50 %s, p99 %s, max %s over %d queries\n",
			what, us(l.Percentiles[0]), us(l.Percentiles[4]), us(l.Max), l.Count)
	}
	if r.Mode == loadgen.FindPeakPerformance {
		return // the figures below are of the last probe only
	}
	if q := s.queueWait.Dist(); q.Count > 0 && (sc == loadgen.Server || sc == loadgen.MultiStream) {
		fmt.Fprintf(w, "%s: harness queue wait (IssueQuery − a worker taking the sample) p50 %s, p99 %s, max %s over %d samples\n",
			what, us(q.P50), us(q.P99), us(q.Max), q.Count)
	}
	if l := s.sendLag.Dist(); l.Count > 0 && sc == loadgen.Server {
		fmt.Fprintf(w, "%s: send lag (a worker sending the sample − its scheduled time) p50 %s, p99 %s, max %s over %d samples\n",
			what, us(l.P50), us(l.P99), us(l.Max), l.Count)
	}
	s.reportLLM(w, what)
	m := s.server.dists()
	if m == nil {
		return
	}
	rt := m["round_trip"]
	if _, ok := m["compute_infer"]; !ok {
		fmt.Fprintf(w, "%s: client round trip mean %s, p50 %s, p99 %s over %d requests (the server reported no timings)\n", what, us(rt.Mean), us(rt.P50), us(rt.P99), rt.Count)
		return
	}
	part := func(k string) string {
		d := m[k]
		return fmt.Sprintf("%s %s/%s/%s", k, us(d.Mean), us(d.P50), us(d.P99))
	}
	fmt.Fprintf(w, "%s: per request (mean/p50/p99) server %s, %s, %s, %s; client round trip %s/%s/%s, %s over %d requests\n",
		what, part("queue"), part("compute_input"), part("compute_infer"), part("compute_output"), us(rt.Mean), us(rt.P50), us(rt.P99), part("client_overhead"), rt.Count)
}

// reportLLM prints a remote decoder's endpoint lines (share, failures,
// latency and TTFT) of the performance run.
func (s *runStats) reportLLM(w io.Writer, what string) {
	if s.llm == nil {
		return
	}
	st := s.llm.EndpointStats()
	var total int64
	for _, e := range st {
		total += e.Requests
	}
	for _, e := range st {
		if total == 0 {
			break
		}
		fmt.Fprintf(w, "%s: endpoint %s: %d requests (%.1f%%), %d failed; latency p50 %s, p99 %s; TTFT p50 %s, p99 %s\n",
			what, e.Endpoint, e.Requests, 100*float64(e.Requests)/float64(total), e.Failed,
			us(e.Latency.P50), us(e.Latency.P99), us(e.TTFT.P50), us(e.TTFT.P99))
	}
}

// reportIDs prints where a remote decoder's responses took their token
// ids from, over the whole run (accuracy and performance alike).
func (s *runStats) reportIDs(w io.Writer, what string) {
	if s.llm == nil {
		return
	}
	server, text, miscounted := s.llm.IDSources()
	switch {
	case text == 0 && server > 0:
		fmt.Fprintf(w, "%s: token ids of all %d responses are the server's\n", what, server)
	case text > 0:
		fmt.Fprintf(w, "%s: token ids of %d responses are the server's, of %d this benchmark's tokenizer over the returned text", what, server, text)
		if miscounted > 0 {
			fmt.Fprintf(w, "; %d of those differ in number from the server's count of generated tokens, so their TPOT is not the server's", miscounted)
		}
		fmt.Fprintln(w)
	}
}
