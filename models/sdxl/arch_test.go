package sdxl

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The full size has SDXL base 1.0's parameter counts (diffusers/
// transformers: text encoders 123.1 M and 694.7 M, UNet 2567.5 M, VAE
// decoder with post_quant_conv 49.5 M); the graphs are only built, not
// written.
func TestFullSizeParameterCounts(t *testing.T) {
	c, err := configOf(sizeFull, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkConfig(c); err != nil {
		t.Fatal(err)
	}
	// Published sizes (diffusers/transformers module parameter counts);
	// the graphs add a few thousand constants (masks, norm constants,
	// shapes), hence the 0.01% tolerance.
	for name, c := range map[string]struct {
		g    interface{ ParamCount() int64 }
		want float64
	}{
		"text_encoder":   {textEncoder(c.Text1, false, 1), 123060480},
		"text_encoder_2": {textEncoder(c.Text2, false, 1), 694659840},
		"unet":           {unet(c, 1), 2567463684},
		"vae_decoder":    {vaeDecoder(c, 1), 49490199 + 20},
	} {
		got := float64(c.g.ParamCount())
		if got < c.want || got > c.want*1.0001 {
			t.Errorf("%s: %.0f parameters, want %.0f (+0.01%%)", name, got, c.want)
		}
	}
}

func TestBuildTinyLayout(t *testing.T) {
	dir := t.TempDir()
	if err := build(filepath.Join(dir, "model.onnx"), sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if _, err := os.Stat(partPath(dir, p)); err != nil {
			t.Error(err)
		}
	}
}

func mkTemp() (string, error) { return os.MkdirTemp("", "sdxl-tiny-*") }

// The full synthetic CLIP towers have open_clip ViT-B-32's parameter
// counts (visual 87,849,216; text 63,428,096 with the 49408-token
// vocabulary; with the logit scale, the model's 151,277,313), within the
// graphs' constants.
func TestCLIPParameterCounts(t *testing.T) {
	c := clipConfigs[sizeFull]
	for name, x := range map[string]struct {
		got  int64
		want float64
	}{
		"visual": {syntheticCLIPImage(c, 1).ParamCount(), 87849216},
		"text":   {syntheticCLIPText(c, 49408, 1).ParamCount(), 63428096},
	} {
		if g := float64(x.got); g < x.want || g > x.want*1.0002 {
			t.Errorf("%s: %d parameters, want %.0f (+0.02%%)", name, x.got, x.want)
		}
	}
}

// TestFIDInceptionShapesMatchTorchvision: every weight and batch-norm
// buffer of the synthetic FID Inception has the name and shape of
// torchvision's inception_v3 up to pool3 (testdata/inception_shapes.py),
// and there are no others.
func TestFIDInceptionShapesMatchTorchvision(t *testing.T) {
	b, err := os.ReadFile("testdata/inception_shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]int64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got := map[string][]int64{}
	for _, in := range syntheticFIDInception(1).Initializers() {
		if strings.HasPrefix(in.Name, "Conv2d_") || strings.HasPrefix(in.Name, "Mixed_") {
			got[in.Name] = in.Dims
		}
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		for k, w := range want {
			if g, ok := got[k]; !ok || !slices.Equal(g, w) {
				t.Errorf("%s: shape %v, torchvision %v", k, g, w)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: not in torchvision's model", k)
			}
		}
	}
}

// TestFIDInceptionStemConvolutions: the stem's convolutions have
// torchvision's Inception v3 strides and paddings (BasicConv2d
// Conv2d_1a_3x3 stride 2, Conv2d_2b_3x3 padding 1, the others neither),
// which give its 299 → 149 → 147 → 147 → 73 → 73 → 71 feature sizes.
func TestFIDInceptionStemConvolutions(t *testing.T) {
	want := map[string][2][]int64{ // strides, pads
		"Conv2d_1a_3x3": {{2, 2}, {0, 0, 0, 0}},
		"Conv2d_2a_3x3": {nil, {0, 0, 0, 0}},
		"Conv2d_2b_3x3": {nil, {1, 1, 1, 1}},
		"Conv2d_3b_1x1": {nil, {0, 0, 0, 0}},
		"Conv2d_4a_3x3": {nil, {0, 0, 0, 0}},
	}
	seen := 0
	for _, n := range syntheticFIDInception(1).Nodes() {
		if n.OpType != "Conv" || len(n.Inputs) < 2 {
			continue
		}
		name, ok := strings.CutSuffix(n.Inputs[1], ".conv.weight")
		w, isStem := want[name]
		if !ok || !isStem {
			continue
		}
		seen++
		var strides, pads []int64
		for _, a := range n.Attrs {
			switch a.Name {
			case "strides":
				strides = a.Ints()
			case "pads":
				pads = a.Ints()
			}
		}
		if slices.Equal(strides, []int64{1, 1}) {
			strides = nil
		}
		if !slices.Equal(strides, w[0]) || !slices.Equal(pads, w[1]) {
			t.Errorf("%s: strides %v pads %v, torchvision's %v %v", name, strides, pads, w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Errorf("%d stem convolutions found, want %d", seen, len(want))
	}
}
