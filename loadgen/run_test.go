package loadgen_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// golden reads a CSV of loadgen/testdata/golden, skipping comments and the header.
func golden(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		rows = append(rows, strings.Split(line, ","))
	}
	return rows
}

func col(t *testing.T, rows [][]string, c int) []uint64 {
	t.Helper()
	out := make([]uint64, len(rows))
	for i, r := range rows {
		v, err := strconv.ParseUint(r[c], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// settings returns the golden runs' settings: model "synthetic" with the
// embedded mlperf.conf, then the given overrides.
func settings(t *testing.T, sc loadgen.Scenario, mode loadgen.Mode, user string) loadgen.Settings {
	t.Helper()
	path := filepath.Join(t.TempDir(), "user.conf")
	if err := os.WriteFile(path, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadgen.LoadConfigs("synthetic", sc, mode, "", path, "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type recorder struct {
	mu      sync.Mutex
	order   []uint64
	queries [][]uint64
}

func (r *recorder) sut() *loadgentest.NullSUT {
	return &loadgentest.NullSUT{OnIssue: func(s []loadgen.Sample) {
		r.mu.Lock()
		defer r.mu.Unlock()
		q := make([]uint64, len(s))
		for i, x := range s {
			q[i] = uint64(x.Index)
			r.order = append(r.order, uint64(x.Index))
		}
		r.queries = append(r.queries, q)
	}}
}

func run(t *testing.T, sut loadgen.SUT, qsl loadgen.QSL, s loadgen.Settings) (*loadgen.Result, string) {
	t.Helper()
	dir := t.TempDir()
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = dir
	res, err := loadgen.Run(context.Background(), sut, qsl, s, logs)
	if err != nil {
		t.Fatal(err)
	}
	return res, dir
}

func equalPrefix(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: got %d values, want at least %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: position %d is %d, want %d", what, i, got[i], want[i])
		}
	}
}

func qsl1024() *loadgentest.MemQSL { return &loadgentest.MemQSL{Total: 1024, Performance: 1024} }

func TestSingleStreamIssueOrderMatchesLoadGen(t *testing.T) {
	for _, c := range []struct {
		file string
		conf string
	}{
		{"singlestream_perf_first64_minq100.csv", "*.*.min_duration = 0\n*.*.min_query_count = 100\n"},
		{"singlestream_perf_first64_minq1025.csv", "*.*.min_duration = 0\n*.*.min_query_count = 1025\n"},
		{"singlestream_perf_first4096_minq4096.csv", "*.*.min_duration = 0\n*.*.min_query_count = 4096\n"},
	} {
		t.Run(c.file, func(t *testing.T) {
			var rec recorder
			q := qsl1024()
			res, _ := run(t, rec.sut(), q, settings(t, loadgen.SingleStream, loadgen.PerformanceOnly, c.conf))
			equalPrefix(t, "issue order", rec.order, col(t, golden(t, c.file), 2))
			loads := q.Loads()
			if len(loads) != 1 {
				t.Fatalf("%d LoadSamples calls, want 1", len(loads))
			}
			want := col(t, golden(t, "qsl_load_set_total1024_perf1024.csv"), 2)
			for i, idx := range loads[0] {
				if uint64(idx) != want[i] {
					t.Fatalf("load set position %d: %d, want %d", i, idx, want[i])
				}
			}
			if !res.Valid {
				t.Fatalf("run INVALID: %v", res.InvalidReasons)
			}
		})
	}
}

func TestAccuracyIncludesAllSamples(t *testing.T) {
	for _, sc := range []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline, loadgen.Server, loadgen.MultiStream} {
		t.Run(sc.String(), func(t *testing.T) {
			var rec recorder
			q := &loadgentest.MemQSL{Total: 300, Performance: 128}
			_, dir := run(t, rec.sut(), q, settings(t, sc, loadgen.AccuracyOnly, ""))
			seen := map[uint64]int{}
			for _, i := range rec.order {
				seen[i]++
			}
			if len(seen) != 300 {
				t.Fatalf("%d distinct samples issued, want 300", len(seen))
			}
			if sc != loadgen.MultiStream {
				for i, n := range seen {
					if n != 1 {
						t.Fatalf("sample %d issued %d times", i, n)
					}
				}
			}
			var entries []struct {
				Seq  uint64 `json:"seq_id"`
				Idx  uint64 `json:"qsl_idx"`
				Data string `json:"data"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &entries); err != nil {
				t.Fatalf("accuracy log is not JSON: %v", err)
			}
			if len(entries) != len(rec.order) {
				t.Fatalf("%d accuracy entries, %d samples issued", len(entries), len(rec.order))
			}
			for _, e := range entries {
				want := strings.ToUpper(hexLE(e.Idx))
				if e.Data != want {
					t.Fatalf("entry %+v: data %s, want %s", e, e.Data, want)
				}
			}
			if len(q.Loads()) != 3 {
				t.Fatalf("%d load sets, want 3 (300 samples in sets of 128)", len(q.Loads()))
			}
		})
	}
}

func hexLE(v uint64) string {
	const d = "0123456789ABCDEF"
	b := []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
	out := make([]byte, 0, 8)
	for _, c := range b {
		out = append(out, d[c>>4], d[c&15])
	}
	return string(out)
}

func TestSingleStreamAccuracyOrderMatchesLoadGen(t *testing.T) {
	var rec recorder
	run(t, rec.sut(), qsl1024(), settings(t, loadgen.SingleStream, loadgen.AccuracyOnly, ""))
	equalPrefix(t, "accuracy order", rec.order, col(t, golden(t, "singlestream_accuracy_order.csv"), 2))
}

func TestOfflineIssuesOneQueryInLoadOrder(t *testing.T) {
	var rec recorder
	res, _ := run(t, rec.sut(), qsl1024(), settings(t, loadgen.Offline, loadgen.PerformanceOnly, "*.*.min_duration = 1000\n*.Offline.target_qps = 1000\n"))
	if len(rec.queries) != 1 {
		t.Fatalf("%d queries, want 1", len(rec.queries))
	}
	// LoadGen's TestSettingsInternal: max(min_query_count (1 for a model
	// mlperf.conf does not name), 1.1 x min_duration 1 s x 1000 QPS).
	if len(rec.queries[0]) != 1100 {
		t.Fatalf("query of %d samples, want 1100", len(rec.queries[0]))
	}
	equalPrefix(t, "offline order", rec.order, col(t, golden(t, "offline_perf_first64.csv"), 1))
	if res.SamplesPerSec <= 0 {
		t.Fatalf("samples/s %v", res.SamplesPerSec)
	}
}

func TestMultiStreamQueriesAreContiguousInLoadedSet(t *testing.T) {
	var rec recorder
	q := qsl1024()
	res, _ := run(t, rec.sut(), q, settings(t, loadgen.MultiStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 662\n"))
	rows := golden(t, "multistream_perf_first64queries_spq8_minq662.csv")
	equalPrefix(t, "multistream order", rec.order, col(t, rows, 3))
	load := q.Loads()[0]
	pos := map[uint64]int{}
	for i, idx := range load[:1024] {
		pos[uint64(idx)] = i
	}
	for qi, query := range rec.queries {
		if len(query) != 8 {
			t.Fatalf("query %d has %d samples", qi, len(query))
		}
		start := pos[query[0]]
		for k, idx := range query {
			if uint64(load[start+k]) != idx {
				t.Fatalf("query %d is not contiguous in the loaded set", qi)
			}
		}
	}
	if len(load) != 1031 {
		t.Fatalf("MultiStream load set of %d, want 1031 (padded with spq-1)", len(load))
	}
	if !res.Valid {
		t.Fatalf("INVALID: %v", res.InvalidReasons)
	}
}

func TestServerIssueOrderMatchesLoadGen(t *testing.T) {
	var rec recorder
	res, _ := run(t, rec.sut(), qsl1024(), settings(t, loadgen.Server, loadgen.PerformanceOnly, "*.*.min_duration = 1000\n*.*.min_query_count = 100\n*.Server.target_qps = 10000\n"))
	equalPrefix(t, "server order", rec.order, col(t, golden(t, "server_sched_first64_qps10000.csv"), 2))
	// Validity depends on the machine's load (latency bound 10 ms); the
	// schedule does not.
	if res.ScheduledPerSec < 9000 || res.ScheduledPerSec > 11000 {
		t.Fatalf("scheduled %v samples/s, want about 10000", res.ScheduledPerSec)
	}
	if !res.MinDurationMet || !res.MinQueriesMet {
		t.Fatalf("duration or query count not met: %v", res.InvalidReasons)
	}
	// One issue lag per query; the loadgen never issues early.
	if l := res.IssueLag; l.Count != res.QueryCount || l.Min < 0 || l.Max < l.Percentiles[4] {
		t.Errorf("issue lag %+v for %d queries", l, res.QueryCount)
	}
}

func TestAccuracyLogSamplingMatchesLoadGen(t *testing.T) {
	s := settings(t, loadgen.SingleStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 1024\n*.*.accuracy_log_rng_seed = 720381539243781796\n*.*.accuracy_log_sampling_target = 64\n")
	var rec recorder
	_, dir := run(t, rec.sut(), qsl1024(), s)
	var entries []struct {
		Seq  uint64 `json:"seq_id"`
		Idx  uint64 `json:"qsl_idx"`
		Data string `json:"data"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	want := golden(t, "accuracy_log_sampling_test01_like.csv")
	if len(entries) != len(want) {
		t.Fatalf("%d entries logged, want %d", len(entries), len(want))
	}
	for i, w := range want {
		e := entries[i]
		if strconv.FormatUint(e.Seq, 10) != w[0] || strconv.FormatUint(e.Idx, 10) != w[1] || e.Data != w[2] {
			t.Fatalf("entry %d: %+v, want %v", i, e, w)
		}
	}
}

func TestFailedSampleMakesRunInvalid(t *testing.T) {
	sut := &loadgentest.NullSUT{Fail: func(s loadgen.Sample) error {
		if s.ID == 7 {
			return errors.New("boom")
		}
		return nil
	}}
	res, dir := run(t, sut, qsl1024(), settings(t, loadgen.SingleStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 100\n"))
	if res.Valid || res.FailedSamples != 1 {
		t.Fatalf("valid=%v failed=%d, want INVALID with 1 failed sample", res.Valid, res.FailedSamples)
	}
	detail, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	if !strings.Contains(string(detail), "boom") {
		t.Fatal("the SUT's error is not in the detail log")
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	if !strings.Contains(string(summary), "Result is : INVALID") || !strings.Contains(string(summary), "ERROR") {
		t.Fatalf("summary does not report the failure:\n%s", summary)
	}
	if !strings.Contains(string(summary), "the SUT reported an error for 1 samples (the first: boom)") {
		t.Errorf("summary does not give the cause:\n%s", summary)
	}
}

func TestStuckSUTEndsRunAtCompletionTimeout(t *testing.T) {
	for _, sc := range []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline} {
		s := settings(t, sc, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 10\n")
		s.CompletionTimeout = 50 * time.Millisecond
		res, dir := run(t, &loadgentest.DelaySUT{Never: true}, qsl1024(), s)
		if res.Valid {
			t.Fatalf("%v: a SUT that never completes gave a VALID run", sc)
		}
		detail, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
		if !strings.Contains(string(detail), "completion timeout") {
			t.Fatalf("%v: detail log does not name the timeout", sc)
		}
	}
}

func TestImpossibleSettingsAreAClearError(t *testing.T) {
	s := settings(t, loadgen.SingleStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 0\n")
	_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl1024(), s, loadgen.LogSettings{OutDir: t.TempDir()})
	if !errors.Is(err, loadgen.ErrSettings) || !strings.Contains(err.Error(), "min_query_count") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnwritableOutputFolderIsAClearError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	s := settings(t, loadgen.Offline, loadgen.PerformanceOnly, "")
	_, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl1024(), s, loadgen.LogSettings{OutDir: filepath.Join(file, "sub")})
	if err == nil || !strings.Contains(err.Error(), "log folder") {
		t.Fatalf("err = %v", err)
	}
}

func TestSummaryHasLoadGenLines(t *testing.T) {
	res, dir := run(t, &loadgentest.DelaySUT{ServiceTime: 0, Workers: 2}, qsl1024(), settings(t, loadgen.Server, loadgen.PerformanceOnly, "*.*.min_duration = 200\n*.*.min_query_count = 500\n*.Server.target_qps = 2000\n"))
	summary, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	for _, want := range []string{
		"MLPerf Results Summary", "SUT name : DelaySUT", "Scenario : Server", "Mode     : PerformanceOnly",
		"Completed samples per second    : ", "Result is : ", "  Performance constraints satisfied : ",
		"  Min duration satisfied : ", "  Min queries satisfied : ", "  Early stopping satisfied: ",
		"Scheduled samples per second : ", "99.90 percentile latency (ns)   : ", "min_query_count : 500",
		"qsl_rng_seed : 2085463073848966840", "target_latency (ns): 10000000",
	} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	detail, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	keys := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(detail)), "\n") {
		js, ok := strings.CutPrefix(line, ":::MLLOG ")
		if !ok {
			t.Fatalf("detail line without :::MLLOG: %q", line)
		}
		var ev struct {
			Key  string `json:"key"`
			Meta struct {
				IsError bool `json:"is_error"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(js), &ev); err != nil {
			t.Fatalf("detail line is not JSON: %v\n%s", err, js)
		}
		keys[ev.Key] = true
	}
	for _, k := range []string{"loadgen_version", "effective_target_qps", "result_validity", "result_scheduled_samples_per_sec", "result_completed_samples_per_sec", "result_99.00_percentile_latency_ns", "num_errors"} {
		if !keys[k] {
			t.Errorf("detail log lacks %s", k)
		}
	}
	if res.Latency.Count != res.SampleCount {
		t.Fatalf("latencies %d, samples %d", res.Latency.Count, res.SampleCount)
	}
}

func TestFindPeakPerformanceBracketsCapacity(t *testing.T) {
	t.Parallel() // about 12 probes of at least 1 s each, nearly all asleep
	// A single server of 10 ms per sample modelled on the schedule: its
	// capacity is 100 samples/s on any machine, loaded or not.
	sut := &loadgentest.QueueSUT{ServiceTime: 10 * time.Millisecond}
	s := settings(t, loadgen.Server, loadgen.FindPeakPerformance,
		"*.*.min_duration = 1000\n*.*.min_query_count = 100\n*.Server.target_qps = 25\n*.Server.target_latency = 150\n*.Server.target_latency_percentile = 90\n")
	s.ServerFindPeakQPSDecimalsOfPrecision = 0
	res, _ := run(t, sut, &loadgentest.MemQSL{Total: 64, Performance: 64}, s)
	if res.Mode != loadgen.FindPeakPerformance {
		t.Fatalf("mode %v", res.Mode)
	}
	// Above capacity by a fraction x, a 1 s probe's queue grows to x s of
	// work, so its p90 latency passes the 150 ms bound from about x = 0.17
	// (early stopping asks a little more margin): the peak lies between
	// capacity and about 1.2 times it. The bounds catch a search that stops
	// at its start (25), never halves back (200) or overshoots; only a
	// stall of the process past the bound for a tenth of a probe's samples
	// could move it.
	if res.PeakQPS < 85 || res.PeakQPS > 135 {
		t.Fatalf("peak %v QPS for a SUT of 100 samples/s (%v)", res.PeakQPS, res.InvalidReasons)
	}
}

func TestTraceIsChromeJSONWithOneEventPairPerSample(t *testing.T) {
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = t.TempDir()
	logs.EnableTrace = true
	s := settings(t, loadgen.SingleStream, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 100\n")
	res, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl1024(), s, logs)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(logs.OutDir, "mlperf_log_trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	n := 0
	for _, e := range tr.TraceEvents {
		if e.Name == "Sample" {
			n++
		}
	}
	if n != 2*res.SampleCount || tr.DisplayTimeUnit != "ns" {
		t.Fatalf("%d Sample events for %d samples, unit %q", n, res.SampleCount, tr.DisplayTimeUnit)
	}
}
