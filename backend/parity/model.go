package parity

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/backend"
)

// ONNXFiles returns path when it is a file, else every .onnx file under
// the folder path, in lexical order. An error of os.Stat on path is
// returned as is (a *fs.PathError, so that a caller can tell a missing
// path from a folder without models); a folder without any .onnx file is
// an error naming it.
func ONNXFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			out = append(out, p)
		}
		return err
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("no .onnx file under %s", path)
	}
	return out, err
}

// ModelCheck says how CheckModel compares one model file on two engines.
type ModelCheck struct {
	// Ref and Test name the reference engine and the one under test in
	// the report (e.g. "cpu" and "cuda").
	Ref, Test string
	// OpenRef and OpenTest open a model file on each engine.
	OpenRef, OpenTest func(file string) (backend.Session, error)
	// Seed and Dim are Inputs' seed and size of dynamic dimensions.
	Seed uint64
	Dim  int64
	// Shapes are fixed input shapes by input name (see Inputs); names
	// that are not among a model's inputs are ignored.
	Shapes map[string][]int64
	// Tol is the tolerance every output must be within.
	Tol Tolerance
	// Runs is the number of timed runs per engine after one warm-up whose
	// median is reported (0: no timing).
	Runs int
}

// CheckModel opens file on both engines (the reference first), runs both
// on the same seeded inputs and writes to w a heading, the table of
// differences (Write), the median time per run of each engine with the
// speed-up when Runs > 0, and PASS or FAIL. ok reports whether every
// output is within Tol; err is set when either engine cannot open or run
// the model.
func (c ModelCheck) CheckModel(ctx context.Context, file string, w io.Writer) (ok bool, err error) {
	ref, err := c.OpenRef(file)
	if err != nil {
		return false, err
	}
	defer ref.Close()
	test, err := c.OpenTest(file)
	if err != nil {
		return false, err
	}
	defer test.Close()
	shapes := map[string][]int64{} // those of this model's inputs
	for _, info := range ref.Inputs() {
		if sh, ok := c.Shapes[info.Name]; ok {
			shapes[info.Name] = sh
		}
	}
	in, err := Inputs(ref.Inputs(), c.Seed, c.Dim, shapes)
	if err != nil {
		return false, err
	}
	ds, err := Check(ctx, ref, test, in, c.Tol)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "%s: %s against %s, inputs seed %d, dynamic dims %d, tolerance %v\n", file, c.Test, c.Ref, c.Seed, c.Dim, c.Tol)
	Write(w, ds)
	if c.Runs > 0 {
		tr, err := MedianRun(ctx, ref, in, c.Runs)
		if err != nil {
			return false, err
		}
		tt, err := MedianRun(ctx, test, in, c.Runs)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(w, "time per run (median of %d): %s %.3f ms, %s %.3f ms, speed-up %.2fx\n",
			c.Runs, c.Ref, ms(tr), c.Test, ms(tt), float64(tr)/float64(max(tt, 1)))
	}
	ok = AllOK(ds)
	fmt.Fprintln(w, map[bool]string{true: "PASS", false: "FAIL"}[ok])
	fmt.Fprintln(w)
	return ok, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
