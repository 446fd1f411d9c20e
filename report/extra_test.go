package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// TestReportShowsLagAndServerTimings: a run whose detail log has the
// extra entries gets the issue-lag and per-request tables, with the
// logged values; a run without them (Offline here) gets neither.
func TestReportShowsLagAndServerTimings(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(t.TempDir(), "user.conf")
	os.WriteFile(p, []byte("*.Server.target_qps = 1000\n*.*.min_duration = 100\n*.*.min_query_count = 100\n"), 0o644)
	s, err := loadgen.LoadConfigs("resnet50", loadgen.Server, loadgen.PerformanceOnly, "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = filepath.Join(root, "server")
	var lag loadgen.Dist
	logs.Extra = func(r *loadgen.Result) []loadgen.DetailEntry {
		e, ok := loadgen.ExtraIssueLag(r)
		if !ok {
			t.Error("no issue lag in a Server run")
		}
		lag = e.Value.(loadgen.Dist)
		d := func(mean int64) loadgen.Dist {
			return loadgen.Dist{Count: 7, Mean: mean, P50: mean + 100, P99: mean + 200, Max: mean + 300}
		}
		return []loadgen.DetailEntry{e,
			{Name: "queue_wait_ns", Value: d(4_000)},
			{Name: "send_lag_ns", Value: d(6_000)},
			{Name: "server_timing_ns", Value: map[string]loadgen.Dist{
				"queue": d(11_000), "compute_input": d(12_000), "compute_infer": d(13_000), "compute_output": d(14_000),
				"client_overhead": d(15_000), "round_trip": d(65_000),
			}},
		}
	}
	if _, err := loadgen.Run(context.Background(), &loadgentest.NullSUT{}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
		t.Fatal(err)
	}
	run(t, filepath.Join(root, "offline"), loadgen.Offline, &loadgentest.NullSUT{}, "*.Offline.target_qps = 2000\n*.*.min_duration = 10\n*.Offline.min_query_count = 1\n")

	var b bytes.Buffer
	if err := Write(&b, root); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		"<h3>Issue lag</h3>",
		"<td>issue lag (IssueQuery call − scheduled time), per query</td><td>" + strconv.FormatInt(lag.Count, 10) + "</td><td>" + usec(lag.Min) + "</td><td>" + usec(lag.Mean) + "</td><td>" + usec(lag.P50) + "</td>",
		"<td>harness queue wait (IssueQuery − a worker taking it), per sample</td><td>7</td><td>0.0</td><td>4.0</td><td>4.1</td>",
		"<td>send lag (a worker sending it − its scheduled time), per sample</td><td>7</td><td>0.0</td><td>6.0</td><td>6.1</td>",
		"<h3>Per-request timings (7 requests)</h3>",
		"<td>Server: queue</td><td>11.0</td><td>11.1</td><td>11.2</td>",
		"<td>Server: compute infer</td><td>13.0</td><td>13.1</td><td>13.2</td>",
		"<td>Client: send/recv (round trip − server)</td><td>15.0</td>",
		"<td>Client: round trip</td><td>65.0</td>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The Offline run's section has neither table.
	off := html[strings.Index(html, "<h2>offline</h2>"):]
	off = off[:strings.Index(off, "</section>")]
	if strings.Contains(off, "Issue lag") || strings.Contains(off, "Per-request timings") {
		t.Errorf("the Offline run's section shows a table it has no data for:\n%s", off)
	}
	if n := strings.Count(html, "<h3>Issue lag</h3>"); n != 1 {
		t.Errorf("%d issue-lag tables, want 1", n)
	}
}
