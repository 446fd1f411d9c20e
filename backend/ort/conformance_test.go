package ort_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/conformance"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/parity"
)

var updateConformance = flag.Bool("update-conformance", false, "rewrite testdata/conformance-cpu.txt from this run")

// EnvONNXTestData names the variable that points the conformance test at
// a copy of onnx/backend/test/data (default: Debian's libonnx-testdata).
const envONNXTestData = "MLPERF_ONNX_TESTDATA"

// conformanceTol is the tolerance of the ONNX backend test runner
// (onnx/backend/test/runner: assert_allclose with rtol 1e-3, atol 1e-7).
var conformanceTol = parity.Tolerance{Abs: 1e-7, Rel: 1e-3}

func onnxTestData(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(envONNXTestData)
	if dir == "" {
		dir = "/usr/share/libonnx-testdata/data"
	}
	if _, err := os.Stat(filepath.Join(dir, "node")); err != nil {
		t.Skipf("ONNX backend test data not found at %s: apt-get install libonnx-testdata (make setup does), or set %s to a copy of onnx/backend/test/data", dir, envONNXTestData)
	}
	return dir
}

// TestConformanceCPU runs every graph of ONNX's backend test data (1,072
// in libonnx-testdata 1.12) through ort.Open on the CPU provider and
// compares each output with the reference output at the ONNX runner's
// tolerance. The status of every case that does not pass (fail, no-load,
// no-type, no-data) must be what testdata/conformance-cpu.txt records, and
// every other case must pass: a graph that starts failing, or a listed one
// that starts passing, fails the test. Refresh the file with
// go test ./backend/ort -run TestConformanceCPU -update-conformance, and
// explain new entries in backend/ort/README.md.
func TestConformanceCPU(t *testing.T) {
	dir := onnxTestData(t)
	needORT(t)
	start := time.Now()
	cases, err := conformance.Run(context.Background(), conformance.Config{
		Dir:     dir,
		Workers: runtime.GOMAXPROCS(0),
		Tol:     conformanceTol,
		// onnxruntime_go v1.27.0 refuses tensors without dimensions
		// (Shape.Validate: "The shape has no dimensions"), for inputs and
		// for outputs ONNX Runtime returns.
		NoScalars: true,
		Open: func(path string) (backend.Session, error) {
			return ort.Open(path, ort.Options{IntraOpThreads: 1})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum strings.Builder
	conformance.WriteSummary(&sum, cases)
	t.Logf("%d graphs in %v on %d workers; %s", len(cases), time.Since(start).Round(time.Millisecond), runtime.GOMAXPROCS(0), strings.SplitN(sum.String(), "\n", 2)[0])
	golden := filepath.Join("testdata", "conformance-cpu.txt")
	if *updateConformance {
		var b strings.Builder
		fmt.Fprintf(&b, "# ONNX backend test data (libonnx-testdata) on ONNX Runtime %s, CPU provider, tolerance %v.\n", mustVersion(t), conformanceTol)
		fmt.Fprintf(&b, "# Every case not listed passes. Written by go test ./backend/ort -run TestConformanceCPU -update-conformance.\n")
		fmt.Fprintf(&b, "# %s", strings.SplitN(sum.String(), "\n", 2)[0]+"\n")
		for _, c := range cases {
			if c.Status != conformance.Pass {
				fmt.Fprintf(&b, "%s %s # %s\n", c.Status, c.Name, c.Detail)
			}
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, version := readConformanceGolden(t, golden)
	if v := mustVersion(t); v != version {
		t.Fatalf("%s was recorded on ONNX Runtime %s, but this is %s: run make setup (it installs %s), or refresh the file", golden, version, v, version)
	}
	if len(cases) < 1000 {
		t.Errorf("only %d cases under %s; libonnx-testdata 1.12 has 1,072", len(cases), dir)
	}
	for _, c := range cases {
		w, listed := want[c.Name]
		switch {
		case !listed && c.Status != conformance.Pass:
			t.Errorf("%s: %s (%s); it is not listed in %s", c.Name, c.Status, c.Detail, golden)
		case listed && c.Status != w:
			t.Errorf("%s: %s, listed as %s in %s (%s)", c.Name, c.Status, w, golden, c.Detail)
		}
	}
}

func mustVersion(t *testing.T) string {
	v, err := ort.Version()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// readConformanceGolden returns the statuses of a golden file and the ONNX
// Runtime version its first line names.
func readConformanceGolden(t *testing.T, path string) (map[string]conformance.Status, string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (write it with -update-conformance)", err)
	}
	defer f.Close()
	want := map[string]conformance.Status{}
	version := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# ONNX backend test data (libonnx-testdata) on ONNX Runtime "); ok {
			version, _, _ = strings.Cut(v, ",")
		}
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		st := conformance.Pass
		for st.String() != fields[0] && st <= conformance.NoData {
			st++
		}
		if st > conformance.NoData {
			t.Fatalf("%s: unknown status %q in %q", path, fields[0], sc.Text())
		}
		want[fields[1]] = st
	}
	if version == "" {
		t.Fatalf("%s does not name the ONNX Runtime version on its first line", path)
	}
	return want, version
}
