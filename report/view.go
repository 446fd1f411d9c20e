package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/querylog"
)

// runView is one run as the page shows it.
type runView struct {
	ID, Title       string
	Scenario, Mode  string
	Verdict         string // VALID, INVALID, or for an accuracy run its score's verdict
	VerdictClass    string // valid, invalid, neutral
	Metric          string
	MetricMissing   bool // the metric was not computed; Metric says why
	Why             []string
	Notes           []string
	Errors          []string
	Figures         [][2]string
	Pcts            *table
	Accuracy        *table
	AccuracyLines   []string
	Sections        []section
	Settings        [][2]string
	run             *Run
	stats           *sampleStats
	checkerID       string
	accuracyVerdict string // PASS, FAIL, "" (not judged)
}

// section is a titled group of charts and tables.
type section struct {
	Title  string
	Note   string
	Charts []template.HTML
	Tables []*table
}

// table is an HTML table: a header row and body rows; cells may carry a
// class (highlighting) and a data-ns value for tests.
type table struct {
	Caption string
	Head    []string
	Rows    [][]cell
}

type cell struct {
	Text  string
	Class string
	NS    string // data-ns: the value in ns, where the cell is a time
}

func txt(s string) cell { return cell{Text: s} }

func nsCell(ns float64) cell { return cell{Text: dur(ns), NS: fmt.Sprintf("%.0f", ns)} }

// Percentile keys as the loadgen writes them (result_<key>_percentile_...).
var pctKeys = []string{"50.00", "90.00", "95.00", "97.00", "99.00", "99.90"}

// targetPct is the run's target latency percentile (0.99, 0.9, ...).
func (r *Run) targetPct() float64 {
	if p, ok := r.Num("effective_target_latency_percentile"); ok && p > 0 {
		return p
	}
	return 0.99
}

// headline returns the run's metric as the summary reports it, or, with
// missing set, why there is none: no zero stands in for a figure the
// loadgen did not compute.
func headline(r *Run) (metric string, missing bool) {
	if r.Accuracy() {
		return "", false
	}
	esMet, hasES := r.Bool("early_stopping_met")
	notComputed := func(what string) (string, bool) {
		return what + ": not computed (early stopping not met; the loadgen logs 0)", true
	}
	pct := r.targetPct()
	switch r.Scenario() {
	case "Offline":
		v, ok := r.Num("result_samples_per_second")
		if !ok {
			return "samples/s: not in the log", true
		}
		m := rate(v, "samples/s")
		if t, ok := r.Num("result_tokens_per_second"); ok {
			m += ", " + rate(t, "tokens/s")
		}
		return m, false
	case "Server":
		v, ok := r.Num("result_completed_samples_per_sec")
		if !ok {
			return "completed samples/s: not in the log", true
		}
		m := rate(v, "samples/s completed")
		if t, ok := r.Num("result_completed_tokens_per_second"); ok {
			m += ", " + rate(t, "tokens/s")
		}
		return m, false
	case "SingleStream":
		v, ok := r.Num("early_stopping_latency_ss")
		if !ok || (v == 0 && hasES && !esMet) {
			return notComputed(pctOf(pct) + " latency, early stopping estimate")
		}
		return dur(v) + " " + pctOf(pct) + " latency (early stopping estimate)", false
	case "MultiStream":
		v, ok := r.Num("early_stopping_latency_ms")
		if !ok || (v == 0 && hasES && !esMet) {
			return notComputed(pctOf(pct) + " per-query latency, early stopping estimate")
		}
		return dur(v) + " " + pctOf(pct) + " per-query latency (early stopping estimate)", false
	}
	return "", false
}

// checkerIDOf is the benchmark's checker id (accuracy target key) for a
// run: the one its detail log names, else the results tree folder it
// lies in (results/<system>/<benchmark>/<scenario>/...), else "".
func checkerIDOf(r *Run) string {
	var b struct {
		CheckerIDs []string `json:"checker_ids"`
	}
	if raw, ok := r.Values[keyBenchmark]; ok && json.Unmarshal(raw, &b) == nil && len(b.CheckerIDs) > 0 {
		return b.CheckerIDs[0]
	}
	parts := strings.Split(filepath.ToSlash(r.Dir), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == r.Scenario() && i > 0 {
			if _, _, err := accuracy.TargetsFor(parts[i-1]); err == nil {
				return parts[i-1]
			}
		}
	}
	return ""
}

// accuracyTable judges accuracy.txt against the checker's targets of id;
// without an id, it judges against every benchmark whose metrics all
// appear (the 99 % and 99.9 % variants of one benchmark, say).
func accuracyTable(text, id string) (*table, string) {
	ids := []string{id}
	if id == "" {
		ids = nil
		for _, name := range accuracy.Benchmarks() {
			vs, _, _ := accuracy.CheckText(name, text)
			found := len(vs) > 0
			for _, v := range vs {
				found = found && v.Found
			}
			if found {
				ids = append(ids, name)
			}
		}
	}
	if len(ids) == 0 {
		return nil, ""
	}
	t := &table{Caption: "Score against the submission checker's targets", Head: []string{"benchmark", "metric", "score", "target", "verdict"}}
	verdict := "PASS"
	for _, name := range ids {
		vs, pass, err := accuracy.CheckText(name, text)
		if err != nil {
			continue
		}
		if !pass {
			verdict = "FAIL"
		}
		for _, v := range vs {
			target := "≥ " + trimNum(v.Min)
			if v.HasMax {
				target = fmt.Sprintf("%s to %s", trimNum(v.Min), trimNum(v.Max))
			}
			value, cls := v.Value, "valid"
			if !v.Found {
				value = "not found in accuracy.txt"
			}
			res := "PASS"
			if !v.Pass {
				res, cls = "FAIL", "invalid"
			}
			t.Rows = append(t.Rows, []cell{txt(name), txt(v.Metric), txt(value), txt(target), {Text: res, Class: cls}})
		}
	}
	if len(ids) > 1 {
		t.Caption += " (the run does not name its benchmark: every one whose metrics accuracy.txt holds)"
		verdict = ""
	}
	return t, verdict
}

// makeView builds the view of run r; id is its anchor.
func makeView(id string, r *Run) *runView {
	v := &runView{ID: id, Title: r.Rel, Scenario: r.Scenario(), Mode: r.Str("effective_test_mode"), Errors: r.Errors, run: r}
	v.checkerID = checkerIDOf(r)
	if r.AccuracyText != "" {
		v.Accuracy, v.accuracyVerdict = accuracyTable(r.AccuracyText, v.checkerID)
		for _, l := range strings.Split(strings.TrimSpace(r.AccuracyText), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "hash=") {
				v.AccuracyLines = append(v.AccuracyLines, l)
			}
		}
	}
	switch {
	case r.Accuracy():
		v.VerdictClass = "neutral"
		switch {
		case r.AccuracyText == "":
			v.Verdict = "accuracy run, not scored (no accuracy.txt beside the logs)"
		case v.accuracyVerdict == "PASS":
			v.Verdict, v.VerdictClass = "accuracy run: score meets the target", "valid"
		case v.accuracyVerdict == "FAIL":
			v.Verdict, v.VerdictClass = "accuracy run: score misses the target", "invalid"
		default:
			v.Verdict = "accuracy run: score below (target unknown)"
		}
	default:
		v.Verdict = r.Str("result_validity")
		v.VerdictClass = "invalid"
		if v.Verdict == "VALID" {
			v.VerdictClass = "valid"
		}
	}
	v.Metric, v.MetricMissing = headline(r)
	if why := r.Str("result_invalid_reason"); why != "" {
		v.Why = append(v.Why, why)
	}
	if met, ok := r.Bool("early_stopping_met"); ok && !met {
		for _, k := range []string{"early_stopping_result", "early_stopping_tpot_result", "early_stopping_ttft_result"} {
			if s := r.Str(k); s != "" {
				v.Why = append(v.Why, "Early stopping: "+strings.TrimSpace(strings.ReplaceAll(s, " * ", " ")))
			}
		}
	}
	v.Figures = figures(r)
	v.Pcts = percentileTable(r)
	switch {
	case r.Accuracy():
	case r.RecordErr != nil:
		v.Notes = append(v.Notes, "The per-query record could not be read: "+r.RecordErr.Error())
	case r.Source == "trace":
		v.Notes = append(v.Notes, fmt.Sprintf("Per-sample data from the trace (%s samples): scheduled and completion times only; the per-query record (%s) adds issue lag, tokens and endpoints.", count(int64(len(r.Series.Samples))), querylog.FileName))
	case r.Source == "record" && r.SeriesCount > 1:
		v.Notes = append(v.Notes, fmt.Sprintf("The per-query record holds %d series (a find-peak run: one per probe); the charts show the last.", r.SeriesCount))
	case r.Series == nil && !r.Accuracy():
		v.Notes = append(v.Notes, fmt.Sprintf("No per-sample data (no %s or mlperf_log_trace.json beside the logs): the distributions and time lines need one; the tables come from the detail log.", querylog.FileName))
	}
	if r.Series != nil && !r.Accuracy() {
		v.stats = newSampleStats(r.Series, v.Scenario == "MultiStream")
		v.Sections = append(v.Sections, distributionSection(r, v.stats))
		if s, ok := timeSection(r, v.stats); ok {
			v.Sections = append(v.Sections, s)
		}
		if s, ok := tokenSection(r, v.stats); ok {
			v.Sections = append(v.Sections, s)
		}
	}
	if s, ok := remoteSection(r); ok {
		v.Sections = append(v.Sections, s)
	}
	if s, ok := lagSection(r); ok {
		v.Sections = append(v.Sections, s)
	}
	var keys []string
	for k := range r.Values {
		if strings.HasPrefix(k, "effective_") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := string(r.Values[k])
		if s := r.Str(k); s != "" {
			val = s
		}
		v.Settings = append(v.Settings, [2]string{strings.TrimPrefix(k, "effective_"), val})
	}
	return v
}

// figures are the run's key figures besides the metric.
func figures(r *Run) [][2]string {
	var f [][2]string
	add := func(k, v string) { f = append(f, [2]string{k, v}) }
	num := func(k string) (float64, bool) { return r.Num(k) }
	if r.Accuracy() {
		if v, ok := num("effective_accuracy_sample_count"); ok {
			add("accuracy samples", count(int64(v)))
		}
		if v, ok := num("qsl_reported_total_count"); ok {
			add("data set samples", count(int64(v)))
		}
		return f
	}
	if v, ok := num("result_query_count"); ok {
		add("queries issued", count(int64(v)))
	}
	if v, ok := num("effective_samples_per_query"); ok && v > 1 {
		add("samples per query", count(int64(v)))
	}
	sc := r.Scenario()
	switch sc {
	case "Server":
		if v, ok := num("effective_target_qps"); ok {
			add("target QPS", trimNum(v))
		}
		if v, ok := num("result_scheduled_samples_per_sec"); ok {
			add("scheduled samples/s", rate(v, "samples/s"))
		}
		if v, ok := num("effective_target_latency_ns"); ok && v > 0 && !r.Tokens() {
			add("latency bound", dur(v)+" at "+pctOf(r.targetPct()))
		}
		if v, ok := num("result_overlatency_query_count"); ok && !r.Tokens() {
			add("samples over the bound", count(int64(v)))
		}
	case "SingleStream":
		if v, ok := num("result_qps_with_loadgen_overhead"); ok {
			add("QPS with loadgen overhead", trimNum(v))
		}
		if v, ok := num("result_qps_without_loadgen_overhead"); ok {
			add("QPS without loadgen overhead", trimNum(v))
		}
		if v, ok := num("early_stopping_latency_ms"); ok && v > 0 {
			add("p99 early stopping estimate", dur(v))
		}
	case "Offline":
		if v, ok := num("effective_target_qps"); ok {
			add("expected QPS", trimNum(v))
		}
	}
	if r.Tokens() {
		if v, ok := num("requested_server_ttft_latency"); ok && sc == "Server" {
			add("TTFT bound", dur(v))
		}
		if v, ok := num("requested_server_tpot_latency"); ok && sc == "Server" {
			add("TPOT bound", dur(v))
		}
	}
	for _, k := range []struct{ key, label string }{
		{"result_min_duration_met", "min duration met"}, {"result_min_queries_met", "min queries met"},
		{"result_perf_constraints_met", "performance constraints met"}, {"early_stopping_met", "early stopping met"},
	} {
		if b, ok := r.Bool(k.key); ok {
			yn := "yes"
			if !b {
				yn = "NO"
			}
			add(k.label, yn)
		}
	}
	if v, ok := num("effective_min_duration_ms"); ok {
		add("min duration", dur(v*1e6))
	}
	if v, ok := num("effective_min_query_count"); ok {
		add("min queries", count(int64(v)))
	}
	return f
}

// percentileTable is the detail log's percentiles: per-sample latency,
// MultiStream's per-query latency, TTFT and TPOT; the target
// percentile's row is marked.
func percentileTable(r *Run) *table {
	type col struct{ head, key string }
	var cols []col
	for _, c := range []col{
		{"latency", "result_%s_percentile_latency_ns"},
		{"per-query latency", "result_%s_percentile_per_query_latency_ns"},
		{"time to first token", "result_first_token_%s_percentile_latency_ns"},
		{"time per output token", "result_time_per_output_token_%s_percentile_ns"},
	} {
		if r.Has(fmt.Sprintf(c.key, "50.00")) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	t := &table{Caption: "Percentiles from the detail log", Head: []string{"percentile"}}
	for _, c := range cols {
		t.Head = append(t.Head, c.head)
	}
	target := pctOf(r.targetPct())
	if r.Scenario() == "Offline" {
		target = "" // Offline has no latency target
	}
	for _, p := range pctKeys {
		label := pctLabel(p)
		row := []cell{txt(label)}
		cls := ""
		if label == target {
			cls = "target"
			row[0].Text += " (target)"
		}
		for _, c := range cols {
			v, ok := r.Num(fmt.Sprintf(c.key, p))
			if !ok {
				row = append(row, txt("—"))
				continue
			}
			row = append(row, nsCell(v))
		}
		for i := range row {
			row[i].Class = cls
		}
		t.Rows = append(t.Rows, row)
	}
	extra := map[string][]string{
		"min":  {"result_min_latency_ns", "result_min_query_latency_ns", "result_first_token_min_latency_ns", "result_time_to_output_token_min"},
		"mean": {"result_mean_latency_ns", "result_mean_query_latency_ns", "result_first_token_mean_latency_ns", "result_time_to_output_token_mean"},
		"max":  {"result_max_latency_ns", "result_max_query_latency_ns", "result_first_token_max_latency_ns", "result_time_to_output_token_max"},
	}
	colIndex := map[string]int{"latency": 0, "per-query latency": 1, "time to first token": 2, "time per output token": 3}
	for _, name := range []string{"min", "mean", "max"} {
		row := []cell{txt(name)}
		for _, c := range cols {
			if v, ok := r.Num(extra[name][colIndex[c.head]]); ok {
				row = append(row, nsCell(v))
			} else {
				row = append(row, txt("—"))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// distributionSection is the latency histogram and CDF, with the
// scenario's bound, the log's target percentile and the early-stopping
// estimate marked.
func distributionSection(r *Run, st *sampleStats) section {
	sec := section{Title: "Latency distribution"}
	lat, what := st.lat, "latency"
	if r.Scenario() == "MultiStream" && len(st.queryLat) > 0 {
		lat, what = st.queryLat, "per-query latency"
	}
	if len(lat) == 0 {
		sec.Note = "No sample completed without an error: nothing to draw."
		return sec
	}
	var marks []mark
	pct := r.targetPct()
	if b, ok := r.Num("effective_target_latency_ns"); ok && b > 0 && r.Scenario() == "Server" && !r.Tokens() {
		marks = append(marks, mark{"bound", b, "bound " + dur(b)})
	}
	key := fmt.Sprintf("result_%.2f_percentile_latency_ns", pct*100)
	if what == "per-query latency" {
		key = fmt.Sprintf("result_%.2f_percentile_per_query_latency_ns", pct*100)
	}
	if v, ok := r.Num(key); ok {
		marks = append(marks, mark{"percentile", v, pctOf(pct) + " " + dur(v)})
	}
	switch r.Scenario() {
	case "SingleStream":
		if v, ok := r.Num("early_stopping_latency_ss"); ok && v > 0 {
			marks = append(marks, mark{"estimate", v, "early stopping " + pctOf(pct) + " " + dur(v)})
		}
	case "MultiStream":
		if v, ok := r.Num("early_stopping_latency_ms"); ok && v > 0 {
			marks = append(marks, mark{"estimate", v, "early stopping " + pctOf(pct) + " " + dur(v)})
		}
	}
	sec.Charts = append(sec.Charts,
		histogramChart("latency-hist", "Histogram of "+what+" (log scale), "+count(int64(len(lat)))+unitOf(what), what, lat, marks),
		cdfChart("latency-cdf", "Cumulative distribution of "+what+" (log scale; percentiles on a nines scale)", what, []cdfSeries{{"s0", "", lat}}, marks, pct))
	return sec
}

// unitOf names what a latency series counts.
func unitOf(what string) string {
	if strings.HasPrefix(what, "per-query") {
		return " queries"
	}
	return " samples"
}

type mark struct {
	kind  string // bound, percentile, estimate
	ns    float64
	label string
}

// histogramChart draws a latency histogram over log-spaced bins.
func histogramChart(name, title, what string, sorted []int64, marks []mark) template.HTML {
	lo, hi := float64(sorted[0]), float64(sorted[len(sorted)-1])
	for _, m := range marks {
		lo, hi = math.Min(lo, m.ns), math.Max(hi, m.ns)
	}
	x := latencyAxis(what, lo, hi)
	const nb = 48
	edges := make([]float64, nb+1)
	l0, l1 := math.Log10(x.lo), math.Log10(x.hi)
	for i := range edges {
		edges[i] = math.Pow(10, l0+(l1-l0)*float64(i)/nb)
	}
	counts := make([]int, nb)
	for _, v := range sorted {
		i := sort.SearchFloat64s(edges, float64(v)+0.5) - 1
		counts[min(max(i, 0), nb-1)]++
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	c := newChart(name, title, x, numAxis(strings.TrimSpace(unitOf(what))+" per bin", 0, float64(top)*1.1))
	for i, n := range counts {
		if n > 0 {
			c.bar("s0", edges[i], edges[i+1], float64(n), fmt.Sprintf("%s to %s: %d", dur(edges[i]), dur(edges[i+1]), n))
		}
	}
	for _, m := range marks {
		c.vmark(m.kind, m.ns, m.label)
	}
	return c.html()
}

// cdfSeries is one distribution on a CDF chart.
type cdfSeries struct {
	class, label string
	sorted       []int64
}

// cdfChart draws cumulative distributions on a log latency axis and a
// nines percentile axis: points at fractions evenly spaced on the nines
// scale, up to the last sample.
func cdfChart(name, title, what string, series []cdfSeries, marks []mark, pct float64) template.HTML {
	lo, hi := math.Inf(1), 0.0
	n := 0
	for _, s := range series {
		if len(s.sorted) == 0 {
			continue
		}
		lo, hi = math.Min(lo, float64(s.sorted[0])), math.Max(hi, float64(s.sorted[len(s.sorted)-1]))
		n = max(n, len(s.sorted))
	}
	for _, m := range marks {
		lo, hi = math.Min(lo, m.ns), math.Max(hi, m.ns)
	}
	top := 1 - 1/float64(max(n, 10)) // the highest percentile the data resolve
	nines := math.Ceil(-math.Log10(1 - top))
	yhi := 1 - math.Pow(10, -nines)
	c := newChart(name, title, latencyAxis(what, lo, hi), axis{lo: 0, hi: yhi, nines: true, label: "percentile"})
	for _, s := range series {
		if len(s.sorted) == 0 {
			continue
		}
		var xs, ys []float64
		last := -1
		for k := 0; ; k++ {
			f := 1 - math.Pow(10, -float64(k)/40)
			if f > 1-1/float64(len(s.sorted)) {
				break
			}
			i := min(int(float64(len(s.sorted))*f), len(s.sorted)-1)
			if i == last {
				continue
			}
			last = i
			xs, ys = append(xs, float64(s.sorted[i])), append(ys, f)
		}
		xs, ys = append(xs, float64(s.sorted[len(s.sorted)-1])), append(ys, 1-1/float64(len(s.sorted)))
		c.step(s.class, xs, ys, s.label)
	}
	c.hmark("target", pct, pctOf(pct))
	for _, m := range marks {
		c.vmark(m.kind, m.ns, m.label)
	}
	return c.html()
}

// timeSection draws throughput, latency and (Server) issue lag per time
// window.
func timeSection(r *Run, st *sampleStats) (section, bool) {
	ws, w := windows(r.Series, st)
	if len(ws) < 2 {
		return section{}, false
	}
	unit := fmt.Sprintf("per %s window", strings.TrimSuffix(durTick(w*1e9), " "))
	sec := section{Title: "Over time", Note: fmt.Sprintf("Each point is one %s window of the run (t = 0 at the first scheduled query); rates are scaled to per second.", durTick(w*1e9))}
	var ts, done, issued []float64
	showIssued := r.Scenario() != "Offline" // Offline issues everything at t = 0
	top := 0.0
	for _, x := range ws {
		ts = append(ts, (x.t0+x.t1)/2)
		done = append(done, float64(x.done)/w)
		issued = append(issued, float64(x.issued)/w)
		top = math.Max(top, float64(x.done)/w)
		if showIssued {
			top = math.Max(top, float64(x.issued)/w)
		}
	}
	tx := numAxis("time in the run (s)", 0, ws[len(ws)-1].t1)
	c := newChart("throughput-time", "Throughput "+unit, tx, numAxis("samples/s", 0, top*1.1))
	c.polyline("s0", ts, done, "completed/s")
	if showIssued {
		c.polyline("s1", ts, issued, "issued/s")
	}
	if q, ok := r.Num("effective_target_qps"); ok && (r.Scenario() == "Server") {
		c.hmark("target", q*r.N("effective_samples_per_query"), "target "+trimNum(q)+" QPS")
	}
	sec.Charts = append(sec.Charts, c.html())

	lo, hi := math.Inf(1), 0.0
	var p50, p99, pmax []float64
	for _, x := range ws {
		p50, p99, pmax = append(p50, x.p50), append(p99, x.p99), append(pmax, x.pmax)
		if !math.IsNaN(x.p50) {
			lo, hi = math.Min(lo, x.p50), math.Max(hi, x.pmax)
		}
	}
	bound, hasBound := r.Num("effective_target_latency_ns")
	hasBound = hasBound && bound > 0 && r.Scenario() == "Server" && !r.Tokens()
	if hasBound {
		lo, hi = math.Min(lo, bound), math.Max(hi, bound)
	}
	if hi > 0 {
		lc := newChart("latency-time", "Latency "+unit+" (log scale)", tx, latencyAxis("latency", lo, hi))
		lc.polyline("s0", ts, p50, "p50")
		lc.polyline("s1", ts, p99, "p99")
		lc.polyline("s3", ts, pmax, "max")
		if hasBound {
			lc.hmark("bound", bound, "bound "+dur(bound))
		}
		sec.Charts = append(sec.Charts, lc.html())
	}
	if r.Scenario() == "Server" && r.Source == "record" {
		lo, hi := math.Inf(1), 0.0
		var l99, lmax []float64
		for _, x := range ws {
			l99, lmax = append(l99, x.lag99), append(lmax, x.lagMax)
			if !math.IsNaN(x.lagMax) {
				lo, hi = math.Min(lo, math.Max(x.lag99, 1)), math.Max(hi, x.lagMax)
			}
		}
		if hi > 0 {
			gc := newChart("lag-time", "Issue lag (IssueQuery call − scheduled time) "+unit+" (log scale)", tx, latencyAxis("issue lag", lo, hi))
			gc.polyline("s1", ts, l99, "p99")
			gc.polyline("s3", ts, lmax, "max")
			sec.Charts = append(sec.Charts, gc.html())
		}
	}
	return sec, true
}

// tokenSection draws an LLM run's TTFT and TPOT distributions, tokens
// per sample and a timeline of a few samples.
func tokenSection(r *Run, st *sampleStats) (section, bool) {
	if !r.Series.Tokens {
		if r.Tokens() {
			return section{Title: "Tokens", Note: "Per-sample token data needs the per-query record (" + querylog.FileName + "); the percentiles above come from the detail log."}, true
		}
		return section{}, false
	}
	sec := section{Title: "Tokens"}
	pct := r.targetPct()
	for _, d := range []struct {
		name, what, boundKey, logKey string
		v                            []int64
	}{
		{"ttft-hist", "time to first token", "requested_server_ttft_latency", "result_first_token_%.2f_percentile_latency_ns", st.ttft},
		{"tpot-hist", "time per output token", "requested_server_tpot_latency", "result_time_per_output_token_%.2f_percentile_ns", st.tpot},
	} {
		if len(d.v) == 0 {
			continue
		}
		var marks []mark
		if b, ok := r.Num(d.boundKey); ok && b > 0 && r.Scenario() == "Server" {
			marks = append(marks, mark{"bound", b, "bound " + dur(b)})
		}
		if v, ok := r.Num(fmt.Sprintf(d.logKey, pct*100)); ok {
			marks = append(marks, mark{"percentile", v, pctOf(pct) + " " + dur(v)})
		}
		sec.Charts = append(sec.Charts, histogramChart(d.name, "Histogram of "+d.what+" (log scale), "+count(int64(len(d.v)))+" samples", d.what, d.v, marks))
	}
	if len(st.tokens) > 0 {
		tk := append([]int64(nil), st.tokens...)
		sort.Slice(tk, func(i, j int) bool { return tk[i] < tk[j] })
		lo, hi := float64(tk[0]), float64(tk[len(tk)-1])
		nb := int(math.Min(40, hi-lo+1))
		if nb < 1 {
			nb = 1
		}
		width := math.Max((hi-lo+1)/float64(nb), 1)
		counts := make([]int, nb)
		for _, v := range tk {
			counts[min(int((float64(v)-lo)/width), nb-1)]++
		}
		topc := 0
		for _, n := range counts {
			topc = max(topc, n)
		}
		c := newChart("tokens-hist", fmt.Sprintf("Tokens per sample (mean %.1f)", meanOf(tk)), numAxis("tokens generated", lo, lo+width*float64(nb)), numAxis("samples per bin", 0, float64(topc)*1.1))
		for i, n := range counts {
			if n > 0 {
				a := lo + width*float64(i)
				c.bar("s2", a, a+width, float64(n), fmt.Sprintf("%g to %g tokens: %d", a, a+width, n))
			}
		}
		sec.Charts = append(sec.Charts, c.html())
	}
	sec.Charts = append(sec.Charts, tokenTimeline(r.Series, st))
	return sec, true
}

func meanOf(v []int64) float64 {
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(max(len(v), 1))
}

// tokenTimeline draws up to 24 samples spread over the run, each on its
// own row from its scheduled time: the wait for the first token
// (queueing and prefill), then the decoding to completion.
func tokenTimeline(s *querylog.Series, st *sampleStats) template.HTML {
	var picks []int
	n := len(s.Samples)
	const rows = 24
	for k := 0; k < rows && k < n; k++ {
		i := k * n / min(rows, n)
		if x := s.Samples[i]; x.Completed >= 0 && x.FirstToken >= 0 && !x.Failed {
			picks = append(picks, i)
		}
	}
	hi := 0.0
	for _, i := range picks {
		hi = math.Max(hi, float64(s.Samples[i].Completed-s.Scheduled[i/s.SamplesPerQuery]))
	}
	x := axis{lo: 0, hi: math.Max(hi*1.05, 1), label: "time since the sample's query was scheduled", tickText: durTick}
	c := newChart("token-timeline", fmt.Sprintf("Token timeline of %d samples spread over the run (top: first)", len(picks)), x, numAxis("sample", -0.5, float64(len(picks))-0.5))
	c.y.tickText = func(v float64) string { return "" }
	for row, i := range picks {
		xs := s.Samples[i]
		sched := s.Scheduled[i/s.SamplesPerQuery]
		y := float64(len(picks) - 1 - row)
		at := fmt.Sprintf("sample %d (issued at %.3f s)", i, float64(sched-st.start)/1e9)
		c.span("s1", 0, float64(xs.FirstToken-sched), y, 6, fmt.Sprintf("%s: first token after %s", at, dur(float64(xs.FirstToken-sched))))
		c.span("s0", float64(xs.FirstToken-sched), float64(xs.Completed-sched), y, 6, fmt.Sprintf("%s: %d tokens in %s", at, xs.Tokens, dur(float64(xs.Completed-xs.FirstToken))))
	}
	c.legend = append(c.legend, legendItem{"s1", "to first token"}, legendItem{"s0", "generating"})
	return c.html()
}

// endpointEntry is one endpoint's figures in the detail log
// (benchmark.EndpointsName).
type endpointEntry struct {
	Endpoint  string       `json:"endpoint"`
	Requests  int64        `json:"requests"`
	Errors    int64        `json:"errors"`
	RoundTrip loadgen.Dist `json:"round_trip"`
}

// remoteSection shows a remote run's endpoints (share, latency, errors),
// from the detail log and the record, and the server-side breakdown.
func remoteSection(r *Run) (section, bool) {
	sec := section{Title: "Remote serving"}
	var eps []endpointEntry
	if raw, ok := r.Values[keyEndpoints]; ok {
		json.Unmarshal(raw, &eps)
	}
	if len(eps) > 0 {
		var total int64
		for _, e := range eps {
			total += e.Requests
		}
		t := &table{Caption: "Requests per endpoint (the LoadGen node's client)", Head: []string{"endpoint", "requests", "share", "errors", "round trip p50", "p99", "max"}}
		for _, e := range eps {
			cls := ""
			if e.Errors > 0 {
				cls = "invalid"
			}
			t.Rows = append(t.Rows, []cell{txt(e.Endpoint), txt(count(e.Requests)), txt(fmt.Sprintf("%.1f %%", 100*float64(e.Requests)/float64(max(total, 1)))),
				{Text: count(e.Errors), Class: cls}, nsCell(float64(e.RoundTrip.P50)), nsCell(float64(e.RoundTrip.P99)), nsCell(float64(e.RoundTrip.Max))})
		}
		sec.Tables = append(sec.Tables, t)
	}
	if s := r.Series; s != nil && len(s.Endpoints) > 0 {
		per := make([][]int64, len(s.Endpoints))
		failed := make([]int, len(s.Endpoints))
		for i, x := range s.Samples {
			if x.Endpoint == querylog.NoEndpoint {
				continue
			}
			if x.Failed || x.Completed < 0 {
				failed[x.Endpoint]++
				continue
			}
			per[x.Endpoint] = append(per[x.Endpoint], x.Completed-s.Scheduled[i/s.SamplesPerQuery])
		}
		t := &table{Caption: "Sample latency per endpoint (from the per-query record)", Head: []string{"endpoint", "samples", "failed", "p50", "p99", "max"}}
		var cs []cdfSeries
		for k, name := range s.Endpoints {
			l := per[k]
			sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
			row := []cell{txt(name), txt(count(int64(len(l)))), txt(count(int64(failed[k])))}
			if len(l) > 0 {
				row = append(row, nsCell(float64(at(l, 0.5))), nsCell(float64(at(l, 0.99))), nsCell(float64(l[len(l)-1])))
			} else {
				row = append(row, txt("—"), txt("—"), txt("—"))
			}
			t.Rows = append(t.Rows, row)
			cs = append(cs, cdfSeries{fmt.Sprintf("s%d", k%4), name, l})
		}
		sec.Tables = append(sec.Tables, t)
		sec.Charts = append(sec.Charts, cdfChart("endpoint-cdf", "Latency per endpoint (log scale)", "latency", cs, nil, r.targetPct()))
	}
	if t := timingTable(r); t != nil {
		sec.Tables = append(sec.Tables, t)
	}
	return sec, len(sec.Tables) > 0
}

// timingTable is the per-request server/client breakdown, as Triton's
// perf_analyzer reports it.
func timingTable(r *Run) *table {
	var m map[string]loadgen.Dist
	if raw, ok := r.Values[keyServerTiming]; !ok || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	rt, ok := m["round_trip"]
	if !ok || rt.Count == 0 {
		return nil
	}
	t := &table{Caption: fmt.Sprintf("Per-request breakdown (%s requests): the server's parts as it reported them, the client's as measured", count(rt.Count)), Head: []string{"part", "mean", "p50", "p99"}}
	for _, p := range []struct{ key, label string }{
		{"queue", "Server: queue"},
		{"compute_input", "Server: compute input"},
		{"compute_infer", "Server: compute infer"},
		{"compute_output", "Server: compute output"},
		{"client_overhead", "Client: send/recv (round trip − server)"},
		{"round_trip", "Client: round trip"},
	} {
		if d, ok := m[p.key]; ok {
			t.Rows = append(t.Rows, []cell{txt(p.label), nsCell(float64(d.Mean)), nsCell(float64(d.P50)), nsCell(float64(d.P99))})
		}
	}
	return t
}

// lagSection is the issue-lag and queue-wait distributions.
func lagSection(r *Run) (section, bool) {
	t := &table{Caption: "Issue lag and queueing, from the detail log", Head: []string{"", "count", "min", "mean", "p50", "p90", "p99", "p99.9", "max"}}
	for _, k := range []struct{ key, label string }{
		{keyIssueLag, "issue lag (IssueQuery call − scheduled time), per query"},
		{keyQueueWait, "harness queue wait (IssueQuery − a worker taking it), per sample"},
		{keySendLag, "send lag (a worker sending it − its scheduled time), per sample"},
	} {
		d, ok := r.dist(k.key)
		if !ok {
			continue
		}
		row := []cell{txt(k.label), txt(count(d.Count))}
		for _, v := range []int64{d.Min, d.Mean, d.P50, d.P90, d.P99, d.P999, d.Max} {
			row = append(row, nsCell(float64(v)))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return section{}, false
	}
	return section{Title: "Issue lag", Tables: []*table{t}}, true
}
