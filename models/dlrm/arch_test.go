package dlrm

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/preprocess"
)

// TestFullArchParameterCount checks the dense part's size against the
// reference architecture: DenseArch 171,392 + CrossNet 10,627,200 +
// OverArch 5,245,953 parameters.
func TestFullArchParameterCount(t *testing.T) {
	g, err := denseGraph(archFull, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, t := range g.Initializers() {
		if t.DType == onnx.Float { // not the int64 shapes of the reshapes
			got += t.Elements()
		}
	}
	if want := int64(171392 + 10627200 + 5245953); got != want {
		t.Errorf("full dense graph: %d parameters, want %d", got, want)
	}
	a, _ := archOf("full")
	rows := 0
	for k := range criteo.NumSparse {
		rows += a.Rows(k)
	}
	if rows != 645486 {
		t.Errorf("capped tables hold %d rows, want 645486 (README)", rows)
	}
	if _, err := archOf("huge"); err == nil {
		t.Error("ArchOf accepted an unknown size")
	}
	bad := archFull
	bad.Top = []int{1024, 2}
	if _, err := denseGraph(bad, 1, nil); err == nil {
		t.Error("a top MLP not ending in 1 was accepted")
	}
}

func TestQSLLoadsTraceSamples(t *testing.T) {
	dir := t.TempDir()
	if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 300}); err != nil {
		t.Fatal(err)
	}
	ds, err := criteo.Open(dir, criteo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := criteo.FixedTrace(ds.Rows, 7)
	q := &qsl{ds: ds, trace: tr}
	if q.TotalSampleCount() != 22 || q.PerformanceSampleCount() != 22 {
		t.Errorf("counts %d, %d; want 22 (150 rows by 7)", q.TotalSampleCount(), q.PerformanceSampleCount())
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{0, 21}); err != nil {
		t.Error(err)
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{22}); err == nil {
		t.Error("loading a sample past the trace succeeded")
	}
}

// TestTinyArchParameterCount checks the tiny model against the widths
// README.md gives it (8-d embeddings, bottom MLP 13→16→8, top MLP
// 216→16→8→1; three cross layers of rank 4 on 27·8 = 216 features),
// counted by hand: DenseArch 13·16+16 + 16·8+8 = 360, CrossNet
// 3·(216·4 + 4·216 + 216) = 5,832, OverArch 216·16+16 + 16·8+8 + 8+1 =
// 3,617; and its tables hold min(real rows, 64) rows each.
func TestTinyArchParameterCount(t *testing.T) {
	g, err := denseGraph(archTiny, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, t := range g.Initializers() {
		if t.DType == onnx.Float {
			got += t.Elements()
		}
	}
	if want := int64(360 + 5832 + 3617); got != want {
		t.Errorf("tiny dense graph: %d parameters, want %d", got, want)
	}
	for k := range criteo.NumSparse {
		if want := min(criteo.TableRows[k], 64); archTiny.Rows(k) != want {
			t.Errorf("tiny table %d: %d rows, want %d", k, archTiny.Rows(k), want)
		}
	}
}

// TestArchCheckBounds puts an architecture on both sides of each bound
// check refuses: Dim and LowRank 1 pass and 0 fail, Layers 0 passes and
// -1 fails.
func TestArchCheckBounds(t *testing.T) {
	ok := arch{Dim: 1, Bottom: []int{4, 1}, LowRank: 1, Layers: 0, Top: []int{2, 1}}
	if err := ok.check(); err != nil {
		t.Fatalf("dim 1, rank 1, no cross layer: %v", err)
	}
	if _, err := denseGraph(ok, 1, nil); err != nil {
		t.Fatalf("graph of dim 1, rank 1, no cross layer: %v", err)
	}
	for name, mut := range map[string]func(a *arch){
		"dim 0":       func(a *arch) { a.Dim, a.Bottom = 0, []int{4, 0} },
		"rank 0":      func(a *arch) { a.LowRank = 0 },
		"layers -1":   func(a *arch) { a.Layers = -1 },
		"no bottom":   func(a *arch) { a.Bottom = nil },
		"bottom at 2": func(a *arch) { a.Bottom = []int{4, 2} },
		"no top":      func(a *arch) { a.Top = nil },
	} {
		a := ok
		mut(&a)
		if err := a.check(); err == nil || !strings.Contains(err.Error(), "bad architecture") {
			t.Errorf("%s: %v, want a bad architecture", name, err)
		}
	}
}

// TestSyntheticTablesSpanPlusMinus0_05: the seeded tables' values are
// uniform in ±0.05 (README.md): none outside, and both ends approached.
func TestSyntheticTablesSpanPlusMinus0_05(t *testing.T) {
	dir := t.TempDir()
	if err := writeSyntheticTables(dir, archTiny, 3); err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for k := range criteo.NumSparse {
		shape, v, err := preprocess.LoadNpy(filepath.Join(dir, tableFile(k)))
		if err != nil {
			t.Fatal(err)
		}
		if len(shape) != 2 || shape[0] != archTiny.Rows(k) || shape[1] != archTiny.Dim {
			t.Fatalf("table %d: shape %v", k, shape)
		}
		for _, x := range v {
			lo, hi = min(lo, float64(x)), max(hi, float64(x))
		}
	}
	if lo < -0.05 || hi > 0.05 || lo > -0.049 || hi < 0.049 {
		t.Errorf("table values span [%v, %v], want about [-0.05, 0.05]", lo, hi)
	}
}

// TestQSLLoadRefusesADamagedSample: a sample whose rows hold a NaN dense
// feature is refused at load, naming the sample; the sample before it
// loads.
func TestQSLLoadRefusesADamagedSample(t *testing.T) {
	dir := t.TempDir()
	if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 28}); err != nil {
		t.Fatal(err)
	}
	// Row 9 (sample 1 of 7-row samples), dense feature 2, becomes NaN.
	shape, v, err := preprocess.LoadNpy(filepath.Join(dir, criteo.DenseFile))
	if err != nil {
		t.Fatal(err)
	}
	v[9*criteo.NumDense+2] = float32(math.NaN())
	b := preprocess.NpyHeaderBytes("<f4", shape)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	if err := os.WriteFile(filepath.Join(dir, criteo.DenseFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := criteo.Open(dir, criteo.Options{WholeDay: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := criteo.FixedTrace(ds.Rows, 7)
	q := &qsl{ds: ds, trace: tr}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{0, 2}); err != nil {
		t.Errorf("samples 0 and 2 (rows 0-6, 14-20): %v", err)
	}
	err = q.LoadSamples(context.Background(), []loadgen.SampleIndex{0, 1})
	if err == nil || !strings.Contains(err.Error(), "sample 1: ") || !strings.Contains(err.Error(), "row 9: dense feature 2 is NaN") {
		t.Errorf("sample 1 (rows 7-13, row 9 NaN): %v", err)
	}
}
