package loadgen_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/loadgen/querylog"
)

// failEvery fails every n-th sample (by index) and completes the others.
type failEvery struct{ n uint64 }

func (f failEvery) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	for _, s := range samples {
		var err error
		if uint64(s.Index)%f.n == 0 {
			err = errors.New("boom")
		}
		c.Complete(loadgen.Response{ID: s.ID, Err: err})
	}
}

// at is the loadgen's percentile of an ascending series.
func at(sorted []int64, p float64) int64 {
	return sorted[min(int(float64(len(sorted))*p), len(sorted)-1)]
}

func readRecord(t *testing.T, dir string) []querylog.Series {
	t.Helper()
	ss, err := querylog.ReadFile(filepath.Join(dir, querylog.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// The per-query record of a performance run holds the run's own
// measurements: every issued query and sample, and latencies (and the
// Server issue lag, and TTFT/TPOT with token latencies) whose
// percentiles are the loadgen's, exactly.
func TestQueryRecordHoldsTheRunsMeasurements(t *testing.T) {
	for _, c := range []struct {
		name   string
		sc     loadgen.Scenario
		model  string
		conf   string
		sut    func() loadgen.SUT
		tokens bool
	}{
		{"Server", loadgen.Server, "resnet50", "*.Server.target_qps = 4000\n*.*.min_duration = 100\n*.*.min_query_count = 300\n", func() loadgen.SUT { return &loadgentest.DelaySUT{ServiceTime: 100 * time.Microsecond, Workers: 2} }, false},
		{"SingleStream", loadgen.SingleStream, "resnet50", "*.*.min_duration = 50\n*.*.min_query_count = 200\n*.SingleStream.target_latency = 0.1\n", func() loadgen.SUT { return &loadgentest.NullSUT{} }, false},
		{"MultiStream", loadgen.MultiStream, "resnet50", "*.*.min_duration = 50\n*.*.min_query_count = 100\n*.MultiStream.target_latency = 0.5\n", func() loadgen.SUT { return &loadgentest.DelaySUT{ServiceTime: 50 * time.Microsecond, Workers: 2} }, false},
		{"Offline", loadgen.Offline, "resnet50", "*.Offline.target_qps = 5000\n*.*.min_duration = 50\n*.*.min_query_count = 1\n", func() loadgen.SUT { return &loadgentest.NullSUT{} }, false},
		{"Server tokens", loadgen.Server, "llama2-70b", "*.Server.target_qps = 3000\n*.*.min_duration = 50\n*.*.min_query_count = 150\n", func() loadgen.SUT { return &shapeTokenSUT{} }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := settingsFrom(t, c.sc, c.conf)
			if c.model != "resnet50" {
				p := filepath.Join(t.TempDir(), "user.conf")
				os.WriteFile(p, []byte(c.conf), 0o644)
				var err error
				if s, err = loadgen.LoadConfigs(c.model, c.sc, loadgen.PerformanceOnly, "", p, ""); err != nil {
					t.Fatal(err)
				}
			}
			logs := loadgen.DefaultLogSettings()
			logs.OutDir = dir
			sut := c.sut()
			res, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs)
			if d, ok := sut.(*loadgentest.DelaySUT); ok {
				d.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			ss := readRecord(t, dir)
			if len(ss) != 1 {
				t.Fatalf("%d series, want 1", len(ss))
			}
			r := ss[0]
			if r.Queries != res.QueryCount || len(r.Samples) != res.SampleCount || int(r.Scenario) != int(c.sc) || r.Tokens != c.tokens {
				t.Fatalf("record: %d queries, %d samples, scenario %d, tokens %v; run: %d, %d, %d, %v", r.Queries, len(r.Samples), r.Scenario, r.Tokens, res.QueryCount, res.SampleCount, c.sc, c.tokens)
			}
			var lat, lag, ttft, tpot []int64
			for i := range r.Samples {
				l, ok := r.Latency(i)
				if !ok {
					t.Fatalf("sample %d never completed", i)
				}
				lat = append(lat, l)
				x := r.Samples[i]
				if c.tokens {
					q := r.Scheduled[i/r.SamplesPerQuery]
					if x.FirstToken >= 0 {
						ttft = append(ttft, x.FirstToken-q)
					}
					if x.Tokens > 1 {
						tpot = append(tpot, (x.Completed-x.FirstToken)/int64(x.Tokens-1))
					}
				}
			}
			for q := range r.Scheduled {
				lag = append(lag, r.Issued[q]-r.Scheduled[q])
			}
			for _, v := range [][]int64{lat, lag, ttft, tpot} {
				slices.Sort(v)
			}
			for i, p := range loadgen.ReportedPercentiles {
				if got := at(lat, p); got != res.Latency.Percentiles[i] {
					t.Errorf("p%g latency %d from the record, %d from the run", p*100, got, res.Latency.Percentiles[i])
				}
				if c.sc == loadgen.Server {
					if got := at(lag, p); got != res.IssueLag.Percentiles[i] {
						t.Errorf("p%g issue lag %d from the record, %d from the run", p*100, got, res.IssueLag.Percentiles[i])
					}
				}
				if c.tokens {
					if got := at(ttft, p); got != res.TTFT.Percentiles[i] {
						t.Errorf("p%g TTFT %d from the record, %d from the run", p*100, got, res.TTFT.Percentiles[i])
					}
					if got := at(tpot, p); got != res.TPOT.Percentiles[i] {
						t.Errorf("p%g TPOT %d from the record, %d from the run", p*100, got, res.TPOT.Percentiles[i])
					}
				}
			}
			if c.sc != loadgen.Server && lag[len(lag)-1] != 0 {
				t.Errorf("%s has an issue lag of %d ns: its queries go out when scheduled", c.sc, lag[len(lag)-1])
			}
			st, _ := os.Stat(filepath.Join(dir, querylog.FileName))
			size := int64(64 + 16*r.Queries + 16*len(r.Samples))
			if c.tokens {
				size += int64(16 * len(r.Samples))
			}
			if st.Size() != size {
				t.Errorf("the record is %d bytes, want %d (16 a query, 16 a sample, 32 with tokens)", st.Size(), size)
			}
		})
	}
}

// Failed samples are marked; the endpoint of each sample comes from
// LogSettings.EndpointOf; an accuracy series is not recorded, so a
// submission run records its performance series only; with QueryRecord
// off there is no file.
func TestQueryRecordFailuresEndpointsAndModes(t *testing.T) {
	s := settingsFrom(t, loadgen.Offline, "*.Offline.target_qps = 1000\n*.*.min_duration = 0\n*.*.min_query_count = 200\n")
	s.Mode = loadgen.SubmissionRun
	dir := t.TempDir()
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = dir
	logs.Endpoints = []string{"a:1", "b:2"}
	logs.EndpointOf = func(id loadgen.ResponseID) uint8 { return uint8(id % 2) }
	res, err := loadgen.Run(context.Background(), failEvery{5}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs)
	if err != nil {
		t.Fatal(err)
	}
	ss := readRecord(t, dir)
	if len(ss) != 1 {
		t.Fatalf("%d series recorded, want the performance one only", len(ss))
	}
	r := ss[0]
	if r.FirstSeq != 64 || len(r.Samples) != res.SampleCount {
		t.Errorf("first seq %d (after the 64 accuracy samples), %d samples (run %d)", r.FirstSeq, len(r.Samples), res.SampleCount)
	}
	if !slices.Equal(r.Endpoints, logs.Endpoints) {
		t.Errorf("endpoints %v", r.Endpoints)
	}
	failed := 0
	for i, x := range r.Samples {
		if x.Failed != (x.QSLIndex%5 == 0) {
			t.Fatalf("sample %d (index %d): failed %v", i, x.QSLIndex, x.Failed)
		}
		if x.Failed {
			failed++
		}
		if want := uint8((r.FirstSeq + uint64(i)) % 2); x.Endpoint != want {
			t.Fatalf("sample %d: endpoint %d, want %d", i, x.Endpoint, want)
		}
	}
	if failed != res.FailedSamples {
		t.Errorf("%d failed in the record, %d in the run", failed, res.FailedSamples)
	}
	s.Mode = loadgen.AccuracyOnly
	dir = t.TempDir()
	logs.OutDir = dir
	if _, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, querylog.FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an accuracy run wrote a record: %v", err)
	}
	s.Mode = loadgen.PerformanceOnly
	dir = t.TempDir()
	logs = loadgen.LogSettings{OutDir: dir}
	if _, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mlperf_log_queries.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("QueryRecord off wrote a record: %v", err)
	}
}
