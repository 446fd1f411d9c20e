package benchmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/internal/hist"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/loadgen/querylog"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/openai"
	"github.com/mlperf-go/inference/report"
)

// sleepy is a served model that holds each Run for delay and echoes its
// int32 input x [-1] as y.
type sleepy struct{ delay time.Duration }

func (sleepy) Inputs() []backend.Info {
	return []backend.Info{{Name: "x", DType: backend.Int32, Shape: []int64{-1}}}
}
func (sleepy) Outputs() []backend.Info {
	return []backend.Info{{Name: "y", DType: backend.Int32, Shape: []int64{-1}}}
}
func (s sleepy) Run(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	time.Sleep(s.delay)
	x, ok := in[0].Data.([]int32)
	if !ok {
		return nil, errors.New("want int32 x")
	}
	return []backend.Tensor{{Name: "y", DType: backend.Int32, Shape: in[0].Shape, Data: x}}, nil
}
func (sleepy) Close() error { return nil }

// remoteEcho is a benchmark whose model sends each sample's index to the
// kserve backend and answers what comes back.
func remoteEcho() *spec.Benchmark {
	return &spec.Benchmark{
		Name: "echo", Summary: "test benchmark", ConfNames: []string{"resnet50"}, CheckerIDs: []string{"resnet"},
		Scenarios: []loadgen.Scenario{loadgen.SingleStream, loadgen.Server, loadgen.Offline},
		Model:     spec.Models{Default: "synthetic", Sizes: []spec.Size{{Name: "tiny"}}},
		Driver: &funcDriver{open: func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
			sess, err := r.Engine.OpenSession("", nil)
			if err != nil {
				return nil, err
			}
			return &spec.Instance{
				Model: harness.ModelFunc(func(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
					x := make([]int32, len(idx))
					for i, s := range idx {
						x[i] = int32(s)
					}
					res, err := sess.Run(ctx, []backend.Tensor{{Name: "x", DType: backend.Int32, Shape: []int64{int64(len(x))}, Data: x}})
					if err != nil {
						return err
					}
					y := res[0].Data.([]int32)
					for i := range out {
						out[i].Data = []byte{byte(y[i])}
					}
					return nil
				}),
				QSL:   &loadgentest.MemQSL{Total: 16, Performance: 16},
				Close: func() error { return sess.Close() },
			}, nil
		}},
	}
}

// readExtras returns the detail log's keys under loadgen.ExtraKeyPrefix.
func readExtras(t *testing.T, dir string) map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "mlperf_log_detail.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), ":::MLLOG ")
		if !ok {
			continue
		}
		var e struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(e.Key, loadgen.ExtraKeyPrefix) {
			m[strings.TrimPrefix(e.Key, loadgen.ExtraKeyPrefix)] = e.Value
		}
	}
	return m
}

func ordered(d loadgen.Dist) bool {
	return 0 <= d.Min && d.Min <= d.P50 && d.P50 <= d.P90 && d.P90 <= d.P99 && d.P99 <= d.P999 && d.P999 <= d.Max && d.Min <= d.Mean && d.Mean <= d.Max
}

// TestKServeServerRunLogsServerTimings: a Server run over an in-process
// kserve.Server whose model sleeps 4 ms logs the issue lag, the queue
// wait and the server timings of the performance run, with an infer mean
// of at least the sleep and a round trip that holds the server's parts.
func TestKServeServerRunLogsServerTimings(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	const delay = 4 * time.Millisecond
	ks := kserve.NewServer("node-a", "1")
	ks.Add("echo", sleepy{delay: delay}, 4)
	hs := httptest.NewServer(ks)
	defer hs.Close()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := Options{Scenario: loadgen.Server, Mode: loadgen.PerformanceOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "kserve",
		Endpoints: []string{strings.TrimPrefix(hs.URL, "http://")}, Out: out, Duration: 300 * time.Millisecond, MinQueries: 40, QPS: 200, Workers: 4}
	res, err := Run(context.Background(), remoteEcho(), o, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	t.Log(stderr.String())
	ex := readExtras(t, out)
	var lag, wait loadgen.Dist
	if err := json.Unmarshal(ex[loadgen.IssueLagName], &lag); err != nil || lag.Count != int64(res.QueryCount) || !ordered(lag) {
		t.Errorf("issue lag %s (%v) for %d queries", ex[loadgen.IssueLagName], err, res.QueryCount)
	}
	if err := json.Unmarshal(ex[QueueWaitName], &wait); err != nil || wait.Count != int64(res.SampleCount) || !ordered(wait) {
		t.Errorf("queue wait %s (%v) for %d samples", ex[QueueWaitName], err, res.SampleCount)
	}
	// Per sample (one per query), the send lag is the issue lag plus the
	// queue wait, so it is at least the issue lag at every percentile (up
	// to the histograms' 1/128 resolution).
	var send loadgen.Dist
	if err := json.Unmarshal(ex[SendLagName], &send); err != nil || send.Count != int64(res.SampleCount) || !ordered(send) {
		t.Errorf("send lag %s (%v) for %d samples", ex[SendLagName], err, res.SampleCount)
	} else if float64(send.P99) < float64(lag.P99)*(1-1.0/64) || float64(send.Max) < float64(lag.Max)*(1-1.0/64) {
		t.Errorf("send lag p99 %d, max %d ns below the issue lag's p99 %d, max %d ns", send.P99, send.Max, lag.P99, lag.Max)
	}
	var st map[string]loadgen.Dist
	if err := json.Unmarshal(ex[ServerTimingName], &st); err != nil {
		t.Fatalf("server timings %s: %v", ex[ServerTimingName], err)
	}
	for _, k := range []string{"queue", "compute_input", "compute_infer", "compute_output", "round_trip", "client_overhead"} {
		// One request per sample (batch 1), counted in the performance
		// run only: the warm-up and Name calls are not inference.
		if d := st[k]; d.Count != int64(res.SampleCount) || !ordered(d) {
			t.Errorf("%s: %+v for %d samples", k, d, res.SampleCount)
		}
	}
	if inf := st["compute_infer"]; inf.Mean < int64(delay) || inf.Min < int64(delay) {
		t.Errorf("compute_infer %+v, under the model's %v sleep", inf, delay)
	}
	if rt, inf := st["round_trip"], st["compute_infer"]; rt.Min < inf.Min || rt.Mean < inf.Mean+st["queue"].Mean {
		t.Errorf("round trip %+v shorter than the server's infer %+v", rt, inf)
	}
	for _, want := range []string{"issue lag (IssueQuery call − scheduled time)", "harness queue wait", "per request (mean/p50/p99) server queue ", "compute_infer "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	// mlperf report reads the same keys.
	var page bytes.Buffer
	if err := report.Write(&page, report.Options{Paths: []string{out}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>Issue lag</h3>", "harness queue wait", "Per-request breakdown (", "Server: compute infer"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the report of the run lacks %q", want)
		}
	}
}

// fakeTimed reports fixed server timings and counts its calls.
type fakeTimed struct {
	backend.Session
	mu sync.Mutex
	n  int
}

func (f *fakeTimed) RunTimed(context.Context, []backend.Tensor) ([]backend.Tensor, kserve.Timings, error) {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
	return nil, kserve.Timings{Queue: 1000, Input: 2000, Infer: 3000, Output: 4000}, nil
}

// TestServerTimingsConcurrent is for -race: Runs from many goroutines
// each count once, and a session without RunTimed is not wrapped.
func TestServerTimingsConcurrent(t *testing.T) {
	var st serverTimings
	f := &fakeTimed{}
	s := withServerTimings(f, &st)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if _, err := s.Run(context.Background(), nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	m := st.dists()
	if f.n != 4000 || m["compute_infer"].Count != 4000 || m["compute_infer"].Mean != 3000 || m["queue"].Max != 1000 || m["round_trip"].Count != 4000 {
		t.Errorf("%d calls, timings %+v", f.n, m)
	}
	// overhead = max(round trip − 10 µs, 0) per request.
	if o, rt := m["client_overhead"], m["round_trip"]; o.Count != 4000 || o.Mean > rt.Mean || o.Mean < rt.Mean-10000-1 {
		t.Errorf("client overhead %+v, round trip %+v", o, m["round_trip"])
	}
	st.reset()
	if st.dists() != nil {
		t.Error("timings left after reset")
	}
	plain := sleepy{}
	if got := withServerTimings(plain, &st); got != backend.Session(plain) {
		t.Error("a session without RunTimed was wrapped")
	}
}

// instant answers at once with fixed timings, without a lock.
type instant struct{ backend.Session }

func (instant) RunTimed(context.Context, []backend.Tensor) ([]backend.Tensor, kserve.Timings, error) {
	return nil, kserve.Timings{Queue: 1000, Input: 2000, Infer: 3000, Output: 4000}, nil
}

// BenchmarkTimedSessionRun is the cost the timing adds to each request
// (two clock reads and six histogram records), from parallel callers.
func BenchmarkTimedSessionRun(b *testing.B) {
	var st serverTimings
	s := withServerTimings(instant{}, &st)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.Run(ctx, nil)
		}
	})
}

func TestUsSwitchesToMillisecondsAt10ms(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.0 µs", 1_500: "1.5 µs", 9_999_999: "10000.0 µs", 10_000_000: "10.00 ms", 123_456_789: "123.46 ms"} {
		if got := us(ns); got != want {
			t.Errorf("us(%d) = %q, want %q", ns, got, want)
		}
	}
}

// fixedTimings is a timedRunner whose server reports fixed timings.
type fixedTimings struct {
	backend.Session
	tm kserve.Timings
}

func (f fixedTimings) RunTimed(context.Context, []backend.Tensor) ([]backend.Tensor, kserve.Timings, error) {
	return nil, f.tm, nil
}

// TestTimedSessionOverheadIsRoundTripLessServer: the client overhead is the
// round trip less the sum of the four server timings; a server that reports
// none records the round trip only.
func TestTimedSessionOverheadIsRoundTripLessServer(t *testing.T) {
	var st serverTimings
	s := withServerTimings(fixedTimings{tm: kserve.Timings{Queue: 1, Input: 2, Infer: 3, Output: 4}}, &st)
	if _, err := s.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rt, oh := st.roundTrip.Dist(), st.overhead.Dist()
	if rt.Count != 1 || oh.Count != 1 || rt.Max-oh.Max != 10 {
		t.Fatalf("round trip %d, overhead %d: want overhead = round trip - 10 ns", rt.Max, oh.Max)
	}
	for name, h := range map[string]*hist.Hist{"queue": &st.queue, "input": &st.input, "infer": &st.infer, "output": &st.output} {
		if d := h.Dist(); d.Count != 1 || d.Max != map[string]int64{"queue": 1, "input": 2, "infer": 3, "output": 4}[name] {
			t.Errorf("%s recorded %+v", name, d)
		}
	}
	if plain := (fixedTimings{}); withServerTimings(plain, nil) != backend.Session(plain) {
		t.Error("without a recorder the session is not returned as it is")
	}
	var none serverTimings
	s = withServerTimings(fixedTimings{}, &none)
	s.Run(context.Background(), nil)
	if none.roundTrip.Count() != 1 || none.infer.Count() != 0 || none.overhead.Count() != 0 {
		t.Fatalf("no server timings: round trip %d, infer %d, overhead %d; want 1 0 0", none.roundTrip.Count(), none.infer.Count(), none.overhead.Count())
	}
	if m := none.dists(); len(m) != 1 || m["round_trip"].Count != 1 {
		t.Fatalf("dists without server timings: %v", m)
	}
}

// TestReportLinesCarryTheValues: each line of the run's closing report, with
// its numbers, for each scenario that has it.
func TestReportLinesCarryTheValues(t *testing.T) {
	var s runStats
	s.queueWait.Record(2_000)
	s.sendLag.Record(30_000_000)
	r := &loadgen.Result{IssueLag: loadgen.LatencyStats{Count: 3, Max: 9_000, Percentiles: []int64{1_000, 2_000, 3_000, 4_000, 5_000}}}
	var b bytes.Buffer
	s.report(&b, "m Server", r, loadgen.Server)
	want := "m Server: issue lag (IssueQuery call − scheduled time) p50 1.0 µs, p99 5.0 µs, max 9.0 µs over 3 queries\n" +
		"m Server: harness queue wait (IssueQuery − a worker taking the sample) p50 2.0 µs, p99 2.0 µs, max 2.0 µs over 1 samples\n" +
		"m Server: send lag (a worker sending the sample − its scheduled time) p50 30.00 ms, p99 30.00 ms, max 30.00 ms over 1 samples\n"
	if b.String() != want {
		t.Errorf("Server report:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	s.report(&b, "m MultiStream", &loadgen.Result{}, loadgen.MultiStream)
	if want := "m MultiStream: harness queue wait (IssueQuery − a worker taking the sample) p50 2.0 µs, p99 2.0 µs, max 2.0 µs over 1 samples\n"; b.String() != want {
		t.Errorf("MultiStream report %q, want %q", b.String(), want)
	}
	b.Reset()
	s.report(&b, "m Offline", &loadgen.Result{}, loadgen.Offline)
	if b.Len() != 0 {
		t.Errorf("Offline report %q, want nothing (its wait is the run)", b.String())
	}
	b.Reset()
	s.report(&b, "m Server", &loadgen.Result{Mode: loadgen.FindPeakPerformance}, loadgen.Server)
	if b.Len() != 0 {
		t.Errorf("find-peak report %q, want nothing", b.String())
	}
	// Extra entries follow the same rules; empty figures give none.
	var empty runStats
	if e := empty.extra(loadgen.Server)(&loadgen.Result{}); len(e) != 0 {
		t.Errorf("extra entries of an empty Server run: %v", e)
	}
	names := func(sc loadgen.Scenario, mode loadgen.Mode) []string {
		var n []string
		for _, e := range s.extra(sc)(&loadgen.Result{Mode: mode}) {
			n = append(n, e.Name)
		}
		return n
	}
	for _, c := range []struct {
		sc   loadgen.Scenario
		mode loadgen.Mode
		want string
	}{
		{loadgen.Server, loadgen.PerformanceOnly, QueueWaitName + " " + SendLagName},
		{loadgen.MultiStream, loadgen.PerformanceOnly, QueueWaitName},
		{loadgen.Offline, loadgen.PerformanceOnly, ""},
		{loadgen.SingleStream, loadgen.PerformanceOnly, ""},
		{loadgen.Server, loadgen.FindPeakPerformance, ""},
	} {
		if got := strings.Join(names(c.sc, c.mode), " "); got != c.want {
			t.Errorf("extra entries of %v %v: %q, want %q", c.sc, c.mode, got, c.want)
		}
	}
}

// TestRemoteTimeoutIsTenLatencyBoundsAtLeastAMinute: gptj's Server bound
// (20 s in mlperf.conf) gives 200 s; resnet50's (15 ms) the one-minute floor;
// settings that cannot be read, 10 minutes.
func TestRemoteTimeoutIsTenLatencyBoundsAtLeastAMinute(t *testing.T) {
	for _, c := range []struct {
		model string
		sc    loadgen.Scenario
		want  time.Duration
	}{
		{"gptj", loadgen.Server, 200 * time.Second},
		{"resnet50", loadgen.Server, time.Minute},
		{"gptj", loadgen.Offline, 200 * time.Second}, // the same Server bound
	} {
		s := &setup{o: Options{ModelName: c.model, Scenario: c.sc, Mode: loadgen.PerformanceOnly}}
		if got := s.remoteTimeout(); got != c.want {
			t.Errorf("%s %v: remote timeout %v, want %v", c.model, c.sc, got, c.want)
		}
	}
	// Settings that cannot be read: 10 minutes.
	s := &setup{o: Options{ModelName: "gptj", Scenario: loadgen.Server, Mode: loadgen.PerformanceOnly, UserConf: filepath.Join(t.TempDir(), "none.conf")}}
	if got := s.remoteTimeout(); got != 10*time.Minute {
		t.Errorf("unreadable user.conf: remote timeout %v, want 10m", got)
	}
}

// TestQueueWaitIsLoggedForMultiStreamNotOffline: a MultiStream run logs
// the harness queue wait of every sample; an Offline run, whose wait is the
// run itself, logs none. Instance.After gets the run's result, and its
// error is the run's.
func TestQueueWaitIsLoggedForMultiStreamNotOffline(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	b := echo(new(int))
	b.Scenarios = append(b.Scenarios, loadgen.MultiStream)
	d := driverOf(b)
	open := d.open
	var after *loadgen.Result
	afterErr := error(nil)
	d.open = func(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
		inst, err := open(ctx, r)
		if err == nil {
			inst.After = func(_ context.Context, res *loadgen.Result) error { after = res; return afterErr }
		}
		return inst, err
	}
	for _, sc := range []loadgen.Scenario{loadgen.MultiStream, loadgen.Offline} {
		out := t.TempDir()
		o := Options{Scenario: sc, Mode: loadgen.PerformanceOnly, Model: "synthetic", Data: "synthetic", Backend: "cpu", Out: out,
			Duration: 20 * time.Millisecond, MinQueries: 16, QPS: 1000, Batch: 2, Workers: 1}
		res, err := Run(context.Background(), b, o, io.Discard, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", sc, err)
		}
		if after != res {
			t.Errorf("%v: After got %p, want the run's result %p", sc, after, res)
		}
		raw, ok := readExtras(t, out)[QueueWaitName]
		if sc == loadgen.Offline {
			if ok {
				t.Errorf("Offline logged a queue wait %s", raw)
			}
			continue
		}
		var wait loadgen.Dist
		if err := json.Unmarshal(raw, &wait); err != nil || wait.Count != int64(res.SampleCount) {
			t.Errorf("MultiStream queue wait %s (%v), want %d samples", raw, err, res.SampleCount)
		}
	}
	afterErr = errors.New("after failed")
	o := Options{Scenario: loadgen.Offline, Mode: loadgen.PerformanceOnly, Model: "synthetic", Data: "synthetic", Backend: "cpu", Out: t.TempDir(),
		Duration: 20 * time.Millisecond, MinQueries: 16, QPS: 1000}
	if _, err := Run(context.Background(), b, o, io.Discard, io.Discard); !errors.Is(err, afterErr) {
		t.Errorf("After's error: Run returned %v", err)
	}
	// An output folder that cannot be made is an error naming it.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	o.Out = filepath.Join(file, "out")
	if _, err := Run(context.Background(), b, o, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("output folder under a file: %v", err)
	}
}

// TestOpenCompletionsChecksBackendConfigAndServer: only --backend openai
// opens /v1/completions; a Config the client refuses and a server that is
// not there are errors naming the benchmark.
func TestOpenCompletionsChecksBackendConfigAndServer(t *testing.T) {
	b := echo(new(int))
	e := &engine{s: &setup{b: b, o: Options{Backend: "kserve", Endpoints: []string{"127.0.0.1:1"}}}}
	if _, err := e.OpenCompletions(openai.Config{}); !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), "echo: a remote decoder needs --backend openai or sglang") {
		t.Errorf("kserve backend: %v", err)
	}
	e.s.o.Backend = "openai"
	if _, err := e.OpenCompletions(openai.Config{}); err == nil || !strings.Contains(err.Error(), "echo: openai: Config needs Prompt and Encode") {
		t.Errorf("empty Config: %v", err)
	}
	c := openai.Config{Prompt: func(loadgen.SampleIndex) (openai.Prompt, error) { return openai.Prompt{Text: "x"}, nil }, Encode: func(string) []int32 { return nil }, MaxTokens: 1}
	if _, err := e.OpenCompletions(c); err == nil || !strings.HasPrefix(err.Error(), "echo: ") {
		t.Errorf("no server at 127.0.0.1:1: %v", err)
	}
}

// TestProgressOnARegularFile: a file that is not a character device is not
// a terminal.
func TestProgressOnARegularFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := NewProgress(f, "x", "y"); p.tty || p.interval != 5*time.Second {
		t.Errorf("regular file: tty %v interval %v; want false 5s", p.tty, p.interval)
	}
}

// picky is sleepy that fails every input whose first value is a multiple
// of 5.
type picky struct{ sleepy }

func (p picky) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	if x, ok := in[0].Data.([]int32); ok && len(x) > 0 && x[0]%5 == 0 {
		return nil, errors.New("picky: refuses multiples of 5")
	}
	return p.sleepy.Run(ctx, in)
}

// Over two endpoints, the detail log has each endpoint's requests, errors
// and round trips, the per-query record says which endpoint served each
// sample, and the report shows both: the shares, the errors on the
// failing node, the latency per endpoint.
func TestTwoEndpointsAreRecordedAndReported(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	var eps []string
	for i, m := range []backend.Session{sleepy{delay: time.Millisecond}, picky{sleepy{delay: 3 * time.Millisecond}}} {
		ks := kserve.NewServer(fmt.Sprintf("node-%d", i), "1")
		ks.Add("echo", m, 4)
		hs := httptest.NewServer(ks)
		defer hs.Close()
		eps = append(eps, strings.TrimPrefix(hs.URL, "http://"))
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := Options{Scenario: loadgen.Server, Mode: loadgen.PerformanceOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "kserve",
		Endpoints: eps, Out: out, Duration: 200 * time.Millisecond, MinQueries: 60, QPS: 300, Workers: 4}
	res, err := Run(context.Background(), remoteEcho(), o, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	var entries []endpointEntry
	if err := json.Unmarshal(readExtras(t, out)[EndpointsName], &entries); err != nil || len(entries) != 2 {
		t.Fatalf("endpoints entry: %v, %+v", err, entries)
	}
	var failed int64
	for i, e := range entries {
		if e.Endpoint != eps[i] {
			t.Errorf("endpoint %d is %s, want %s", i, e.Endpoint, eps[i])
		}
		failed += e.Errors
	}
	if a, b := entries[0].Requests, entries[1].Requests; a+b != int64(res.SampleCount) || a-b > 1 || b-a > 1 {
		t.Errorf("round robin sent %d and %d requests for %d samples", a, b, res.SampleCount)
	}
	if entries[0].Errors != 0 || failed != int64(res.FailedSamples) || failed == 0 {
		t.Errorf("errors %d and %d, the run failed %d samples (all on the picky node)", entries[0].Errors, entries[1].Errors, res.FailedSamples)
	}
	if rt := entries[1].RoundTrip; rt.Min < int64(3*time.Millisecond) {
		t.Errorf("the slow node's round trips %+v, under its 3 ms", rt)
	}
	ss, err := querylog.ReadFile(filepath.Join(out, querylog.FileName))
	if err != nil {
		t.Fatal(err)
	}
	r := ss[len(ss)-1]
	if len(r.Endpoints) != 2 || r.Endpoints[1] != eps[1] {
		t.Fatalf("record endpoints %v", r.Endpoints)
	}
	per := make([]int64, 2)
	for i, x := range r.Samples {
		if x.Endpoint == querylog.NoEndpoint {
			t.Fatalf("sample %d has no endpoint", i)
		}
		per[x.Endpoint]++
		if x.Failed && x.Endpoint != 1 {
			t.Errorf("sample %d failed on endpoint %d, not the picky one", i, x.Endpoint)
		}
	}
	if per[0] != entries[0].Requests || per[1] != entries[1].Requests {
		t.Errorf("record: %v samples per endpoint; detail log: %d, %d requests", per, entries[0].Requests, entries[1].Requests)
	}
	var page bytes.Buffer
	if err := report.Write(&page, report.Options{Paths: []string{out}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>Remote serving</h3>", "<td>" + eps[1] + "</td><td>" + strconv.FormatInt(entries[1].Requests, 10) + "</td>", `data-chart="endpoint-cdf"`, "Sample latency per endpoint"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
