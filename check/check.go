// Package check checks an MLPerf Inference results tree as the MLCommons
// submission checker does (mlcommons/inference
// tools/submission/submission_checker, run as
// `python3 -m submission_checker.main --input TREE --version vX`): for each
// round it knows (rounds.go), the folder layout of that round (v5.x or
// v6.x), the system description, measurements.json, the performance and
// accuracy logs of LoadGen runs and of endpoints runs
// (mlcommons/endpoints), and the compliance tests. It reaches the
// checker's verdict and prints the checker's messages, in its order and
// with its path forms; where the checker crashes with a Python exception,
// it prints an error naming the file and the fix instead (see crash) and
// checks the rest of the tree. Power measurements are not checked (the
// checker runs the Power WG's power_checker.py on them).
package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Options are the checker's command-line options that change a check.
type Options struct {
	// Round is the round whose tables apply (--version); "" is Newest.
	Round string
	// Submitter checks only that submitter's folder (--submitter).
	Submitter string
	// SubmissionExceptions tolerates LoadGen's "uncommitted changes"
	// error and makes the other LoadGen errors of performance logs fail
	// (--submission-exceptions; without it the checker ignores errors in
	// performance logs).
	SubmissionExceptions bool
	// SkipMeaningfulFieldsEmptinessCheck accepts empty values of the
	// system and measurements fields that need one.
	SkipMeaningfulFieldsEmptinessCheck bool
	// SkipEmptyFilesCheck accepts an empty user.conf or README.md.
	SkipEmptyFilesCheck bool
	// SkipExtraAccuracyFilesCheck skips the sdxl images and wan videos.
	SkipExtraAccuracyFilesCheck bool
	// SkipDatasetSizeCheck skips the accuracy run's sample count check.
	SkipDatasetSizeCheck bool
	// CSV, when set, is where the summary CSV is written (--csv).
	CSV string
}

// Line is one message of a check: Level is ERROR or WARNING.
type Line struct {
	Level, Text string
}

func (l Line) String() string { return l.Level + " " + l.Text }

// Result is one scenario folder's outcome: the performance log's path
// and the result the checker records (None when a check failed).
type Result struct {
	Path   string
	Metric value
	Valid  bool
}

// Report is what a check found.
type Report struct {
	// Round is the round checked.
	Round string
	// Lines are the checker's ERROR and WARNING messages in its order
	// (without its "Execution of check ... skipped" notes), and this
	// package's errors where the checker would crash.
	Lines []Line
	// Results has one entry per scenario folder, sorted by path.
	Results []Result
	// Crashes counts the points where the MLCommons checker would stop
	// with a traceback.
	Crashes int

	systems map[string]map[bool]map[string]int // division → power → system → results
	rows    [][]string
}

// OK reports whether the tree passed: every scenario has a result and
// nothing would crash the checker.
func (r *Report) OK() bool {
	if r.Crashes > 0 {
		return false
	}
	for _, res := range r.Results {
		if !res.Valid || !res.Metric.truthy() {
			return false
		}
	}
	return true
}

func (r *Report) add(level, format string, a ...any) {
	r.Lines = append(r.Lines, Line{level, fmt.Sprintf(format, a...)})
}

// Print writes the report as the checker logs it: the messages, the
// results, the counts and the SUMMARY line.
func (r *Report) Print(w io.Writer) {
	for _, l := range r.Lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "INFO ---")
	with := 0
	for _, res := range r.Results {
		if res.Valid && res.Metric.truthy() {
			fmt.Fprintf(w, "INFO Results %s %s\n", res.Path, pyStr(res.Metric))
			with++
		}
	}
	fmt.Fprintln(w, "INFO ---")
	for _, res := range r.Results {
		if !res.Valid || res.Metric.isNone() {
			fmt.Fprintf(w, "ERROR NoResults %s\n", res.Path)
		}
	}
	count := func(division string, power bool) (systems, results int) {
		for _, n := range r.systems[division][power] {
			systems++
			results += n
		}
		return
	}
	fmt.Fprintln(w, "INFO ---")
	var totalPower int
	for _, d := range []string{"closed", "open", "network"} {
		_, n := count(d, true)
		totalPower += n
	}
	fmt.Fprintf(w, "INFO Results=%d, NoResults=%d, Power Results=%d\n", with, len(r.Results)-with, totalPower)
	fmt.Fprintln(w, "INFO ---")
	for _, d := range []string{"Closed", "Open", "Network"} {
		_, p := count(strings.ToLower(d), true)
		_, np := count(strings.ToLower(d), false)
		fmt.Fprintf(w, "INFO %s Results=%d, %s Power Results=%d\n", d, p+np, d, p)
	}
	fmt.Fprintln(w, "INFO ---")
	unique, uniquePower := map[string]bool{}, map[string]bool{}
	for _, d := range []string{"closed", "open", "network"} {
		for power, m := range r.systems[d] {
			for s := range m {
				unique[s] = true
				if power {
					uniquePower[s] = true
				}
			}
		}
	}
	fmt.Fprintf(w, "INFO Systems=%d, Power Systems=%d\n", len(unique), len(uniquePower))
	for _, d := range []string{"Closed", "Open", "Network"} {
		ps, _ := count(strings.ToLower(d), true)
		nps, _ := count(strings.ToLower(d), false)
		fmt.Fprintf(w, "INFO %s Systems=%d, %s Power Systems=%d\n", d, ps+nps, d, ps)
	}
	fmt.Fprintln(w, "INFO ---")
	if r.OK() {
		fmt.Fprintln(w, "INFO SUMMARY: submission looks OK")
	} else {
		fmt.Fprintln(w, "ERROR SUMMARY: submission has errors")
	}
}

// ErrFailed is returned by Run when the tree has errors.
var ErrFailed = errors.New("check: submission has errors")

// Check checks the results tree at root (the folder holding closed/,
// open/ or network/), as given: the paths in the messages start with it,
// as the checker's do.
func Check(root string, o Options) (*Report, error) {
	round, err := LookupRound(o.Round)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("check: results tree %s does not exist; give the folder that holds closed/, open/ or network/ (what `mlperf submission --out` writes)", root)
	case err != nil:
		return nil, fmt.Errorf("check: %w", err)
	case !st.IsDir():
		return nil, fmt.Errorf("check: %s is a file; give the results tree folder that holds closed/, open/ or network/", root)
	}
	c := &checker{root: root, round: round, o: o, rep: &Report{Round: round.Name, systems: map[string]map[bool]map[string]int{}}}
	c.run()
	sort.Slice(c.rep.Results, func(i, j int) bool { return c.rep.Results[i].Path < c.rep.Results[j].Path })
	if o.CSV != "" {
		if err := c.writeCSV(o.CSV); err != nil {
			return c.rep, err
		}
	}
	return c.rep, nil
}

// Run checks the tree at root, prints the report to w and returns
// ErrFailed when the tree has errors. A tree with no results at all is an
// error too (the checker passes it): the folder given is not a results
// tree.
func Run(root string, o Options, w io.Writer) error {
	rep, err := Check(root, o)
	if err != nil {
		return err
	}
	if len(rep.Results) == 0 && rep.Crashes == 0 {
		for _, l := range rep.Lines {
			fmt.Fprintln(w, l)
		}
		return fmt.Errorf("check: no results under %s: want %s/<division>/<submitter>/results/<system>/<benchmark>/<scenario>/ (as mlperf submission writes)", root, root)
	}
	rep.Print(w)
	if !rep.OK() {
		return ErrFailed
	}
	return nil
}
