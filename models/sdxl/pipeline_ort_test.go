//go:build cgo

package sdxl

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/onnx"
)

var (
	tinyOnce sync.Once
	tinyDir  string
	tinyErr  error
)

// tinyModel builds the tiny synthetic model once per test binary.
func tinyModel(t *testing.T) string {
	t.Helper()
	tinyOnce.Do(func() {
		dir, err := mkTemp()
		if err != nil {
			tinyErr = err
			return
		}
		tinyDir = dir
		tinyErr = build(filepath.Join(dir, "model.onnx"), sizeTiny, archSeed)
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyDir
}

var (
	tinyPipeOnce sync.Once
	tinyPipe     *pipeline
	tinyPipeErr  error
)

// tinyPipeline opens the tiny model's pipeline once per test binary (on
// the latents of testLatents(4, 8, 8)); it is never closed.
func tinyPipeline(t *testing.T) *pipeline {
	t.Helper()
	dir := tinyModel(t)
	tinyPipeOnce.Do(func() {
		lat, shape := testLatents(4, 8, 8)
		tinyPipe, tinyPipeErr = openPipeline(context.Background(), pipelineConfig{Dir: dir, Open: cpuOpen, Latents: lat, LatentsShape: shape})
	})
	if tinyPipeErr != nil {
		t.Fatal(tinyPipeErr)
	}
	return tinyPipe
}

func testLatents(c, h, w int) ([]float32, []int) {
	l := make([]float32, c*h*w)
	for i := range l {
		l[i] = float32(math.Sin(float64(i)*12.9898) * 1.3)
	}
	return l, []int{1, c, h, w}
}

func cpuOpen(path string) (backend.Session, error) {
	return ort.Open(path, ort.Options{IntraOpThreads: 1})
}

func TestTinyPipelineGenerates(t *testing.T) {
	orttest.Need(t)
	p := tinyPipeline(t)
	if p.Steps() != 3 || p.ImageH != 64 || p.ImageW != 64 {
		t.Errorf("steps %d, image %d×%d; want 3, 64×64", p.Steps(), p.ImageH, p.ImageW)
	}
	a, b := p.Tokenize("a cat sitting on a table"), p.Tokenize("two dogs playing in the snow")
	one, err := p.Generate(context.Background(), []tokens{a})
	if err != nil {
		t.Fatal(err)
	}
	two, err := p.Generate(context.Background(), []tokens{b, a})
	if err != nil {
		t.Fatal(err)
	}
	if len(one[0]) != 64*64*3 || len(two) != 2 {
		t.Fatalf("image bytes %d, batch %d", len(one[0]), len(two))
	}
	// Batching does not change an image beyond float noise; prompts do.
	diff := 0
	for i := range one[0] {
		if d := int(one[0][i]) - int(two[1][i]); d > 1 || d < -1 {
			diff++
		}
	}
	if diff > 0 {
		t.Errorf("%d bytes differ by more than 1 between batch 1 and batch 2", diff)
	}
	if bytes.Equal(two[0], two[1]) {
		t.Error("two prompts gave the same image")
	}
	distinct := map[byte]bool{}
	for _, v := range one[0] {
		distinct[v] = true
	}
	if len(distinct) < 16 {
		t.Errorf("the image has %d distinct values; the pipeline saturates", len(distinct))
	}
}

// copyDir copies the tiny model folder (regular files and the link).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestPipelineBadInputs(t *testing.T) {
	orttest.Need(t)
	dir := tinyModel(t)
	lat, shape := testLatents(4, 8, 8)
	openErr := func(dir string, lat []float32, shape []int) error {
		p, err := openPipeline(context.Background(), pipelineConfig{Dir: dir, Open: cpuOpen, Latents: lat, LatentsShape: shape})
		if err == nil {
			p.Close()
		}
		return err
	}
	// A folder missing a graph.
	d := copyDir(t, dir)
	os.Remove(partPath(d, "vae_decoder"))
	if err := openErr(d, lat, shape); err == nil || !strings.Contains(err.Error(), "lacks vae_decoder/model.onnx") {
		t.Errorf("missing VAE: %v", err)
	}
	// A UNet taking 8 latent channels (a two-block UNet: only its input
	// matters, and it loads fast).
	d = copyDir(t, dir)
	c := configs[sizeTiny]
	c.UNet = unetConfig{Channels: []int64{8, 8}, Heads: []int64{1, 1}, TLayers: []int64{1, 1}, LayersPerBlock: 1,
		CrossDim: c.UNet.CrossDim, TextEmbedDim: c.UNet.TextEmbedDim, TimeIDDim: 8, Groups: 4}
	c.LatentChannels = 8
	if err := unet(c, 1).WriteFile(partPath(d, "unet"), onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := openErr(d, lat, shape); err == nil || !strings.Contains(err.Error(), "does not take 4 latent channels") {
		t.Errorf("8-channel UNet: %v", err)
	}
	// Latents of the wrong shape.
	if err := openErr(dir, lat, []int{4, 8, 8}); err == nil || !strings.Contains(err.Error(), "(1, 4, 128, 128)") {
		t.Errorf("3-D latents: %v", err)
	}
	l3, s3 := testLatents(3, 8, 8)
	if err := openErr(d, l3, s3); err == nil || !strings.Contains(err.Error(), "does not take 3 latent channels") {
		t.Errorf("3-channel latents: %v", err)
	}
	// A part the engine cannot open: the error names the part.
	for _, part := range []string{"unet", "vae_decoder"} {
		failing := func(path string) (backend.Session, error) {
			if strings.Contains(path, part) {
				return nil, errors.New("out of device memory")
			}
			return cpuOpen(path)
		}
		p, err := openPipeline(context.Background(), pipelineConfig{Dir: dir, Open: failing, Latents: lat, LatentsShape: shape})
		if err == nil {
			p.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "sdxl: "+part+": out of device memory") {
			t.Errorf("%s failing to open: %v", part, err)
		}
	}
	// Not a model folder at all.
	if _, err := modelDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "optimum") {
		t.Errorf("empty folder: %v", err)
	}
	if got, err := modelDir(filepath.Join(dir, "model.onnx")); err != nil || got != dir {
		t.Errorf("ModelDir(model.onnx) = %q, %v", got, err)
	}
}

// A float16 export (tiny-fp16: the same weights with float16 inputs and
// outputs) gives the float32 model's image up to float16 rounding.
func TestTinyFP16PipelineMatchesFP32(t *testing.T) {
	orttest.Need(t)
	full := tinyPipeline(t)
	half := t.TempDir()
	if err := build(filepath.Join(half, "model.onnx"), sizeTinyFP16, archSeed); err != nil {
		t.Fatal(err)
	}
	lat, shape := testLatents(4, 8, 8)
	hp, err := openPipeline(context.Background(), pipelineConfig{Dir: half, Open: cpuOpen, Latents: lat, LatentsShape: shape})
	if err != nil {
		t.Fatal(err)
	}
	defer hp.Close()
	var imgs [][]byte
	for _, p := range []*pipeline{full, hp} {
		img, err := p.Generate(context.Background(), []tokens{p.Tokenize("a red bus on the street")})
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, img[0])
	}
	sum, worst := 0, 0
	for i := range imgs[0] {
		d := int(imgs[0][i]) - int(imgs[1][i])
		if d < 0 {
			d = -d
		}
		sum += d
		worst = max(worst, d)
	}
	if mean := float64(sum) / float64(len(imgs[0])); mean > 0.5 || worst > 8 {
		t.Errorf("float16 vs float32 image: mean |diff| %.2f, worst %d levels", mean, worst)
	}
	t.Logf("float16 vs float32: mean |diff| %.3f, worst %d", float64(sum)/float64(len(imgs[0])), worst)
}

// BenchmarkTinyGenerate times one image of the tiny pipeline (3 UNet
// steps at batch 2 with guidance, both text encoders, the VAE).
func BenchmarkTinyGenerate(b *testing.B) {
	orttest.Need(b)
	dir, err := mkTemp()
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := build(filepath.Join(dir, "model.onnx"), sizeTiny, archSeed); err != nil {
		b.Fatal(err)
	}
	lat, shape := testLatents(4, 8, 8)
	p, err := openPipeline(context.Background(), pipelineConfig{Dir: dir, Open: cpuOpen, Latents: lat, LatentsShape: shape})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	tok := []tokens{p.Tokenize("a red bus on the street")}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Generate(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/image")
}

// The full synthetic FID network is pytorch-fid's FIDInceptionV3 up to
// pool3: about 21.8 M values (convolutions and BatchNorm parameters and
// running statistics, no AuxLogits or fc), 2048 non-negative features
// per image.
func TestSyntheticFIDInceptionRuns(t *testing.T) {
	orttest.Need(t)
	g := syntheticFIDInception(archSeed)
	if n := g.ParamCount(); n < 21_700_000 || n > 21_900_000 {
		t.Errorf("%d parameters, want about 21.8 M", n)
	}
	p := filepath.Join(t.TempDir(), "inception.onnx")
	if err := g.WriteFile(p, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := cpuOpen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := make([]float32, 3*fidSide*fidSide)
	fidInput(in, pattern(64, 64), 64, 64)
	out, err := run(context.Background(), s, []backend.Tensor{{Name: fidInputName, DType: backend.Float32, Shape: []int64{1, 3, fidSide, fidSide}, Data: in}}, []string{fidOutputName}, []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	pos := 0
	for _, v := range out[0] {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			t.Fatalf("feature %v", v)
		}
		if v > 0 {
			pos++
		}
	}
	if len(out[0]) != 2048 || pos < 100 {
		t.Errorf("%d features, %d positive", len(out[0]), pos)
	}
}
