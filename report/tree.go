package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/check"
)

// treeView is a results tree: one line per system × benchmark × scenario
// and the submission checker's verdict.
type treeView struct {
	Lines []treeLine
	// Tests are the compliance test columns, in order.
	Tests []string
	// CheckVerdict is PASS or FAIL (the checker's, via package check);
	// CheckErr says why the checker could not run.
	CheckVerdict string
	CheckErr     string
	Round        string
	// Messages are the checker's errors and warnings that no line claims.
	Messages []checkMsg
	Errors   int
	Warnings int
}

type treeLine struct {
	Division, Submitter, System, Benchmark, Scenario string
	Perf                                             cell   // the performance verdict and metric
	PerfID                                           string // anchor of the run's section
	Accuracy                                         cell
	Tests                                            []cell // per treeView.Tests
	Check                                            cell   // the checker's verdict for the line
	Messages                                         []checkMsg
	dir                                              string
}

type checkMsg struct {
	Level, Text string // ERROR, WARNING
}

// divisions are the folders a results tree holds.
var divisions = []string{"closed", "open", "network"}

// isTree reports whether root is a results tree (it holds a division
// folder).
func isTree(root string) bool {
	for _, d := range divisions {
		if st, err := os.Stat(filepath.Join(root, d)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

func subdirs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// buildTree reads the tree's scenario folders and runs the checker on
// it; views maps a run folder to its view (for the verdicts and links).
func buildTree(root string, round string, views map[string]*runView) *treeView {
	tv := &treeView{Round: round}
	testSet := map[string]bool{}
	for _, div := range divisions {
		for _, sub := range subdirs(filepath.Join(root, div)) {
			res := filepath.Join(root, div, sub, "results")
			for _, sys := range subdirs(res) {
				for _, bench := range subdirs(filepath.Join(res, sys)) {
					for _, sc := range subdirs(filepath.Join(res, sys, bench)) {
						dir := filepath.Join(res, sys, bench, sc)
						l := treeLine{Division: div, Submitter: sub, System: sys, Benchmark: bench, Scenario: sc, dir: dir}
						l.Perf = cell{Text: "no performance/run_1", Class: "invalid"}
						if v := views[filepath.Join(dir, "performance", "run_1")]; v != nil {
							l.Perf = cell{Text: v.Verdict + ": " + v.Metric, Class: v.VerdictClass}
							if v.MetricMissing {
								l.Perf.Text = v.Verdict + ": " + v.Metric
							}
							l.PerfID = v.ID
						}
						l.Accuracy = cell{Text: "no accuracy/accuracy.txt", Class: "invalid"}
						if b, err := readSmall(filepath.Join(dir, "accuracy", "accuracy.txt"), 1<<20); err == nil {
							t, verdict := accuracyTable(string(b), bench)
							l.Accuracy = cell{Text: "score not found", Class: "invalid"}
							if t != nil {
								var parts []string
								for _, row := range t.Rows {
									parts = append(parts, row[1].Text+" "+row[2].Text+" (target "+row[3].Text+")")
								}
								cls := "valid"
								if verdict != "PASS" {
									cls = "invalid"
								}
								l.Accuracy = cell{Text: verdict + ": " + strings.Join(parts, ", "), Class: cls}
							}
						}
						for _, e := range subdirs(dir) {
							if strings.HasPrefix(e, "TEST") {
								testSet[e] = true
							}
						}
						tv.Lines = append(tv.Lines, l)
					}
				}
			}
		}
	}
	// Required compliance tests count as columns too, so that a missing
	// one shows.
	rnd, rerr := check.LookupRound(round)
	required := func(l treeLine) []string {
		if rerr != nil || l.Division == "open" {
			return nil
		}
		return rnd.Compliance(rnd.MLPerfModel(l.Benchmark, nil))
	}
	for _, l := range tv.Lines {
		for _, t := range required(l) {
			testSet[t] = true
		}
	}
	for t := range testSet {
		tv.Tests = append(tv.Tests, t)
	}
	sort.Strings(tv.Tests)
	for i := range tv.Lines {
		l := &tv.Lines[i]
		req := required(*l)
		for _, t := range tv.Tests {
			l.Tests = append(l.Tests, complianceVerdict(filepath.Join(l.dir, t), slices.Contains(req, t)))
		}
	}
	rep, err := check.Check(root, check.Options{Round: round})
	if err != nil {
		tv.CheckErr = err.Error()
		return tv
	}
	tv.CheckVerdict = "PASS"
	if !rep.OK() {
		tv.CheckVerdict = "FAIL"
	}
	for _, m := range rep.Lines {
		switch m.Level {
		case "ERROR":
			tv.Errors++
		case "WARNING":
			tv.Warnings++
		}
	}
	claim := func(level, msg string) {
		// The longest scenario folder the message names claims it.
		best := -1
		for i, l := range tv.Lines {
			if mentions(msg, l.dir) && (best < 0 || len(l.dir) > len(tv.Lines[best].dir)) {
				best = i
			}
		}
		m := checkMsg{level, msg}
		if best < 0 {
			tv.Messages = append(tv.Messages, m)
			return
		}
		tv.Lines[best].Messages = append(tv.Lines[best].Messages, m)
	}
	for _, m := range rep.Lines {
		claim(m.Level, m.Text)
	}
	for i := range tv.Lines {
		l := &tv.Lines[i]
		l.Check = cell{Text: "PASS", Class: "valid"}
		errs := 0
		for _, m := range l.Messages {
			if m.Level == "ERROR" {
				errs++
			}
		}
		if errs > 0 {
			l.Check = cell{Text: "FAIL", Class: "invalid"}
		}
	}
	return tv
}

// mentions reports whether msg names path (followed by a separator, a
// space or its end).
func mentions(msg, path string) bool {
	for i := strings.Index(msg, path); i >= 0; {
		end := i + len(path)
		if end == len(msg) || msg[end] == '/' || msg[end] == ' ' || msg[end] == ',' || msg[end] == ':' {
			return true
		}
		j := strings.Index(msg[end:], path)
		if j < 0 {
			break
		}
		i = end + j
	}
	return false
}

var passLine = regexp.MustCompile(`(?m)^(.*) pass: (True|False)\s*$`)

// complianceVerdict reads a compliance test folder's verify_*.txt files:
// "TEST PASS"/"TEST FAIL" (TEST01, TEST04) or the "... pass: True" lines
// (TEST06).
func complianceVerdict(dir string, required bool) cell {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if required {
			return cell{Text: "missing", Class: "invalid"}
		}
		return cell{Text: "—"}
	}
	var fails, passes []string
	for _, f := range []string{"verify_accuracy.txt", "verify_performance.txt"} {
		b, err := readSmall(filepath.Join(dir, f), 1<<20)
		if err != nil {
			continue
		}
		s := string(b)
		what := strings.TrimSuffix(strings.TrimPrefix(f, "verify_"), ".txt")
		switch {
		case strings.Contains(s, "TEST FAIL"):
			fails = append(fails, what)
		case strings.Contains(s, "TEST PASS"):
			passes = append(passes, what)
		default:
			for _, m := range passLine.FindAllStringSubmatch(s, -1) {
				if m[2] == "True" {
					passes = append(passes, m[1])
				} else {
					fails = append(fails, m[1])
				}
			}
		}
	}
	switch {
	case len(fails) > 0:
		return cell{Text: "FAIL (" + strings.Join(fails, ", ") + ")", Class: "invalid"}
	case len(passes) > 0:
		return cell{Text: "PASS", Class: "valid"}
	}
	return cell{Text: "no verify_*.txt", Class: "invalid"}
}
