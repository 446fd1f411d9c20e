// Package conformance runs ONNX's backend test data through a
// backend.Session and compares the outputs with the reference outputs
// stored beside each graph: the data of onnx/backend/test/data (Debian
// package libonnx-testdata), where every case is a folder holding
// model.onnx and test_data_set_N/ folders of input_K.pb and output_K.pb
// (serialized TensorProtos, read with onnx.ReadTensor).
//
// A case passes when every output of every data set is within the
// tolerance (parity.Tolerance); it is not run when the engine cannot load
// the graph (an operator, type or opset it lacks), when an input or output
// has a type backend.Tensor does not carry, or when a reference file is not
// a tensor the reader handles (strings, sequences).
package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/parity"
	"github.com/mlperf-go/inference/onnx"
)

// Status is the outcome of one case.
type Status int

// Outcomes, in the order WriteSummary lists them (Pass to NoData).
const (
	Pass   Status = iota
	Fail          // an output beyond the tolerance, or the run failed
	NoLoad        // the engine cannot load the graph
	NoType        // an input or output of a type backend.Tensor does not carry
	NoData        // a reference file the reader cannot read
)

var statusNames = []string{"pass", "fail", "no-load", "no-type", "no-data"}

// String names the status as the golden files spell it.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// Case is the result of one graph.
type Case struct {
	Name   string // the folder under the data root, e.g. "node/test_abs"
	Status Status
	Detail string        // why it failed or was not run
	Diffs  []parity.Diff // the outputs of the first data set that failed, or of the last
}

// Config says what to run and how.
type Config struct {
	// Dir is the data root (holding node/, simple/, pytorch-converted/ ...).
	Dir string
	// Open opens a model file on the engine under test.
	Open func(path string) (backend.Session, error)
	// Workers is how many cases run at once (at least 1).
	Workers int
	// Tol is the tolerance of float outputs.
	Tol parity.Tolerance
	// Match selects cases by name (nil: all).
	Match func(name string) bool
	// NoScalars says the engine cannot take rank-0 (scalar) tensors:
	// cases with one among their inputs or reference outputs are
	// reported no-type instead of run (backend/ort through onnxruntime_go
	// v1.27.0, whose tensors need at least one dimension).
	NoScalars bool
}

// List returns the case names under dir (every folder two levels down
// holding a model.onnx), sorted.
func List(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*", "*", "model.onnx"))
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("conformance: no */*/model.onnx under %s (is it onnx/backend/test/data, e.g. /usr/share/libonnx-testdata/data?)", dir)
	}
	names := make([]string, len(m))
	for i, p := range m {
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		names[i] = filepath.ToSlash(rel)
	}
	sort.Strings(names)
	return names, nil
}

// Run runs every selected case, cfg.Workers at a time, and returns the
// results in name order. It stops early only when ctx is done.
func Run(ctx context.Context, cfg Config) ([]Case, error) {
	names, err := List(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if cfg.Match != nil {
		names = slices.DeleteFunc(names, func(n string) bool { return !cfg.Match(n) })
	}
	out := make([]Case, len(names))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = runCase(ctx, cfg, names[i])
			}
		}()
	}
feed:
	for i := range names {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	return out, nil
}

// numbered lists dir's files prefix_N.pb in N order.
func numbered(dir, prefix string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, prefix+"_*.pb"))
	num := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), prefix+"_"), ".pb"))
		return n
	}
	sort.Slice(m, func(i, j int) bool { return num(m[i]) < num(m[j]) })
	return m
}

// tensorFor converts a reference tensor to the backend's form under the
// name of the model's input or output it stands for.
func tensorFor(name string, t *onnx.Tensor) (backend.Tensor, error) {
	var dt backend.DType
	switch t.DType {
	case onnx.Float:
		dt = backend.Float32
	case onnx.Float16:
		dt = backend.Float16
	case onnx.Int64:
		dt = backend.Int64
	case onnx.Int32:
		dt = backend.Int32
	case onnx.Uint8:
		dt = backend.Uint8
	case onnx.Bool:
		dt = backend.Bool
	default:
		return backend.Tensor{}, fmt.Errorf("%s is %v, which backend.Tensor does not carry", name, t.DType)
	}
	return backend.Tensor{Name: name, DType: dt, Shape: slices.Clone(t.Dims), Data: t.Data()}, nil
}

func runCase(ctx context.Context, cfg Config, name string) Case {
	c := Case{Name: name}
	dir := filepath.Join(cfg.Dir, filepath.FromSlash(name))
	s, err := cfg.Open(filepath.Join(dir, "model.onnx"))
	if err != nil {
		c.Status, c.Detail = NoLoad, firstLine(err.Error())
		return c
	}
	defer s.Close()
	ins, outs := s.Inputs(), s.Outputs()
	for _, inf := range append(slices.Clone(ins), outs...) {
		if inf.DType.Size() == 0 {
			c.Status, c.Detail = NoType, fmt.Sprintf("%s has a type backend.Tensor does not carry", inf.Name)
			return c
		}
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	sort.Strings(sets)
	if len(sets) == 0 {
		c.Status, c.Detail = NoData, "no test_data_set_* folder"
		return c
	}
	for _, set := range sets {
		inFiles, outFiles := numbered(set, "input"), numbered(set, "output")
		if len(inFiles) != len(ins) || len(outFiles) != len(outs) {
			c.Status = NoData
			c.Detail = fmt.Sprintf("%s: %d input and %d output files for a model of %d inputs and %d outputs", filepath.Base(set), len(inFiles), len(outFiles), len(ins), len(outs))
			return c
		}
		read := func(files []string, infos []backend.Info) ([]backend.Tensor, *Case) {
			ts := make([]backend.Tensor, len(files))
			for i, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					return nil, &Case{Name: name, Status: NoData, Detail: err.Error()}
				}
				ot, err := onnx.ReadTensor(b)
				if err != nil {
					st := NoData
					if !errors.Is(err, onnx.ErrUnsupportedTensor) {
						st = Fail // a malformed reference file is a reader bug
					}
					return nil, &Case{Name: name, Status: st, Detail: fmt.Sprintf("%s/%s: %v", filepath.Base(set), filepath.Base(f), err)}
				}
				if cfg.NoScalars && len(ot.Dims) == 0 {
					return nil, &Case{Name: name, Status: NoType, Detail: fmt.Sprintf("%s is a rank-0 (scalar) tensor, which the engine does not take", infos[i].Name)}
				}
				ts[i], err = tensorFor(infos[i].Name, ot)
				if err != nil {
					return nil, &Case{Name: name, Status: NoType, Detail: err.Error()}
				}
			}
			return ts, nil
		}
		in, bad := read(inFiles, ins)
		if bad != nil {
			return *bad
		}
		want, bad := read(outFiles, outs)
		if bad != nil {
			return *bad
		}
		got, err := s.Run(ctx, in)
		if err != nil {
			c.Status, c.Detail = Fail, firstLine(err.Error())
			return c
		}
		c.Diffs = parity.CompareAll(want, got, cfg.Tol)
		if !parity.AllOK(c.Diffs) {
			c.Status, c.Detail = Fail, filepath.Base(set)+": "+describe(c.Diffs)
			return c
		}
	}
	c.Status = Pass
	return c
}

// describe summarises the failing outputs of a data set.
func describe(ds []parity.Diff) string {
	var parts []string
	for _, d := range ds {
		switch {
		case d.Err != "":
			parts = append(parts, fmt.Sprintf("%s: %s", d.Name, d.Err))
		case d.Bad > 0:
			parts = append(parts, fmt.Sprintf("%s: %d/%d beyond, max abs %.3g, max rel %.3g, worst [%d] want %.6g got %.6g",
				d.Name, d.Bad, d.Elements, d.MaxAbs, d.MaxRel, d.Worst, d.WorstWant, d.WorstGot))
		}
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Counts tallies cases by status.
func Counts(cs []Case) map[Status]int {
	m := map[Status]int{}
	for _, c := range cs {
		m[c.Status]++
	}
	return m
}

// WriteSummary prints one line of counts, then every case that did not
// pass (status, name, detail), one per line.
func WriteSummary(w io.Writer, cs []Case) error {
	n := Counts(cs)
	var parts []string
	for s := Pass; s <= NoData; s++ {
		parts = append(parts, fmt.Sprintf("%s %d", s, n[s]))
	}
	if _, err := fmt.Fprintf(w, "%d cases: %s\n", len(cs), strings.Join(parts, ", ")); err != nil {
		return err
	}
	for _, c := range cs {
		if c.Status != Pass {
			if _, err := fmt.Fprintf(w, "%-7s %s: %s\n", c.Status, c.Name, c.Detail); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteComparison prints the counts of ref (the reference engine's cases,
// headed "on refName:"), then every case whose status differs between
// test and ref, with test's detail, and returns how many differ. test and
// ref must come from Run over the same data root and Match, so that their
// cases line up by position (cases past the shorter list are not
// compared).
func WriteComparison(w io.Writer, testName string, test []Case, refName string, ref []Case) int {
	fmt.Fprintf(w, "\non %s:\n", refName)
	n := Counts(ref)
	fmt.Fprintf(w, "%d cases: pass %d, fail %d, no-load %d, no-type %d, no-data %d\n", len(ref), n[Pass], n[Fail], n[NoLoad], n[NoType], n[NoData])
	diff := 0
	fmt.Fprintf(w, "\ncases whose status differs (%s | %s):\n", testName, refName)
	for i := range min(len(test), len(ref)) {
		if test[i].Status != ref[i].Status {
			diff++
			fmt.Fprintf(w, "%s: %s (%s) | %s\n", test[i].Name, test[i].Status, test[i].Detail, ref[i].Status)
		}
	}
	fmt.Fprintf(w, "%d cases differ\n", diff)
	return diff
}
