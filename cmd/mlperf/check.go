package main

// mlperf check: the flags of the MLCommons submission checker
// (mlcommons/inference tools/submission/submission_checker/main.py), so
// that scripts written for `python3 -m submission_checker.main` run
// unchanged, plus DIR as an argument and --round for --version.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-go/inference/check"
)

func init() {
	handle("check", "check a results tree as the MLCommons submission checker does: check DIR [--round "+check.Newest+"] (its flags too: --input, --version, --submitter, --skip-...)", checkCmd)
}

// unusedCheckerFlags are flags the checker parses and then does nothing
// with; check accepts them so that its scripts run.
var unusedCheckerFlags = []string{"skip_compliance", "skip-power-check", "skip-check-power-measure-files",
	"skip-extra-files-in-root-check", "skip-all-systems-have-results-check", "skip-calibration-check", "debug"}

func checkCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var o check.Options
	input := fs.String("input", "", "the results tree (the folder holding closed/, open/ or network/); or give it as the argument")
	fs.StringVar(&o.Round, "round", check.Newest, "submission round whose tables apply: "+strings.Join(check.RoundNames(), ", "))
	fs.StringVar(&o.Round, "version", check.Newest, "the checker's name for --round")
	fs.StringVar(&o.Submitter, "submitter", "", "check only this submitter's folder")
	fs.StringVar(&o.CSV, "csv", "", "write the checker's summary CSV here (the checker writes summary.csv by default; check only when asked)")
	fs.BoolVar(&o.SubmissionExceptions, "submission-exceptions", false, "tolerate LoadGen's 'uncommitted changes' error; fail performance logs with other LoadGen errors")
	fs.BoolVar(&o.SkipMeaningfulFieldsEmptinessCheck, "skip-meaningful-fields-emptiness-check", false, "accept empty system and measurements fields")
	fs.BoolVar(&o.SkipEmptyFilesCheck, "skip-empty-files-check", false, "accept an empty user.conf or README.md")
	fs.BoolVar(&o.SkipExtraAccuracyFilesCheck, "skip-extra-accuracy-files-check", false, "do not require the sdxl images or wan videos of the accuracy folder")
	fs.BoolVar(&o.SkipDatasetSizeCheck, "skip-dataset-size-check", false, "do not require the accuracy run to cover the whole data set")
	for _, name := range unusedCheckerFlags {
		fs.Bool(name, false, "accepted as the checker accepts it; the checker does nothing with it")
	}
	fs.String("extra-model-benchmark-map", "", "accepted as the checker accepts it; the checker reads open/<submitter>/model_mapping.json whatever this says")
	fs.String("scenarios-to-skip", "", "accepted as the checker accepts it; the checker does nothing with it")
	privateIDs := fs.Bool("private-ids", false, "not supported: it writes privateid.json files into the tree")
	// DIR may come before the flags.
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: mlperf check DIR [flags]  (DIR holds closed/, open/ or network/; --input DIR as the MLCommons checker)")
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return usageError("%v (see mlperf check -h)", err)
	}
	rest := fs.Args()
	if dir == "" && len(rest) > 0 {
		dir, rest = rest[0], rest[1:]
	}
	if *input != "" {
		if dir != "" {
			return usageError("give the results tree once: as the argument or as --input, not both")
		}
		dir = *input
	}
	if len(rest) > 0 {
		return usageError("unexpected argument %q after %s; give one results folder (check DIR [flags])", rest[0], dir)
	}
	if dir == "" {
		return usageError("no results folder given: mlperf check DIR [flags] (or --input DIR)")
	}
	if *privateIDs {
		return usageError("--private-ids is not supported (the MLCommons checker writes privateid.json files into the tree with it); run that checker for private ids")
	}
	return check.Run(dir, o, stdout)
}
