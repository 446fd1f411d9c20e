package loadgen

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen/schedule"
)

// The goldens under testdata/oracle come from the C++ LoadGen of
// mlcommons/inference (loadgen/, 6.0.17) driving the SUT in
// testdata/oracle/sut_main.cc with the settings of cases/NAME.txt; see
// testdata/oracle/README.md. Each NAME/ folder holds LoadGen's summary and
// detail logs and the latency series its trace recorded (series.csv). The
// test feeds that exact series to this package's result computation and
// log writer and compares every result line of both logs.

// oracleCase reads cases/NAME.txt into Settings the way sut_main.cc sets
// LoadGen's TestSettings.
func oracleCase(t *testing.T, name string) Settings {
	t.Helper()
	s, _, _ := oracleCaseFile(t, filepath.Join("testdata", "oracle", "cases", name+".txt"))
	return s
}

// oracleCaseFile reads a case file into Settings and the QSL's total and
// performance sample counts (1024 unless qsl_total, qsl_performance).
func oracleCaseFile(t *testing.T, path string) (Settings, int, int) {
	t.Helper()
	name := filepath.Base(path)
	total, perf := 1024, 1024
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Mode = PerformanceOnly
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		k, v := f[0], f[1]
		u := func() uint64 {
			x, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, k, err)
			}
			return x
		}
		fl := func() float64 {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, k, err)
			}
			return x
		}
		switch k {
		case "scenario":
			if s.Scenario, err = ParseScenario(v); err != nil {
				t.Fatal(err)
			}
		case "single_stream_expected_latency_ns":
			s.SingleStreamExpectedLatencyNs = fl()
		case "multi_stream_expected_latency_ns":
			s.MultiStreamExpectedLatencyNs = fl()
		case "multi_stream_samples_per_query":
			s.MultiStreamSamplesPerQuery = u()
		case "server_target_qps":
			s.ServerTargetQPS = fl()
		case "server_target_latency_ns":
			s.ServerTargetLatencyNs = int64(u())
		case "offline_expected_qps":
			s.OfflineExpectedQPS = fl()
		case "min_duration_ms":
			s.MinDurationMs = u()
		case "min_query_count":
			s.MinQueryCount = u()
		case "qsl_rng_seed":
			s.QSLRNGSeed = u()
		case "sample_index_rng_seed":
			s.SampleIndexRNGSeed = u()
		case "schedule_rng_seed":
			s.ScheduleRNGSeed = u()
		case "use_token_latencies":
			s.UseTokenLatencies = u() != 0
		case "server_ttft_latency":
			s.ServerTTFTLatencyNs = int64(u())
		case "server_tpot_latency":
			s.ServerTPOTLatencyNs = int64(u())
		case "infer_token_latencies":
			s.InferTokenLatencies = u() != 0
		case "token_latency_scaling_factor":
			s.TokenLatencyScalingFactor = u()
		case "sample_concatenate_permutation":
			s.SampleConcatenatePermutation = u() != 0
		case "qsl_total":
			total = int(u())
		case "qsl_performance":
			perf = int(u())
		default:
			if !strings.HasPrefix(k, "sut_") {
				t.Fatalf("%s: setting %s is not known to the test", name, k)
			}
		}
	}
	return s, total, perf
}

// oracleSeries builds the run state of the series in NAME/series.csv:
// times are ns from LoadGen's start of issuing, shifted by a constant so
// that none is zero (zero marks an outstanding sample here).
func oracleSeries(t *testing.T, name string, e *effective) (*runState, int) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "oracle", name, "series.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const base = 1_000_000_000
	type row struct{ q, sched, done, first, n int64 }
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "seq") {
			continue
		}
		var v [6]int64
		for i, fld := range strings.Split(line, ",") {
			if v[i], err = strconv.ParseInt(fld, 10, 64); err != nil {
				t.Fatalf("%s: %q: %v", name, line, err)
			}
		}
		if v[0] != int64(len(rows)) {
			t.Fatalf("%s: sample %d out of order", name, v[0])
		}
		rows = append(rows, row{v[1], v[2], v[3], v[4], v[5]})
	}
	nq := int(rows[len(rows)-1].q) + 1
	spq := len(rows) / nq
	r := &runState{e: e, spq: spq, start: base, sched: make([]int64, nq), done: make([]int64, len(rows))}
	if e.req.UseTokenLatencies {
		r.first = make([]int64, len(rows))
		r.tokens = make([]int32, len(rows))
	}
	for i, w := range rows {
		if int(w.q) != i/spq {
			t.Fatalf("%s: sample %d belongs to query %d, not %d", name, i, w.q, i/spq)
		}
		r.sched[w.q] = base + w.sched
		r.done[i] = base + w.done
		if r.first != nil {
			r.first[i] = base + w.first
			r.tokens[i] = int32(w.n)
		}
	}
	return r, nq
}

type detailEntry struct{ key, value string }

// readDetail returns the detail log's entries from result_validity on
// (LoadGen's result lines), values as their JSON text.
func readDetail(t *testing.T, path string) []detailEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []detailEntry
	on := false
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, ":::MLLOG ")
		if !ok {
			continue
		}
		var m struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(rest), &m); err != nil {
			t.Fatalf("%s: %v in %q", path, err, line)
		}
		if m.Key == "result_validity" {
			on = true
		}
		if on {
			out = append(out, detailEntry{m.Key, string(m.Value)})
		}
	}
	return out
}

// overheadDependent are the values computed over LoadGen's start of
// issuing in SingleStream, which its trace does not record: the series
// starts at the first query's issue, a few hundred ns later, so these are
// compared to a relative 1e-4 (the printed value has 2 decimals or 6
// significant digits).
var overheadDependent = []string{"QPS w/ loadgen overhead", "TPS w/ loadgen overhead", "result_qps_with_loadgen_overhead", "result_token_throughput_with_loadgen_overhead"}

func closeEnough(what, got, want string) bool {
	if got == want {
		return true
	}
	for _, k := range overheadDependent {
		if strings.Contains(what, k) {
			num := func(s string) float64 {
				if i := strings.LastIndex(s, ":"); i >= 0 {
					s = s[i+1:]
				}
				v, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
				return v
			}
			g, w := num(got), num(want)
			return w != 0 && math.Abs(g-w) <= 1e-4*math.Abs(w)
		}
	}
	return false
}

func TestResultsMatchCLoadGen(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "oracle", "cases", "*.txt"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no oracle cases: %v", err)
	}
	seen := map[Scenario]bool{}
	tokenServer := false
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txt")
		t.Run(name, func(t *testing.T) {
			s, total, perf := oracleCaseFile(t, c)
			seen[s.Scenario] = true
			tokenServer = tokenServer || (s.Scenario == Server && s.UseTokenLatencies)
			e, err := deriveSettings(s, total, perf)
			if err != nil {
				t.Fatal(err)
			}
			r, nq := oracleSeries(t, name, e)
			if s.Scenario == Offline && uint64(r.spq) != e.samplesPerQuery {
				t.Errorf("LoadGen's Offline query has %d samples, we derive %d", r.spq, e.samplesPerQuery)
			}
			res := r.measure(nq, false)
			res.evaluate(e)

			dir := t.TempDir()
			lw, err := openLogs(LogSettings{OutDir: dir}, s.UseTokenLatencies, s.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			lw.sutName = "OracleSUT"
			lw.results(res, e)
			if err := lw.close(); err != nil {
				t.Fatal(err)
			}

			golden := filepath.Join("testdata", "oracle", name)
			want, err := os.ReadFile(filepath.Join(golden, "mlperf_log_summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
			for i := 0; i < max(len(wl), len(gl)); i++ {
				var w, g string
				if i < len(wl) {
					w = wl[i]
				}
				if i < len(gl) {
					g = gl[i]
				}
				if !closeEnough(w, g, w) {
					t.Errorf("summary line %d:\n got %q\nwant %q", i+1, g, w)
				}
			}

			wd := readDetail(t, filepath.Join(golden, "mlperf_log_detail.txt"))
			gd := readDetail(t, filepath.Join(dir, "mlperf_log_detail.txt"))
			for i := 0; i < max(len(wd), len(gd)); i++ {
				var w, g detailEntry
				if i < len(wd) {
					w = wd[i]
				}
				if i < len(gd) {
					g = gd[i]
				}
				if w.key != g.key || !closeEnough(w.key, g.value, w.value) {
					t.Errorf("detail result entry %d:\n got %s = %s\nwant %s = %s", i, g.key, g.value, w.key, w.value)
				}
			}
		})
	}
	for sc := SingleStream; sc <= Offline; sc++ {
		if !seen[sc] {
			t.Errorf("no oracle case for %v", sc)
		}
	}
	if !tokenServer {
		t.Error("no oracle case for a Server run with token latencies")
	}
}

// TestEqualIssueMatchesCLoadGen compares, sample by sample, the issue order
// of performance runs with sample_concatenate_permutation (equal issue)
// with the C++ LoadGen's: testdata/oracle/equal_issue/NAME.csv is the
// order the trace of a run with the settings of NAME.txt recorded
// (issue_order.py), in full.
func TestEqualIssueMatchesCLoadGen(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "oracle", "equal_issue", "*.txt"))
	if err != nil || len(cases) < 4 {
		t.Fatalf("want an equal-issue case per scenario: %v %v", cases, err)
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txt")
		t.Run(name, func(t *testing.T) {
			s, total, perf := oracleCaseFile(t, c)
			e, err := deriveSettings(s, total, perf)
			if err != nil {
				t.Fatal(err)
			}
			if !e.equalIssue {
				t.Fatal("the case does not turn equal issue on")
			}
			p := e.params(false)
			q := schedule.Generate(p, schedule.LoadableSets(p)[0])
			data, err := os.ReadFile(strings.TrimSuffix(c, ".txt") + ".csv")
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
			if len(rows) > len(q.Samples) {
				t.Fatalf("LoadGen issued %d samples, we generate %d", len(rows), len(q.Samples))
			}
			spq := max(q.SamplesPerQuery, 1)
			for i, row := range rows {
				f := strings.Split(row, ",")
				if f[0] != strconv.Itoa(i) || f[1] != strconv.Itoa(i/spq) || f[2] != strconv.FormatUint(q.Samples[i], 10) {
					t.Fatalf("sample %d: LoadGen seq,query,index %s; we issue query %d index %d", i, row, i/spq, q.Samples[i])
				}
			}
		})
	}
}
