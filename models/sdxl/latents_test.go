package sdxl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
)

// declared is a session that only declares its inputs.
type declared []backend.Info

func (d declared) Inputs() []backend.Info  { return d }
func (d declared) Outputs() []backend.Info { return nil }
func (d declared) Run(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
	return nil, nil
}
func (d declared) Close() error { return nil }

// TestCheckLatentsAgainstTheUNetsSample: a dynamic (-1) dimension of the
// UNet's sample input takes the latents' size; a fixed one must equal it,
// 0 included (a 0-wide sample takes no 1×4×8×8 latents).
func TestCheckLatentsAgainstTheUNetsSample(t *testing.T) {
	for _, c := range []struct {
		shape []int64
		want  string // "" accepted
	}{
		{[]int64{-1, 4, -1, -1}, ""},
		{[]int64{1, 4, 8, 8}, ""},
		{[]int64{1, -1, 8, -1}, ""},
		{[]int64{1, 4, 0, 8}, "does not take 8×8 latents"},
		{[]int64{1, 4, 8, 0}, "does not take 8×8 latents"},
		{[]int64{1, 4, 9, 8}, "does not take 8×8 latents"},
		{[]int64{1, 0, 8, 8}, "does not take 4 latent channels"},
		{[]int64{1, 4, 8}, "does not take 4 latent channels"},
	} {
		p := &pipeline{unet: declared{{Name: inSample, DType: backend.Float32, Shape: c.shape}}, c: 4, h: 8, w: 8}
		err := p.checkLatents()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("sample %v: %v, want %q", c.shape, err, c.want)
		}
	}
}

// TestOpenScorerNamesTheModelThatFailed: an FID or CLIP model the engine
// cannot open is an error naming which, and the scorer is not returned.
func TestOpenScorerNamesTheModelThatFailed(t *testing.T) {
	for _, c := range []struct{ fail, want string }{
		{"inception.onnx", "sdxl: FID model: no such engine"},
		{"visual", "sdxl: CLIP model folder clip: no such engine"},
		{"text", "sdxl: CLIP model folder clip: no such engine"},
	} {
		open := func(path string) (backend.Session, error) {
			if strings.Contains(path, c.fail) {
				return nil, errors.New("no such engine")
			}
			return declared{}, nil
		}
		s, err := openScorer(open, "inception.onnx", "clip", nil)
		if err == nil || s != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s failing: %v, %v; want %q", c.fail, s, err, c.want)
		}
	}
}
