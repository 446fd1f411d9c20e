// Command testreport reads `go test -json` events on standard input, writes
// the plain test output to the file named by its first argument, and prints
// a report: each package's result, each failed test, each skipped test with
// its reason (the last line it logged), and the number of skips. `make
// test` runs it (scripts/test.sh) so that no skip goes unseen.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// report is what testreport prints, gathered from the events.
type report struct {
	packages []string          // "ok  pkg 1.2s", "FAIL pkg", in order
	failed   []string          // pkg.Test
	skipped  []string          // "pkg.Test: reason"
	passed   int               // tests (and subtests) that passed
	lastLog  map[string]string // pkg.Test -> last line the test logged
}

func newReport() *report { return &report{lastLog: map[string]string{}} }

// add takes one event.
func (r *report) add(e event) {
	key := e.Package + "." + e.Test
	switch e.Action {
	case "output":
		if e.Test == "" {
			return
		}
		line := strings.TrimSpace(e.Output)
		if line != "" && !strings.HasPrefix(line, "=== ") && !strings.HasPrefix(line, "--- ") {
			r.lastLog[key] = line
		}
	case "skip":
		if e.Test == "" {
			return // a package without test files
		}
		reason := r.lastLog[key]
		if reason == "" {
			reason = "(no reason logged)"
		}
		r.skipped = append(r.skipped, key+": "+reason)
	case "fail":
		if e.Test == "" {
			r.packages = append(r.packages, fmt.Sprintf("FAIL %s (%.1fs)", e.Package, e.Elapsed))
			// A package that fails with no failed test (a build error, a
			// panic outside a test, a timeout) is one failure: the closing
			// line must not read "0 failed".
			if !slices.ContainsFunc(r.failed, func(f string) bool { return strings.HasPrefix(f, e.Package+".") }) {
				r.failed = append(r.failed, e.Package+" (failed outside any test: build error, panic or timeout; see the log)")
			}
		} else {
			r.failed = append(r.failed, key)
		}
	case "pass":
		if e.Test == "" {
			r.packages = append(r.packages, fmt.Sprintf("ok   %s (%.1fs)", e.Package, e.Elapsed))
		} else {
			r.passed++
		}
	}
}

// write prints the report.
func (r *report) write(w io.Writer) {
	for _, p := range r.packages {
		fmt.Fprintln(w, p)
	}
	for _, f := range r.failed {
		fmt.Fprintln(w, "FAILED", f)
	}
	sort.Strings(r.skipped)
	for _, s := range r.skipped {
		fmt.Fprintln(w, "SKIP", s)
	}
	// The plain closing line CI systems read: 'N passed, N failed, N skipped'.
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", r.passed, len(r.failed), len(r.skipped))
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go test -json ./... | testreport LOGFILE")
		os.Exit(2)
	}
	log, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	defer log.Close()
	lw := bufio.NewWriter(log)
	defer lw.Flush()
	r := newReport()
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// build errors and the like come as plain text
			fmt.Fprintln(lw, sc.Text())
			fmt.Println(sc.Text())
			continue
		}
		lw.WriteString(e.Output)
		r.add(e)
	}
	r.write(os.Stdout)
}
