package retinanet

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openimages"
)

// TestSyntheticWeightScales: the synthetic model's biases are drawn within
// ±0.05 of their middle (0 for the FPN's convolutions, clsBias for the
// class head's last one, so that few anchors pass the score threshold)
// and the box head's last weights are He's bound divided by 30 (box
// deltas of a few tenths, as head's comment says); each range is
// approached from inside, not only respected.
func TestSyntheticWeightScales(t *testing.T) {
	g, err := arch(sizeTiny, 3)
	if err != nil {
		t.Fatal(err)
	}
	span := func(name string) (lo, hi float64) {
		t.Helper()
		for _, in := range g.Initializers() {
			if in.Name == name {
				v, err := in.Values()
				if err != nil {
					t.Fatal(err)
				}
				lo, hi = math.Inf(1), math.Inf(-1)
				for _, x := range v {
					lo, hi = min(lo, x), max(hi, x)
				}
				return lo, hi
			}
		}
		t.Fatalf("no initializer %s", name)
		return
	}
	within := func(name string, lo, hi float64) {
		t.Helper()
		l, h := span(name)
		w := 0.4 * (hi - lo) // the values spread over most of the range
		if l < lo-1e-6 || h > hi+1e-6 || l > lo+w || h < hi-w {
			t.Errorf("%s spans [%.4f, %.4f], want about [%.4f, %.4f]", name, l, h, lo, hi)
		}
	}
	for _, name := range []string{"fpn.layer_blocks.0.bias", "fpn.extra_blocks.p6.bias", "fpn.extra_blocks.p7.bias", "fpn.inner_blocks.1.bias"} {
		within(name, -0.05, 0.05)
	}
	within("head.classification_head.out.bias", clsBias-0.05, clsBias+0.05)
	l, h := span("head.regression_head.conv.0.weight")
	he := max(-l, h) // He(9·c) of the head's width, the unscaled bound
	within("head.regression_head.out.weight", -he/30, he/30)
}

// TestBuildNamesAWriteError: a model path whose folder does not exist is
// an error of the retinanet package, not a silent success.
func TestBuildNamesAWriteError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none", "model.onnx")
	if err := build(p, sizeTiny, 1); err == nil || !strings.HasPrefix(err.Error(), "retinanet: ") || !strings.Contains(err.Error(), p) {
		t.Errorf("build into a missing folder: %v", err)
	}
}

// TestSyntheticDataRewrittenWhenItsSizeDiffers: --data synthetic reuses a
// cached set of synthSamples images and rewrites one of another size.
func TestSyntheticDataRewrittenWhenItsSizeDiffers(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "openimages-synthetic")
	if err := openimages.Synth(dir, openimages.SynthConfig{N: 3, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	ds, err := loadData("synthetic", 0, "", cache, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != synthSamples || !strings.Contains(warn.String(), "writing the synthetic OpenImages data set (8 images)") {
		t.Errorf("a cached set of 3 images: %d images after loading, log %q; want it rewritten with %d", ds.Len(), warn.String(), synthSamples)
	}
	ann := filepath.Join(dir, filepath.FromSlash(openimages.AnnotationsPath))
	st, _ := os.Stat(ann)
	warn.Reset()
	if ds, err = loadData("synthetic", 0, "", cache, &warn); err != nil || ds.Len() != synthSamples || strings.Contains(warn.String(), "writing") {
		t.Errorf("the cached set of %d images: %v, %v, log %q; want it reused", synthSamples, ds, err, warn.String())
	}
	if st2, _ := os.Stat(ann); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("the cached annotations were rewritten")
	}
}

// TestSynthCommandDefaults: `mlperf dataset synth openimages` without -n
// and -seed writes the synthSamples images of seed synthSeed, the set
// --data synthetic uses: the same annotations byte for byte.
func TestSynthCommandDefaults(t *testing.T) {
	def, explicit := t.TempDir(), t.TempDir()
	var out bytes.Buffer
	if err := synthCommand(&spec.DatasetRequest{Out: def, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if err := synthCommand(&spec.DatasetRequest{Out: explicit, N: synthSamples, Seed: synthSeed, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	a, err1 := os.ReadFile(filepath.Join(def, filepath.FromSlash(openimages.AnnotationsPath)))
	b, err2 := os.ReadFile(filepath.Join(explicit, filepath.FromSlash(openimages.AnnotationsPath)))
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("defaults and -n %d -seed %d differ (%v, %v)", synthSamples, synthSeed, err1, err2)
	}
	if !strings.HasPrefix(out.String(), "wrote 8 images") {
		t.Errorf("stdout %q", out.String())
	}
}
