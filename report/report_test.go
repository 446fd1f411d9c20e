package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// render writes the page of o and returns it.
func render(t *testing.T, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// section returns the run section whose heading is title.
func sectionOf(t *testing.T, page, title string) string {
	t.Helper()
	i := strings.Index(page, "<h2>"+title+"</h2>")
	if i < 0 {
		t.Fatalf("no section %q", title)
	}
	s := page[i:]
	if j := strings.Index(s, "</section>"); j >= 0 {
		s = s[:j]
	}
	return s
}

// svgChart is one chart read back from the page.
type svgChart struct {
	name               string
	xlo, xhi, ylo, yhi float64
	xscale, yscale     string
	marks              []svgMark
	bars               []svgBar
	polylines          int
	ticks              []string
}

type svgMark struct {
	kind  string
	ns    float64
	x     float64
	label string
}

type svgBar struct {
	x, y, w, h float64
	title      string
}

// charts parses every inline SVG of s (they are well-formed XML).
func charts(t *testing.T, s string) map[string]svgChart {
	t.Helper()
	out := map[string]svgChart{}
	for _, m := range regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(s, -1) {
		var c svgChart
		dec := xml.NewDecoder(strings.NewReader(m))
		var inMark *svgMark
		inTick, inBar := false, false
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch e := tok.(type) {
			case xml.StartElement:
				a := map[string]string{}
				for _, x := range e.Attr {
					a[x.Name.Local] = x.Value
				}
				f := func(k string) float64 { v, _ := strconv.ParseFloat(a[k], 64); return v }
				switch {
				case e.Name.Local == "svg":
					c.name, c.xscale, c.yscale = a["data-chart"], a["data-x-scale"], a["data-y-scale"]
					c.xlo, c.xhi, c.ylo, c.yhi = f("data-x-lo"), f("data-x-hi"), f("data-y-lo"), f("data-y-hi")
				case e.Name.Local == "g" && a["data-mark"] != "":
					c.marks = append(c.marks, svgMark{kind: a["data-mark"], ns: f("data-ns")})
					inMark = &c.marks[len(c.marks)-1]
				case e.Name.Local == "line" && inMark != nil:
					inMark.x = f("x1")
				case e.Name.Local == "rect" && strings.HasPrefix(a["class"], "bar"):
					c.bars = append(c.bars, svgBar{f("x"), f("y"), f("width"), f("height"), ""})
					inBar = true
				case e.Name.Local == "polyline":
					c.polylines++
				case e.Name.Local == "text" && a["class"] == "tick":
					inTick = true
				}
			case xml.CharData:
				if inMark != nil {
					inMark.label += string(e)
				}
				if inTick {
					c.ticks = append(c.ticks, string(e))
				}
				if inBar {
					c.bars[len(c.bars)-1].title += string(e)
				}
			case xml.EndElement:
				if e.Name.Local == "g" {
					inMark = nil
				}
				if e.Name.Local == "text" {
					inTick = false
				}
				if e.Name.Local == "rect" {
					inBar = false
				}
			}
		}
		if c.name == "" {
			t.Fatalf("a chart without data-chart: %.200s", m)
		}
		out[c.name] = c
	}
	return out
}

// xOf is where a log or linear x axis puts v, as the chart code does.
func (c svgChart) xOf(v float64) float64 {
	tf := func(x float64) float64 {
		if c.xscale == "log" {
			return math.Log10(x)
		}
		return x
	}
	f := (tf(v) - tf(c.xlo)) / (tf(c.xhi) - tf(c.xlo))
	return padL + math.Max(0, math.Min(1, f))*(chartW-padR-padL)
}

// parseDur reads a duration as the page writes it ("20.25 ms") back to ns.
func parseDur(t *testing.T, s string) float64 {
	t.Helper()
	m := regexp.MustCompile(`^(-?[0-9.]+) (ns|µs|ms|s)$`).FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		t.Fatalf("%q is not a duration with its unit", s)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v * map[string]float64{"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}[m[2]]
}

// closeTo reports whether a shown value (four significant digits) reads
// back as want.
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= math.Max(math.Abs(want)*6e-4, 0.5)
}

var pctRow = regexp.MustCompile(`<tr>(?:<td class="target">|<td>)(p[0-9.]+)(?: \(target\))?</td>(.*?)</tr>`)
var nsCellRe = regexp.MustCompile(`<td(?: class="[a-z]*")? data-ns="(-?[0-9]+)">([^<]*)</td>`)

// Every percentile the page shows is the detail log's value for that very
// percentile, in the unit it says: a p99.9 row must hold
// result_99.90_..., a value must read back (value and unit) as the log's
// ns. A 1000× unit slip or a p99.9 shown as p99 fails here.
func TestPercentilesAreTheLogsInTheirUnits(t *testing.T) {
	f := runs(t)
	for _, dir := range []string{f.server, f.llm, f.multi, f.single, f.offline} {
		r, err := LoadRun(dir)
		if err != nil {
			t.Fatal(err)
		}
		page := render(t, Options{Paths: []string{dir}})
		rows := pctRow.FindAllStringSubmatch(page, -1)
		if len(rows) != 6 {
			t.Fatalf("%s: %d percentile rows, want 6", dir, len(rows))
		}
		pt := percentileTable(r)
		for i, row := range rows {
			key := pctKeys[i]
			if row[1] != pctLabel(key) {
				t.Errorf("%s: row %d is %s, want %s", dir, i, row[1], pctLabel(key))
			}
			cells := nsCellRe.FindAllStringSubmatch(row[2], -1)
			if len(cells) != len(pt.Head)-1 {
				t.Fatalf("%s %s: %d value cells, want %d", dir, row[1], len(cells), len(pt.Head)-1)
			}
			for j, c := range cells {
				var logKey string
				switch pt.Head[j+1] {
				case "latency":
					logKey = "result_" + key + "_percentile_latency_ns"
				case "per-query latency":
					logKey = "result_" + key + "_percentile_per_query_latency_ns"
				case "time to first token":
					logKey = "result_first_token_" + key + "_percentile_latency_ns"
				case "time per output token":
					logKey = "result_time_per_output_token_" + key + "_percentile_ns"
				}
				want, ok := r.Num(logKey)
				if !ok {
					t.Fatalf("%s: the log has no %s", dir, logKey)
				}
				if ns, _ := strconv.ParseFloat(c[1], 64); ns != want {
					t.Errorf("%s %s %s: data-ns %v, log %v", dir, row[1], pt.Head[j+1], ns, want)
				}
				if got := parseDur(t, c[2]); !closeTo(got, want) {
					t.Errorf("%s %s %s: shows %q (%v ns), log %v ns", dir, row[1], pt.Head[j+1], c[2], got, want)
				}
			}
		}
	}
	// The formatter itself: each unit band and its boundaries.
	for ns, want := range map[float64]string{999: "999 ns", 1000: "1.000 µs", 812_400: "812.4 µs", 20_254_798: "20.25 ms", 3_210_000_000: "3.210 s", 999_960: "1000.0 µs"} {
		if got := dur(ns); got != want {
			t.Errorf("dur(%v) = %q, want %q", ns, got, want)
		}
	}
	for key, want := range map[string]string{"99.90": "p99.9", "99.00": "p99", "50.00": "p50", "97.00": "p97"} {
		if got := pctLabel(key); got != want {
			t.Errorf("pctLabel(%s) = %s, want %s", key, got, want)
		}
	}
	if pctOf(0.999) != "p99.9" || pctOf(0.9) != "p90" {
		t.Errorf("pctOf: %s %s", pctOf(0.999), pctOf(0.9))
	}
}

// The distribution charts mark the scenario's bound, the log's target
// percentile and the early-stopping estimate at their values, where the
// axis puts those values; the histogram counts every completed sample;
// the CDF's axes are logarithmic and on the nines.
func TestDistributionMarksAreTheLogsValues(t *testing.T) {
	f := runs(t)
	for _, c := range []struct {
		dir   string
		marks map[string]string // mark kind → detail log key
		lat   string            // the chart's series
	}{
		{f.server, map[string]string{"bound": "effective_target_latency_ns", "percentile": "result_99.00_percentile_latency_ns"}, "latency"},
		{f.single, map[string]string{"percentile": "result_90.00_percentile_latency_ns", "estimate": "early_stopping_latency_ss"}, "latency"},
		{f.multi, map[string]string{"percentile": "result_99.00_percentile_per_query_latency_ns", "estimate": "early_stopping_latency_ms"}, "per-query"},
	} {
		r, _ := LoadRun(c.dir)
		cs := charts(t, render(t, Options{Paths: []string{c.dir}}))
		for _, name := range []string{"latency-hist", "latency-cdf"} {
			ch, ok := cs[name]
			if !ok {
				t.Fatalf("%s: no %s chart", c.dir, name)
			}
			if ch.xscale != "log" {
				t.Errorf("%s %s: x scale %s, want log", c.dir, name, ch.xscale)
			}
			got := map[string]svgMark{}
			for _, m := range ch.marks {
				got[m.kind] = m
			}
			for kind, key := range c.marks {
				want, _ := r.Num(key)
				m, ok := got[kind]
				if !ok {
					t.Errorf("%s %s: no %s mark", c.dir, name, kind)
					continue
				}
				if m.ns != want {
					t.Errorf("%s %s: %s mark at %v ns, log %s = %v", c.dir, name, kind, m.ns, key, want)
				}
				if math.Abs(m.x-ch.xOf(want)) > 0.2 {
					t.Errorf("%s %s: %s mark drawn at x=%.1f, the axis puts %v ns at %.1f", c.dir, name, kind, m.x, want, ch.xOf(want))
				}
				if lm := regexp.MustCompile(`([0-9.]+ (?:ns|µs|ms|s))$`).FindStringSubmatch(m.label); lm == nil || !closeTo(parseDur(t, lm[1]), want) {
					t.Errorf("%s %s: %s mark labelled %q, log %v ns", c.dir, name, kind, m.label, want)
				}
			}
		}
		if cs["latency-cdf"].yscale != "nines" {
			t.Errorf("%s: CDF y scale %s", c.dir, cs["latency-cdf"].yscale)
		}
		// Bars: each says its count; they hold every sample (or
		// MultiStream's queries) of the run, and are as tall as their count.
		h := cs["latency-hist"]
		scale := (chartH - padB - padT) / h.yhi
		sum := 0
		for _, b := range h.bars {
			m := regexp.MustCompile(`: ([0-9]+)$`).FindStringSubmatch(b.title)
			if m == nil {
				t.Fatalf("%s: a bar titled %q", c.dir, b.title)
			}
			n, _ := strconv.Atoi(m[1])
			sum += n
			if math.Abs(b.h-float64(n)*scale) > 0.06 {
				t.Errorf("%s: a bar of %d samples is %.1f high, want %.1f", c.dir, n, b.h, float64(n)*scale)
			}
		}
		n, _ := r.Num("result_query_count")
		if c.lat == "latency" {
			n *= r.N("effective_samples_per_query")
		}
		if float64(sum) != n {
			t.Errorf("%s: the histogram holds %d samples, the run %v", c.dir, sum, n)
		}
	}
}

// The per-sample data the charts are drawn from agree with the loadgen's
// own figures: every percentile computed from them equals the detail
// log's, exactly.
func TestSampleDataAgreeWithTheDetailLog(t *testing.T) {
	f := runs(t)
	for _, dir := range []string{f.server, f.single, f.multi, f.offline, f.llm} {
		r, err := LoadRun(dir)
		if err != nil || r.Series == nil {
			t.Fatalf("%s: %v, series %v", dir, err, r.Series)
		}
		st := newSampleStats(r.Series, r.Scenario() == "MultiStream")
		for _, key := range pctKeys {
			p, _ := strconv.ParseFloat(key, 64)
			want, _ := r.Num("result_" + key + "_percentile_latency_ns")
			if got := at(st.lat, p/100); float64(got) != want {
				t.Errorf("%s p%s: %d from the samples, %v in the log", dir, key, got, want)
			}
			if r.Scenario() == "MultiStream" {
				want, _ := r.Num("result_" + key + "_percentile_per_query_latency_ns")
				if got := at(st.queryLat, p/100); float64(got) != want {
					t.Errorf("%s per-query p%s: %d from the samples, %v in the log", dir, key, got, want)
				}
			}
		}
	}
}

var metricRe = regexp.MustCompile(`<span data-metric>([^<]*)</span>`)

// No misleading zeros: a MultiStream run whose early stopping was not met
// (the loadgen logs early_stopping_latency_ms 0) shows no 0 ms metric but
// says it was not computed; the valid one shows its estimate.
func TestMetricNotComputedSaysSo(t *testing.T) {
	f := runs(t)
	r, _ := LoadRun(f.invalidMulti)
	if v, ok := r.Num("early_stopping_latency_ms"); !ok || v != 0 {
		t.Fatalf("the fixture should log an estimate of 0: %v %v", v, ok)
	}
	page := render(t, Options{Paths: []string{f.invalidMulti}})
	m := metricRe.FindStringSubmatch(page)
	if m == nil || !strings.Contains(m[1], "not computed") || regexp.MustCompile(`\b0(\.0+)? (ns|µs|ms|s)\b`).MatchString(m[1]) {
		t.Fatalf("metric of an early-stopping failure: %v", m)
	}
	if !strings.Contains(page, `class="missing"`) {
		t.Error("the summary does not mark the missing metric")
	}
	valid := render(t, Options{Paths: []string{f.multi}})
	r2, _ := LoadRun(f.multi)
	want, _ := r2.Num("early_stopping_latency_ms")
	m = metricRe.FindStringSubmatch(valid)
	if m == nil || !strings.HasPrefix(m[1], dur(want)+" p99 per-query latency") {
		t.Fatalf("metric of a valid MultiStream run: %v, want %s", m, dur(want))
	}
}

// An accuracy run is never shown as VALID: its verdict is its score
// against the checker's target, from accuracy.txt, on both sides of the
// target.
func TestAccuracyRunShowsScoreAgainstTarget(t *testing.T) {
	f := runs(t)
	dir := t.TempDir()
	for _, c := range []struct {
		text, verdict, cls, score string
	}{
		{"accuracy=12.500%, good=8, total=64\nhash=x\n", "score misses the target", "invalid", "12.500"},
		{"accuracy=76.500%, good=49, total=64\nhash=x\n", "score meets the target", "valid", "76.500"},
	} {
		// A bare LoadGen log does not name its benchmark ("acc" is both
		// resnet's and rgat's metric); the folder names it, as in a
		// results tree.
		run := filepath.Join(dir, c.score, "resnet", "Offline")
		copyDir(t, f.accuracy, run)
		os.WriteFile(filepath.Join(run, "accuracy.txt"), []byte(c.text), 0o644)
		page := render(t, Options{Paths: []string{run}})
		if strings.Contains(page, ">VALID<") || strings.Contains(page, "INVALID") {
			t.Errorf("an accuracy run shown with a performance verdict:\n%s", page[:min(len(page), 3000)])
		}
		if !strings.Contains(page, `<span class="`+c.cls+`" data-verdict>accuracy run: `+c.verdict+`</span>`) {
			t.Errorf("accuracy %s: verdict not %q", c.score, c.verdict)
		}
		if !regexp.MustCompile(`<td>resnet</td><td>acc</td><td>` + regexp.QuoteMeta(c.score) + `</td><td>≥ 75\.7[0-9]*</td>`).MatchString(page) {
			t.Errorf("accuracy %s: no row with the score and resnet's target", c.score)
		}
	}
	if page := render(t, Options{Paths: []string{f.accuracy}}); !strings.Contains(page, "accuracy run: score below (target unknown)") {
		t.Error("an accuracy run that names no benchmark, whose metric two benchmarks share, is judged against one of them")
	}
	os.Remove(filepath.Join(dir, "12.500", "resnet", "Offline", "accuracy.txt"))
	if page := render(t, Options{Paths: []string{filepath.Join(dir, "12.500", "resnet", "Offline")}}); !strings.Contains(page, "not scored (no accuracy.txt") {
		t.Error("an accuracy run without accuracy.txt does not say it is not scored")
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Each report kind has its views: time lines for every performance run
// with samples, the Server issue rate, LLM token percentiles; nothing is
// loaded from elsewhere and there are no scripts.
func TestEveryRunKindHasItsViews(t *testing.T) {
	f := runs(t)
	page := render(t, Options{Paths: []string{f.root}})
	if m := regexp.MustCompile(`(?i)(src=|href="http|@import|url\(|<script|<link)`).FindString(page); m != "" {
		t.Fatalf("the page loads something or runs a script: %q", m)
	}
	for title, want := range map[string][]string{
		"server":       {"latency-hist", "latency-cdf", "throughput-time", "latency-time"},
		"llm-server":   {"latency-hist", "latency-cdf", "throughput-time", "latency-time"},
		"singlestream": {"latency-hist", "latency-cdf", "throughput-time"},
		"offline":      {"latency-hist", "latency-cdf", "throughput-time"},
	} {
		cs := charts(t, sectionOf(t, page, title))
		for _, name := range want {
			if _, ok := cs[name]; !ok {
				t.Errorf("%s: no %s chart", title, name)
			}
		}
		if tp := cs["throughput-time"]; tp.polylines == 0 {
			t.Errorf("%s: an empty throughput chart", title)
		}
	}
	// Server throughput: issued per window follows the target QPS.
	srv := sectionOf(t, page, "server")
	if !strings.Contains(srv, `data-mark="target"`) || !strings.Contains(srv, "target 1000 QPS") {
		t.Error("the Server throughput chart lacks its target QPS")
	}
	if n := strings.Count(page, `<section class="run"`); n != 9 {
		t.Errorf("%d run sections, want 9", n)
	}
	if n := strings.Count(page, "<tr><td><a href=\"#run"); n != 9 {
		t.Errorf("%d summary rows, want 9", n)
	}
}

// An LLM run's token views: TTFT and TPOT histograms with their bounds and
// the log's percentiles marked, tokens per sample, a token timeline; the
// TTFT and TPOT from the per-query record equal the detail log's.
func TestTokenViews(t *testing.T) {
	f := runs(t)
	r, _ := LoadRun(f.llm)
	if r.Source != "record" || !r.Series.Tokens {
		t.Fatalf("the LLM fixture's per-sample data: %s, tokens %v", r.Source, r.Series != nil && r.Series.Tokens)
	}
	st := newSampleStats(r.Series, false)
	for _, key := range pctKeys {
		p, _ := strconv.ParseFloat(key, 64)
		if got, want := float64(at(st.ttft, p/100)), r.N("result_first_token_"+key+"_percentile_latency_ns"); got != want {
			t.Errorf("TTFT p%s: %v from the record, %v in the log", key, got, want)
		}
		if got, want := float64(at(st.tpot, p/100)), r.N("result_time_per_output_token_"+key+"_percentile_ns"); got != want {
			t.Errorf("TPOT p%s: %v from the record, %v in the log", key, got, want)
		}
	}
	cs := charts(t, render(t, Options{Paths: []string{f.llm}}))
	for name, marks := range map[string]map[string]string{
		"ttft-hist": {"bound": "requested_server_ttft_latency", "percentile": "result_first_token_99.00_percentile_latency_ns"},
		"tpot-hist": {"bound": "requested_server_tpot_latency", "percentile": "result_time_per_output_token_99.00_percentile_ns"},
	} {
		c, ok := cs[name]
		if !ok {
			t.Fatalf("no %s chart", name)
		}
		for _, m := range c.marks {
			if key, ok := marks[m.kind]; ok && m.ns != r.N(key) {
				t.Errorf("%s: %s mark at %v, log %s = %v", name, m.kind, m.ns, key, r.N(key))
			}
			delete(marks, m.kind)
		}
		if len(marks) > 0 {
			t.Errorf("%s lacks marks %v", name, marks)
		}
	}
	tk := cs["tokens-hist"]
	sum := 0
	for _, b := range tk.bars {
		var n int
		fmt.Sscanf(b.title[strings.LastIndex(b.title, ": ")+2:], "%d", &n)
		sum += n
	}
	if sum != len(r.Series.Samples) {
		t.Errorf("the tokens histogram holds %d samples of %d", sum, len(r.Series.Samples))
	}
	if tl := cs["token-timeline"]; len(tl.bars) != 2*24 {
		t.Errorf("the token timeline has %d spans, want 2 for each of 24 samples", len(tl.bars))
	}
	if _, ok := charts(t, render(t, Options{Paths: []string{f.server}}))["lag-time"]; !ok {
		t.Error("a Server run with a record has no issue-lag chart")
	}
}

// Without the per-query record the report falls back to the trace, says
// so, and still draws the distributions: a MultiStream trace is grouped
// into its queries, whose latencies are the log's per-query ones.
func TestTraceFallback(t *testing.T) {
	f := runs(t)
	dir := filepath.Join(t.TempDir(), "ms")
	copyDir(t, f.multi, dir)
	os.Remove(filepath.Join(dir, "mlperf_log_queries.bin"))
	r, err := LoadRun(dir)
	if err != nil || r.Source != "trace" || r.Series.SamplesPerQuery != int(r.N("effective_samples_per_query")) {
		t.Fatalf("%v: source %q, %+v", err, r.Source, r.Series.Header)
	}
	st := newSampleStats(r.Series, true)
	for _, key := range pctKeys {
		p, _ := strconv.ParseFloat(key, 64)
		if got, want := float64(at(st.queryLat, p/100)), r.N("result_"+key+"_percentile_per_query_latency_ns"); got != want {
			t.Errorf("per-query p%s: %v from the trace, %v in the log", key, got, want)
		}
	}
	page := render(t, Options{Paths: []string{dir}})
	if !strings.Contains(page, "Per-sample data from the trace") {
		t.Error("the page does not say its samples come from the trace")
	}
	if _, ok := charts(t, page)["latency-cdf"]; !ok {
		t.Error("no distribution from the trace")
	}
	os.Remove(filepath.Join(dir, "mlperf_log_trace.json"))
	if page := render(t, Options{Paths: []string{dir}}); !strings.Contains(page, "No per-sample data") || strings.Contains(page, "<svg") {
		t.Error("a run without samples does not say so, or draws charts")
	}
}

// A remote run's views: each endpoint's requests, share and errors from
// the detail log, its samples and latency from the record, the
// server-side breakdown.
func TestRemoteViews(t *testing.T) {
	f := runs(t)
	r, _ := LoadRun(f.remote)
	page := render(t, Options{Paths: []string{f.remote}})
	n := len(r.Series.Samples)
	half := n / 2
	for _, want := range []string{
		"<td>10.0.0.1:8000</td><td>" + count(int64(n-half)) + "</td><td>" + fmt.Sprintf("%.1f %%", 100*float64(n-half)/float64(n)) + "</td><td>0</td>",
		"<td>10.0.0.2:8000</td><td>" + count(int64(half)) + "</td><td>" + fmt.Sprintf("%.1f %%", 100*float64(half)/float64(n)) + `</td><td class="invalid">3</td>`,
		"Sample latency per endpoint",
		"<td>Server: compute infer</td><td data-ns=\"700000\">700.0 µs</td>",
		"<td>Client: round trip</td><td data-ns=\"925000\">925.0 µs</td>",
	} {
		if !strings.Contains(page, html.EscapeString(want)) && !strings.Contains(page, want) {
			t.Errorf("the remote run's page lacks %q", want)
		}
	}
	// Per endpoint from the record: the samples each served.
	per := map[uint8]int{}
	for _, x := range r.Series.Samples {
		per[x.Endpoint]++
	}
	for i, name := range r.Series.Endpoints {
		if !regexp.MustCompile(`<td>` + regexp.QuoteMeta(name) + `</td><td>` + strconv.Itoa(per[uint8(i)]) + `</td><td>0</td><td data-ns`).MatchString(page) {
			t.Errorf("the per-endpoint record table lacks %s with %d samples", name, per[uint8(i)])
		}
	}
	if c, ok := charts(t, page)["endpoint-cdf"]; !ok || c.polylines != 2 {
		t.Errorf("the per-endpoint CDF: %v, %d lines", ok, c.polylines)
	}
}
