// Package whisper is the MLPerf Whisper large-v3 benchmark on LibriSpeech
// (mlcommons/inference speech2text): the synthetic-weights model builder
// (arch.go), greedy transcription over three ONNX sessions (model.go), the
// batching SUT (sut.go), the response encoding the reference's accuracy
// script reads (postprocess.go), and the registry's descriptor and driver
// (benchmark.go, data.go, dataset.go).
package whisper

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/preprocess/logmel"
)

// The synthetic-weights model: Whisper as transformers'
// modeling_whisper (WhisperForConditionalGeneration) computes it, written
// with the onnx package in Hugging Face optimum's ONNX layout
// (optimum-cli export onnx --task automatic-speech-recognition-with-past):
//
//	encoder_model.onnx          input_features [B, mels, 3000] → last_hidden_state [B, 1500, d]
//	decoder_model.onnx          input_ids [B, S], encoder_hidden_states [B, 1500, d]
//	                            → logits [B, S, vocab], present.N.decoder.key/value [B, heads, S, hd],
//	                              present.N.encoder.key/value [B, heads, 1500, hd]
//	decoder_with_past_model.onnx  input_ids [B, S], past_key_values.N.decoder.key/value [B, heads, P, hd],
//	                            past_key_values.N.encoder.key/value [B, heads, 1500, hd]
//	                            → logits [B, S, vocab], present.N.decoder.key/value [B, heads, P+S, hd]
//
// Encoder: x = gelu(conv2(gelu(conv1(features)))) (kernel 3, padding 1,
// conv2 stride 2), transposed to [B, 1500, d], plus the sinusoidal
// position table; per layer x += out(attn(LN(x))), x += fc2(gelu(fc1(LN(x))));
// then LN. Decoder: x = embed_tokens[ids] + embed_positions[past+i]; per
// layer causal self-attention, cross-attention over the encoder states
// (keys and values computed once by decoder_model.onnx and carried as
// past_key_values.N.encoder.*), and the MLP, each pre-LN with a residual;
// logits = LN(x)·proj_out. Attention scales queries by head_dim^-½ after
// the bias; k_proj has no bias; LayerNorm eps 1e-5; GELU exact (erf).

// config is the architecture of one Whisper size.
type config struct {
	Mels           int64 // input_features channels (128 for large-v3)
	Width          int64 // d_model
	EncoderLayers  int64
	DecoderLayers  int64
	Heads          int64 // attention heads, encoder and decoder
	FFN            int64 // encoder_ffn_dim = decoder_ffn_dim
	Vocab          int64
	SourcePos      int64 // max_source_positions: encoder frames after conv2 (1500)
	TargetPos      int64 // max_target_positions: decoder positions (448)
	LayerNormEps   float32
	MaxSourceFrame int64 // input frames (3000 = 2 × SourcePos)
}

// HeadDim is Width / Heads.
func (c config) HeadDim() int64 { return c.Width / c.Heads }

// Model sizes.
const (
	// sizeLargeV3 is openai/whisper-large-v3 (config.json): 32 + 32
	// layers of width 1280, 20 heads, 51,866 tokens.
	sizeLargeV3 = "large-v3"
	// sizeTiny keeps the input, the vocabulary and the positions of
	// large-v3 with 2 + 2 layers of width 64 (4 heads), for tests.
	sizeTiny = "tiny"
)

// configs are the sizes Arch builds.
var configs = map[string]config{
	sizeLargeV3: {Mels: 128, Width: 1280, EncoderLayers: 32, DecoderLayers: 32, Heads: 20, FFN: 5120, Vocab: 51866,
		SourcePos: 1500, TargetPos: 448, LayerNormEps: 1e-5, MaxSourceFrame: logmel.NFrames},
	sizeTiny: {Mels: 128, Width: 64, EncoderLayers: 2, DecoderLayers: 2, Heads: 4, FFN: 256, Vocab: 51866,
		SourcePos: 1500, TargetPos: 448, LayerNormEps: 1e-5, MaxSourceFrame: logmel.NFrames},
}

// archSeed is the default weight seed.
const archSeed uint64 = 20231106

// configOf returns the config of a size name.
func configOf(size string) (config, error) {
	c, ok := configs[size]
	if !ok {
		names := make([]string, 0, len(configs))
		for n := range configs {
			names = append(names, n)
		}
		slices.Sort(names)
		return config{}, fmt.Errorf("whisper: unknown model size %q (want one of %s)", size, strings.Join(names, ", "))
	}
	return c, nil
}

func (c config) check() error {
	if c.Mels <= 0 || c.Width <= 0 || c.EncoderLayers <= 0 || c.DecoderLayers <= 0 || c.Heads <= 0 || c.FFN <= 0 ||
		c.Vocab <= 1 || c.SourcePos <= 0 || c.TargetPos <= 0 || c.MaxSourceFrame != 2*c.SourcePos {
		return fmt.Errorf("whisper: bad config %+v", c)
	}
	if c.Width%c.Heads != 0 {
		return fmt.Errorf("whisper: width %d is not a multiple of %d heads", c.Width, c.Heads)
	}
	return nil
}

// File names of the optimum layout, and I/O names.
const (
	encoderFile         = "encoder_model.onnx"
	decoderFile         = "decoder_model.onnx"
	decoderWithPastFile = "decoder_with_past_model.onnx"

	inputFeatures       = "input_features"
	lastHiddenState     = "last_hidden_state"
	inputIDs            = "input_ids"
	encoderHiddenStates = "encoder_hidden_states"
	logitsName          = "logits"
)

// Dimension names of the graphs' inputs and outputs (optimum's).
const (
	dimBatch   = "batch_size"
	dimSeq     = "decoder_sequence_length"
	dimPast    = "past_decoder_sequence_length"
	dimTotal   = "past_decoder_sequence_length + 1"
	dimEncoder = "encoder_sequence_length_out"
)

// pastNames are the inputs of decoder layer i's cache: self-attention
// key and value, then cross-attention key and value.
func pastNames(i int) [4]string {
	p := fmt.Sprintf("past_key_values.%d.", i)
	return [4]string{p + "decoder.key", p + "decoder.value", p + "encoder.key", p + "encoder.value"}
}

// presentNames are the matching outputs.
func presentNames(i int) [4]string {
	p := fmt.Sprintf("present.%d.", i)
	return [4]string{p + "decoder.key", p + "decoder.value", p + "encoder.key", p + "encoder.value"}
}

// builder holds one graph and the config.
type builder struct {
	g *onnx.Graph
	c config
}

func newGraph(name string, c config, seed uint64) *onnx.Graph {
	return onnx.NewGraph(onnx.Config{
		Name: name,
		Seed: seed,
		Doc: fmt.Sprintf("Whisper %s (%d+%d layers, width %d, %d heads), synthetic weights, seed %d: performance only, accuracy not meaningful",
			name, c.EncoderLayers, c.DecoderLayers, c.Width, c.Heads, seed),
	})
}

func (b *builder) param(name string, dims []int64, init onnx.Init) string {
	return b.g.Param(name, onnx.Float, dims, init)
}

// linear is x·W (+ b), W [in, out] drawn from U(±√(3/in)), b from U(±0.05).
func (b *builder) linear(name, x string, in, out int64, bias bool) string {
	a := math.Sqrt(3 / float64(in))
	y := b.g.MatMul(x, b.param(name+".weight", []int64{in, out}, onnx.Uniform(-a, a)))
	if bias {
		y = b.g.Add(y, b.param(name+".bias", []int64{out}, onnx.Uniform(-0.05, 0.05)))
	}
	return y
}

func (b *builder) layerNorm(name, x string) string {
	w := b.param(name+".weight", []int64{b.c.Width}, onnx.Uniform(0.8, 1.2))
	bias := b.param(name+".bias", []int64{b.c.Width}, onnx.Uniform(-0.05, 0.05))
	return b.g.LayerNorm(x, w, bias, -1, b.c.LayerNormEps)
}

func (b *builder) mlp(p, x string) string {
	h := b.linear(p+"fc1", b.layerNorm(p+"final_layer_norm", x), b.c.Width, b.c.FFN, true)
	return b.g.Add(x, b.linear(p+"fc2", b.g.Gelu(h), b.c.FFN, b.c.Width, true))
}

// heads reshapes [B,T,d] to [B,heads,T,hd].
func (b *builder) heads(x string) string {
	return b.g.Transpose(b.g.ReshapeTo(x, 0, 0, b.c.Heads, b.c.HeadDim()), 0, 2, 1, 3)
}

// query is the scaled query projection, [B,heads,T,hd].
func (b *builder) query(p, x string) string {
	q := b.linear(p+"q_proj", x, b.c.Width, b.c.Width, true)
	return b.heads(b.g.Mul(q, b.g.Scalar(onnx.Float, 1/math.Sqrt(float64(b.c.HeadDim())))))
}

func (b *builder) keyValue(p, x string) (k, v string) {
	return b.heads(b.linear(p+"k_proj", x, b.c.Width, b.c.Width, false)),
		b.heads(b.linear(p+"v_proj", x, b.c.Width, b.c.Width, true))
}

// attend is out_proj(softmax(q·kᵀ (+ mask))·v) for q [B,H,S,hd], k and v
// [B,H,T,hd]; allowed, when not "", is a bool [S,T] mask.
func (b *builder) attend(p, q, k, v, allowed string) string {
	g := b.g
	scores := g.MatMul(q, g.Transpose(k, 0, 1, 3, 2))
	if allowed != "" {
		scores = g.Where(allowed, scores, g.Scalar(onnx.Float, -math.MaxFloat32))
	}
	out := g.MatMul(g.Softmax(scores, -1), v)                        // [B,H,S,hd]
	out = g.ReshapeTo(g.Transpose(out, 0, 2, 1, 3), 0, 0, b.c.Width) // [B,S,d]
	return b.linear(p+"out_proj", out, b.c.Width, b.c.Width, true)
}

// sinusoids is whisper's sinusoids(length, channels): sin then cos of
// position × exp(−log(10000)/(channels/2 − 1) · i).
func sinusoids(length, channels int64) []float32 {
	half := channels / 2
	inc := math.Log(10000) / float64(half-1)
	out := make([]float32, length*channels)
	for t := range length {
		for i := range half {
			a := float64(t) * math.Exp(-inc*float64(i))
			out[t*channels+i] = float32(math.Sin(a))
			out[t*channels+half+i] = float32(math.Cos(a))
		}
	}
	return out
}

// encoderGraph builds encoder_model.onnx.
func encoderGraph(c config, seed uint64) (*onnx.Graph, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	g := newGraph("encoder", c, seed)
	b := &builder{g: g, c: c}
	x := g.Input(inputFeatures, onnx.Float, onnx.Sym(dimBatch), onnx.Fix(c.Mels), onnx.Fix(c.MaxSourceFrame))
	conv := func(name, x string, in int64, stride int64) string {
		a := math.Sqrt(3 / float64(3*in))
		w := b.param(name+".weight", []int64{c.Width, in, 3}, onnx.Uniform(-a, a))
		bias := b.param(name+".bias", []int64{c.Width}, onnx.Uniform(-0.05, 0.05))
		return g.Gelu(g.Conv(x, w, bias, onnx.ConvOpts{Strides: []int64{stride}, Pads: []int64{1, 1}}))
	}
	x = conv("encoder.conv1", x, c.Mels, 1)
	x = conv("encoder.conv2", x, c.Width, 2)
	x = g.Transpose(x, 0, 2, 1) // [B,1500,d]
	pos := g.AddInitializer(onnx.NewTensor("encoder.embed_positions.weight", onnx.Float, []int64{c.SourcePos, c.Width}, sinusoids(c.SourcePos, c.Width)))
	x = g.Add(x, pos)
	for l := range c.EncoderLayers {
		p := fmt.Sprintf("encoder.layers.%d.", l)
		h := b.layerNorm(p+"self_attn_layer_norm", x)
		k, v := b.keyValue(p+"self_attn.", h)
		x = g.Add(x, b.attend(p+"self_attn.", b.query(p+"self_attn.", h), k, v, ""))
		x = b.mlp(p, x)
	}
	x = b.layerNorm("encoder.layer_norm", x)
	g.Output(g.Rename(x, lastHiddenState), onnx.Float, onnx.Sym(dimBatch), onnx.Fix(c.SourcePos), onnx.Fix(c.Width))
	return g, g.Err()
}

// decoderGraph builds decoder_model.onnx (withPast false) or
// decoder_with_past_model.onnx (withPast true). Both name their weights
// alike, so with one seed they are the same decoder.
func decoderGraph(c config, seed uint64, withPast bool) (*onnx.Graph, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	name := "decoder"
	if withPast {
		name = "decoder_with_past"
	}
	g := newGraph(name, c, seed)
	b := &builder{g: g, c: c}
	B, S := onnx.Sym(dimBatch), onnx.Sym(dimSeq)
	H, D := onnx.Fix(c.Heads), onnx.Fix(c.HeadDim())
	ids := g.Input(inputIDs, onnx.Int64, B, S)
	var enc string
	var past [][4]string
	if withPast {
		for l := range c.DecoderLayers {
			n := pastNames(int(l))
			g.Input(n[0], onnx.Float, B, H, onnx.Sym(dimPast), D)
			g.Input(n[1], onnx.Float, B, H, onnx.Sym(dimPast), D)
			g.Input(n[2], onnx.Float, B, H, onnx.Sym(dimEncoder), D)
			g.Input(n[3], onnx.Float, B, H, onnx.Sym(dimEncoder), D)
			past = append(past, n)
		}
	} else {
		enc = g.Input(encoderHiddenStates, onnx.Float, B, onnx.Sym("encoder_sequence_length / 2"), onnx.Fix(c.Width))
	}

	// Positions past..past+S-1 and the causal mask: column ≤ row + past.
	seqLen := g.SliceConst(g.Shape(ids), []int64{1}, []int64{2}, []int64{0})
	pastLen := g.Int64s(0)
	if withPast {
		pastLen = g.SliceConst(g.Shape(past[0][0]), []int64{2}, []int64{3}, []int64{0})
	}
	p0 := g.Squeeze(pastLen, 0)
	positions := g.Range(p0, g.Add(p0, g.Squeeze(seqLen, 0)), g.Scalar(onnx.Int64, 1))
	total := g.Add(seqLen, pastLen)
	ones := g.ConstantOfShape(g.Concat(0, seqLen, total), onnx.Int64, 1)
	allowed := g.Cast(g.Op("Trilu", []string{ones, p0}, onnx.IntAttr("upper", 0)), onnx.Bool) // [S,T]

	embed := b.param("decoder.embed_tokens.weight", []int64{c.Vocab, c.Width}, onnx.Uniform(-1, 1))
	posTable := b.param("decoder.embed_positions.weight", []int64{c.TargetPos, c.Width}, onnx.Uniform(-0.5, 0.5))
	x := g.Add(g.Gather(embed, ids, 0), g.Gather(posTable, positions, 0))

	var outs []string
	for l := range c.DecoderLayers {
		p := fmt.Sprintf("decoder.layers.%d.", l)
		pres := presentNames(int(l))
		// self-attention, cached
		h := b.layerNorm(p+"self_attn_layer_norm", x)
		k, v := b.keyValue(p+"self_attn.", h)
		if withPast {
			k = g.Node("Concat", []string{past[l][0], k}, []string{pres[0]}, onnx.IntAttr("axis", 2))[0]
			v = g.Node("Concat", []string{past[l][1], v}, []string{pres[1]}, onnx.IntAttr("axis", 2))[0]
		} else {
			k, v = g.Rename(k, pres[0]), g.Rename(v, pres[1])
		}
		outs = append(outs, pres[0], pres[1])
		x = g.Add(x, b.attend(p+"self_attn.", b.query(p+"self_attn.", h), k, v, allowed))
		// cross-attention over the encoder states
		h = b.layerNorm(p+"encoder_attn_layer_norm", x)
		var ck, cv string
		if withPast {
			ck, cv = past[l][2], past[l][3]
		} else {
			ck, cv = b.keyValue(p+"encoder_attn.", enc)
			ck, cv = g.Rename(ck, pres[2]), g.Rename(cv, pres[3])
			outs = append(outs, pres[2], pres[3])
		}
		x = g.Add(x, b.attend(p+"encoder_attn.", b.query(p+"encoder_attn.", h), ck, cv, ""))
		x = b.mlp(p, x)
	}
	x = b.layerNorm("decoder.layer_norm", x)
	a := math.Sqrt(3 / float64(c.Width))
	logits := g.MatMul(x, b.param("proj_out.weight", []int64{c.Width, c.Vocab}, onnx.Uniform(-a, a)))
	g.Output(g.Rename(logits, logitsName), onnx.Float, B, S, onnx.Fix(c.Vocab))
	for _, o := range outs {
		T := onnx.Sym(dimEncoder)
		if strings.HasSuffix(o, "decoder.key") || strings.HasSuffix(o, "decoder.value") {
			T = S
			if withPast {
				T = onnx.Sym(dimTotal)
			}
		}
		g.Output(o, onnx.Float, B, H, T, D)
	}
	return g, g.Err()
}

// buildDir writes the model of the named size into dir: the three ONNX
// files of the optimum layout (weights of a file over 2 GiB in a side
// file beside it) and the tokenizer's vocabulary (multilingual.tiktoken).
func buildDir(dir, size string, seed uint64) error {
	c, err := configOf(size)
	if err != nil {
		return err
	}
	return buildConfigDir(dir, c, seed)
}

// buildConfigDir is buildDir for an explicit config.
func buildConfigDir(dir string, c config, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("whisper: %w", err)
	}
	build := []struct {
		file string
		make func() (*onnx.Graph, error)
	}{
		{encoderFile, func() (*onnx.Graph, error) { return encoderGraph(c, seed) }},
		{decoderFile, func() (*onnx.Graph, error) { return decoderGraph(c, seed, false) }},
		{decoderWithPastFile, func() (*onnx.Graph, error) { return decoderGraph(c, seed, true) }},
	}
	for _, f := range build {
		g, err := f.make()
		if err != nil {
			return err
		}
		if err := g.WriteFile(filepath.Join(dir, f.file), onnx.FileOptions{}); err != nil {
			return fmt.Errorf("whisper: %w", err)
		}
	}
	vocab, err := vocabulary()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, tokenizer.WhisperTiktokenFile), vocab, 0o644); err != nil {
		return fmt.Errorf("whisper: %w", err)
	}
	return nil
}
