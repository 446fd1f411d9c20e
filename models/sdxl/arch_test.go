package sdxl

import (
	"os"
	"path/filepath"
	"testing"
)

// The full size has SDXL base 1.0's parameter counts (diffusers/
// transformers: text encoders 123.1 M and 694.7 M, UNet 2567.5 M, VAE
// decoder with post_quant_conv 49.5 M); the graphs are only built, not
// written.
func TestFullSizeParameterCounts(t *testing.T) {
	c, err := ConfigOf(SizeFull, 0)
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
		"text_encoder":   {TextEncoder(c.Text1, false, 1), 123060480},
		"text_encoder_2": {TextEncoder(c.Text2, false, 1), 694659840},
		"unet":           {UNet(c, 1), 2567463684},
		"vae_decoder":    {VAEDecoder(c, 1), 49490199 + 20},
	} {
		got := float64(c.g.ParamCount())
		if got < c.want || got > c.want*1.0001 {
			t.Errorf("%s: %.0f parameters, want %.0f (+0.01%%)", name, got, c.want)
		}
	}
}

func TestBuildTinyLayout(t *testing.T) {
	dir := t.TempDir()
	if err := Build(filepath.Join(dir, "model.onnx"), SizeTiny, ArchSeed); err != nil {
		t.Fatal(err)
	}
	for _, p := range Parts {
		if _, err := os.Stat(PartPath(dir, p)); err != nil {
			t.Error(err)
		}
	}
}

func mkTemp() (string, error) { return os.MkdirTemp("", "sdxl-tiny-*") }
