package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// figure is the summary line of one report.
type figure struct {
	killed, judged, equivalent int
	commit, sample             string
}

var (
	summaryRE = regexp.MustCompile(`\*\*(\d+) killed / (\d+) judged = [0-9.]+ % \((\d+) survived, (\d+) not covered, (\d+) equivalent, (\d+) not viable\)\*\*`)
	commitRE  = regexp.MustCompile(`(?m)^- commit: (\S+)`)
	sampleRE  = regexp.MustCompile(`(?m)^- mutants found: (\d+); judged: (.*)$`)
	titleRE   = regexp.MustCompile(`(?m)^# Mutation testing: (\S+)`)
)

// readFigures reads the summary of every report in dir, by package.
func readFigures(dir string) (map[string]figure, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	out := map[string]figure{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("mutate: %w", err)
		}
		t, s := titleRE.FindSubmatch(b), summaryRE.FindSubmatch(b)
		if t == nil || s == nil {
			continue // not a report (README.md)
		}
		f := figure{}
		f.killed, _ = strconv.Atoi(string(s[1]))
		f.judged, _ = strconv.Atoi(string(s[2]))
		f.equivalent, _ = strconv.Atoi(string(s[5]))
		if c := commitRE.FindSubmatch(b); c != nil {
			f.commit = string(c[1])
		}
		if m := sampleRE.FindSubmatch(b); m != nil {
			f.sample = string(m[1]) + " found"
		}
		out[string(t[1])] = f
	}
	return out, nil
}

func (f figure) String() string {
	if f.judged == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d = %.0f %%", f.killed, f.judged, 100*float64(f.killed)/float64(f.judged))
}

// writeTable prints the before/after table of dir's reports and the
// baseline table of dir/baseline's, each with its total.
func writeTable(w io.Writer, dir string) error {
	after, err := readFigures(dir)
	if err != nil {
		return err
	}
	before, err := readFigures(filepath.Join(dir, "before"))
	if err != nil {
		return err
	}
	base, err := readFigures(filepath.Join(dir, "baseline"))
	if err != nil {
		return err
	}
	var pkgs []string
	for p := range after {
		pkgs = append(pkgs, p)
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			pkgs = append(pkgs, p)
		}
	}
	sort.Strings(pkgs)
	var tb, ta figure
	fmt.Fprintln(w, "| package | before | after | equivalent | mutants in the package |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, p := range pkgs {
		b, a := before[p], after[p]
		tb.killed, tb.judged = tb.killed+b.killed, tb.judged+b.judged
		ta.killed, ta.judged = ta.killed+a.killed, ta.judged+a.judged
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s |\n", p, b, a, a.equivalent, strings.TrimSuffix(a.sample, " found"))
	}
	fmt.Fprintf(w, "| **all** | **%s** | **%s** | | |\n", tb, ta)
	if len(base) == 0 {
		return nil
	}
	var names []string
	for p := range base {
		names = append(names, p)
	}
	sort.Strings(names)
	var tt figure
	fmt.Fprintln(w, "\nBaseline (not raised here):\n\n| package | kill rate | mutants in the package |\n|---|---|---|")
	for _, p := range names {
		f := base[p]
		tt.killed, tt.judged = tt.killed+f.killed, tt.judged+f.judged
		fmt.Fprintf(w, "| %s | %s | %s |\n", p, f, strings.TrimSuffix(f.sample, " found"))
	}
	fmt.Fprintf(w, "| **all** | **%s** | |\n", tt)
	return nil
}
