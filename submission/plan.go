package submission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/loadgen"
)

// Options are what a submission is asked for (cmd/mlperf parses the
// flags of `mlperf submission` into them).
type Options struct {
	// Benchmark is the benchmark submitted.
	Benchmark *spec.Benchmark
	// RunOptions are the runs' settings (model, data, backend, user.conf,
	// ...); the scenario, mode, output folder and seeds are set per run.
	RunOptions benchmark.Options
	// Out is the folder the tree is written in.
	Out string
	// Work is the folder of the runs' logs ("": Out + "-runs").
	Work string
	// From, when set, is a folder of earlier runs collected instead of
	// running: From/<Scenario>/{performance,accuracy,TEST01,...}/ and an
	// optional From/<Scenario>/user.conf, or an endpoints run's
	// From/<Scenario>/{config.yaml,performance/result_summary.json,
	// accuracy/accuracy_results.json,audit/}.
	From string
	// Round is the submission round ("": the newest): its tables decide
	// the scenarios, the compliance tests, the seeds of the runs and the
	// layout of the tree.
	Round string
	// Division is closed, open or network ("": closed).
	Division string
	// Submitter names the submitter folder ("": the system description's
	// submitter, else MLPerf-Go).
	Submitter string
	// System is the system description (nil: SystemTemplate of this
	// machine with SystemType).
	System map[string]any
	// SystemName names the system folder and description ("": the
	// host's name).
	SystemName string
	// SystemType is the template's system_type when System is nil ("":
	// edge if the round lists the benchmark for edge systems, else
	// datacenter, else datacenter,edge).
	SystemType string
	// Scenarios are the scenario folders ("": those the round requires
	// of the system type, and Server where Server or Interactive is).
	Scenarios []string
	// CheckerID is the checker's model id ("": the first of the
	// benchmark's the round lists).
	CheckerID string
	// Measurements is measurements.json (StartingWeightsFilename "": the
	// run's model, else the benchmark's default model; the other fields
	// "": DefaultMeasurements').
	Measurements Measurements
	// TEST01DType is the response element type TEST01 compares.
	TEST01DType string
	// Command is the command line, for README.md.
	Command string
}

// Plan is a checked submission: the round's tables applied to Options.
type Plan struct {
	Options
	Round      *check.Round
	SystemType check.SystemType
	// Tests are the compliance tests each scenario needs.
	Tests []string
}

// ErrNoRuns is returned when --from holds no run folders for a scenario.
var ErrNoRuns = errors.New("submission: no run folders")

// NewPlan checks o against the round's tables before anything runs: the
// names of the tree, the model id, the system type and the scenarios the
// round lists for it, the compliance tests it requires, and the folders.
func NewPlan(o Options) (*Plan, error) {
	b := o.Benchmark
	if b == nil {
		return nil, errors.New("submission: no benchmark")
	}
	r, err := check.LookupRound(o.Round)
	if err != nil {
		return nil, fmt.Errorf("submission: %w", err)
	}
	o.Round = r.Name
	if o.Division == "" {
		o.Division = "closed"
	}
	if !slices.Contains([]string{"closed", "open", "network"}, o.Division) {
		return nil, fmt.Errorf("submission: --division %q: want closed, open or network", o.Division)
	}
	if o.Out == "" {
		return nil, errors.New("submission: no --out folder")
	}
	if o.Work == "" {
		o.Work = filepath.Clean(o.Out) + "-runs"
	}
	if err := checkPaths(o.Out, o.Work, o.From); err != nil {
		return nil, err
	}
	if o.CheckerID == "" {
		for _, id := range b.CheckerIDs {
			if r.HasModel(id) {
				o.CheckerID = id
				break
			}
		}
		if o.CheckerID == "" {
			return nil, fmt.Errorf("submission: %s is not in round %s (its checker ids %s are listed by %s); give --round", b.Name, r.Name, strings.Join(b.CheckerIDs, ", "), roundsListing(b.CheckerIDs))
		}
	} else if !r.HasModel(o.CheckerID) {
		return nil, fmt.Errorf("submission: --checker-id %q is not a model of round %s (%s lists it)", o.CheckerID, r.Name, roundsListing([]string{o.CheckerID}))
	}
	id := o.CheckerID
	p := &Plan{Options: o, Round: r}
	if o.System != nil {
		st, _ := o.System["system_type"].(string)
		typ, ok := check.ParseSystemType(st)
		if !ok {
			return nil, fmt.Errorf("submission: --system's system_type %q: want edge, datacenter or datacenter,edge", st)
		}
		p.SystemType = typ
	} else {
		if o.SystemType != "" {
			typ, ok := check.ParseSystemType(o.SystemType)
			if !ok {
				return nil, fmt.Errorf("submission: --system-type %q: want edge, datacenter or datacenter,edge", o.SystemType)
			}
			p.SystemType = typ
		} else {
			for _, t := range []check.SystemType{check.Edge, check.Datacenter, check.DatacenterEdge} {
				if _, ok := r.Required[t][id]; ok {
					p.SystemType = t
					break
				}
			}
		}
	}
	if _, ok := r.Required[p.SystemType][id]; !ok {
		return nil, fmt.Errorf("submission: round %s lists %s for %s systems only, not %s (the checker stops on it); give --system-type or a --system of that type", r.Name, id, strings.Join(systemTypesOf(r, id), " and "), p.SystemType)
	}
	if o.SystemName == "" {
		host, _ := os.Hostname()
		p.SystemName = strings.NewReplacer(".", "_", "/", "_").Replace(host)
	}
	if p.System == nil {
		p.System = SystemTemplate(p.SystemName, string(p.SystemType))
	}
	if p.Submitter == "" {
		p.Submitter, _ = p.System["submitter"].(string)
		if p.Submitter == "" {
			p.Submitter = "MLPerf-Go"
		}
	}
	for _, n := range []struct{ what, name string }{{"--division", p.Division}, {"--submitter (or the system description's submitter)", p.Submitter},
		{"--system-name (or the --system file's name)", p.SystemName}, {"--checker-id", id}} {
		if err := checkName(n.what, n.name); err != nil {
			return nil, err
		}
	}
	required, optional := r.Required[p.SystemType][id], r.Optional[p.SystemType][id]
	if len(p.Scenarios) == 0 {
		p.Scenarios = append([]string(nil), required...)
		if slices.Contains(optional, "Server") && slices.Contains(optional, "Interactive") {
			// The checker wants one of them (loader.py check_scenarios).
			p.Scenarios = append(p.Scenarios, "Server")
		}
	}
	for _, sc := range p.Scenarios {
		if err := checkName("scenario", sc); err != nil {
			return nil, err
		}
		if !slices.Contains(required, sc) && !slices.Contains(optional, sc) && p.Division != "open" {
			return nil, fmt.Errorf("submission: round %s has no scenario %s for %s on %s systems (required: %s; optional: %s); the checker rejects an unknown scenario folder",
				r.Name, sc, id, p.SystemType, strings.Join(required, ", "), listOrNone(optional))
		}
		if o.From == "" {
			if err := runnable(b, sc); err != nil {
				return nil, err
			}
		}
	}
	if p.Division != "open" {
		p.Tests = r.Compliance(id)
	}
	m := &p.Measurements
	for _, f := range []struct {
		v   *string
		def string
	}{{&m.StartingWeightsFilename, p.RunOptions.Model},
		{&m.Retraining, DefaultMeasurements.Retraining}, {&m.InputDataTypes, DefaultMeasurements.InputDataTypes},
		{&m.WeightDataTypes, DefaultMeasurements.WeightDataTypes}, {&m.WeightTransformations, DefaultMeasurements.WeightTransformations}} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	if m.StartingWeightsFilename == "" {
		m.StartingWeightsFilename = b.Model.Default
	}
	if m.StartingWeightsFilename == "" {
		return nil, errors.New("submission: measurements.json needs starting_weights_filename: give --weights (or --model)")
	}
	p.RunOptions.Seeds = &r.Seeds
	return p, nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// roundsListing names the rounds that list any of ids.
func roundsListing(ids []string) string {
	var out []string
	for _, name := range check.RoundNames() {
		for _, id := range ids {
			if check.Rounds[name].HasModel(id) {
				out = append(out, name)
				break
			}
		}
	}
	if len(out) == 0 {
		return "no round"
	}
	return "round " + strings.Join(out, ", ")
}

func systemTypesOf(r *check.Round, id string) []string {
	var out []string
	for _, t := range []check.SystemType{check.Edge, check.Datacenter, check.DatacenterEdge} {
		if _, ok := r.Required[t][id]; ok {
			out = append(out, string(t))
		}
	}
	return out
}

// runnable refuses a scenario the benchmark cannot run (Interactive is
// Server's LLM variant).
func runnable(b *spec.Benchmark, sc string) error {
	lg := sc
	if sc == "Interactive" {
		lg = "Server"
	}
	s, err := loadgen.ParseScenario(lg)
	if err != nil || !slices.Contains(b.Scenarios, s) {
		var names []string
		for _, x := range b.Scenarios {
			names = append(names, x.String())
		}
		return fmt.Errorf("submission: %s does not run scenario %s (it runs %s)", b.Name, sc, strings.Join(names, ", "))
	}
	return nil
}

// Run runs the plan's runs (accuracy, performance and the compliance
// tests of each scenario, with the round's seeds) into Work, or collects
// them from From.
func (p *Plan) Run(ctx context.Context, stderr io.Writer) ([]Scenario, error) {
	var out []Scenario
	for _, name := range p.Scenarios {
		sc := Scenario{Name: name, Compliance: map[string]string{}, Command: p.Command}
		if p.From != "" {
			if err := p.collect(name, &sc, stderr); err != nil {
				return nil, err
			}
		} else {
			if err := p.runScenario(ctx, name, filepath.Join(p.Work, name), &sc, stderr); err != nil {
				return nil, err
			}
			sc.UserConf = p.RunOptions.UserConf
		}
		out = append(out, sc)
	}
	return out, nil
}

// collect records the runs of From/<name>.
func (p *Plan) collect(name string, sc *Scenario, stderr io.Writer) error {
	d := filepath.Join(p.From, name)
	sc.Command += "\n# runs collected from " + d
	_, lgErr := os.Stat(filepath.Join(d, "performance"))
	if _, err := os.Stat(filepath.Join(d, "performance", "result_summary.json")); err == nil {
		if _, err := os.Stat(filepath.Join(logFolder(filepath.Join(d, "performance")), "mlperf_log_detail.txt")); err != nil {
			sc.Endpoints = d
			return nil
		}
	}
	if lgErr != nil {
		return fmt.Errorf("%w: %s has no performance folder (LoadGen logs, or an endpoints run's result_summary.json)", ErrNoRuns, d)
	}
	sc.Performance, sc.Accuracy = filepath.Join(d, "performance"), filepath.Join(d, "accuracy")
	if _, err := os.Stat(filepath.Join(d, "user.conf")); err == nil {
		sc.UserConf = filepath.Join(d, "user.conf")
	}
	for _, t := range p.Tests {
		if _, err := os.Stat(filepath.Join(d, t)); err == nil {
			sc.Compliance[t] = filepath.Join(d, t)
		} else {
			fmt.Fprintf(stderr, "submission: note: %s has no %s folder; the tree will lack it, and the checker requires it\n", d, t)
		}
	}
	return nil
}

// runScenario runs the accuracy and performance runs and the compliance
// runs of one scenario into work, and records them in sc.
func (p *Plan) runScenario(ctx context.Context, scName, work string, sc *Scenario, stderr io.Writer) error {
	b, o := p.Benchmark, p.RunOptions
	lgName := scName
	if scName == "Interactive" {
		lgName = "Server"
	}
	s, err := loadgen.ParseScenario(lgName)
	if err != nil {
		return err
	}
	o.Scenario = s
	if o.ModelName == "" {
		o.ModelName = b.ConfNames[0]
	}
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
	for _, t := range p.Tests {
		if !slices.Contains(compliance.Tests, t) {
			fmt.Fprintf(stderr, "submission: note: %s is not implemented here; the tree will lack it, and the checker requires it\n", t)
			continue
		}
		fmt.Fprintf(stderr, "submission: %s %s %s\n", b.Name, scName, t)
		dir := filepath.Join(work, t)
		if err := compliance.RunTest(ctx, b, t, o, dir, stderr); err != nil {
			return err
		}
		sc.Compliance[t] = dir
	}
	flags := fmt.Sprintf("--scenario %s --model %s --model-name %s --data %s --backend %s --round %s", lgName, o.Model, o.ModelName, o.Data, o.Backend, p.Round.Name)
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
	for _, t := range p.Tests {
		sc.Command += fmt.Sprintf("\nmlperf compliance %s %s --results <this folder> %s", strings.ToLower(t), b.Name, flags)
	}
	return nil
}

// Write writes the tree of the runs scs and returns its scenario folders.
func (p *Plan) Write(ctx context.Context, scs []Scenario, stderr io.Writer) ([]string, error) {
	if err := os.MkdirAll(p.Work, 0o755); err != nil {
		return nil, fmt.Errorf("submission: --work: %w", err)
	}
	tree := &Tree{
		Out: p.Out, Division: p.Division, Submitter: p.Submitter, System: p.SystemName, SystemJSON: p.System, Round: p.Round,
		Benchmark: p.CheckerID, TEST01DType: p.TEST01DType, Log: stderr, Measurements: p.Measurements, Scenarios: scs, Work: p.Work,
		TEST06DType: compliance.TEST06DType(p.Benchmark), EOS: p.Benchmark.EOS,
	}
	if p.Benchmark.Driver != nil {
		tree.Score = compliance.ScorerOf(ctx, p.Benchmark, p.RunOptions, stderr)
	}
	return tree.Write()
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
