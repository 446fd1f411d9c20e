package report

import (
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strings"
)

// compareView is `mlperf report A B`: the runs of A and B paired, with
// their differences.
type compareView struct {
	A, B         string
	Pairs        []pairView
	OnlyA, OnlyB []string
}

type pairView struct {
	Key      string
	AID, BID string
	Table    *table
	Chart    template.HTML
	Settings *table
}

// Changes below this (percent) are not highlighted: run-to-run noise.
const noisePct = 2.0

// pairKey is the key runs are paired by: the path below the root, with a
// results tree's division/submitter/results/ prefix dropped so that two
// submitters' trees pair by system, benchmark and scenario.
func pairKey(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i+2] == "results" && (parts[i] == "closed" || parts[i] == "open" || parts[i] == "network") {
			return strings.Join(parts[i+3:], "/")
		}
	}
	return filepath.ToSlash(rel)
}

// metricOf is a run's headline figure as a number: its value, whether
// higher is better, and its unit ("" when the run has none).
func metricOf(r *Run) (v float64, higher bool, unit string, ok bool) {
	switch r.Scenario() {
	case "Offline":
		v, ok = r.Num("result_samples_per_second")
		return v, true, "samples/s", ok
	case "Server":
		v, ok = r.Num("result_completed_samples_per_sec")
		return v, true, "samples/s", ok
	case "SingleStream":
		v, ok = r.Num("early_stopping_latency_ss")
	case "MultiStream":
		v, ok = r.Num("early_stopping_latency_ms")
	}
	if met, has := r.Bool("early_stopping_met"); ok && v == 0 && has && !met {
		ok = false
	}
	return v, false, "ns", ok
}

// changeCell is the relative change from a to b, marked better or worse
// beyond the noise.
func changeCell(a, b float64, higherBetter bool) cell {
	d := delta(a, b)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return txt("—")
	}
	c := cell{Text: fmt.Sprintf("%+.1f %%", d)}
	if math.Abs(d) >= noisePct {
		if (d > 0) == higherBetter {
			c.Class = "better"
		} else {
			c.Class = "worse"
		}
	}
	return c
}

func compareRuns(a, b *runView) pairView {
	ra, rb := a.run, b.run
	p := pairView{Key: pairKey(ra.Rel), AID: a.ID, BID: b.ID}
	t := &table{Head: []string{"", "A", "B", "B against A"}}
	vc := txt("same")
	if a.Verdict != b.Verdict {
		vc = cell{Text: "changed", Class: "changed"}
	}
	t.Rows = append(t.Rows, []cell{txt("verdict"), {Text: a.Verdict, Class: a.VerdictClass}, {Text: b.Verdict, Class: b.VerdictClass}, vc})
	if ra.Scenario() != rb.Scenario() {
		t.Rows = append(t.Rows, []cell{txt("scenario"), txt(ra.Scenario()), txt(rb.Scenario()), {Text: "changed", Class: "changed"}})
	}
	va, higher, unit, oka := metricOf(ra)
	vb, _, _, okb := metricOf(rb)
	show := func(v float64, ok bool, missing string) cell {
		switch {
		case !ok:
			return txt(missing)
		case unit == "ns":
			return nsCell(v)
		}
		return txt(rate(v, unit))
	}
	mc := txt("—")
	if oka && okb {
		mc = changeCell(va, vb, higher)
	}
	t.Rows = append(t.Rows, []cell{txt("metric"), show(va, oka, a.Metric), show(vb, okb, b.Metric), mc})
	for _, row := range []struct{ label, key string }{
		{"p50 latency", "result_50.00_percentile_latency_ns"},
		{"p90 latency", "result_90.00_percentile_latency_ns"},
		{"p99 latency", "result_99.00_percentile_latency_ns"},
		{"p99.9 latency", "result_99.90_percentile_latency_ns"},
		{"p99 per-query latency", "result_99.00_percentile_per_query_latency_ns"},
		{"p99 time to first token", "result_first_token_99.00_percentile_latency_ns"},
		{"p99 time per output token", "result_time_per_output_token_99.00_percentile_ns"},
	} {
		x, ok1 := ra.Num(row.key)
		y, ok2 := rb.Num(row.key)
		if !ok1 && !ok2 {
			continue
		}
		c := []cell{txt(row.label), txt("—"), txt("—"), txt("—")}
		if ok1 {
			c[1] = nsCell(x)
		}
		if ok2 {
			c[2] = nsCell(y)
		}
		if ok1 && ok2 {
			c[3] = changeCell(x, y, false)
		}
		t.Rows = append(t.Rows, c)
	}
	for _, row := range []struct{ label, key string }{
		{"tokens/s", "result_completed_tokens_per_second"},
		{"tokens/s", "result_tokens_per_second"},
	} {
		x, ok1 := ra.Num(row.key)
		y, ok2 := rb.Num(row.key)
		if ok1 && ok2 {
			t.Rows = append(t.Rows, []cell{txt(row.label), txt(rate(x, "tokens/s")), txt(rate(y, "tokens/s")), changeCell(x, y, true)})
		}
	}
	if a.Accuracy != nil && b.Accuracy != nil {
		for i, ra := range a.Accuracy.Rows {
			if i >= len(b.Accuracy.Rows) || b.Accuracy.Rows[i][1].Text != ra[1].Text {
				break
			}
			rb := b.Accuracy.Rows[i]
			var x, y float64
			fmt.Sscan(ra[2].Text, &x)
			fmt.Sscan(rb[2].Text, &y)
			t.Rows = append(t.Rows, []cell{txt("accuracy " + ra[1].Text), {Text: ra[2].Text, Class: ra[4].Class}, {Text: rb[2].Text, Class: rb[4].Class}, changeCell(x, y, true)})
		}
	}
	p.Table = t
	if a.stats != nil && b.stats != nil {
		la, lb := a.stats.lat, b.stats.lat
		what := "latency"
		if ra.Scenario() == "MultiStream" && len(a.stats.queryLat) > 0 && len(b.stats.queryLat) > 0 {
			la, lb, what = a.stats.queryLat, b.stats.queryLat, "per-query latency"
		}
		if len(la) > 0 && len(lb) > 0 {
			var marks []mark
			if bound, ok := ra.Num("effective_target_latency_ns"); ok && bound > 0 && ra.Scenario() == "Server" {
				marks = append(marks, mark{"bound", bound, "bound " + dur(bound)})
			}
			p.Chart = cdfChart("compare-cdf", "Cumulative distribution of "+what+": A and B (log scale)", what, []cdfSeries{{"s0", "A", la}, {"s1", "B", lb}}, marks, ra.targetPct())
		}
	}
	st := &table{Caption: "Settings that differ", Head: []string{"setting", "A", "B"}}
	keys := map[string]bool{}
	for k := range ra.Values {
		keys[k] = true
	}
	for k := range rb.Values {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		if strings.HasPrefix(k, "effective_") || strings.HasPrefix(k, "requested_") {
			sorted = append(sorted, k)
		}
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		x, y := string(ra.Values[k]), string(rb.Values[k])
		if x != y {
			if x == "" {
				x = "(absent)"
			}
			if y == "" {
				y = "(absent)"
			}
			st.Rows = append(st.Rows, []cell{txt(k), txt(strings.Trim(x, `"`)), {Text: strings.Trim(y, `"`), Class: "changed"}})
		}
	}
	if len(st.Rows) > 0 {
		p.Settings = st
	}
	return p
}

// compare pairs the runs of A and B: by key, or the one run of each side
// whatever their names.
func compare(aTitle, bTitle string, a, b []*runView) *compareView {
	cv := &compareView{A: aTitle, B: bTitle}
	if len(a) == 1 && len(b) == 1 {
		cv.Pairs = append(cv.Pairs, compareRuns(a[0], b[0]))
		return cv
	}
	byKey := map[string]*runView{}
	for _, v := range b {
		byKey[pairKey(v.run.Rel)] = v
	}
	seen := map[string]bool{}
	for _, v := range a {
		k := pairKey(v.run.Rel)
		if w, ok := byKey[k]; ok {
			cv.Pairs = append(cv.Pairs, compareRuns(v, w))
			seen[k] = true
		} else {
			cv.OnlyA = append(cv.OnlyA, v.run.Rel)
		}
	}
	for _, v := range b {
		if !seen[pairKey(v.run.Rel)] {
			cv.OnlyB = append(cv.OnlyB, v.run.Rel)
		}
	}
	return cv
}
