package report

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Main is `mlperf report DIR [--out FILE]`: it writes one self-contained
// HTML page for the run folder or results tree DIR (default file
// report.html in the working directory; "-" writes to stdout).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "report.html", "HTML file to write (- for stdout)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mlperf report DIR [--out FILE]  (DIR: a run folder or a results tree)")
		fs.PrintDefaults()
	}
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if dir == "" && len(rest) > 0 {
		dir, rest = rest[0], rest[1:]
	}
	if dir == "" {
		fs.Usage()
		return errors.New("report: no folder given")
	}
	if len(rest) > 0 {
		return fmt.Errorf("report: unexpected argument %q after %s; give one folder (report DIR [--out FILE])", rest[0], dir)
	}
	// Check the folder before the output is created: a failed report
	// must not truncate an earlier report.html.
	if _, err := Find(dir); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if *out == "-" {
		return Write(stdout, dir)
	}
	if st, err := os.Stat(*out); err == nil && st.IsDir() {
		return fmt.Errorf("report: --out %s is a folder; give the HTML file to write, e.g. %s", *out, filepath.Join(*out, "report.html"))
	}
	if parent := filepath.Dir(*out); parent != "" {
		if _, err := os.Stat(parent); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("report: --out %s: the folder %s does not exist; create it first or write elsewhere", *out, parent)
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := Write(f, dir); err != nil {
		f.Close()
		os.Remove(*out)
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stderr, "report: wrote %s\n", *out)
	return nil
}
