package report

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
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
