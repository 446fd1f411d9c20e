package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/report"
)

func init() {
	handle("report", "write one self-contained HTML report of a run folder or a results tree, or compare two: report DIR [DIR_B] [--out FILE]", reportCmd)
}

// reportCmd is `mlperf report DIR [DIR_B] [--out FILE] [--round R]`: the
// report of a run folder or results tree, or of two compared (A then B),
// written to FILE (default report.html; "-" for stdout).
func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("out", "report.html", "HTML file to write (- for stdout); written beside and renamed into place, so a failed report leaves an earlier file as it was")
	round := fs.String("round", "", "submission round whose tables the checker applies to a results tree (default: mlperf check's)")
	// Folders may come before or after the flags.
	var paths []string
	for len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		paths, args = append(paths, args[0]), args[1:]
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: mlperf report DIR [DIR_B] [flags]  (DIR: a run folder or a results tree; with DIR_B, A and B compared)")
			fs.PrintDefaults()
			return err
		}
		return usageError("%v (see mlperf report -h)", err)
	}
	paths = append(paths, fs.Args()...)
	switch {
	case len(paths) == 0:
		return usageError("no folder given: report DIR [DIR_B] [--out FILE]")
	case len(paths) > 2:
		return usageError("unexpected argument %q: give one folder, or two to compare (report A B)", paths[2])
	}
	o := report.Options{Paths: paths, Round: *round}
	// Check the folders before anything is written.
	for _, p := range paths {
		if _, err := report.Find(p); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if *out == "-" {
		return report.Write(stdout, o)
	}
	if err := report.WriteFile(*out, o); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(stderr, "report: wrote %s\n", *out)
	return nil
}
