package report

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// tokenSUT answers each sample with 2 + index%7 int32 tokens after a
// short wait, the first token half way.
type tokenSUT struct {
	wg sync.WaitGroup
}

func (s *tokenSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	for _, q := range samples {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			n := 2 + int(q.Index%7)
			data := make([]byte, 4*n)
			for i := range n {
				binary.LittleEndian.PutUint32(data[4*i:], uint32(int(q.Index)*10+i))
			}
			time.Sleep(200 * time.Microsecond)
			if tc, ok := c.(loadgen.TokenCompleter); ok {
				tc.FirstToken(q.ID, data[:4])
			}
			time.Sleep(time.Duration(n) * 50 * time.Microsecond)
			c.Complete(loadgen.Response{ID: q.ID, Data: data, Tokens: n})
		}()
	}
}

// runLoadgen runs the loadgen over sut with model's mlperf.conf settings
// and conf as user.conf, logs (with a trace) in dir.
func runLoadgen(t *testing.T, dir, model string, sc loadgen.Scenario, mode loadgen.Mode, sut loadgen.SUT, conf string) *loadgen.Result {
	t.Helper()
	p := filepath.Join(t.TempDir(), "user.conf")
	if err := os.WriteFile(p, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadgen.LoadConfigs(model, sc, mode, "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir, logs.EnableTrace = dir, true
	res, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// fixtures are run folders of each kind, made once per test binary.
type fixtures struct {
	root                                 string
	server, offline, single, multi, llm  string
	accuracy, invalidMulti, serverSlower string
	remote                               string
}

var (
	fixOnce sync.Once
	fix     fixtures
)

// runs makes (once) a folder of runs: a traced Server run of a 1 ms SUT,
// an Offline, a SingleStream, a MultiStream run, an LLM Server run with
// token latencies, an accuracy run with its accuracy.txt, a MultiStream
// run whose early stopping was not met, and a second Server run of a
// slower SUT (for comparisons).
func runs(t *testing.T) fixtures {
	t.Helper()
	fixOnce.Do(func() {
		root, err := os.MkdirTemp("", "report-fixtures-")
		if err != nil {
			t.Fatal(err)
		}
		fix.root = root
		d := func(name string) string { return filepath.Join(root, name) }
		fix.server, fix.offline, fix.single, fix.multi = d("server"), d("offline"), d("singlestream"), d("multistream")
		fix.llm, fix.accuracy, fix.invalidMulti, fix.serverSlower = d("llm-server"), d("accuracy"), d("multistream-invalid"), d("server-slower")
		fix.remote = d("remote-server")
		fast := &loadgentest.DelaySUT{ServiceTime: time.Millisecond, Workers: 4}
		defer fast.Close()
		slow := &loadgentest.DelaySUT{ServiceTime: 3 * time.Millisecond, Workers: 4}
		defer slow.Close()
		const short = "*.*.min_duration = 300\n"
		runLoadgen(t, fix.server, "resnet50", loadgen.Server, loadgen.PerformanceOnly, fast, short+"*.Server.target_qps = 1000\n*.Server.target_latency = 40\n*.Server.min_query_count = 500\n")
		runLoadgen(t, fix.serverSlower, "resnet50", loadgen.Server, loadgen.PerformanceOnly, slow, short+"*.Server.target_qps = 1000\n*.Server.target_latency = 40\n*.Server.min_query_count = 500\n")
		runLoadgen(t, fix.offline, "resnet50", loadgen.Offline, loadgen.PerformanceOnly, fast, short+"*.Offline.target_qps = 8000\n*.Offline.min_query_count = 1\n")
		runLoadgen(t, fix.single, "resnet50", loadgen.SingleStream, loadgen.PerformanceOnly, fast, short+"*.SingleStream.target_latency = 1\n*.SingleStream.min_query_count = 100\n")
		runLoadgen(t, fix.multi, "resnet50", loadgen.MultiStream, loadgen.PerformanceOnly, fast, short+"*.MultiStream.target_latency = 2\n*.MultiStream.min_query_count = 700\n")
		runLoadgen(t, fix.invalidMulti, "resnet50", loadgen.MultiStream, loadgen.PerformanceOnly, fast, "*.*.min_duration = 10\n*.MultiStream.target_latency = 2\n*.MultiStream.min_query_count = 20\n")
		llm := &tokenSUT{}
		runLoadgen(t, fix.llm, "llama2-70b", loadgen.Server, loadgen.PerformanceOnly, llm, short+"*.Server.target_qps = 1000\n*.Server.min_query_count = 500\nllama2-70b.Server.ttft_latency = 2000\nllama2-70b.Server.tpot_latency = 200\n")
		llm.wg.Wait()
		runLoadgen(t, fix.accuracy, "resnet50", loadgen.Offline, loadgen.AccuracyOnly, &loadgentest.NullSUT{}, "")
		runRemote(t, fix.remote)
		if err := os.WriteFile(filepath.Join(fix.accuracy, "accuracy.txt"), []byte("accuracy=12.500%, good=8, total=64\nhash=abc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if fix.root == "" {
		t.Fatal("fixtures failed")
	}
	return fix
}

// runRemote makes a Server run as a LoadGen node over two endpoints
// writes it: the per-query record names the endpoint of each sample
// (alternately), and the detail log holds the benchmark package's
// endpoint and server-timing entries (fixed figures).
func runRemote(t *testing.T, dir string) {
	p := filepath.Join(t.TempDir(), "user.conf")
	os.WriteFile(p, []byte("*.*.min_duration = 300\n*.Server.target_qps = 1000\n*.Server.target_latency = 40\n*.Server.min_query_count = 500\n"), 0o644)
	s, err := loadgen.LoadConfigs("resnet50", loadgen.Server, loadgen.PerformanceOnly, "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	sut := &loadgentest.DelaySUT{ServiceTime: time.Millisecond, Workers: 4}
	defer sut.Close()
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = dir
	logs.Endpoints = []string{"10.0.0.1:8000", "10.0.0.2:8000"}
	logs.EndpointOf = func(id loadgen.ResponseID) uint8 { return uint8(id % 2) }
	logs.Extra = func(r *loadgen.Result) []loadgen.DetailEntry {
		d := func(mean int64) loadgen.Dist {
			return loadgen.Dist{Count: int64(r.SampleCount), Min: mean / 2, Mean: mean, P50: mean, P90: mean * 3 / 2, P99: mean * 2, P999: mean * 3, Max: mean * 4}
		}
		half := int64(r.SampleCount / 2)
		return []loadgen.DetailEntry{
			{Name: "server_timing_ns", Value: map[string]loadgen.Dist{"queue": d(20_000), "compute_input": d(15_000), "compute_infer": d(700_000),
				"compute_output": d(10_000), "client_overhead": d(180_000), "round_trip": d(925_000)}},
			{Name: "endpoints", Value: []map[string]any{
				{"endpoint": "10.0.0.1:8000", "requests": int64(r.SampleCount) - half, "errors": 0, "round_trip": d(900_000)},
				{"endpoint": "10.0.0.2:8000", "requests": half, "errors": 3, "round_trip": d(950_000)},
			}},
		}
	}
	if _, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
		t.Fatal(err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.root != "" {
		os.RemoveAll(fix.root)
	}
	os.Exit(code)
}
