// Package report renders LoadGen logs as one self-contained HTML page (no
// network, no scripts from elsewhere): for a run folder or a whole results
// tree, a summary table per benchmark and scenario with validity and why,
// the latency percentiles, a latency histogram and latency over time
// (issue time against latency, to see warm-up and throttling) where a
// trace (mlperf_log_trace.json) is present, TTFT and TPOT percentiles for
// LLMs, throughput over time for Offline, the issue lag and per-request
// server timings where this suite logged them (mlperfgo_ keys), and the
// settings in effect. The data come from the detail log and the trace.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/detaillog"

	"github.com/mlperf-go/inference/loadgen"
)

// Run is one LoadGen run folder's data.
type Run struct {
	Dir    string // folder, relative to the report's root
	Values map[string]json.RawMessage
	Errors []string
	// Samples are per-sample (issue ns, latency ns) from the trace, in
	// issue order; nil without a trace.
	Samples []Sample
}

// Sample is one sample's times from the trace, in ns from the run start.
type Sample struct{ Issue, Latency int64 }

// Str returns a string key's value.
func (r *Run) Str(k string) string {
	var s string
	json.Unmarshal(r.Values[k], &s)
	return s
}

// Num returns a numeric key's value (0 when absent).
func (r *Run) Num(k string) float64 {
	f, _ := strconv.ParseFloat(string(r.Values[k]), 64)
	return f
}

// Has reports whether the key is present.
func (r *Run) Has(k string) bool { _, ok := r.Values[k]; return ok }

// LoadRun reads a run folder's detail log and trace.
func LoadRun(dir string) (*Run, error) {
	l, err := detaillog.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"), false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("report: %w", err)
		}
		return nil, fmt.Errorf("report: %s: %w", dir, err)
	}
	delete(l.Values, "loaded_qsl_set") // one per load set; not a run figure
	r := &Run{Dir: dir, Values: l.Values, Errors: l.Errors}
	if tr, err := os.Open(filepath.Join(dir, "mlperf_log_trace.json")); err == nil {
		r.Samples = readTrace(tr)
		tr.Close()
	}
	return r, nil
}

// readTrace reads the "Sample" begin events' issue_start_ns and
// complete_ns (this suite's trace and LoadGen's carry them).
func readTrace(rd io.Reader) []Sample {
	var out []Sample
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := bytes.TrimSuffix(bytes.TrimSpace(sc.Bytes()), []byte(","))
		if !bytes.Contains(line, []byte(`"issue_start_ns"`)) {
			continue
		}
		var e struct {
			Args struct {
				Issue    int64 `json:"issue_start_ns"`
				Complete int64 `json:"complete_ns"`
			} `json:"args"`
		}
		if json.Unmarshal(line, &e) == nil && e.Args.Complete >= e.Args.Issue {
			out = append(out, Sample{e.Args.Issue, e.Args.Complete - e.Args.Issue})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Issue < out[j].Issue })
	return out
}

// Find returns the run folders under root (every folder holding a
// mlperf_log_detail.txt), sorted. root is a run folder, a results tree or
// a mlperf_log_detail.txt itself; any other file, or a path that does not
// exist, is an error saying what to give instead.
func Find(root string) ([]string, error) {
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "mlperf_log_detail.txt" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// checkRoot refuses a root that cannot hold runs: a missing path or a
// file other than a detail log.
func checkRoot(root string) error {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; give a run folder (holding mlperf_log_detail.txt) or a results tree", root)
	case err != nil:
		return err
	case st.IsDir() || filepath.Base(root) == "mlperf_log_detail.txt":
		return nil
	case strings.HasPrefix(filepath.Base(root), "mlperf_log_"):
		return fmt.Errorf("%s is a file; give the run folder that holds it (%s) or a results tree", root, filepath.Dir(root))
	}
	return fmt.Errorf("%s is a file, not a folder; give a run folder (holding mlperf_log_detail.txt) or a results tree", root)
}

// view is one run as the template shows it.
type view struct {
	ID, Dir, Scenario, Mode, Validity, Why, Metric string
	Valid                                          bool
	Errors                                         []string
	Percentiles                                    [][3]string // label, latency ms, first-token / TPOT
	Charts                                         []template.HTML
	Settings                                       [][2]string
	// Lags are the issue-lag and queue-wait rows (label, then count and
	// the distribution in µs), from this suite's extra detail log keys.
	Lags [][]string
	// Timings are the per-request server/client breakdown rows (label,
	// mean, p50, p99 in µs) and the number of requests.
	Timings      [][4]string
	TimingsCount int64
}

// The extra detail log keys of this suite's runs (loadgen.LogSettings.Extra,
// written by the benchmark package): distributions in ns.
const (
	keyIssueLag     = loadgen.ExtraKeyPrefix + loadgen.IssueLagName
	keyQueueWait    = loadgen.ExtraKeyPrefix + "queue_wait_ns"
	keySendLag      = loadgen.ExtraKeyPrefix + "send_lag_ns"
	keyServerTiming = loadgen.ExtraKeyPrefix + "server_timing_ns"
)

// usec formats ns as µs with one decimal.
func usec(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) }

// lagRows reads the issue-lag and queue-wait distributions, if any.
func lagRows(r *Run) [][]string {
	var rows [][]string
	for _, k := range []struct{ key, label string }{
		{keyIssueLag, "issue lag (IssueQuery call − scheduled time), per query"},
		{keyQueueWait, "harness queue wait (IssueQuery − a worker taking it), per sample"},
		{keySendLag, "send lag (a worker sending it − its scheduled time), per sample"},
	} {
		var d loadgen.Dist
		if raw, ok := r.Values[k.key]; !ok || json.Unmarshal(raw, &d) != nil || d.Count == 0 {
			continue
		}
		rows = append(rows, []string{k.label, strconv.FormatInt(d.Count, 10), usec(d.Min), usec(d.Mean), usec(d.P50), usec(d.P90), usec(d.P99), usec(d.P999), usec(d.Max)})
	}
	return rows
}

// timingRows reads the per-request server timings, as perf_analyzer
// breaks a request down: the server's queue and compute parts, then the
// client's send/receive (round trip less the server's time) and round
// trip.
func timingRows(r *Run) ([][4]string, int64) {
	var m map[string]loadgen.Dist
	if raw, ok := r.Values[keyServerTiming]; !ok || json.Unmarshal(raw, &m) != nil {
		return nil, 0
	}
	rt, ok := m["round_trip"]
	if !ok || rt.Count == 0 {
		return nil, 0
	}
	var rows [][4]string
	for _, p := range []struct{ key, label string }{
		{"queue", "Server: queue"},
		{"compute_input", "Server: compute input"},
		{"compute_infer", "Server: compute infer"},
		{"compute_output", "Server: compute output"},
		{"client_overhead", "Client: send/recv (round trip − server)"},
		{"round_trip", "Client: round trip"},
	} {
		if d, ok := m[p.key]; ok {
			rows = append(rows, [4]string{p.label, usec(d.Mean), usec(d.P50), usec(d.P99)})
		}
	}
	return rows, rt.Count
}

var percentiles = []string{"50.00", "90.00", "95.00", "97.00", "99.00", "99.90"}

// ms formats ns as milliseconds: three decimals, or three significant
// digits under 1 ms (token times are microseconds).
func ms(ns float64) string {
	v := ns / 1e6
	if math.Abs(v) >= 1 || v == 0 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func metricOf(r *Run) string {
	llm := r.Has("result_completed_tokens_per_second") || r.Has("result_tokens_per_second")
	switch r.Str("effective_scenario") {
	case "Offline":
		if llm {
			return fmt.Sprintf("%.2f samples/s, %.2f tokens/s", r.Num("result_samples_per_second"), r.Num("result_tokens_per_second"))
		}
		return fmt.Sprintf("%.2f samples/s", r.Num("result_samples_per_second"))
	case "Server":
		if llm {
			return fmt.Sprintf("%.2f samples/s, %.2f tokens/s completed", r.Num("result_completed_samples_per_sec"), r.Num("result_completed_tokens_per_second"))
		}
		return fmt.Sprintf("%.2f samples/s completed", r.Num("result_completed_samples_per_sec"))
	case "SingleStream":
		return fmt.Sprintf("%s ms (early stopping p%g estimate)", ms(r.Num("early_stopping_latency_ss")), 100*r.Num("effective_target_latency_percentile"))
	case "MultiStream":
		return fmt.Sprintf("%s ms (early stopping p99 estimate)", ms(r.Num("early_stopping_latency_ms")))
	}
	return ""
}

func makeView(id int, root string, r *Run) view {
	rel, err := filepath.Rel(root, r.Dir)
	if err != nil || rel == "." {
		rel = filepath.Base(r.Dir)
	}
	v := view{ID: fmt.Sprintf("run%d", id), Dir: rel, Scenario: r.Str("effective_scenario"), Mode: r.Str("effective_test_mode"), Errors: r.Errors}
	v.Validity = r.Str("result_validity")
	if v.Validity == "" {
		v.Validity = "accuracy run"
	}
	v.Valid = v.Validity == "VALID"
	v.Why = r.Str("result_invalid_reason")
	if !v.Valid && r.Has("early_stopping_met") && !bytes.Equal(r.Values["early_stopping_met"], []byte("true")) {
		v.Why = strings.TrimSpace(v.Why + " Early stopping not met: " + r.Str("early_stopping_result") + r.Str("early_stopping_tpot_result") + r.Str("early_stopping_ttft_result"))
	}
	if r.Has("result_validity") {
		v.Metric = metricOf(r)
	}
	if r.Has("result_50.00_percentile_latency_ns") {
		for _, p := range percentiles {
			row := [3]string{p, ms(r.Num("result_" + p + "_percentile_latency_ns")), ""}
			if r.Has("result_first_token_" + p + "_percentile_latency_ns") {
				row[2] = ms(r.Num("result_first_token_"+p+"_percentile_latency_ns")) + " / " + ms(r.Num("result_time_per_output_token_"+p+"_percentile_ns"))
			}
			v.Percentiles = append(v.Percentiles, row)
		}
	}
	if len(r.Samples) > 0 {
		lat := make([]float64, len(r.Samples))
		for i, s := range r.Samples {
			lat[i] = float64(s.Latency) / 1e6
		}
		v.Charts = append(v.Charts, histogram("Latency histogram (ms)", lat))
		v.Charts = append(v.Charts, scatter("Latency over time: issue time (s) against latency (ms)", r.Samples))
		if v.Scenario == "Offline" {
			v.Charts = append(v.Charts, throughput("Completed samples per second over time", r.Samples))
		}
	}
	for _, p := range []string{"", "first_token_"} {
		if r.Has("result_" + p + "50.00_percentile_latency_ns") {
			var vals []float64
			for _, q := range percentiles {
				vals = append(vals, r.Num("result_"+p+q+"_percentile_latency_ns")/1e6)
			}
			title := "Latency percentiles (ms)"
			if p != "" {
				title = "Time to first token percentiles (ms)"
			}
			v.Charts = append(v.Charts, bars(title, percentiles, vals))
		}
	}
	if r.Has("result_time_per_output_token_50.00_percentile_ns") {
		var vals []float64
		for _, q := range percentiles {
			vals = append(vals, r.Num("result_time_per_output_token_"+q+"_percentile_ns")/1e6)
		}
		v.Charts = append(v.Charts, bars("Time per output token percentiles (ms)", percentiles, vals))
	}
	v.Lags = lagRows(r)
	v.Timings, v.TimingsCount = timingRows(r)
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

// svg helpers: plain inline SVG, 560×220, axes with min/max labels.
const w, h, pad = 560.0, 220.0, 40.0

func frame(title string, body string, xlab, ylab [2]string) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<figure><figcaption>%s</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`, template.HTMLEscapeString(title), w, h, w, h, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" class="axis"/><line x1="%g" y1="%g" x2="%g" y2="%g" class="axis"/>`, pad, h-pad, w-10, h-pad, pad, 10.0, pad, h-pad)
	fmt.Fprintf(&b, `<text x="%g" y="%g" class="lab">%s</text><text x="%g" y="%g" class="lab" text-anchor="end">%s</text>`, pad, h-pad+14, xlab[0], w-10, h-pad+14, xlab[1])
	fmt.Fprintf(&b, `<text x="%g" y="%g" class="lab" text-anchor="end">%s</text><text x="%g" y="%g" class="lab" text-anchor="end">%s</text>`, pad-4, h-pad, ylab[0], pad-4, 18.0, ylab[1])
	b.WriteString(body)
	b.WriteString(`</svg></figure>`)
	return template.HTML(b.String())
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func histogram(title string, vals []float64) template.HTML {
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	const n = 40
	counts := make([]int, n)
	for _, v := range vals {
		i := 0
		if hi > lo {
			i = min(int((v-lo)/(hi-lo)*n), n-1)
		}
		counts[i]++
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	var b strings.Builder
	bw := (w - 10 - pad) / n
	for i, c := range counts {
		bh := (h - pad - 10) * float64(c) / float64(max(top, 1))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar"/>`, pad+float64(i)*bw, h-pad-bh, bw-1, bh)
	}
	return frame(title, b.String(), [2]string{num(lo), num(hi)}, [2]string{"0", strconv.Itoa(top)})
}

func scatter(title string, s []Sample) template.HTML {
	// At most 4000 points, evenly taken, so the page stays small.
	step := max(1, len(s)/4000)
	t0, t1 := float64(s[0].Issue), float64(s[len(s)-1].Issue)
	var lmax float64
	for _, x := range s {
		lmax = math.Max(lmax, float64(x.Latency))
	}
	var b strings.Builder
	for i := 0; i < len(s); i += step {
		x := pad
		if t1 > t0 {
			x += (float64(s[i].Issue) - t0) / (t1 - t0) * (w - 10 - pad)
		}
		y := h - pad - float64(s[i].Latency)/math.Max(lmax, 1)*(h-pad-10)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="1.2" class="pt"/>`, x, y)
	}
	return frame(title, b.String(), [2]string{"0", num((t1 - t0) / 1e9)}, [2]string{"0", num(lmax / 1e6)})
}

func throughput(title string, s []Sample) template.HTML {
	done := make([]float64, len(s))
	for i, x := range s {
		done[i] = float64(x.Issue + x.Latency)
	}
	sort.Float64s(done)
	start, end := float64(s[0].Issue), done[len(done)-1]
	const n = 50
	counts := make([]float64, n)
	span := math.Max(end-start, 1)
	for _, d := range done {
		counts[min(int((d-start)/span*n), n-1)]++
	}
	rate := span / 1e9 / n
	top := 0.0
	for i := range counts {
		counts[i] /= rate
		top = math.Max(top, counts[i])
	}
	var pts []string
	for i, c := range counts {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", pad+(float64(i)+0.5)/n*(w-10-pad), h-pad-c/math.Max(top, 1)*(h-pad-10)))
	}
	return frame(title, `<polyline points="`+strings.Join(pts, " ")+`" class="line"/>`, [2]string{"0 s", num(span/1e9) + " s"}, [2]string{"0", num(top)})
}

func bars(title string, labels []string, vals []float64) template.HTML {
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	var b strings.Builder
	bw := (w - 10 - pad) / float64(len(vals))
	for i, v := range vals {
		bh := (h - pad - 10) * v / math.Max(top, 1e-12)
		x := pad + float64(i)*bw
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar"/><text x="%.1f" y="%.1f" class="lab" text-anchor="middle">p%s</text><text x="%.1f" y="%.1f" class="val" text-anchor="middle">%s</text>`,
			x+4, h-pad-bh, bw-8, bh, x+bw/2, h-pad+26, strings.TrimSuffix(strings.TrimSuffix(labels[i], "0"), ".0"), x+bw/2, h-pad-bh-3, num(v))
	}
	return frame(title, b.String(), [2]string{"", ""}, [2]string{"0", num(top)})
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>MLPerf report: {{.Title}}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:14px}
.valid{color:#070;font-weight:bold}.invalid{color:#b00;font-weight:bold}
figure{display:inline-block;margin:0 1em 1em 0}figcaption{font-size:13px;margin-bottom:2px}
.axis{stroke:#444}.bar{fill:#4a7fb5}.pt{fill:#c05020;fill-opacity:.5}.line{fill:none;stroke:#4a7fb5;stroke-width:2}
.lab,.val{font-size:10px;fill:#333}section{border-top:2px solid #ddd;margin-top:2em}
details{margin:.5em 0}
</style></head><body>
<h1>MLPerf report: {{.Title}}</h1>
<p>{{len .Runs}} run(s), read from the LoadGen logs{{if .Traced}} and traces{{end}}.</p>
<table><tr><th>run</th><th>scenario</th><th>mode</th><th>result</th><th>metric</th><th>why</th></tr>
{{range .Runs}}<tr><td><a href="#{{.ID}}">{{.Dir}}</a></td><td>{{.Scenario}}</td><td>{{.Mode}}</td><td class="{{if .Valid}}valid{{else if eq .Validity "INVALID"}}invalid{{end}}">{{.Validity}}</td><td>{{.Metric}}</td><td>{{.Why}}</td></tr>
{{end}}</table>
{{range .Runs}}<section id="{{.ID}}"><h2>{{.Dir}}</h2>
<p>{{.Scenario}} {{.Mode}}: <span class="{{if .Valid}}valid{{else if eq .Validity "INVALID"}}invalid{{end}}">{{.Validity}}</span> {{.Metric}}</p>
{{if .Why}}<p>Why: {{.Why}}</p>{{end}}
{{if .Errors}}<p>LoadGen errors:</p><ul>{{range .Errors}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Percentiles}}<table><tr><th>percentile</th><th>latency (ms)</th>{{with index .Percentiles 0}}{{if index . 2}}<th>first token / time per output token (ms)</th>{{end}}{{end}}</tr>
{{range .Percentiles}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td>{{if index . 2}}<td>{{index . 2}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{if .Lags}}<h3>Issue lag</h3><table><tr><th>µs</th><th>count</th><th>min</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>
{{range .Lags}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{if .Timings}}<h3>Per-request timings ({{.TimingsCount}} requests)</h3><table><tr><th>µs</th><th>mean</th><th>p50</th><th>p99</th></tr>
{{range .Timings}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td>{{index . 2}}</td><td>{{index . 3}}</td></tr>{{end}}</table>{{end}}
{{range .Charts}}{{.}}{{end}}
<details><summary>Settings in effect</summary><table>{{range .Settings}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table></details>
</section>{{end}}
</body></html>
`))

// Write renders the runs under root as one HTML page to w.
func Write(w io.Writer, root string) error {
	dirs, err := Find(root)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if len(dirs) == 0 {
		return fmt.Errorf("report: no mlperf_log_detail.txt under %s (give a run folder or a results tree)", root)
	}
	data := struct {
		Title  string
		Runs   []view
		Traced bool
	}{Title: filepath.Base(filepath.Clean(root))}
	for i, d := range dirs {
		r, err := LoadRun(d)
		if err != nil {
			return err
		}
		if r.Samples != nil {
			data.Traced = true
		}
		data.Runs = append(data.Runs, makeView(i, root, r))
	}
	return page.Execute(w, data)
}
