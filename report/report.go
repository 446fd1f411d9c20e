// Package report renders LoadGen logs as one self-contained HTML page
// that a performance engineer reads instead of the logs: no network, no
// scripts, every chart inline SVG and every figure in an HTML table.
//
// For each run folder it shows the verdict and why, the metric (or why
// the loadgen did not compute one), the key figures and percentiles from
// the detail log; from the per-sample data (the per-query record
// mlperf_log_queries.bin, see package loadgen/querylog, else the trace)
// the latency histogram and CDF on log scales with the scenario's bound,
// the target percentile and the early-stopping estimate marked,
// throughput and latency percentiles over time and the issue lag over
// time for Server; for LLM runs the TTFT and TPOT distributions, tokens
// per sample and a token timeline; for remote runs each endpoint's share,
// latency and errors and the server-side breakdown; for accuracy runs the
// score of accuracy.txt against the submission checker's target. A results
// tree gets one line per system × benchmark × scenario with the
// performance verdict, the accuracy against its target, each compliance
// test's verdict and the submission checker's verdict and messages
// (package check). Two folders are compared run by run, the differences
// highlighted.
package report

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Options say what to report.
type Options struct {
	// Paths are the run folders or results trees: one, or two (A then B)
	// to compare.
	Paths []string
	// Round is the submission round whose tables the checker applies to a
	// results tree ("": package check's default).
	Round string
}

// side is one path's runs.
type side struct {
	Title string
	Tree  *treeView
	Runs  []*runView
}

type page struct {
	Title   string
	Sides   []*side
	Compare *compareView
}

// load reads the runs under root; prefix makes the anchors unique.
func load(root, prefix, round string) (*side, error) {
	dirs, err := Find(root)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("report: no mlperf_log_detail.txt under %s (give a run folder or a results tree)", root)
	}
	s := &side{Title: filepath.Base(filepath.Clean(root))}
	views := map[string]*runView{}
	for i, d := range dirs {
		r, err := LoadRun(d)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, d)
		if err != nil || rel == "." {
			rel = filepath.Base(d)
		}
		r.Rel = rel
		v := makeView(fmt.Sprintf("%srun%d", prefix, i), r)
		s.Runs = append(s.Runs, v)
		views[d] = v
	}
	if st, err := os.Stat(root); err == nil && st.IsDir() && isTree(root) {
		if round == "" {
			round = "v6.1"
		}
		s.Tree = buildTree(root, round, views)
	}
	return s, nil
}

// Write renders the page for o to w.
func Write(w io.Writer, o Options) error {
	if len(o.Paths) == 0 || len(o.Paths) > 2 {
		return fmt.Errorf("report: give one folder, or two to compare (got %d)", len(o.Paths))
	}
	p := &page{}
	for i, root := range o.Paths {
		prefix := ""
		if len(o.Paths) == 2 {
			prefix = string(rune('a'+i)) + "-"
		}
		s, err := load(root, prefix, o.Round)
		if err != nil {
			return err
		}
		p.Sides = append(p.Sides, s)
	}
	p.Title = p.Sides[0].Title
	if len(p.Sides) == 2 {
		p.Title = p.Sides[0].Title + " against " + p.Sides[1].Title
		if p.Sides[0].Title == p.Sides[1].Title {
			p.Title = o.Paths[0] + " against " + o.Paths[1]
		}
		p.Compare = compare(o.Paths[0], o.Paths[1], p.Sides[0].Runs, p.Sides[1].Runs)
	}
	return pageTemplate.Execute(w, p)
}

// WriteFile renders the page to path: into a new file beside it, renamed
// over path once complete, so that a failed report leaves an earlier file
// at path as it was and nothing else behind. A path that is a folder, or
// whose folder does not exist, is an error naming what to give instead.
func WriteFile(path string, o Options) (err error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Errorf("report: %s is a folder; give the HTML file to write, e.g. %s", path, filepath.Join(path, "report.html"))
		}
		return fmt.Errorf("report: %s is not a regular file; give the HTML file to write", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("report: the folder %s does not exist; create it first or write elsewhere", dir)
	} else if err == nil && !st.IsDir() {
		return fmt.Errorf("report: %s is not a folder", dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp) // only the file this call made
		}
	}()
	if err := Write(f, o); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

var funcs = template.FuncMap{
	"short": func(s []string) string {
		j := strings.Join(s, " ")
		if len(j) > 220 {
			return j[:220] + "…"
		}
		return j
	},
	"inc": func(i int) int { return i + 1 },
}

var pageTemplate = template.Must(template.New("report").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>MLPerf report: {{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em 2em;color:#1d2733;max-width:1320px}
h1{font-size:22px;margin:.2em 0}h2{font-size:18px;margin:1.2em 0 .3em}h3{font-size:15px;margin:1em 0 .3em;color:#33475b}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:13px}td,th{border:1px solid #d4dbe3;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef2f6;font-weight:600}td[data-ns]{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{text-align:left;font-size:13px;color:#4a5a6a;padding-bottom:3px}
.valid{color:#0b6b2f;font-weight:600}.invalid{color:#b3141c;font-weight:600}.neutral{color:#4a5a6a;font-weight:600}
tr.target td,td.target{background:#fff6d8}.better{background:#dff3e4}.worse{background:#fbe1e1}.changed{background:#ffeccc;font-weight:600}
.metric{font-size:17px;margin:.3em 0}.missing{color:#8a5a00}.why{color:#7a1a1a;font-size:13px;margin:.2em 0}.note{color:#4a5a6a;font-size:13px}
section.run{border-top:2px solid #d4dbe3;margin-top:1.5em}.kv td:first-child{color:#4a5a6a}
.figs{display:flex;flex-wrap:wrap;gap:6px 18px}.tables{display:flex;flex-wrap:wrap;gap:0 24px;align-items:flex-start}
figure{margin:0 0 .6em}figcaption{font-size:13px;margin-bottom:2px;color:#33475b;max-width:600px}
svg{background:#fff;border:1px solid #e3e8ee}
.axis{stroke:#5b6b7b;stroke-width:1}.grid{stroke:#edf0f3;stroke-width:1}.tick{font-size:10px;fill:#4a5a6a}.axlabel{font-size:11px;fill:#33475b}
.line{fill:none;stroke-width:1.6}.line.s0{stroke:#2f6db5}.line.s1{stroke:#d9731a}.line.s2{stroke:#2e9444}.line.s3{stroke:#b3141c}
.bar.s0,.key.s0{fill:#2f6db5}.bar.s1,.key.s1{fill:#e8953f}.bar.s2,.key.s2{fill:#3aa357}.bar.s3,.key.s3{fill:#b3141c}
.legend text{font-size:10.5px;fill:#1d2733}
.mark line{stroke-width:1.5}.mark text{font-size:10.5px}
.mark.bound line{stroke:#b3141c;stroke-dasharray:6 3}.mark.bound text{fill:#b3141c}
.mark.percentile line{stroke:#1d2733;stroke-dasharray:2 2}.mark.percentile text{fill:#1d2733}
.mark.estimate line{stroke:#7b3fb5;stroke-dasharray:5 2 1 2}.mark.estimate text{fill:#7b3fb5}
.mark.target line{stroke:#8a96a3;stroke-dasharray:3 3}.mark.target text{fill:#4a5a6a}
ul.msgs{font-size:12.5px;margin:.2em 0 .6em;padding-left:1.2em}.msgs .ERROR{color:#b3141c}.msgs .WARNING{color:#8a5a00}
details{margin:.5em 0}summary{cursor:pointer;font-size:13px;color:#33475b}pre{font-size:12.5px;background:#f6f8fa;padding:6px 8px;overflow:auto}
</style></head><body>
<h1>MLPerf report: {{.Title}}</h1>
{{define "table"}}<table>{{with .Caption}}<caption>{{.}}</caption>{{end}}<tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{with .Class}} class="{{.}}"{{end}}{{with .NS}} data-ns="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{with .Compare}}<section class="compare"><h2>A against B</h2>
<p class="note">A: {{.A}} · B: {{.B}}. Changes of {{printf "%.0f" 2.0}} % or more are marked <span class="better">better</span> or <span class="worse">worse</span>; a changed verdict or setting is <span class="changed">marked</span>.</p>
{{range .Pairs}}<h3>{{.Key}} (<a href="#{{.AID}}">A</a>, <a href="#{{.BID}}">B</a>)</h3>
<div class="tables">{{template "table" .Table}}{{with .Settings}}{{template "table" .}}{{end}}</div>
{{with .Chart}}<div class="figs">{{.}}</div>{{end}}
{{end}}{{if .OnlyA}}<p class="note">Only in A: {{range .OnlyA}}{{.}} {{end}}</p>{{end}}{{if .OnlyB}}<p class="note">Only in B: {{range .OnlyB}}{{.}} {{end}}</p>{{end}}
</section>{{end}}
{{range .Sides}}
{{if gt (len $.Sides) 1}}<h2>{{.Title}}</h2>{{end}}
{{with .Tree}}<section class="tree"><h2>Results tree</h2>
{{if .CheckErr}}<p class="invalid">The submission checker could not run: {{.CheckErr}}</p>{{else}}
<p>Submission checker ({{.Round}} tables): <span class="{{if eq .CheckVerdict "PASS"}}valid{{else}}invalid{{end}}" data-check="{{.CheckVerdict}}">{{.CheckVerdict}}</span>, {{.Errors}} error(s), {{.Warnings}} warning(s).</p>{{end}}
<table class="treelines"><tr><th>system</th><th>benchmark</th><th>scenario</th><th>performance</th><th>accuracy against target</th>{{range .Tests}}<th>{{.}}</th>{{end}}<th>checker</th></tr>
{{range .Lines}}<tr data-line="{{.System}}/{{.Benchmark}}/{{.Scenario}}"><td>{{.System}}</td><td>{{.Benchmark}}</td><td>{{.Scenario}}</td><td class="{{.Perf.Class}}">{{if .PerfID}}<a href="#{{.PerfID}}">{{.Perf.Text}}</a>{{else}}{{.Perf.Text}}{{end}}</td><td class="{{.Accuracy.Class}}">{{.Accuracy.Text}}</td>{{range .Tests}}<td class="{{.Class}}">{{.Text}}</td>{{end}}<td class="{{.Check.Class}}">{{.Check.Text}}{{if .Messages}}<ul class="msgs">{{range .Messages}}<li class="{{.Level}}">{{.Level}} {{.Text}}</li>{{end}}</ul>{{end}}</td></tr>
{{end}}</table>
{{if .Messages}}<h3>Checker messages for the tree</h3><ul class="msgs">{{range .Messages}}<li class="{{.Level}}">{{.Level}} {{.Text}}</li>{{end}}</ul>{{end}}
</section>{{end}}
<table class="summary"><tr><th>run</th><th>scenario</th><th>mode</th><th>verdict</th><th>metric</th><th>why</th></tr>
{{range .Runs}}<tr><td><a href="#{{.ID}}">{{.Title}}</a></td><td>{{.Scenario}}</td><td>{{.Mode}}</td><td class="{{.VerdictClass}}">{{.Verdict}}</td><td{{if .MetricMissing}} class="missing"{{end}}>{{.Metric}}</td><td>{{short .Why}}</td></tr>
{{end}}</table>
{{range .Runs}}<section class="run" id="{{.ID}}"><h2>{{.Title}}</h2>
<p>{{.Scenario}} · {{.Mode}} · <span class="{{.VerdictClass}}" data-verdict>{{.Verdict}}</span></p>
{{with .Metric}}<p class="metric"><span data-metric>{{.}}</span></p>{{end}}
{{range .Why}}<p class="why">{{.}}</p>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Errors}}<p class="invalid">LoadGen errors:</p><ul class="msgs">{{range .Errors}}<li class="ERROR">{{.}}</li>{{end}}</ul>{{end}}
<div class="tables">
{{if .Figures}}<table class="kv"><caption>Key figures</caption>{{range .Figures}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table>{{end}}
{{with .Pcts}}{{template "table" .}}{{end}}
{{with .Accuracy}}{{template "table" .}}{{end}}
</div>
{{if .AccuracyLines}}<details{{if not .Accuracy}} open{{end}}><summary>accuracy.txt</summary><pre>{{range .AccuracyLines}}{{.}}
{{end}}</pre></details>{{end}}
{{range .Sections}}<h3>{{.Title}}</h3>{{with .Note}}<p class="note">{{.}}</p>{{end}}
{{if .Tables}}<div class="tables">{{range .Tables}}{{template "table" .}}{{end}}</div>{{end}}
{{if .Charts}}<div class="figs">{{range .Charts}}{{.}}{{end}}</div>{{end}}
{{end}}
<details><summary>Settings in effect</summary><table class="kv">{{range .Settings}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table></details>
</section>{{end}}
{{end}}
</body></html>
`))
