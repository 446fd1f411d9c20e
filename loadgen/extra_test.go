package loadgen_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// detailKeys reads a detail log's keys in order and the raw value of each.
func detailKeys(t *testing.T, dir string) ([]string, map[string]json.RawMessage) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "mlperf_log_detail.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var keys []string
	vals := map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
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
			t.Fatalf("bad detail line %s: %v", line, err)
		}
		keys = append(keys, e.Key)
		vals[e.Key] = e.Value
	}
	return keys, vals
}

// TestExtraIssueLagInDetailLog: a Server run with LogSettings.Extra set
// writes the issue-lag distribution (one per query, ordered, never
// negative) after the result keys and before num_errors, and the
// caller's own entries under the prefix; OnSeries sees each series.
func TestExtraIssueLagInDetailLog(t *testing.T) {
	dir := t.TempDir()
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = dir
	var series []bool
	logs.OnSeries = func(acc bool) { series = append(series, acc) }
	logs.Extra = func(r *loadgen.Result) []loadgen.DetailEntry {
		var out []loadgen.DetailEntry
		if e, ok := loadgen.ExtraIssueLag(r); ok {
			out = append(out, e)
		}
		return append(out, loadgen.DetailEntry{Name: "custom", Value: map[string]loadgen.Dist{"a": {Count: 1, Min: 2, Max: 2}}})
	}
	s := settings(t, loadgen.Server, loadgen.SubmissionRun, "*.*.min_duration = 200\n*.*.min_query_count = 300\n*.Server.target_qps = 2000\n")
	res, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, qsl1024(), s, logs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(series, []bool{true, false}) {
		t.Errorf("OnSeries saw %v, want [true false] (accuracy, then performance)", series)
	}
	keys, vals := detailKeys(t, dir)
	lagKey := loadgen.ExtraKeyPrefix + loadgen.IssueLagName
	at := slices.Index(keys, lagKey)
	if at < 0 {
		t.Fatalf("no %s in the detail log: %v", lagKey, keys)
	}
	if last := slices.Index(keys, "result_99.90_percentile_latency_ns"); last < 0 || last > at || keys[at+1] != loadgen.ExtraKeyPrefix+"custom" || keys[at+2] != "num_errors" {
		t.Errorf("extra keys are not between the result keys and num_errors: %v", keys[max(at-3, 0):min(at+3, len(keys))])
	}
	var d loadgen.Dist
	if err := json.Unmarshal(vals[lagKey], &d); err != nil {
		t.Fatalf("%s = %s: %v", lagKey, vals[lagKey], err)
	}
	if d.Count != int64(res.QueryCount) || d.Count < 300 {
		t.Errorf("issue lag count %d, want the %d queries issued", d.Count, res.QueryCount)
	}
	if !(0 <= d.Min && d.Min <= d.P50 && d.P50 <= d.P90 && d.P90 <= d.P99 && d.P99 <= d.P999 && d.P999 <= d.Max && d.Min <= d.Mean && d.Mean <= d.Max) {
		t.Errorf("issue lag distribution out of order: %+v", d)
	}
	if d != res.IssueLag.Dist() {
		t.Errorf("logged %+v, the result has %+v", d, res.IssueLag.Dist())
	}
	if got := string(vals[loadgen.ExtraKeyPrefix+"custom"]); got != `{"a":{"count":1,"min":2,"mean":0,"p50":0,"p90":0,"p99":0,"p99.9":0,"max":2}}` {
		t.Errorf("custom entry written as %s", got)
	}
}

// TestNoExtraKeysByDefault: without Extra the detail log has no key of
// this implementation's own, and the lag is zero-length outside Server.
func TestNoExtraKeysByDefault(t *testing.T) {
	res, dir := run(t, &loadgentest.NullSUT{}, qsl1024(), settings(t, loadgen.Server, loadgen.PerformanceOnly, "*.*.min_duration = 50\n*.*.min_query_count = 50\n*.Server.target_qps = 2000\n"))
	keys, _ := detailKeys(t, dir)
	for _, k := range keys {
		if strings.HasPrefix(k, loadgen.ExtraKeyPrefix) {
			t.Errorf("extra key %s without LogSettings.Extra", k)
		}
	}
	if _, ok := loadgen.ExtraIssueLag(res); !ok {
		t.Error("a Server run has no issue lag")
	}
	off, _ := run(t, &loadgentest.NullSUT{}, qsl1024(), settings(t, loadgen.Offline, loadgen.PerformanceOnly, "*.*.min_duration = 0\n*.*.min_query_count = 1\n"))
	if _, ok := loadgen.ExtraIssueLag(off); ok {
		t.Error("an Offline run reports an issue lag")
	}
}
