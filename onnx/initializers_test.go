package onnx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadInitializers: a written model's initializers come back by name
// and shape, inline or with the weights in a side file; a truncated file
// and a file that is not protobuf are errors, not a partial list.
func TestReadInitializers(t *testing.T) {
	g := NewGraph(Config{Name: "r", Seed: 3})
	x := g.Input("x", Float, Sym("N"), Fix(64))
	y := g.Rename(g.Linear("layer.proj", x, 64, 32, true), "y")
	g.Output(y, Float, Sym("N"), Fix(32))
	for _, opt := range []FileOptions{{}, {External: ExternalAlways}} {
		p := filepath.Join(t.TempDir(), "m.onnx")
		if err := g.WriteFile(p, opt); err != nil {
			t.Fatal(err)
		}
		got, err := ReadInitializers(p)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]int64{"layer.proj.weight": {64, 32}, "layer.proj.bias": {32}}
		if len(got) != len(want) {
			t.Fatalf("%+v: %d initializers %+v", opt, len(got), got)
		}
		for _, ti := range got {
			if !slices.Equal(ti.Dims, want[ti.Name]) {
				t.Errorf("%+v: %s has dims %v, want %v", opt, ti.Name, ti.Dims, want[ti.Name])
			}
		}
		b, _ := os.ReadFile(p)
		short := filepath.Join(t.TempDir(), "short.onnx")
		os.WriteFile(short, b[:len(b)-5], 0o644)
		if _, err := ReadInitializers(short); err == nil {
			t.Errorf("%+v: a truncated model read", opt)
		}
	}
	junk := filepath.Join(t.TempDir(), "junk.onnx")
	os.WriteFile(junk, []byte("not a model at all, just text\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), 0o644)
	if _, err := ReadInitializers(junk); err == nil {
		t.Error("text read as a model")
	}
	if _, err := ReadInitializers(filepath.Join(t.TempDir(), "none.onnx")); err == nil {
		t.Error("a missing file read")
	}
}
