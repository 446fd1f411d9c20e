package loadgen_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// gateSUT holds every sample until the test releases it.
type gateSUT struct {
	mu      sync.Mutex
	held    []loadgen.Sample
	c       loadgen.Completer
	arrived chan struct{}
}

func (g *gateSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	g.mu.Lock()
	g.held, g.c = append(g.held, samples...), c
	g.mu.Unlock()
	for range samples {
		g.arrived <- struct{}{}
	}
}

func (g *gateSUT) release(n int) {
	g.mu.Lock()
	out := g.held[:n]
	g.held = g.held[n:]
	c := g.c
	g.mu.Unlock()
	for _, s := range out {
		c.Complete(loadgen.Response{ID: s.ID})
	}
}

func settingsFrom(t *testing.T, sc loadgen.Scenario, conf string) loadgen.Settings {
	t.Helper()
	p := filepath.Join(t.TempDir(), "user.conf")
	os.WriteFile(p, []byte(conf), 0o644)
	s, err := loadgen.LoadConfigs("resnet50", sc, loadgen.PerformanceOnly, "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A Monitor sees a Server series as it runs: every due query issued,
// none complete; once the samples have waited longer than the bound they
// count as over it while still outstanding; released samples are passed
// to the callback once each, with their latency; after the run there is
// no series.
func TestMonitorFollowsAServerSeries(t *testing.T) {
	var m loadgen.Monitor
	if _, ok := m.Poll(nil); ok {
		t.Fatal("a series before any run")
	}
	s := settingsFrom(t, loadgen.Server, "*.Server.target_qps = 2000\n*.Server.target_latency = 5\n*.*.min_duration = 0\n*.*.min_query_count = 20\n")
	logs := loadgen.DefaultLogSettings()
	logs.OutDir, logs.Monitor = t.TempDir(), &m
	g := &gateSUT{arrived: make(chan struct{}, 1024)}
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_, err := loadgen.Run(ctx, g, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs)
		done <- err
	}()
	// The series' size, once it is published; then every sample issued.
	deadline := time.After(time.Minute)
	n := 0
	for n == 0 {
		if p, ok := m.Poll(nil); ok {
			n = p.Samples
		}
		select {
		case <-deadline:
			t.Fatal("no series published within a minute")
		case err := <-done:
			t.Fatalf("the run ended first: %v", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
	for range n {
		select {
		case <-g.arrived:
		case <-deadline:
			t.Fatalf("the %d samples were not all issued within a minute", n)
		}
	}
	if n < 20 {
		t.Fatalf("a series of %d samples, want min_query_count 20 or more", n)
	}
	p, ok := m.Poll(nil)
	if !ok || p.Scenario != loadgen.Server || p.Samples != n || p.Issued != n || p.Completed != 0 || p.Counted != 0 {
		t.Fatalf("every query issued, none complete: %+v", p)
	}
	if p.Bound != 5*time.Millisecond || p.Percentile != 0.99 || p.BoundWhat != "latency" {
		t.Errorf("bound %v at %v (%s)", p.Bound, p.Percentile, p.BoundWhat)
	}
	time.Sleep(6 * time.Millisecond) // every sample is now older than the bound
	if p, _ = m.Poll(nil); p.OutstandingOver != n || p.OverBound != 0 {
		t.Errorf("%d outstanding samples over the bound (%d completed over it), want %d (0)", p.OutstandingOver, p.OverBound, n)
	}
	var lats []int64
	rec := func(ns int64) { lats = append(lats, ns) }
	g.release(10)
	p, _ = m.Poll(rec)
	if p.Completed != 10 || p.Counted != 10 || len(lats) != 10 || p.OverBound != 10 || p.OutstandingOver != n-10 {
		t.Fatalf("10 released: %+v, %d latencies", p, len(lats))
	}
	for _, l := range lats {
		if l <= int64(5*time.Millisecond) {
			t.Errorf("a latency of %d ns for a sample held over 6 ms", l)
		}
	}
	if p, _ = m.Poll(rec); p.Counted != 10 || len(lats) != 10 {
		t.Fatalf("a second poll counted again: %+v, %d latencies", p, len(lats))
	}
	g.release(n - 10)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-deadline:
		t.Fatal("the run did not end within a minute of its last completion")
	}
	if _, ok := m.Poll(nil); ok {
		t.Error("a series after the run")
	}
}

// Polled throughout a run from another goroutine (run with -race), a
// Monitor never passes a sample twice nor more samples than completed.
func TestMonitorConcurrentPolls(t *testing.T) {
	var m loadgen.Monitor
	for _, sc := range []loadgen.Scenario{loadgen.Server, loadgen.SingleStream, loadgen.MultiStream, loadgen.Offline} {
		s := settingsFrom(t, sc, "*.Server.target_qps = 3000\n*.*.min_duration = 50\n*.*.min_query_count = 100\n*.SingleStream.target_latency = 0.1\n*.MultiStream.target_latency = 0.5\n*.Offline.target_qps = 2000\n")
		logs := loadgen.DefaultLogSettings()
		logs.OutDir, logs.Monitor = t.TempDir(), &m
		sut := &loadgentest.DelaySUT{ServiceTime: 50 * time.Microsecond, Workers: 2}
		stop := make(chan struct{})
		var calls, maxCounted, maxCompleted int
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if p, ok := m.Poll(func(int64) { calls++ }); ok {
					if p.Counted != calls {
						t.Errorf("%s: Counted %d after %d callbacks", sc, p.Counted, calls)
					}
					maxCounted, maxCompleted = max(maxCounted, p.Counted), max(maxCompleted, p.Completed)
					if p.Counted > p.Completed || p.Completed > p.Issued {
						t.Errorf("%s: counted %d, completed %d, issued %d", sc, p.Counted, p.Completed, p.Issued)
					}
				} else {
					calls = 0
				}
				time.Sleep(100 * time.Microsecond)
			}
		}()
		res, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs)
		close(stop)
		wg.Wait()
		sut.Close()
		if err != nil {
			t.Fatal(err)
		}
		if maxCounted > res.SampleCount {
			t.Errorf("%s: %d counted of %d samples", sc, maxCounted, res.SampleCount)
		}
	}
}
