package submission

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/loadgen"
)

// Main is `mlperf submission`:
//
//	mlperf submission --benchmark B --out DIR [--system FILE.json] [--scenarios S,...] [--division closed|open|network]
//	                  [--submitter NAME] [--round v6.1] [--from DIR] [measurement flags] [run flags]
//	mlperf submission system-template [--name NAME] [--system-type edge|datacenter|datacenter,edge]
//
// It runs what the round requires of the benchmark in each scenario
// (accuracy, performance, the compliance tests), or collects existing run
// folders with --from DIR (DIR/<Scenario>/{accuracy,performance,TEST01,
// TEST04,TEST06}/ and an optional DIR/<Scenario>/user.conf), and writes the
// results tree. system-template prints a system description with what this
// machine tells.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "system-template" {
		fs := flag.NewFlagSet("submission system-template", flag.ContinueOnError)
		fs.SetOutput(stderr)
		name := fs.String("name", "my_system", "system_name")
		typ := fs.String("system-type", "edge", "edge, datacenter or datacenter,edge")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("submission system-template: unexpected argument %q", fs.Arg(0))
		}
		if err := checkSystemType(*typ); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(SystemTemplate(*name, *typ), "", "  ")
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	// The benchmark decides the run flags, so find it first.
	name := ""
	for i, a := range args {
		if v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "benchmark="); ok && strings.HasPrefix(a, "-") {
			name = v
		} else if strings.TrimLeft(a, "-") == "benchmark" && strings.HasPrefix(a, "-") && i+1 < len(args) {
			name = args[i+1]
		}
	}
	if name == "" {
		fmt.Fprintln(stderr, "usage: mlperf submission --benchmark B --out DIR [--system FILE.json] [--scenarios S,...] [--from DIR] [flags]\n       mlperf submission system-template [--name NAME] [--system-type T]")
		for _, a := range args {
			if a == "-h" || a == "-help" || a == "--help" {
				fmt.Fprintln(stderr, "Give --benchmark B -h for the run flags of benchmark B.")
				return flag.ErrHelp
			}
		}
		return errors.New("submission: --benchmark is required")
	}
	b, ok := benchmark.Lookup(name)
	if !ok {
		return benchmark.Unknown(name)
	}
	fs := flag.NewFlagSet("submission", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("benchmark", "", "benchmark to submit")
	out := fs.String("out", "submission", "folder to write the results tree in")
	systemFile := fs.String("system", "", "system description json (default: the system-template of this machine); its base name names the system folder")
	systemName := fs.String("system-name", "", "system folder name (default: the --system file's base name, else the host's)")
	systemType := fs.String("system-type", "", "system_type of the template when --system is not given: edge, datacenter or datacenter,edge (default: edge if the round has edge scenarios for the benchmark, else datacenter)")
	scenarios := fs.String("scenarios", "", "comma-separated scenarios (default: those the round requires of the system type)")
	division := fs.String("division", "closed", "closed, open or network")
	submitter := fs.String("submitter", "", "submitter (default: the system json's, else MLPerf-Go)")
	round := fs.String("round", "v6.1", "submission round whose tables decide the scenarios and compliance tests")
	checkerID := fs.String("checker-id", "", "the checker's model id (default: the first of the benchmark's the round lists)")
	from := fs.String("from", "", "collect existing run folders from DIR/<Scenario>/... instead of running")
	work := fs.String("work", "", "folder for the runs' logs (default: <out>-runs, beside the tree)")
	weights := fs.String("weights", "", "starting_weights_filename for measurements.json (default: the --model value)")
	inTypes := fs.String("input-data-types", "fp32", "measurements.json input_data_types")
	wTypes := fs.String("weight-data-types", "fp32", "measurements.json weight_data_types")
	wTrans := fs.String("weight-transformations", "none", "measurements.json weight_transformations")
	retraining := fs.String("retraining", "no", "measurements.json retraining")
	dtype := fs.String("test01-dtype", "", "TEST01: response element type compared (byte|float32|int32|int64; default byte)")
	opts := compliance.RunFlags(fs, b)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("submission: unexpected argument %q (flags take their value as --flag VALUE)", fs.Arg(0))
	}
	if err := checkPaths(*out, *work, *from); err != nil {
		return err
	}
	if *systemType != "" {
		if err := checkSystemType(*systemType); err != nil {
			return err
		}
	}
	o, err := opts()
	if err != nil {
		return err
	}
	r, err := check.LookupRound(*round)
	if err != nil {
		return err
	}
	if !slices.Contains([]string{"closed", "open", "network"}, *division) {
		return fmt.Errorf("submission: --division %q: want closed, open or network", *division)
	}
	id := *checkerID
	if id == "" {
		for _, c := range b.CheckerIDs {
			if r.HasModel(c) {
				id = c
				break
			}
		}
	}
	if !r.HasModel(id) {
		return fmt.Errorf("submission: %s is not in round %s (its checker ids: %s); try an older --round", b.Name, *round, strings.Join(b.CheckerIDs, ", "))
	}
	sys := map[string]any{}
	if *systemFile != "" {
		data, err := os.ReadFile(*systemFile)
		if err != nil {
			return fmt.Errorf("submission: --system: %w", err)
		}
		if err := json.Unmarshal(data, &sys); err != nil {
			return fmt.Errorf("submission: --system %s is not a system description JSON object (%v); write one with `mlperf submission system-template > %s` and edit it", *systemFile, err, *systemFile)
		}
		if *systemName == "" {
			*systemName = strings.TrimSuffix(filepath.Base(*systemFile), ".json")
		}
	} else {
		host, _ := os.Hostname()
		if *systemName == "" {
			*systemName = strings.ReplaceAll(host, ".", "_")
		}
		if *systemType == "" {
			*systemType = "edge"
			if len(r.Required[check.Edge][id]) == 0 {
				*systemType = "datacenter"
			}
		}
		sys = SystemTemplate(*systemName, *systemType)
	}
	if *submitter == "" {
		*submitter, _ = sys["submitter"].(string)
		if *submitter == "" {
			*submitter = "MLPerf-Go"
		}
	}
	var scs []string
	if *scenarios != "" {
		if scs, err = parseScenarios(b, *scenarios); err != nil {
			return err
		}
	} else {
		typ, _ := sys["system_type"].(string)
		if strings.Contains(typ, "edge") {
			scs = append(scs, r.Required[check.Edge][id]...)
		}
		if strings.Contains(typ, "datacenter") {
			for _, s := range r.Required[check.Datacenter][id] {
				if !slices.Contains(scs, s) {
					scs = append(scs, s)
				}
			}
		}
	}
	if len(scs) == 0 {
		return fmt.Errorf("submission: no scenarios: give --scenarios")
	}
	if *weights == "" {
		*weights = o.Model
	}
	tree := &Tree{
		Out: *out, Division: *division, Submitter: *submitter, System: *systemName, SystemJSON: sys,
		Benchmark: id, TEST01DType: *dtype, Log: stderr, Score: compliance.ScorerOf(ctx, b, o, stderr),
		Measurements: Measurements{StartingWeightsFilename: *weights, Retraining: *retraining, InputDataTypes: *inTypes, WeightDataTypes: *wTypes, WeightTransformations: *wTrans},
	}
	tests := r.Compliance(id)
	if *division == "open" {
		tests = nil
	}
	command := "mlperf submission " + strings.Join(args, " ")
	if *work == "" {
		*work = filepath.Clean(*out) + "-runs"
	}
	for _, scName := range scs {
		sc := Scenario{Name: scName, Compliance: map[string]string{}, Command: command}
		if *from != "" {
			d := filepath.Join(*from, scName)
			sc.Performance, sc.Accuracy = filepath.Join(d, "performance"), filepath.Join(d, "accuracy")
			if _, err := os.Stat(sc.Performance); err != nil {
				return fmt.Errorf("%w: %s has no performance folder", ErrNoRuns, d)
			}
			if _, err := os.Stat(filepath.Join(d, "user.conf")); err == nil {
				sc.UserConf = filepath.Join(d, "user.conf")
			}
			for _, t := range tests {
				if _, err := os.Stat(filepath.Join(d, t)); err == nil {
					sc.Compliance[t] = filepath.Join(d, t)
				} else {
					fmt.Fprintf(stderr, "submission: note: %s has no %s folder; the tree will lack it\n", d, t)
				}
			}
			sc.Command += "\n# runs collected from " + d
		} else {
			if err := runScenario(ctx, b, o, scName, tests, filepath.Join(*work, scName), &sc, stderr); err != nil {
				return err
			}
			sc.UserConf = o.UserConf
		}
		tree.Scenarios = append(tree.Scenarios, sc)
	}
	dirs, err := tree.Write()
	if err != nil {
		return err
	}
	for _, d := range dirs {
		fmt.Fprintln(stdout, d)
	}
	fmt.Fprintf(stderr, "submission: wrote %s; check it with: mlperf check %s --round %s\n", filepath.Join(*out, *division, *submitter), *out, *round)
	return nil
}

// runScenario runs the accuracy and performance runs and the compliance
// runs of one scenario into work, and records them in sc.
func runScenario(ctx context.Context, b *benchmark.Benchmark, o benchmark.Options, scName string, tests []string, work string, sc *Scenario, stderr io.Writer) error {
	lgName := scName
	if scName == "Interactive" {
		lgName = "Server"
	}
	s, err := loadgen.ParseScenario(lgName)
	if err != nil {
		return err
	}
	o.Scenario = s
	if scName == "Interactive" && !strings.HasSuffix(o.ModelName, "-interactive") {
		for _, n := range b.ConfNames {
			if strings.HasSuffix(n, "-interactive") {
				o.ModelName = n
			}
		}
	}
	sc.Accuracy, sc.Performance = filepath.Join(work, "accuracy"), filepath.Join(work, "performance")
	for _, run := range []struct {
		mode loadgen.Mode
		out  string
	}{{loadgen.AccuracyOnly, sc.Accuracy}, {loadgen.PerformanceOnly, sc.Performance}} {
		ro := o
		ro.Mode, ro.Out = run.mode, run.out
		fmt.Fprintf(stderr, "submission: %s %s %s\n", b.Name, scName, run.mode)
		if _, err := benchmark.Run(ctx, b, ro, io.Discard, stderr); err != nil {
			return fmt.Errorf("submission: %s %s %s run: %w", b.Name, scName, run.mode, err)
		}
	}
	for _, t := range tests {
		if !slices.Contains(compliance.Tests, t) {
			fmt.Fprintf(stderr, "submission: note: %s is not implemented here; the tree will lack it\n", t)
			continue
		}
		fmt.Fprintf(stderr, "submission: %s %s %s\n", b.Name, scName, t)
		dir := filepath.Join(work, t)
		if err := compliance.RunTest(ctx, b, t, o, dir, stderr); err != nil {
			return err
		}
		sc.Compliance[t] = dir
	}
	flags := fmt.Sprintf("--scenario %s --model %s --model-name %s --data %s --backend %s", lgName, o.Model, o.ModelName, o.Data, o.Backend)
	if o.UserConf != "" {
		flags += " --user-conf " + o.UserConf
	}
	if o.Count > 0 {
		flags += fmt.Sprintf(" --count %d", o.Count)
	}
	if o.QPS > 0 {
		flags += fmt.Sprintf(" --qps %g", o.QPS)
	}
	if o.Duration > 0 {
		flags += " --duration " + o.Duration.String()
	}
	if o.MinQueries > 0 {
		flags += fmt.Sprintf(" --min-queries %d", o.MinQueries)
	}
	keys := make([]string, 0, len(o.Extra))
	for k := range o.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := o.Extra[k]; v != "" {
			flags += fmt.Sprintf(" --%s %s", k, v)
		}
	}
	sc.Command += fmt.Sprintf("\n# which runs, for %s:\nmlperf run %s %s --mode accuracy\nmlperf run %s %s --mode performance", scName, b.Name, flags, b.Name, flags)
	for _, t := range tests {
		sc.Command += fmt.Sprintf("\nmlperf compliance %s %s --results <this folder> %s", strings.ToLower(t), b.Name, flags)
	}
	return nil
}

// checkPaths refuses, before any run, an --out or --work that is a file
// and a --from that is missing or not a folder.
func checkPaths(out, work, from string) error {
	for _, p := range []struct{ flag, path string }{{"--out", out}, {"--work", work}} {
		if p.path == "" {
			continue
		}
		if st, err := os.Stat(p.path); err == nil && !st.IsDir() {
			return fmt.Errorf("submission: %s %s is a file; give a folder (created if missing)", p.flag, p.path)
		}
	}
	if from == "" {
		return nil
	}
	st, err := os.Stat(from)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: --from %s does not exist; give the folder of earlier runs, with one <Scenario>/performance (and accuracy) folder per scenario", ErrNoRuns, from)
	case err != nil:
		return fmt.Errorf("submission: --from: %w", err)
	case !st.IsDir():
		return fmt.Errorf("%w: --from %s is a file; give the folder of earlier runs, with one <Scenario>/performance (and accuracy) folder per scenario", ErrNoRuns, from)
	}
	return nil
}

// checkSystemType refuses a system_type the checker does not know.
func checkSystemType(t string) error {
	switch t {
	case "edge", "datacenter", "datacenter,edge", "edge,datacenter":
		return nil
	}
	return fmt.Errorf("submission: --system-type %q: want edge, datacenter or datacenter,edge", t)
}

// parseScenarios splits a --scenarios list and checks each name against
// b's scenarios (Interactive is Server's LLM variant).
func parseScenarios(b *benchmark.Benchmark, list string) ([]string, error) {
	var names []string
	for _, sc := range b.Scenarios {
		names = append(names, sc.String())
	}
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		lg := f
		if f == "Interactive" {
			lg = "Server"
		}
		sc, err := loadgen.ParseScenario(lg)
		if f == "" || err != nil || !slices.Contains(b.Scenarios, sc) {
			return nil, fmt.Errorf("submission: --scenarios %q: %q is not a scenario of %s; want a comma-separated list of %s", list, f, b.Name, strings.Join(names, ", "))
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("submission: --scenarios %q: %s is listed twice", list, f)
		}
		out = append(out, f)
	}
	return out, nil
}
