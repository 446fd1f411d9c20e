// Command mutate is the project's mutation tester (`make mutate PKG=...`).
// For each package it builds the tests once with coverage, then for each
// mutant found by internal/mutate (optionally a fixed, seeded sample of them)
// it builds the test binary with the mutated file put in by `go build
// -overlay` (the working tree is never written, so an interrupted run leaves
// nothing to restore) and runs it with a per-mutant deadline. A mutant is
// killed when a test fails or the deadline passes, survives when every test
// passes, and is not viable when it does not compile. Mutants in code that no
// test runs survive without being run. Mutants listed in the equivalents file
// (key, tab, argument) are not run and are reported with their argument; an
// argument that starts "untestable: " lists the mutant as not judged
// instead (a timeout's length, say, which a test could see only by timing).
//
// The report of a package is written as Markdown to -out/<pkg path with / as
// ->.md with the date, the commit and the command line.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mlperf-go/inference/internal/mutate"
)

type options struct {
	run     string        // -test.run of every test binary
	sample  int           // mutants per package, 0 for all
	seed    uint64        // seed of the sample
	timeout time.Duration // per mutant; 0: 10 times the clean run, at least 30 s
	out     string        // report folder, "" for none
	equiv   string        // equivalents file
	only    string        // run only mutants whose key matches
	list    bool          // list the mutants, run nothing
	args    []string      // the command line, for the report
}

func main() {
	var o options
	flag.StringVar(&o.run, "run", "", "run only the tests matching this regular expression (go test -run)")
	flag.IntVar(&o.sample, "sample", 0, "mutants per package, drawn with -seed (0: all)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the sample")
	flag.DurationVar(&o.timeout, "timeout", 0, "deadline of one mutant's test run (0: 10 times the clean run, at least 30s)")
	flag.StringVar(&o.out, "out", "docs/mutation", "folder of the per-package reports (empty: none)")
	flag.StringVar(&o.equiv, "equiv", "docs/mutation/equivalent.txt", "equivalent mutants: key, tab, argument, one a line")
	flag.StringVar(&o.only, "only", "", "run only the mutants whose key matches this regular expression")
	flag.BoolVar(&o.list, "list", false, "list the mutants and run nothing")
	table := flag.String("table", "", "print the Markdown table of the reports in this folder (and its before/ and baseline/) and exit")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: mutate [flags] package...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	o.args = os.Args[1:]
	if *table != "" {
		if err := writeTable(os.Stdout, *table); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signalContext()
	defer stop()
	if err := run(ctx, o, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// pkgInfo is what go list says of one package.
type pkgInfo struct {
	Dir        string
	ImportPath string
	GoFiles    []string
	Module     struct{ Dir string }
}

func run(ctx context.Context, o options, patterns []string, w io.Writer) error {
	equiv, err := readEquivalents(o.equiv)
	if err != nil {
		return err
	}
	var only *regexp.Regexp
	if o.only != "" {
		if only, err = regexp.Compile(o.only); err != nil {
			return fmt.Errorf("mutate: -only: %w", err)
		}
	}
	pkgs, err := listPackages(ctx, patterns)
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := runPackage(ctx, o, p, equiv, only, w); err != nil {
			return err
		}
	}
	return nil
}

func listPackages(ctx context.Context, patterns []string) ([]pkgInfo, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-json=Dir,ImportPath,GoFiles,Module"}, patterns...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("mutate: go list %s: %w", strings.Join(patterns, " "), err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("mutate: go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// result of one mutant.
type result struct {
	m      mutate.Mutant
	status string // killed, timeout, survived, uncovered, not viable, equivalent, skipped
	by     string // the first failing test, or the equivalence argument
}

const (
	stKilled     = "killed"
	stTimeout    = "killed (deadline)"
	stSurvived   = "survived"
	stUncovered  = "survived (not covered)"
	stNotViable  = "not viable"
	stEquivalent = "equivalent"
	stSkipped    = "not run (-only)"
	stNotJudged  = "not judged"
)

func runPackage(ctx context.Context, o options, p pkgInfo, equiv map[string]string, only *regexp.Regexp, w io.Writer) error {
	rel, err := filepath.Rel(p.Module.Dir, p.Dir)
	if err != nil {
		return fmt.Errorf("mutate: %s: %w", p.ImportPath, err)
	}
	rel = filepath.ToSlash(rel)
	var all []mutate.Mutant
	srcs := map[string][]byte{}
	for _, f := range p.GoFiles {
		src, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			return fmt.Errorf("mutate: %w", err)
		}
		if generated(src) {
			continue
		}
		name := rel + "/" + f
		srcs[name] = src
		ms, err := mutate.Find(name, src)
		if err != nil {
			return err
		}
		all = append(all, ms...)
	}
	chosen := all
	if o.sample > 0 && o.sample < len(all) {
		r := rand.New(rand.NewPCG(o.seed, 0x6d7574))
		idx := r.Perm(len(all))[:o.sample]
		sort.Ints(idx)
		chosen = make([]mutate.Mutant, len(idx))
		for i, k := range idx {
			chosen[i] = all[k]
		}
	}
	if o.list {
		for _, m := range chosen {
			fmt.Fprintf(w, "%s:%d\t%s\t%s → %s\t%s\n", m.File, m.Line, m.Op, m.Old, m.New, m.Key())
		}
		return nil
	}
	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return fmt.Errorf("mutate: %w", err)
	}
	defer os.RemoveAll(tmp)

	// The clean run: it must pass, it gives the coverage and the deadline.
	fmt.Fprintf(w, "%s: %d mutants, %d chosen; clean run with coverage...\n", rel, len(all), len(chosen))
	bin := filepath.Join(tmp, "clean.test")
	if out, err := goCmd(ctx, p.Dir, "test", "-c", "-cover", "-o", bin, "."); err != nil {
		return fmt.Errorf("mutate: %s: the tests do not build: %w\n%s", rel, err, out)
	}
	prof := filepath.Join(tmp, "cover.out")
	t0 := time.Now()
	out, failed, timedOut := runTests(ctx, bin, p.Dir, o.run, 30*time.Minute, "-test.coverprofile="+prof)
	clean := time.Since(t0)
	if failed || timedOut {
		return fmt.Errorf("mutate: %s: the tests fail without a mutant; fix them first:\n%s", rel, tail(out))
	}
	cov, err := readCover(prof, p.ImportPath, rel)
	if err != nil {
		return err
	}
	deadline := o.timeout
	if deadline == 0 {
		deadline = max(10*clean, 30*time.Second)
	}
	fmt.Fprintf(w, "%s: clean run %.1fs; deadline per mutant %s\n", rel, clean.Seconds(), deadline)

	start := time.Now()
	results := make([]result, 0, len(chosen))
	for i, m := range chosen {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := result{m: m}
		switch arg, ok := equiv[m.Key()]; {
		case ok && strings.HasPrefix(arg, "untestable: "):
			r.status, r.by = stNotJudged, strings.TrimPrefix(arg, "untestable: ")
		case ok:
			r.status, r.by = stEquivalent, arg
		case m.Skip != "":
			r.status, r.by = stNotJudged, m.Skip
		case only != nil && !only.MatchString(m.Key()):
			r.status = stSkipped
		case !cov.covers(m.File, m.Line):
			r.status = stUncovered
		default:
			r.status, r.by, err = tryMutant(ctx, o, p, m, srcs[m.File], tmp, deadline)
			if err != nil {
				return err
			}
		}
		results = append(results, r)
		if r.status != stSkipped && r.status != stNotJudged {
			fmt.Fprintf(w, "[%d/%d] %s:%d %s %s → %s: %s %s\n", i+1, len(chosen), m.File, m.Line, m.Op, short(m.Old), short(m.New), r.status, r.by)
		}
	}
	sum := summarise(results)
	fmt.Fprintf(w, "%s: %s (%.0fs)\n", rel, sum, time.Since(start).Seconds())
	if o.out == "" {
		return nil
	}
	return writeReport(o, rel, len(all), results, sum, clean, deadline)
}

// tryMutant builds and runs the tests with m applied through an overlay.
func tryMutant(ctx context.Context, o options, p pkgInfo, m mutate.Mutant, src []byte, tmp string, deadline time.Duration) (status, by string, err error) {
	mutated, err := m.Apply(src)
	if err != nil {
		return "", "", err
	}
	mfile := filepath.Join(tmp, "mutant.go")
	if err := os.WriteFile(mfile, mutated, 0o644); err != nil {
		return "", "", fmt.Errorf("mutate: %w", err)
	}
	ovl, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(p.Dir, filepath.Base(m.File)): mfile}})
	ovlFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovlFile, ovl, 0o644); err != nil {
		return "", "", fmt.Errorf("mutate: %w", err)
	}
	bin := filepath.Join(tmp, "mutant.test")
	// No vet and no symbol tables: a mutant's build is the run's main cost.
	if out, err := goCmd(ctx, p.Dir, "test", "-c", "-vet=off", "-ldflags=-s -w", "-overlay", ovlFile, "-o", bin, "."); err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return stNotViable, firstLine(out), nil
	}
	out, failed, timedOut := runTests(ctx, bin, p.Dir, o.run, deadline)
	if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	switch {
	case timedOut:
		return stTimeout, firstFail(out), nil
	case failed:
		return stKilled, firstFail(out), nil
	}
	return stSurvived, "", nil
}

func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// runTests runs a test binary in its package folder (as go test does) with
// -test.count=1 and -test.failfast, killing its process group at the
// deadline.
func runTests(ctx context.Context, bin, dir, run string, deadline time.Duration, extra ...string) (out []byte, failed, timedOut bool) {
	ctx, cancel := context.WithTimeout(ctx, deadline+10*time.Second)
	defer cancel()
	args := []string{"-test.count=1", "-test.failfast", "-test.timeout=" + deadline.String()}
	if run != "" {
		args = append(args, "-test.run="+run)
	}
	cmd := exec.CommandContext(ctx, bin, append(args, extra...)...)
	cmd.Dir = dir
	ownGroup(cmd)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	out = buf.Bytes()
	if ctx.Err() != nil || bytes.Contains(out, []byte("panic: test timed out after")) {
		return out, true, true
	}
	return out, err != nil, false
}

var failRE = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

func firstFail(out []byte) string {
	if m := failRE.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	if i := bytes.Index(out, []byte("panic:")); i >= 0 {
		return "panic"
	}
	return ""
}

func firstLine(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return short(l)
		}
	}
	return ""
}

func tail(out []byte) string {
	if len(out) > 4000 {
		out = out[len(out)-4000:]
	}
	return string(out)
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func generated(src []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "// Code generated ") && strings.HasSuffix(l, " DO NOT EDIT.") {
			return true
		}
		if strings.HasPrefix(l, "package ") {
			return false
		}
	}
	return false
}

// coverage holds, per module-relative file, the line ranges of every block of
// a -coverprofile and of the blocks that ran.
type coverage struct{ all, hit map[string][][2]int }

// covers reports whether a mutant on this line may be reached by a test: a
// line inside some block that ran, or inside no block at all (package-level
// declarations, a file the profile does not know).
func (c coverage) covers(file string, line int) bool {
	in := func(rs [][2]int) bool {
		for _, r := range rs {
			if r[0] <= line && line <= r[1] {
				return true
			}
		}
		return false
	}
	return in(c.hit[file]) || !in(c.all[file])
}

// readCover reads a -coverprofile, keeping the blocks of one package.
func readCover(path, importPath, rel string) (coverage, error) {
	c := coverage{all: map[string][][2]int{}, hit: map[string][][2]int{}}
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("mutate: coverage: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// name.go:12.3,14.5 2 1
		l := sc.Text()
		colon := strings.LastIndex(l, ":")
		if colon < 0 || strings.HasPrefix(l, "mode:") {
			continue
		}
		name := l[:colon]
		if !strings.HasPrefix(name, importPath+"/") {
			continue
		}
		file := rel + "/" + strings.TrimPrefix(name, importPath+"/")
		var sl, scol, el, ecol, n, cnt int
		if _, err := fmt.Sscanf(l[colon+1:], "%d.%d,%d.%d %d %d", &sl, &scol, &el, &ecol, &n, &cnt); err != nil {
			return c, fmt.Errorf("mutate: coverage line %q: %w", l, err)
		}
		c.all[file] = append(c.all[file], [2]int{sl, el})
		if cnt > 0 {
			c.hit[file] = append(c.hit[file], [2]int{sl, el})
		}
	}
	return c, sc.Err()
}

func readEquivalents(path string) (map[string]string, error) {
	m := map[string]string{}
	if path == "" {
		return m, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, arg, ok := strings.Cut(l, "\t")
		if !ok || strings.TrimSpace(arg) == "" {
			return nil, fmt.Errorf("mutate: %s:%d: want key, tab, argument", path, i+1)
		}
		m[k] = strings.TrimSpace(arg)
	}
	return m, nil
}

type summary struct {
	killed, survived, uncovered, notViable, equivalent, skipped int
}

func summarise(rs []result) summary {
	var s summary
	for _, r := range rs {
		switch r.status {
		case stKilled, stTimeout:
			s.killed++
		case stSurvived:
			s.survived++
		case stUncovered:
			s.uncovered++
		case stNotViable:
			s.notViable++
		case stEquivalent:
			s.equivalent++
		case stSkipped:
			s.skipped++
		}
	}
	return s
}

// rate is killed over the viable, non-equivalent mutants that were judged.
func (s summary) rate() float64 {
	n := s.killed + s.survived + s.uncovered
	if n == 0 {
		return 0
	}
	return 100 * float64(s.killed) / float64(n)
}

func (s summary) String() string {
	return fmt.Sprintf("%d killed / %d judged = %.1f %% (%d survived, %d not covered, %d equivalent, %d not viable)",
		s.killed, s.killed+s.survived+s.uncovered, s.rate(), s.survived, s.uncovered, s.equivalent, s.notViable)
}

func writeReport(o options, rel string, found int, rs []result, sum summary, clean, deadline time.Duration) error {
	if sum.skipped > 0 {
		return nil // a partial run (-only) does not replace the package's report
	}
	commit := gitOut("rev-parse", "--short=12", "HEAD")
	if gitOut("status", "--porcelain", "--", rel) != "" {
		commit += " (with uncommitted changes)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Mutation testing: %s\n\n", rel)
	fmt.Fprintf(&b, "- date: %s\n- commit: %s\n- command: `go run ./cmd/mutate %s`\n", time.Now().UTC().Format("2006-01-02"), commit, strings.Join(o.args, " "))
	fmt.Fprintf(&b, "- mutants found: %d; ", found)
	if o.sample > 0 && o.sample < found {
		fmt.Fprintf(&b, "judged: a seeded sample of %d (seed %d)\n", len(rs), o.seed)
	} else {
		fmt.Fprintf(&b, "judged: all %d\n", len(rs))
	}
	fmt.Fprintf(&b, "- clean run %.1f s; deadline per mutant %s\n", clean.Seconds(), deadline)
	fmt.Fprintf(&b, "- **%s**\n\n", sum)
	section := func(title string, keep func(result) bool, withBy bool) {
		var rows []result
		for _, r := range rs {
			if keep(r) {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "## %s (%d)\n\n", title, len(rows))
		if withBy {
			b.WriteString("| where | operator | change | argument |\n|---|---|---|---|\n")
		} else {
			b.WriteString("| where | operator | change | result | key |\n|---|---|---|---|---|\n")
		}
		for _, r := range rows {
			change := "`" + md(short(r.m.Old)) + "` → `" + md(short(r.m.New)) + "`"
			if withBy {
				fmt.Fprintf(&b, "| %s:%d %s | %s | %s | %s |\n", r.m.File, r.m.Line, r.m.Func, r.m.Op, change, md(r.by))
			} else {
				res := r.status
				if r.by != "" {
					res += " by " + r.by
				}
				fmt.Fprintf(&b, "| %s:%d %s | %s | %s | %s | `%s` |\n", r.m.File, r.m.Line, r.m.Func, r.m.Op, change, md(res), md(r.m.Key()))
			}
		}
		b.WriteString("\n")
	}
	section("Survivors", func(r result) bool { return r.status == stSurvived || r.status == stUncovered }, false)
	section("Equivalent mutants, not run", func(r result) bool { return r.status == stEquivalent }, true)
	section("Listed but not judged", func(r result) bool { return r.status == stNotJudged }, true)
	section("All judged mutants", func(r result) bool { return r.status != stEquivalent && r.status != stNotJudged }, false)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("mutate: %w", err)
	}
	name := filepath.Join(o.out, strings.ReplaceAll(rel, "/", "-")+".md")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("mutate: %w", err)
	}
	return nil
}

func md(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func gitOut(args ...string) string {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
