package resnet50

import (
	"bufio"
	"fmt"
	goimage "image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/onnx"
)

// The known-answer model and data set: a classifier whose answer on each
// image is known by construction, so that an end-to-end accuracy run must
// score 100 % and any break in decoding, preprocessing, batching, response
// encoding or scoring lowers it.
//
// Each image is split into four quadrants of solid colours from a palette;
// the pattern of the four colours is its class. The model keeps the
// official contract (input "input_tensor:0" float32 [N,3,224,224], output
// "ArgMax:0" int64 [N]): it averages each channel over each quadrant of
// the 224×224 input (AveragePool 112×112, stride 112: 12 features, channel
// major) and scores each known class k by 2·μk·f − |μk|², the
// nearest-centroid rule, where μk are the 12 expected features of pattern
// k: the colours minus the reference's channel means. Decoy classes
// (labels KnownAnswerDecoyLabel(k)) have the centroids of the same
// patterns without the means subtracted, so an input that misses the mean
// subtraction lands on a decoy. Every other class scores −1e9. The centroids are computed here from the colours and the
// reference's means (pre_process_vgg in mlcommons/inference
// vision/classification_and_detection/python/dataset.py: RGB, mean
// 123.68, 116.78, 103.94, no scaling), not by the preprocessing code.

// knownPalette are the quadrant colours (RGB), far apart in every channel
// pair so that channel order, mean subtraction and layout all matter.
var knownPalette = [...][3]uint8{
	{220, 30, 30},   // red
	{30, 200, 40},   // green
	{30, 40, 220},   // blue
	{230, 220, 40},  // yellow
	{40, 210, 220},  // cyan
	{210, 40, 210},  // magenta
	{235, 235, 235}, // white
	{20, 20, 20},    // black
}

// knownAnswerPatterns are the quadrant colours (indices into the palette:
// top-left, top-right, bottom-left, bottom-right) of each known class. The
// set holds each pattern's red/blue swap and its mirror image, so an image
// read in BGR or flipped is classified as another known class.
var knownAnswerPatterns = knownPatterns()

// knownAnswerLabel returns the ImageNet label (0..999) of known class k:
// spread over the label range, and never 0 or 999.
func knownAnswerLabel(k int) int { return 7 + 37*k }

// knownAnswerDecoyLabel returns the label of the decoy class of pattern k:
// the answer for an image of pattern k whose means were not subtracted.
func knownAnswerDecoyLabel(k int) int { return 3 + 37*k }

func knownPatterns() [][4]int {
	swap := map[int]int{0: 2, 2: 0, 3: 4, 4: 3} // red<->blue, yellow<->cyan (R and B channels exchanged)
	rb := func(p [4]int) [4]int {
		for i, c := range p {
			if s, ok := swap[c]; ok {
				p[i] = s
			}
		}
		return p
	}
	mirror := func(p [4]int) [4]int { return [4]int{p[1], p[0], p[3], p[2]} }
	base := [][4]int{{0, 1, 6, 7}, {3, 7, 2, 6}, {5, 0, 1, 7}, {6, 2, 7, 3}, {4, 6, 0, 5}, {1, 3, 7, 0}}
	seen := map[[4]int]bool{}
	var out [][4]int
	for _, b := range base {
		for _, p := range [][4]int{b, rb(b), mirror(b), rb(mirror(b))} {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// knownCentroid returns the 12 expected features (channel major: R's four
// quadrants, then G's, then B's) of pattern p, the channel means
// subtracted unless decoy.
func knownCentroid(p [4]int, decoy bool) [12]float64 {
	means := [3]float64{123.68, 116.78, 103.94}
	if decoy {
		means = [3]float64{}
	}
	var mu [12]float64
	for c := 0; c < 3; c++ {
		for q := 0; q < 4; q++ {
			mu[c*4+q] = float64(knownPalette[p[q]][c]) - means[c]
		}
	}
	return mu
}

// knownAnswerArch builds the known-answer classifier (see above).
func knownAnswerArch() (*onnx.Graph, error) {
	g := onnx.NewGraph(onnx.Config{Name: "resnet50_known_answer", Doc: "ResNet50 contract, nearest-centroid classifier of 2x2 colour patterns: a test model whose answers are known"})
	x := g.Input(archInput, onnx.Float, onnx.Sym("N"), onnx.Fix(3), onnx.Fix(archSide), onnx.Fix(archSide))
	f := g.Flatten(g.AveragePool(x, []int64{archSide / 2, archSide / 2}, onnx.ConvOpts{Strides: []int64{archSide / 2, archSide / 2}}), 1)
	w := make([]float32, 12*archClasses)
	b := make([]float32, archClasses)
	for i := range b {
		b[i] = -1e9
	}
	for k, p := range knownAnswerPatterns {
		for _, decoy := range []bool{false, true} {
			cls := knownAnswerLabel(k) - labelOffset // the model's class index
			if decoy {
				cls = knownAnswerDecoyLabel(k) - labelOffset
			}
			mu := knownCentroid(p, decoy)
			var n2 float64
			for j, m := range mu {
				w[j*archClasses+cls] = float32(2 * m)
				n2 += m * m
			}
			b[cls] = float32(-n2)
		}
	}
	wn := g.Const("known.weight", onnx.Float, []int64{12, archClasses}, w)
	bn := g.Const("known.bias", onnx.Float, []int64{archClasses}, b)
	logits := g.Gemm(f, wn, bn, false, false)
	g.Node("ArgMax", []string{logits}, []string{archArgMax}, onnx.IntAttr("axis", 1), onnx.IntAttr("keepdims", 0))
	g.Output(archArgMax, onnx.Int64, onnx.Sym("N"))
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("resnet50: build the known-answer model: %w", err)
	}
	return g, nil
}

// buildKnownAnswerFile writes the known-answer classifier to path.
func buildKnownAnswerFile(path string) error {
	g, err := knownAnswerArch()
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("resnet50: %w", err)
	}
	return nil
}

// knownAnswerDataset writes n JPEG images (sizes vary around 300×260 so
// that the resize and the centre crop are exercised, in both orientations)
// and their val_map.txt into dir: image i has pattern i mod
// len(KnownAnswerPatterns) and that class's label. It returns the labels
// in val_map order.
func knownAnswerDataset(dir string, n int) ([]int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("resnet50: known-answer data set: %w", err)
	}
	vm, err := os.Create(filepath.Join(dir, "val_map.txt"))
	if err != nil {
		return nil, fmt.Errorf("resnet50: known-answer data set: %w", err)
	}
	defer vm.Close()
	w := bufio.NewWriter(vm)
	labels := make([]int, n)
	for i := range n {
		k := i % len(knownAnswerPatterns)
		wd, ht := 300+8*(i%5), 260+6*(i%3)
		if i%4 == 3 {
			wd, ht = ht, wd // portrait
		}
		img := goimage.NewRGBA(goimage.Rect(0, 0, wd, ht))
		for y := range ht {
			for x := range wd {
				q := 0
				if x >= wd/2 {
					q++
				}
				if y >= ht/2 {
					q += 2
				}
				c := knownPalette[knownAnswerPatterns[k][q]]
				img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 255})
			}
		}
		name := fmt.Sprintf("known_%05d.JPEG", i)
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("resnet50: known-answer data set: %w", err)
		}
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 95})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("resnet50: known-answer data set: write %s: %w", name, err)
		}
		labels[i] = knownAnswerLabel(k)
		fmt.Fprintf(w, "%s %d\n", name, labels[i])
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("resnet50: known-answer data set: %w", err)
	}
	return labels, nil
}
