package preprocess

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

func randImage(rng *rand.Rand, w, h, cn int) *Image {
	m := NewImage(w, h, cn)
	for i := range m.Pix {
		m.Pix[i] = uint8(rng.IntN(256))
	}
	return m
}

// TestResizeAreaCropEqualsResizeThenCrop: computing only a window gives
// the same bytes as resizing everything and cropping, on every path
// (area fast, area, enlarging linear, copy).
func TestResizeAreaCropEqualsResizeThenCrop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ sw, sh, cn, dw, dh int }{
		{500, 375, 3, 341, 256}, {375, 500, 3, 256, 341}, {512, 512, 3, 256, 256}, {768, 768, 3, 256, 256},
		{200, 150, 3, 341, 256}, {256, 300, 3, 256, 300}, {97, 61, 1, 40, 29}, {50, 40, 4, 70, 30},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d_to_%dx%d", tc.sw, tc.sh, tc.cn, tc.dw, tc.dh), func(t *testing.T) {
			src := randImage(rng, tc.sw, tc.sh, tc.cn)
			full, err := ResizeArea(src, tc.dw, tc.dh)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 5; k++ {
				cw, ch := 1+rng.IntN(tc.dw), 1+rng.IntN(tc.dh)
				x, y := rng.IntN(tc.dw-cw+1), rng.IntN(tc.dh-ch+1)
				want, _ := Crop(full, x, y, cw, ch)
				got, err := ResizeAreaCrop(src, tc.dw, tc.dh, x, y, cw, ch)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Pix, want.Pix) {
					t.Errorf("window %dx%d at (%d,%d) differs", cw, ch, x, y)
				}
			}
		})
	}
}

func TestResizeBadArguments(t *testing.T) {
	m := NewImage(10, 10, 3)
	for _, f := range []func() error{
		func() error { _, err := ResizeArea(m, 0, 5); return err },
		func() error { _, err := ResizeLinear(m, 5, -1); return err },
		func() error { _, err := ResizeArea(&Image{Width: 3, Height: 3, Channels: 3}, 2, 2); return err },
		func() error { _, err := ResizeAreaCrop(m, 8, 8, 4, 4, 5, 5); return err },
		func() error { _, err := ResizeLinearF32(&ImageF32{}, 2, 2); return err },
		func() error { _, err := CenterCrop(m, 11, 5); return err },
		func() error { return NormalizeCHWInto(make([]float32, 5), m, []float32{0, 0, 0}, nil) },
	} {
		if err := f(); !errors.Is(err, ErrBadImage) {
			t.Errorf("got %v, want ErrBadImage", err)
		}
	}
	var nilImg *Image
	if _, err := ResizeArea(nilImg, 2, 2); !errors.Is(err, ErrBadImage) {
		t.Errorf("nil image: %v", err)
	}
}

func BenchmarkResizeArea500x375(b *testing.B) {
	src := randImage(rand.New(rand.NewPCG(3, 4)), 500, 375, 3)
	for b.Loop() {
		if _, err := ResizeAreaCrop(src, 341, 256, 58, 16, 224, 224); err != nil {
			b.Fatal(err)
		}
	}
}
