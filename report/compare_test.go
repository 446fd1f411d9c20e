package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mlperf-go/inference/loadgen"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// compareRows reads the A/B table of the page: row label → cells.
func compareRows(t *testing.T, page string) map[string][][2]string {
	t.Helper()
	i := strings.Index(page, `<section class="compare">`)
	if i < 0 {
		t.Fatal("no comparison")
	}
	s := page[i:]
	s = s[:strings.Index(s, "</section>")]
	out := map[string][][2]string{}
	for _, m := range regexp.MustCompile(`(?s)<tr>(<td>.*?)</tr>`).FindAllStringSubmatch(s, -1) {
		var cells [][2]string
		for _, c := range regexp.MustCompile(`<td(?: class="([a-z]*)")?(?: data-ns="[0-9-]+")?>([^<]*)</td>`).FindAllStringSubmatch(m[1], -1) {
			cells = append(cells, [2]string{c[1], html.UnescapeString(c[2])})
		}
		if len(cells) > 0 {
			if _, dup := out[cells[0][1]]; !dup {
				out[cells[0][1]] = cells
			}
		}
	}
	return out
}

// `report A B` pairs the runs and marks what changed: a slower SUT's
// latencies are worse by their real ratio, a verdict that changed is
// marked, a setting that differs is listed, and the two distributions
// share one chart.
func TestCompareMarksDifferences(t *testing.T) {
	f := runs(t)
	page := render(t, Options{Paths: []string{f.server, f.serverSlower}})
	rows := compareRows(t, page)
	ra, _ := LoadRun(f.server)
	rb, _ := LoadRun(f.serverSlower)
	for _, key := range []string{"50.00", "99.00"} {
		label := pctLabel(key) + " latency"
		row, ok := rows[label]
		if !ok {
			t.Fatalf("no %s row: %v", label, rows)
		}
		a, b := ra.N("result_"+key+"_percentile_latency_ns"), rb.N("result_"+key+"_percentile_latency_ns")
		if want := fmt.Sprintf("%+.1f %%", (b-a)/a*100); row[3][1] != want {
			t.Errorf("%s change %q, want %q", label, row[3][1], want)
		}
		if b > a*1.02 && row[3][0] != "worse" {
			t.Errorf("%s: slower by %.0f%% but marked %q", label, (b-a)/a*100, row[3][0])
		}
	}
	if rows["verdict"][3][1] != "same" && ra.Str("result_validity") == rb.Str("result_validity") {
		t.Errorf("verdict row %v for the same verdicts", rows["verdict"])
	}
	if _, ok := charts(t, page)["compare-cdf"]; !ok {
		t.Error("no A/B distribution chart")
	}
	// A valid run against an invalid one, with other settings.
	page = render(t, Options{Paths: []string{f.multi, f.invalidMulti}})
	rows = compareRows(t, page)
	if v := rows["verdict"]; v[3][0] != "changed" {
		t.Errorf("verdict row %v, want it marked changed", v)
	}
	if m := rows["metric"]; !strings.Contains(m[2][1], "not computed") || m[3][1] != "—" {
		t.Errorf("metric row against a run without one: %v", m)
	}
	if s := rows["effective_min_query_count"]; len(s) != 3 || s[2][0] != "changed" {
		t.Errorf("the differing min_query_count is not listed: %v", s)
	}
}

// Two results trees pair by system, benchmark and scenario, whatever the
// submitter's name.
func TestCompareTreesPairsByScenario(t *testing.T) {
	b := filepath.Join(t.TempDir(), "other")
	copyDir(t, base, b)
	if err := os.Rename(filepath.Join(b, "closed", "GoTest"), filepath.Join(b, "closed", "OtherOrg")); err != nil {
		t.Fatal(err)
	}
	page := render(t, Options{Paths: []string{base, b}})
	if strings.Contains(page, "Only in A") || strings.Contains(page, "Only in B") {
		t.Error("runs of the same scenarios left unpaired")
	}
	if n := strings.Count(page, `(<a href="#a-run`); n != 16 {
		t.Errorf("%d pairs, want 16 (every run folder of the tree)", n)
	}
}

// TestCompareTokensAccuracyAndServerBound: two LLM runs compare their
// token rates (the log's value, formatted as the page's rates); two
// accuracy runs compare each score of the accuracy table; a Server pair's
// distribution chart marks the latency bound at the log's target and a
// MultiStream pair's marks none.
func TestCompareTokensAccuracyAndServerBound(t *testing.T) {
	f := runs(t)
	r, _ := LoadRun(f.llm)
	key := "result_completed_tokens_per_second"
	if _, ok := r.Num(key); !ok {
		key = "result_tokens_per_second"
	}
	v, ok := r.Num(key)
	if !ok || v <= 0 {
		t.Fatalf("the LLM fixture logs no token rate")
	}
	rows := compareRows(t, render(t, Options{Paths: []string{f.llm, f.llm}}))
	if row := rows["tokens/s"]; len(row) != 4 || row[1][1] != rate(v, "tokens/s") || row[2][1] != row[1][1] || row[3][1] != "+0.0 %" {
		t.Errorf("tokens/s row %v, want %q on both sides, +0.0 %%", row, rate(v, "tokens/s"))
	}
	rows = compareRows(t, render(t, Options{Paths: []string{f.accuracy, f.accuracy}}))
	n := 0
	for label, row := range rows {
		if strings.HasPrefix(label, "accuracy ") {
			n++
			// The label names the metric (letters), the cells hold its score.
			if !regexp.MustCompile(`^accuracy [A-Za-z][A-Za-z0-9_]*$`).MatchString(label) {
				t.Errorf("accuracy row labelled %q, want the metric's name", label)
			}
			if len(row) != 4 || row[1][1] == "" || row[2][1] != row[1][1] || row[3][1] != "+0.0 %" {
				t.Errorf("%s row %v, want the same score on both sides, +0.0 %%", label, row)
			}
		}
	}
	if n == 0 {
		t.Errorf("no accuracy row in the comparison of two accuracy runs: %v", rows)
	}
	rs, _ := LoadRun(f.server)
	c, ok := charts(t, render(t, Options{Paths: []string{f.server, f.serverSlower}}))["compare-cdf"]
	if !ok {
		t.Fatal("no A/B chart for two Server runs")
	}
	var bounds []float64
	for _, m := range c.marks {
		if m.kind == "bound" {
			bounds = append(bounds, m.ns)
		}
	}
	if want := rs.N("effective_target_latency_ns"); len(bounds) != 1 || bounds[0] != want || want != 40e6 {
		t.Errorf("Server A/B chart bound marks %v, want one at %v (40 ms)", bounds, want)
	}
	// A MultiStream run whose log holds a latency target too: no bound.
	ms := filepath.Join(t.TempDir(), "ms")
	copyDir(t, f.multi, ms)
	detail := filepath.Join(ms, "mlperf_log_detail.txt")
	b, _ := os.ReadFile(detail)
	b2 := regexp.MustCompile(`("key": "effective_target_latency_ns", "value": )0\b`).ReplaceAll(b, []byte("${1}5000000"))
	if string(b2) == string(b) {
		t.Fatal("the MultiStream fixture's log has no effective_target_latency_ns of 0 to change")
	}
	os.WriteFile(detail, b2, 0o644)
	c = charts(t, render(t, Options{Paths: []string{ms, f.multi}}))["compare-cdf"]
	if len(c.marks) == 0 && c.name == "" {
		t.Fatal("no A/B chart for two MultiStream runs")
	}
	for _, m := range c.marks {
		if m.kind == "bound" {
			t.Errorf("MultiStream A/B chart has a bound mark at %v", m.ns)
		}
	}
}

// TestChartLabelsSitOnTheirAxes reads each chart's geometry from its
// SVG: the x axis label is centred under the x axis, the y axis label
// beside the y axis' middle, and each y tick label's baseline just below
// its grid line (0 to 5 px: a 9 px label centred on the line).
func TestChartLabelsSitOnTheirAxes(t *testing.T) {
	f := runs(t)
	page := render(t, Options{Paths: []string{f.server}})
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1)
	if len(svgs) == 0 {
		t.Fatal("no chart")
	}
	axisRe := regexp.MustCompile(`<line class="axis" x1="([0-9.]+)" y1="([0-9.]+)" x2="([0-9.]+)" y2="([0-9.]+)"/>`)
	labelRe := regexp.MustCompile(`<text class="axlabel" x="([0-9.]+)" y="([0-9.]+)"`)
	tickRe := regexp.MustCompile(`<line class="grid" x1="([0-9.]+)" y1="([0-9.]+)" x2="([0-9.]+)" y2="([0-9.]+)"/><text class="tick" x="[0-9.]+" y="([0-9.-]+)" text-anchor="end">`)
	for i, s := range svgs {
		axes := axisRe.FindAllStringSubmatch(s, -1)
		labels := labelRe.FindAllStringSubmatch(s, -1)
		if len(axes) != 2 || len(labels) != 2 {
			t.Fatalf("chart %d: %d axes and %d axis labels, want 2 and 2", i, len(axes), len(labels))
		}
		xa, ya := axes[0], axes[1] // horizontal, then vertical
		if mid := (num(xa[1]) + num(xa[3])) / 2; num(labels[0][1]) != mid {
			t.Errorf("chart %d: x axis label at x=%s, the axis runs %s..%s", i, labels[0][1], xa[1], xa[3])
		}
		if mid := (num(ya[2]) + num(ya[4])) / 2; num(labels[1][2]) != mid {
			t.Errorf("chart %d: y axis label at y=%s, the axis runs %s..%s", i, labels[1][2], ya[2], ya[4])
		}
		ticks := tickRe.FindAllStringSubmatch(s, -1)
		if len(ticks) == 0 {
			t.Errorf("chart %d: no y tick", i)
		}
		for _, tk := range ticks {
			if d := num(tk[5]) - num(tk[2]); tk[2] != tk[4] || d <= 0 || d > 5 {
				t.Errorf("chart %d: y tick label baseline at %s for its line at %s", i, tk[5], tk[2])
			}
		}
	}
}

// TestChartLinesStayInTheirPlot: every point of every line of every
// chart of each run kind is a number inside the plot area (the CDF's
// last point too, at 1 - 1/n of the samples).
func TestChartLinesStayInTheirPlot(t *testing.T) {
	f := runs(t)
	lineRe := regexp.MustCompile(`<polyline class="line [^"]*" points="([^"]*)"/>`)
	n := 0
	for _, run := range []string{f.server, f.offline, f.single, f.multi, f.llm} {
		page := render(t, Options{Paths: []string{run}})
		for _, m := range lineRe.FindAllStringSubmatch(page, -1) {
			for _, p := range strings.Fields(m[1]) {
				xs, ys, _ := strings.Cut(p, ",")
				x, errx := strconv.ParseFloat(xs, 64)
				y, erry := strconv.ParseFloat(ys, 64)
				if errx != nil || erry != nil || math.IsNaN(x) || math.IsNaN(y) || x < padL-0.5 || x > chartW-padR+0.5 || y < padT-0.5 || y > chartH-padB+0.5 {
					t.Errorf("%s: line point %q outside the plot [%g, %g]×[%g, %g]", filepath.Base(run), p, padL, chartW-padR, padT, chartH-padB)
					break
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no line drawn")
	}
	// The over-time charts start at t = 0 (the first scheduled query, as
	// their note says), and their points spread along the time axis.
	cs := charts(t, render(t, Options{Paths: []string{f.server}}))
	for _, name := range []string{"throughput-time", "latency-time"} {
		if c, ok := cs[name]; !ok || c.xlo != 0 || c.xhi <= 0 {
			t.Errorf("%s: x axis %v..%v (chart found: %v), want from 0", name, c.xlo, c.xhi, ok)
		}
	}
	if c := cs["throughput-time"]; c.ylo != 0 || c.yhi <= 0 {
		t.Errorf("throughput-time: samples/s axis %v..%v, want from 0", c.ylo, c.yhi)
	}
}

// TestSingleStreamMetricNotComputedSaysSo: a SingleStream run whose early
// stopping was not met and estimated 0 shows no metric, saying so; the
// valid run shows the log's estimate.
func TestSingleStreamMetricNotComputedSaysSo(t *testing.T) {
	f := runs(t)
	ss := filepath.Join(t.TempDir(), "ss")
	copyDir(t, f.single, ss)
	detail := filepath.Join(ss, "mlperf_log_detail.txt")
	b, _ := os.ReadFile(detail)
	b2 := regexp.MustCompile(`("key": "early_stopping_latency_ss", "value": )[0-9]+`).ReplaceAll(b, []byte("${1}0"))
	b2 = regexp.MustCompile(`("key": "early_stopping_met", "value": )true`).ReplaceAll(b2, []byte("${1}false"))
	if bytes.Count(b2, []byte(`"value": false`)) == bytes.Count(b, []byte(`"value": false`)) {
		t.Fatal("the SingleStream fixture logs no early_stopping_met to change")
	}
	os.WriteFile(detail, b2, 0o644)
	m := metricRe.FindStringSubmatch(render(t, Options{Paths: []string{ss}}))
	if m == nil || !strings.Contains(m[1], "not computed") || regexp.MustCompile(`\b0(\.0+)? (ns|µs|ms|s)\b`).MatchString(m[1]) {
		t.Errorf("metric of a SingleStream early-stopping failure: %v", m)
	}
	r, _ := LoadRun(f.single)
	want, _ := r.Num("early_stopping_latency_ss")
	m = metricRe.FindStringSubmatch(render(t, Options{Paths: []string{f.single}}))
	if m == nil || !strings.HasPrefix(m[1], dur(want)+" p90 latency (early stopping estimate)") {
		t.Errorf("metric of a valid SingleStream run: %v, want %s p90", m, dur(want))
	}
}

// TestTokenTimelineIssueTimes: each span of the token timeline says when
// its sample was issued, in seconds from the run's start: between 0 and
// the run's length (from the log), never an absolute clock.
func TestTokenTimelineIssueTimes(t *testing.T) {
	f := runs(t)
	tl, ok := charts(t, render(t, Options{Paths: []string{f.llm}}))["token-timeline"]
	if !ok || len(tl.bars) == 0 {
		t.Fatal("no token timeline")
	}
	re := regexp.MustCompile(`issued at ([0-9.e+-]+) s\)`)
	// Each sample's two spans meet: generation starts at its first token.
	for i := 0; i+1 < len(tl.bars); i += 2 {
		a, b := tl.bars[i], tl.bars[i+1]
		if !strings.Contains(a.title, "first token after") || !strings.Contains(b.title, " tokens in ") {
			t.Fatalf("spans %q, %q: want first-token then generating", a.title, b.title)
		}
		if end := a.x + a.w; a.x != tl.bars[0].x || math.Abs(end-b.x) > 0.15 {
			t.Errorf("sample spans %q [%v, %v] and %q from %v: want the first to start at 0 and end where the second starts", a.title, a.x, end, b.title, b.x)
		}
	}
	for _, b := range tl.bars {
		m := re.FindStringSubmatch(b.title)
		if m == nil {
			t.Fatalf("span title %q names no issue time", b.title)
		}
		if s, err := strconv.ParseFloat(m[1], 64); err != nil || s < 0 || s > 60 {
			t.Errorf("span %q: issued at %v s, want within the run (0 to 60 s)", b.title, m[1])
		}
	}
}

// TestTimingTableNeedsARoundTrip: the per-request breakdown is shown from
// one round trip on (its count in the caption) and not for none.
func TestTimingTableNeedsARoundTrip(t *testing.T) {
	for _, n := range []int64{0, 1, 2} {
		d := loadgen.Dist{Count: n, Mean: 2000000, P50: 2000000, P99: 3000000}
		raw, _ := json.Marshal(map[string]loadgen.Dist{"round_trip": d, "queue": d})
		tb := timingTable(&Run{Values: map[string]json.RawMessage{keyServerTiming: raw}})
		if (tb != nil) != (n > 0) || (tb != nil && !strings.Contains(tb.Caption, fmt.Sprintf("(%d requests)", n))) {
			t.Errorf("%d round trips: table %+v", n, tb)
		}
	}
}

// durNs reads dur's text ("12.3 ms") back in nanoseconds.
func durNs(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	var unit string
	if _, err := fmt.Sscanf(s, "%g %s", &v, &unit); err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	scale := map[string]float64{"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[unit]
	if scale == 0 {
		t.Fatalf("duration %q: unit %q", s, unit)
	}
	return v * scale
}

// TestTokenTimelineSpansMatchTheirTimes: each generating span is as wide,
// on the chart's linear time axis, as the generation time its title
// gives, and the samples do not all end at the same time.
func TestTokenTimelineSpansMatchTheirTimes(t *testing.T) {
	f := runs(t)
	tl := charts(t, render(t, Options{Paths: []string{f.llm}}))["token-timeline"]
	perPx := (tl.xhi - tl.xlo) / (chartW - padR - padL)
	re := regexp.MustCompile(` tokens in (.+)$`)
	ends := map[float64]bool{}
	for _, b := range tl.bars {
		m := re.FindStringSubmatch(b.title)
		if m == nil {
			continue
		}
		got, want := durNs(t, m[1]), b.w*perPx
		if math.Abs(got-want) > 0.01*want+2*perPx {
			t.Errorf("span %q is %.1f px wide = %.0f ns", b.title, b.w, want)
		}
		ends[b.x+b.w] = true
	}
	if len(ends) < 2 {
		t.Errorf("every sample's generation ends at the same x: %v", ends)
	}
}

// TestCDFLastPointAtItsPercentile: a latency CDF's last point is the
// slowest sample at percentile 1 − 1/n (n samples), placed on the nines
// scale (−log10(1 − p)) of the chart's percentile axis.
func TestCDFLastPointAtItsPercentile(t *testing.T) {
	f := runs(t)
	r, _ := LoadRun(f.server)
	if r.Series == nil {
		t.Fatal("the Server fixture has no per-sample record")
	}
	n := float64(len(r.Series.Samples))
	page := render(t, Options{Paths: []string{f.server}})
	c := charts(t, page)["latency-cdf"]
	svg := regexp.MustCompile(`(?s)<svg [^>]*data-chart="latency-cdf".*?</svg>`).FindString(page)
	m := regexp.MustCompile(`<polyline class="line s0" points="([^"]*)"/>`).FindStringSubmatch(svg)
	if m == nil || c.yscale != "nines" {
		t.Fatalf("no CDF line on a nines axis (scale %q)", c.yscale)
	}
	pts := strings.Fields(m[1])
	_, ys, _ := strings.Cut(pts[len(pts)-1], ",")
	y, _ := strconv.ParseFloat(ys, 64)
	tf := func(p float64) float64 { return -math.Log10(1 - p) }
	want := (chartH - padB) - (tf(1-1/n)-tf(c.ylo))/(tf(c.yhi)-tf(c.ylo))*(chartH-padB-padT)
	if math.Abs(y-want) > 0.6 {
		t.Errorf("the last point at y = %v px, want %.1f (percentile 1 − 1/%v)", y, want, n)
	}
}
