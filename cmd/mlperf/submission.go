package main

// mlperf submission: its flags, parsed into submission.Options; the work
// is submission's plan → run → write.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/internal/argcheck"
	"github.com/mlperf-go/inference/submission"
)

func init() {
	handle("submission", "write a results tree the MLCommons submission checker reads: submission --benchmark B --out DIR [--round R] [--from RUNS]; submission system-template", submissionCmd)
}

const submissionUsage = `usage: mlperf submission --benchmark B --out DIR [--round R] [--system FILE.json] [--scenarios S,...] [--from DIR] [flags]
       mlperf submission system-template [--name NAME] [--system-type T]`

// submissionCmd is `mlperf submission`: it runs what the round requires of
// the benchmark in each scenario (accuracy, performance, the compliance
// tests, with the round's seeds), or collects existing run folders with
// --from DIR (LoadGen runs' DIR/<Scenario>/{accuracy,performance,TEST01,
// TEST04,TEST06}/ and DIR/<Scenario>/user.conf, or an endpoints run's
// DIR/<Scenario>/{config.yaml,performance,accuracy,audit}/), and writes
// the results tree in the round's layout. system-template prints a
// system description with what this machine tells.
func submissionCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "system-template" {
		return systemTemplateCmd(args[1:], stdout)
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
		for _, a := range args {
			if a == "-h" || a == "-help" || a == "--help" {
				fmt.Fprintln(stdout, submissionUsage)
				fmt.Fprintln(stdout, "Give --benchmark B -h for all the flags, the run flags of benchmark B included.")
				return flag.ErrHelp
			}
		}
		return usageError("--benchmark is required\n%s", submissionUsage)
	}
	b, ok := spec.Lookup(name)
	if !ok {
		return usageError("%v", spec.Unknown(name))
	}
	fs := flag.NewFlagSet("submission --benchmark "+b.Name, flag.ContinueOnError)
	var o submission.Options
	fs.String("benchmark", "", "benchmark to submit")
	runOpts := submissionRunFlags(fs, b)
	fs.StringVar(&o.Round, "round", check.Newest, "submission round whose tables decide the scenarios, the compliance tests, the runs' seeds and the layout: "+strings.Join(check.RoundNames(), ", "))
	systemFile := fs.String("system", "", "system description json (default: the system-template of this machine); its base name names the system folder")
	fs.StringVar(&o.SystemName, "system-name", "", "system folder name (default: the --system file's base name, else the host's)")
	fs.StringVar(&o.SystemType, "system-type", "", "system_type of the template when --system is not given: edge, datacenter or datacenter,edge (default: the first of these the round lists the benchmark for)")
	scenarios := fs.String("scenarios", "", "comma-separated scenario folders (default: those the round requires of the system type, and Server where the round wants Server or Interactive)")
	fs.StringVar(&o.Division, "division", "closed", "closed, open or network")
	fs.StringVar(&o.Submitter, "submitter", "", "submitter (default: the system json's, else MLPerf-Go)")
	fs.StringVar(&o.CheckerID, "checker-id", "", "the checker's model id (default: the first of the benchmark's the round lists)")
	fs.StringVar(&o.From, "from", "", "collect existing run folders from DIR/<Scenario>/... instead of running")
	fs.StringVar(&o.Work, "work", "", "folder for the runs' logs (default: <out>-runs, beside the tree)")
	fs.StringVar(&o.Measurements.StartingWeightsFilename, "weights", "", "starting_weights_filename for measurements.json (default: the --model value)")
	d := submission.DefaultMeasurements
	fs.StringVar(&o.Measurements.InputDataTypes, "input-data-types", d.InputDataTypes, "measurements.json input_data_types")
	fs.StringVar(&o.Measurements.WeightDataTypes, "weight-data-types", d.WeightDataTypes, "measurements.json weight_data_types")
	fs.StringVar(&o.Measurements.WeightTransformations, "weight-transformations", d.WeightTransformations, "measurements.json weight_transformations")
	fs.StringVar(&o.Measurements.Retraining, "retraining", d.Retraining, "measurements.json retraining")
	fs.StringVar(&o.TEST01DType, "test01-dtype", "", "TEST01: response element type compared (byte|float32|int32|int64; default byte)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	run, err := runOpts()
	if err != nil {
		return err
	}
	o.Benchmark, o.RunOptions = b, run
	o.Out = fs.Lookup("out").Value.String()
	if *scenarios != "" {
		if o.Scenarios, err = splitScenarios(*scenarios); err != nil {
			return err
		}
	}
	if *systemFile != "" {
		var name string
		if o.System, name, err = submission.ReadSystem(*systemFile); err != nil {
			return usageError("%v", err)
		}
		if o.SystemName == "" {
			o.SystemName = name
		}
	}
	o.Command = "mlperf submission " + strings.Join(args, " ")
	plan, err := submission.NewPlan(o)
	if err != nil {
		return err
	}
	runs, err := plan.Run(ctx, stderr)
	if err != nil {
		return err
	}
	dirs, err := plan.Write(ctx, runs, stderr)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		fmt.Fprintln(stdout, d)
	}
	fmt.Fprintf(stderr, "submission: wrote %s; check it with: mlperf check %s --round %s\n", filepath.Join(plan.Out, plan.Division, plan.Submitter), plan.Out, plan.Round.Name)
	return nil
}

// submissionRunFlags are run's flags less the scenario, mode and round
// (submission decides them), with --out meaning the tree's folder.
func submissionRunFlags(fs *flag.FlagSet, b *spec.Benchmark) func() (benchmark.Options, error) {
	opts := benchFlags(fs, b, false)
	minDur := argcheck.Duration{Name: "--duration", Unit: time.Millisecond, AllowZero: true}
	timeout := argcheck.Duration{Name: "--completion-timeout", Min: time.Second, AllowZero: true}
	fs.Var(&minDur, "duration", "minimum run duration, overriding the confs' min_duration (e.g. 10s; 0: keep)")
	fs.Var(&timeout, "completion-timeout", "how long the loadgen waits without any completion before it ends a run INVALID (0: derived from the scenario)")
	out := fs.Lookup("out")
	out.Usage, out.DefValue = "folder to write the results tree in", "submission"
	fs.Set("out", "submission")
	return func() (benchmark.Options, error) {
		o, err := opts()
		o.Duration, o.CompletionTimeout = minDur.D, timeout.D
		return o, err
	}
}

// splitScenarios splits a --scenarios list, refusing empty and repeated
// names.
func splitScenarios(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, usageError("--scenarios %q: an empty name; want a comma-separated list such as Offline,Server", list)
		}
		for _, s := range out {
			if s == f {
				return nil, usageError("--scenarios %q: %s is listed twice", list, f)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func systemTemplateCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("submission system-template", flag.ContinueOnError)
	name := fs.String("name", "my_system", "system_name")
	typ := fs.String("system-type", "edge", "edge, datacenter or datacenter,edge")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if _, ok := check.ParseSystemType(*typ); !ok {
		return usageError("--system-type %q: want edge, datacenter or datacenter,edge", *typ)
	}
	b, err := json.MarshalIndent(submission.SystemTemplate(*name, *typ), "", "  ")
	if err != nil {
		return errors.New("submission: " + err.Error())
	}
	fmt.Fprintln(stdout, string(b))
	return nil
}
