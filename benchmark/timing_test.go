package benchmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
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
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/loadgen/querylog"
	"github.com/mlperf-go/inference/remote/kserve"
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
