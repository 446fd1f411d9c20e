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
	for name, g := range map[string]interface{ ParamCount() int64 }{
		"text_encoder": TextEncoder(c.Text1, 1), "text_encoder_2": TextEncoder(c.Text2, 1),
		"unet": UNet(c, 1), "vae_decoder": VAEDecoder(c, 1),
	} {
		t.Logf("%s: %d parameters", name, g.ParamCount())
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
