package sdxl

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/clip"
	"github.com/mlperf-go/inference/accuracy/fid"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/coco2014"
	"github.com/mlperf-go/inference/diffusion/cliptok"
	"github.com/mlperf-go/inference/onnx"
)

// The accuracy models are ONNX files with this project's contract (no
// official ONNX exists):
//
//	FID: pytorch-fid's InceptionV3 (TF-FID weights) up to pool3, input
//	  "images" [N, 3, 299, 299] float32 in [−1, 1] (already resized and
//	  scaled), output "features" [N, 2048];
//	CLIP: a folder with visual/model.onnx (open_clip ViT-B/32 image tower,
//	  "pixel_values" [N, 3, 224, 224] normalised → "image_embeds" [N, 512]),
//	  text/model.onnx ("input_ids" [N, 77] int64 → "text_embeds" [N, 512])
//	  and tokenizer/ (CLIP's, padding with id 0 as open_clip.tokenize).
const (
	fidInputName   = "images"
	fidOutputName  = "features"
	clipPixels     = "pixel_values"
	clipImageEmbed = "image_embeds"
	clipTextEmbed  = "text_embeds"
	fidSide        = 299
	clipSide       = 224
)

// CLIP's image normalisation (open_clip constants OPENAI_DATASET_MEAN/STD).
var (
	clipMean = [3]float32{0.48145466, 0.4578275, 0.40821073}
	clipStd  = [3]float32{0.26862954, 0.26130258, 0.27577711}
)

// reviewIDs are the QSL indices whose images accuracy runs save for the
// submission's review (text_to_image/tools/sample_ids.txt at
// mlcommons/inference master, the v6.1 list); a run for an earlier round
// saves that round's (the checker's REQUIRED_ACC_BENCHMARK images, given
// as ScoreRequest.AccuracyFiles).
var reviewIDs = []int{4475, 3627, 1046, 4937, 3867, 1671, 3789, 1206, 4111, 3093}

// fidInput writes an h×w×3 uint8 image as pytorch-fid's InceptionV3 sees
// it: ToTensor ([0, 1]), F.interpolate to 299×299 bilinear with
// align_corners=False (no antialiasing), then 2x−1, as CHW float32.
func fidInput(dst []float32, img []byte, h, w int) {
	ys, xs := bilinearTaps(h, fidSide), bilinearTaps(w, fidSide)
	for c := range 3 {
		for oy, ty := range ys {
			for ox, tx := range xs {
				p := func(y, x int) float32 { return float32(img[(y*w+x)*3+c]) / 255 }
				top := (1-tx.l)*p(ty.i0, tx.i0) + tx.l*p(ty.i0, tx.i1)
				bot := (1-tx.l)*p(ty.i1, tx.i0) + tx.l*p(ty.i1, tx.i1)
				v := (1-ty.l)*top + ty.l*bot
				dst[(c*fidSide+oy)*fidSide+ox] = 2*v - 1
			}
		}
	}
}

type tap struct {
	i0, i1 int
	l      float32
}

// bilinearTaps are ATen's upsample_bilinear2d source indices for
// align_corners=False: src = (dst+0.5)·(in/out) − 0.5, clamped at 0.
func bilinearTaps(in, out int) []tap {
	t := make([]tap, out)
	scale := float32(in) / float32(out)
	for i := range t {
		src := max(scale*(float32(i)+0.5)-0.5, 0)
		i0 := int(src)
		i1 := min(i0+1, in-1)
		t[i] = tap{i0: i0, i1: i1, l: src - float32(i0)}
	}
	return t
}

// clipInput writes an h×w×3 uint8 image as open_clip's ViT-B/32 eval
// transform gives it: PIL bicubic resize of the shorter side to 224
// (Image.resize's separable filter with a = −0.5, in 8-bit fixed point,
// horizontal pass first), centre crop 224, ToTensor, normalise; CHW
// float32.
func clipInput(dst []float32, img []byte, h, w int) {
	nh, nw := clipSide, clipSide
	if w > h {
		nw = int(math.Floor(float64(clipSide) * float64(w) / float64(h)))
	} else if h > w {
		nh = int(math.Floor(float64(clipSide) * float64(h) / float64(w)))
	}
	r := pilResize(img, h, w, nh, nw)
	top := int(math.RoundToEven(float64(nh-clipSide) / 2)) // Python round()
	left := int(math.RoundToEven(float64(nw-clipSide) / 2))
	for c := range 3 {
		for y := range clipSide {
			for x := range clipSide {
				v := float32(r[((y+top)*nw+x+left)*3+c]) / 255
				dst[(c*clipSide+y)*clipSide+x] = (v - clipMean[c]) / clipStd[c]
			}
		}
	}
}

// pilBicubic is PIL's bicubic filter (a = −0.5, support 2).
func pilBicubic(x float64) float64 {
	const a = -0.5
	x = math.Abs(x)
	switch {
	case x < 1:
		return ((a+2)*x-(a+3))*x*x + 1
	case x < 2:
		return (((x-5)*x+8)*x - 4) * a
	}
	return 0
}

const pilPrecision = 32 - 8 - 2

// pilCoeffs are PIL's precompute_coeffs for one axis, as fixed-point
// integers (normalize_coeffs_8bpc).
func pilCoeffs(in, out int) (bounds [][2]int, kk [][]int32) {
	scale := float64(in) / float64(out)
	fscale := max(scale, 1)
	support := 2 * fscale
	for xx := range out {
		center := (float64(xx) + 0.5) * scale
		ss := 1 / fscale
		xmin := max(int(center-support+0.5), 0)
		xmax := min(int(center+support+0.5), in) - xmin
		k := make([]float64, xmax)
		ww := 0.0
		for x := range xmax {
			k[x] = pilBicubic((float64(x+xmin) - center + 0.5) * ss)
			ww += k[x]
		}
		ki := make([]int32, xmax)
		for x := range xmax {
			v := k[x]
			if ww != 0 {
				v /= ww
			}
			if v < 0 {
				ki[x] = int32(v*(1<<pilPrecision) - 0.5)
			} else {
				ki[x] = int32(v*(1<<pilPrecision) + 0.5)
			}
		}
		bounds = append(bounds, [2]int{xmin, xmax})
		kk = append(kk, ki)
	}
	return bounds, kk
}

func clip8(v int64) byte {
	v >>= pilPrecision
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return byte(v)
}

// pilResize is PIL Image.resize((nw, nh), BICUBIC) of an RGB image.
func pilResize(img []byte, h, w, nh, nw int) []byte {
	src, sh, sw := img, h, w
	if nw != w {
		b, kk := pilCoeffs(w, nw)
		out := make([]byte, h*nw*3)
		for y := range h {
			for x := range nw {
				for c := range 3 {
					acc := int64(1) << (pilPrecision - 1)
					for i, k := range kk[x] {
						acc += int64(src[(y*w+b[x][0]+i)*3+c]) * int64(k)
					}
					out[(y*nw+x)*3+c] = clip8(acc)
				}
			}
		}
		src, sw = out, nw
	}
	if nh != sh {
		b, kk := pilCoeffs(sh, nh)
		out := make([]byte, nh*sw*3)
		for y := range nh {
			for x := range sw {
				for c := range 3 {
					acc := int64(1) << (pilPrecision - 1)
					for i, k := range kk[y] {
						acc += int64(src[((b[y][0]+i)*sw+x)*3+c]) * int64(k)
					}
					out[(y*sw+x)*3+c] = clip8(acc)
				}
			}
		}
		src = out
	}
	return src
}

// scorer computes FID and CLIP score of generated images as
// text_to_image/tools/accuracy_coco.py does.
type scorer struct {
	Inception, CLIPImage, CLIPText backend.Session
	Tokenizer                      *cliptok.Tokenizer
	Stats                          *coco2014.Stats
	// ReviewDir, if set, receives the review images (<qsl idx>.png) and
	// captions.txt of ReviewIDs.
	ReviewDir string
	ReviewIDs []int
}

// Close releases the sessions.
func (s *scorer) Close() {
	for _, x := range []backend.Session{s.Inception, s.CLIPImage, s.CLIPText} {
		if x != nil {
			x.Close()
		}
	}
}

// Score reads an accuracy log (first entry of each qsl_idx), computes
// each image's Inception features and CLIP score against its caption,
// and the FID of all images against the statistics.
func (s *scorer) Score(ctx context.Context, logPath string, captions []coco2014.Caption) (fid.SDXLResult, error) {
	var res fid.SDXLResult
	var feats []float64
	var imgE, txtE []float32
	n, dim := 0, 0
	fidIn := make([]float32, 3*fidSide*fidSide)
	clipIn := make([]float32, 3*clipSide*clipSide)
	review := map[int]bool{}
	for _, id := range s.ReviewIDs {
		review[id] = true
	}
	if s.ReviewDir != "" {
		if err := os.MkdirAll(s.ReviewDir, 0o755); err != nil {
			return res, fmt.Errorf("sdxl: review images: %w", err)
		}
		var b strings.Builder
		for _, id := range s.ReviewIDs {
			if id < len(captions) {
				fmt.Fprintf(&b, "%d  %s\n", id, captions[id].Text)
			}
		}
		if err := os.WriteFile(filepath.Join(s.ReviewDir, "captions.txt"), []byte(b.String()), 0o644); err != nil {
			return res, fmt.Errorf("sdxl: %w", err)
		}
	}
	_, err := accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := int(e.QSLIdx)
		if idx >= len(captions) {
			return fmt.Errorf("sdxl: accuracy log entry for sample %d of a %d-caption data set", idx, len(captions))
		}
		side := int(math.Round(math.Sqrt(float64(len(e.Data)) / 3)))
		if side < 1 || 3*side*side != len(e.Data) {
			return fmt.Errorf("sdxl: accuracy log entry %d holds %d bytes; want a square H×W×3 uint8 image (3145728 for 1024×1024)", idx, len(e.Data))
		}
		if s.ReviewDir != "" && review[idx] {
			if err := savePNG(filepath.Join(s.ReviewDir, fmt.Sprintf("%d.png", idx)), e.Data, side); err != nil {
				return err
			}
		}
		fidInput(fidIn, e.Data, side, side)
		f, err := run(ctx, s.Inception, []backend.Tensor{{Name: fidInputName, DType: backend.Float32, Shape: []int64{1, 3, fidSide, fidSide}, Data: fidIn}}, []string{fidOutputName}, []int64{1})
		if err != nil {
			return fmt.Errorf("sdxl: FID model: %w", err)
		}
		if dim == 0 {
			dim = len(f[0])
		}
		for _, v := range f[0] {
			feats = append(feats, float64(v))
		}
		clipInput(clipIn, e.Data, side, side)
		ie, err := run(ctx, s.CLIPImage, []backend.Tensor{{Name: clipPixels, DType: backend.Float32, Shape: []int64{1, 3, clipSide, clipSide}, Data: clipIn}}, []string{clipImageEmbed}, []int64{1})
		if err != nil {
			return fmt.Errorf("sdxl: CLIP image model: %w", err)
		}
		toks := s.Tokenizer.Tokens(captions[idx].Text)
		ids := make([]int64, len(toks))
		for i, t := range toks {
			ids[i] = int64(t)
		}
		te, err := run(ctx, s.CLIPText, []backend.Tensor{{Name: inInputIDs, DType: backend.Int64, Shape: []int64{1, int64(len(ids))}, Data: ids}}, []string{clipTextEmbed}, []int64{1})
		if err != nil {
			return fmt.Errorf("sdxl: CLIP text model: %w", err)
		}
		imgE, txtE = append(imgE, ie[0]...), append(txtE, te[0]...)
		n++
		return nil
	})
	if err != nil {
		return res, err
	}
	if n < 2 {
		return res, fmt.Errorf("sdxl: %d distinct samples in %s; FID needs at least 2", n, logPath)
	}
	if dim != len(s.Stats.Mu) {
		return res, fmt.Errorf("sdxl: the FID model gives %d features, the statistics have %d", dim, len(s.Stats.Mu))
	}
	mu, cov, err := fid.MeanCov(feats, n, dim)
	if err != nil {
		return res, err
	}
	if res.FID, _, err = fid.FrechetDistance(s.Stats.Mu, fid.Matrix{N: dim, Data: s.Stats.Sigma}, mu, cov); err != nil {
		return res, err
	}
	if _, res.CLIP, err = clip.Scores(imgE, txtE, n, len(imgE)/n); err != nil {
		return res, err
	}
	return res, nil
}

func savePNG(path string, hwc []byte, side int) error {
	m := image.NewNRGBA(image.Rect(0, 0, side, side))
	for i := range side * side {
		copy(m.Pix[i*4:i*4+3], hwc[i*3:i*3+3])
		m.Pix[i*4+3] = 255
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sdxl: review image: %w", err)
	}
	if err := png.Encode(f, m); err != nil {
		f.Close()
		return fmt.Errorf("sdxl: review image %s: %w", path, err)
	}
	return f.Close()
}

// Synthetic scorer models, seeded weights: open_clip's ViT-B/32 towers
// (the real architecture; tiny at narrow widths), pytorch-fid's
// FIDInceptionV3 (inception.go) for the full size and, for tiny, a narrow
// FID stand-in with the contract's I/O.

// scorerDims are the feature widths of the synthetic scorer models by
// size (tiny keeps FID's covariance small).
var scorerDims = map[string]int64{sizeFull: 2048, sizeTiny: 64}

// syntheticInception builds the tiny FID stand-in (not InceptionV3): two stride-2 3×3
// convolutions with ReLU, a 1×1 convolution to dim channels with ReLU,
// global average pooling.
func syntheticInception(dim int64, seed uint64) *onnx.Graph {
	g := builder{onnx.NewGraph(onnx.Config{Name: "inception_standin", Seed: seed})}
	x := g.Input(fidInputName, onnx.Float, onnx.Sym("N"), onnx.Fix(3), onnx.Fix(fidSide), onnx.Fix(fidSide))
	x = g.Relu(g.conv("conv1", x, 3, 16, 3, 2))
	x = g.Relu(g.conv("conv2", x, 16, 32, 3, 2))
	x = g.Relu(g.conv("conv3", x, 32, dim, 1, 1))
	y := g.Flatten(g.GlobalAveragePool(x), 1)
	g.Output(g.Rename(y, fidOutputName), onnx.Float, onnx.Sym("N"), onnx.Fix(dim))
	return g.Graph
}

// clipConfig is the architecture of open_clip's CLIP towers.
type clipConfig struct {
	Patch, VisionWidth, VisionLayers, VisionHeads int64
	TextWidth, TextLayers, TextHeads              int64
	Embed                                         int64 // joint embedding width
}

// clipConfigs: full is open_clip's ViT-B-32 (OpenAI weights: patch 32,
// 768 wide, 12 layers, 12 heads; text 512 wide, 12 layers, 8 heads;
// embedding 512; QuickGELU), tiny keeps the shapes at widths 32.
var clipConfigs = map[string]clipConfig{
	sizeFull: {Patch: 32, VisionWidth: 768, VisionLayers: 12, VisionHeads: 12, TextWidth: 512, TextLayers: 12, TextHeads: 8, Embed: 512},
	sizeTiny: {Patch: 32, VisionWidth: 32, VisionLayers: 2, VisionHeads: 2, TextWidth: 32, TextLayers: 2, TextHeads: 2, Embed: 32},
}

// resblocks is open_clip's Transformer: layers of x += attn(ln_1(x)),
// x += c_proj(QuickGELU(c_fc(ln_2(x)))), with an optional additive mask.
func (b builder) resblocks(p, x string, width, heads, layers int64, mask string) string {
	for i := range layers {
		q := fmt.Sprintf("%s.resblocks.%d", p, i)
		n := b.ln(q+".ln_1", x, width)
		a := b.Attention(b.Linear(q+".attn.q_proj", n, width, width, true), b.Linear(q+".attn.k_proj", n, width, width, true),
			b.Linear(q+".attn.v_proj", n, width, width, true), heads, width/heads, mask)
		x = b.Add(x, b.Linear(q+".attn.out_proj", a, width, width, true))
		n = b.ln(q+".ln_2", x, width)
		x = b.Add(x, b.Linear(q+".mlp.c_proj", b.QuickGelu(b.Linear(q+".mlp.c_fc", n, width, 4*width, true)), 4*width, width, true))
	}
	return x
}

// syntheticCLIPImage is open_clip's VisionTransformer with seeded weights:
// patch embedding (stride-Patch convolution, no bias), class token,
// positional embedding, ln_pre, the transformer, ln_post of the class
// token, projection; pixel_values [N, 3, 224, 224] → image_embeds.
func syntheticCLIPImage(c clipConfig, seed uint64) *onnx.Graph {
	g := builder{onnx.NewGraph(onnx.Config{Name: "clip_visual", Seed: seed})}
	W := c.VisionWidth
	grid := clipSide / c.Patch
	x := g.Input(clipPixels, onnx.Float, onnx.Sym("N"), onnx.Fix(3), onnx.Fix(clipSide), onnx.Fix(clipSide))
	w := g.Param("visual.conv1.weight", onnx.Float, []int64{W, 3, c.Patch, c.Patch}, onnx.Xavier(3*c.Patch*c.Patch, W))
	x = g.Conv(x, w, "", onnx.ConvOpts{Strides: []int64{c.Patch, c.Patch}})
	x = g.Transpose(g.ReshapeTo(x, 0, W, -1), 0, 2, 1) // [N, grid², W]
	cls := g.ReshapeTo(g.Param("visual.class_embedding", onnx.Float, []int64{W}, onnx.Uniform(-0.05, 0.05)), 1, 1, W)
	n := g.SliceConst(g.Shape(x), []int64{0}, []int64{1}, []int64{0})
	cls = g.Expand(cls, g.Concat(0, n, g.Int64s(1, W)))
	x = g.Concat(1, cls, x)
	x = g.Add(x, g.Param("visual.positional_embedding", onnx.Float, []int64{grid*grid + 1, W}, onnx.Uniform(-0.02, 0.02)))
	x = g.ln("visual.ln_pre", x, W)
	x = g.resblocks("visual.transformer", x, W, c.VisionHeads, c.VisionLayers, "")
	x = g.ln("visual.ln_post", g.Squeeze(g.SliceConst(x, []int64{0}, []int64{1}, []int64{1}), 1), W)
	g.Output(g.Rename(g.Linear("visual.proj", x, W, c.Embed, false), clipImageEmbed), onnx.Float, onnx.Sym("N"), onnx.Fix(c.Embed))
	return g.Graph
}

// syntheticCLIPText is open_clip's text tower with seeded weights: token
// and positional embeddings, the causal transformer, ln_final, the
// features at the end-of-text token (the highest id), text_projection;
// input_ids [N, 77] int64 → text_embeds.
func syntheticCLIPText(c clipConfig, vocab int64, seed uint64) *onnx.Graph {
	g := builder{onnx.NewGraph(onnx.Config{Name: "clip_text", Seed: seed})}
	W := c.TextWidth
	L := int64(cliptok.ContextLength)
	ids := g.Input(inInputIDs, onnx.Int64, onnx.Sym("N"), onnx.Fix(L))
	tok := g.Param("token_embedding.weight", onnx.Float, []int64{vocab, W}, onnx.Uniform(-0.05, 0.05))
	pos := g.Param("positional_embedding", onnx.Float, []int64{L, W}, onnx.Uniform(-0.01, 0.01))
	x := g.Add(g.Gather(tok, ids, 0), pos)
	x = g.resblocks("transformer", x, W, c.TextHeads, c.TextLayers, g.CausalMask(L))
	x = g.ln("ln_final", x, W)
	am := g.ArgMax(g.Cast(ids, onnx.Float), 1, true)
	x = g.Op("GatherND", []string{x, am}, onnx.IntAttr("batch_dims", 1))
	g.Output(g.Rename(g.Linear("text_projection", x, W, c.Embed, false), clipTextEmbed), onnx.Float, onnx.Sym("N"), onnx.Fix(c.Embed))
	return g.Graph
}

// inceptionFor is pytorch-fid's FIDInceptionV3 for the full size and the
// narrow stand-in for tiny.
func inceptionFor(size string, dim int64, seed uint64) *onnx.Graph {
	if size == sizeFull {
		return syntheticFIDInception(seed)
	}
	return syntheticInception(dim, seed)
}

// Scorer model layout in a folder.
const (
	inceptionFile = "inception/model.onnx"
	clipDir       = "clip"
)

// buildScorers writes the synthetic FID and CLIP models of a size into
// dir: inception/model.onnx and clip/{visual,text}/model.onnx with
// clip/tokenizer (the synthetic vocabulary, padding with id 0).
func buildScorers(dir, size string, seed uint64) error {
	dim, ok := scorerDims[size]
	if !ok {
		return fmt.Errorf("sdxl: no synthetic scorer size %q", size)
	}
	vocab, merges := cliptok.Synthetic(tokenizerCorpus, syntheticMerges)
	if err := cliptok.Write(filepath.Join(dir, clipDir, "tokenizer"), vocab, merges, "!", cliptok.ContextLength); err != nil {
		return err
	}
	cc := clipConfigs[size]
	for p, g := range map[string]*onnx.Graph{
		inceptionFile: inceptionFor(size, dim, seed),
		filepath.Join(clipDir, "visual", "model.onnx"): syntheticCLIPImage(cc, seed+1),
		filepath.Join(clipDir, "text", "model.onnx"):   syntheticCLIPText(cc, int64(len(vocab)), seed+2),
	} {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("sdxl: %w", err)
		}
		if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
			return fmt.Errorf("sdxl: %s: %w", p, err)
		}
	}
	return nil
}

// openScorer opens the FID model file and the CLIP folder.
func openScorer(open opener, inception, clipDir string, stats *coco2014.Stats) (*scorer, error) {
	s := &scorer{Stats: stats}
	var err error
	if s.Inception, err = open(inception); err != nil {
		return nil, fmt.Errorf("sdxl: FID model: %w", err)
	}
	if s.CLIPImage, err = open(filepath.Join(clipDir, "visual", "model.onnx")); err != nil {
		s.Close()
		return nil, fmt.Errorf("sdxl: CLIP model folder %s: %w", clipDir, err)
	}
	if s.CLIPText, err = open(filepath.Join(clipDir, "text", "model.onnx")); err != nil {
		s.Close()
		return nil, fmt.Errorf("sdxl: CLIP model folder %s: %w", clipDir, err)
	}
	if s.Tokenizer, err = cliptok.Load(filepath.Join(clipDir, "tokenizer")); err != nil {
		s.Close()
		return nil, fmt.Errorf("sdxl: CLIP model folder %s: %w", clipDir, err)
	}
	return s, nil
}

// reviewIDsOf returns the review ids a round names as "images" file stems
// (files: ScoreRequest.AccuracyFiles), else reviewIDs.
func reviewIDsOf(files map[string][]string) ([]int, error) {
	stems, ok := files["images"]
	if !ok {
		return reviewIDs, nil
	}
	ids := make([]int, len(stems))
	for i, s := range stems {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("sdxl: review image %q: want a caption index (the round's REQUIRED_ACC_BENCHMARK images)", s)
		}
		ids[i] = n
	}
	return ids, nil
}
