// Package sdxl is the MLPerf Stable Diffusion XL benchmark on COCO-2014
// captions (mlcommons/inference text_to_image/): the synthetic-weights
// model builder for the four graphs of a Hugging Face optimum export
// (arch.go), the pipeline that binds them to the diffusion package's
// scheduler and loop (pipeline.go), the FID / CLIP scoring and its
// synthetic networks (score.go, inception.go), the model folder layout
// (modelfile.go), the benchmark descriptor and driver (benchmark.go), the
// synthetic data set (data.go) and the coco2014 data set's commands
// (dataset.go).
package sdxl

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mlperf-go/inference/onnx"
)

// The synthetic graphs follow diffusers' and transformers' modules, with
// parameter names as in their state dicts:
//
//	text encoders (transformers CLIPTextModel / CLIPTextModelWithProjection):
//	  x = token_embedding[ids] + position_embedding      → hidden_states.0
//	  per layer: x += out_proj(attn_causal(q, k, v of LN1(x)))
//	             x += fc2(act(fc1(LN2(x))))               → hidden_states.i
//	  last_hidden_state = final_layer_norm(x); pooled = last_hidden_state at argmax(ids)
//	  (text_encoder_2: text_embeds = pooled · text_projection)
//	UNet (diffusers UNet2DConditionModel, SDXL config): time embedding
//	  (sinusoidal 320 → 1280 MLP) + text-time embedding (time_ids sinusoidal
//	  256 each, concatenated with text_embeds, MLP to 1280), conv_in, down
//	  blocks [DownBlock2D, CrossAttnDownBlock2D ×2], mid block, up blocks
//	  [CrossAttnUpBlock2D ×2, UpBlock2D] with skip connections, GN, SiLU,
//	  conv_out. Transformer2DModel with linear projections; each
//	  BasicTransformerBlock is self-attention, cross-attention to
//	  encoder_hidden_states, GEGLU feed-forward, each after a LayerNorm.
//	VAE decoder (diffusers AutoencoderKL.decode): post_quant_conv, conv_in,
//	  mid block (resnet, single-head attention, resnet), four up blocks of
//	  three resnets with nearest 2× upsampling, GN, SiLU, conv_out.

// textConfig is the architecture of one CLIP text encoder.
type textConfig struct {
	Vocab, Hidden, Layers, Heads, Inter, MaxPos int64
	// QuickGelu selects x·σ(1.702x) (ViT-L/14) instead of the exact GELU
	// (OpenCLIP bigG).
	QuickGelu bool
	// Projection is the text_projection width (0: no projection, the
	// first encoder).
	Projection int64
}

// unetConfig is the architecture of the UNet.
type unetConfig struct {
	Channels       []int64 // block_out_channels
	Heads          []int64 // attention_head_dim (diffusers' name; heads per block)
	TLayers        []int64 // transformer_layers_per_block
	LayersPerBlock int
	CrossDim       int64 // cross_attention_dim (Text1.Hidden + Text2.Hidden)
	TextEmbedDim   int64 // text_embeds width (Text2.Projection)
	TimeIDDim      int64 // addition_time_embed_dim
	Groups         int64 // norm_num_groups
}

// vaeConfig is the architecture of the VAE decoder.
type vaeConfig struct {
	Channels       []int64 // block_out_channels
	LayersPerBlock int
	Groups         int64
	// ScalingFactor divides the latents before decoding.
	ScalingFactor float32
}

// config is one synthetic SDXL size.
type config struct {
	Text1, Text2 textConfig
	UNet         unetConfig
	VAE          vaeConfig
	// LatentChannels is the UNet's in/out and the VAE's latent channels.
	LatentChannels int64
	// LatentSize is the side of the latents (image side / 8).
	LatentSize int64
	// Steps is the number of inference steps the pipeline runs with this
	// model (the reference's 20; fewer for tiny, which says so).
	Steps int
	// Float16IO makes every float input and output float16, as in a
	// half-precision export (the graphs still compute in float32).
	Float16IO bool
}

// Model sizes.
const (
	sizeFull = "full"
	// sizeTiny keeps every block of the architecture with widths of 16–96,
	// one transformer layer per block, 8×8 latents (64×64 images) and 3
	// denoising steps, for tests.
	sizeTiny = "tiny"
	// sizeTinyFP16 is tiny with float16 inputs and outputs.
	sizeTinyFP16 = "tiny-fp16"
)

// configs are the synthetic sizes: full as the SDXL base 1.0 config.json
// files (text_encoder: CLIP ViT-L/14 text, 768 wide, 12 layers;
// text_encoder_2: OpenCLIP bigG text, 1280 wide, 32 layers, projection
// 1280; UNet 320/640/1280 channels, 2.6 B parameters; VAE 128–512), and
// tiny.
var configs = map[string]config{
	sizeFull: {
		Text1: textConfig{Vocab: 49408, Hidden: 768, Layers: 12, Heads: 12, Inter: 3072, MaxPos: 77, QuickGelu: true},
		Text2: textConfig{Vocab: 49408, Hidden: 1280, Layers: 32, Heads: 20, Inter: 5120, MaxPos: 77, Projection: 1280},
		UNet: unetConfig{Channels: []int64{320, 640, 1280}, Heads: []int64{5, 10, 20}, TLayers: []int64{1, 2, 10},
			LayersPerBlock: 2, CrossDim: 2048, TextEmbedDim: 1280, TimeIDDim: 256, Groups: 32},
		VAE:            vaeConfig{Channels: []int64{128, 256, 512, 512}, LayersPerBlock: 2, Groups: 32, ScalingFactor: 0.13025},
		LatentChannels: 4, LatentSize: 128, Steps: 20,
	},
	sizeTiny: {
		Text1: textConfig{Vocab: 0, Hidden: 32, Layers: 2, Heads: 2, Inter: 64, MaxPos: 77, QuickGelu: true},
		Text2: textConfig{Vocab: 0, Hidden: 64, Layers: 2, Heads: 2, Inter: 128, MaxPos: 77, Projection: 64},
		UNet: unetConfig{Channels: []int64{32, 32, 64}, Heads: []int64{1, 1, 2}, TLayers: []int64{1, 1, 1},
			LayersPerBlock: 2, CrossDim: 96, TextEmbedDim: 64, TimeIDDim: 8, Groups: 8},
		VAE:            vaeConfig{Channels: []int64{16, 16, 32, 32}, LayersPerBlock: 2, Groups: 8, ScalingFactor: 0.13025},
		LatentChannels: 4, LatentSize: 8, Steps: 3,
	},
}

// configOf returns the config of a size name; vocab, if positive, sets
// the text encoders' vocabulary size where the size leaves it 0 (tiny
// models take the synthetic tokenizer's).
func configOf(size string, vocab int64) (config, error) {
	c, ok := configs[size]
	if size == sizeTinyFP16 {
		c, ok = configs[sizeTiny], true
		c.Float16IO = true
	}
	if !ok {
		return c, fmt.Errorf("sdxl: no synthetic size %q (want full or tiny)", size)
	}
	if c.Text1.Vocab == 0 {
		c.Text1.Vocab = vocab
	}
	if c.Text2.Vocab == 0 {
		c.Text2.Vocab = vocab
	}
	return c, nil
}

// Graph I/O names of the optimum export.
const (
	inInputIDs     = "input_ids"
	outLastHidden  = "last_hidden_state"
	outPooler      = "pooler_output"
	outTextEmbeds  = "text_embeds"
	inSample       = "sample"
	inTimestep     = "timestep"
	inEncoderState = "encoder_hidden_states"
	inTextEmbeds   = "text_embeds"
	inTimeIDs      = "time_ids"
	outSample      = "out_sample"
	inLatentSample = "latent_sample"
	outImage       = "sample"
)

// hiddenStates is the name of the i-th hidden-states output of a text
// encoder (0: the embeddings; i: after layer i).
func hiddenStates(i int) string { return "hidden_states." + strconv.Itoa(i) }

// builder adds the layers common to the graphs.
type builder struct{ *onnx.Graph }

// ioType is the float type of a graph's inputs and outputs.
func ioType(half bool) onnx.DType {
	if half {
		return onnx.Float16
	}
	return onnx.Float
}

// floatIn declares a float input of type dt and returns it as float32.
func (b builder) floatIn(name string, dt onnx.DType, shape ...onnx.Dim) string {
	x := b.Input(name, dt, shape...)
	if dt != onnx.Float {
		x = b.Cast(x, onnx.Float)
	}
	return x
}

// floatOut declares x (float32) as the output name of type dt.
func (b builder) floatOut(x, name string, dt onnx.DType, shape ...onnx.Dim) {
	if dt != onnx.Float {
		x = b.Cast(x, dt)
	} else {
		x = b.Identity(x)
	}
	b.Output(b.Rename(x, name), dt, shape...)
}

func (b builder) ones(name string, n int64) string {
	return b.Param(name, onnx.Float, []int64{n}, onnx.Constant(1))
}

func (b builder) zeros(name string, n int64) string {
	return b.Param(name, onnx.Float, []int64{n}, onnx.Constant(0))
}

func (b builder) ln(prefix, x string, n int64) string {
	return b.LayerNorm(x, b.ones(prefix+".weight", n), b.zeros(prefix+".bias", n), -1, 1e-5)
}

func (b builder) gn(prefix, x string, c, groups int64, eps float32) string {
	return b.GroupNorm(x, b.ones(prefix+".weight", c), b.zeros(prefix+".bias", c), groups, eps)
}

// conv is a k×k convolution with "same" padding and the given stride.
func (b builder) conv(prefix, x string, in, out, k, stride int64) string {
	w := b.Param(prefix+".weight", onnx.Float, []int64{out, in, k, k}, onnx.Xavier(in*k*k, out*k*k))
	p := k / 2
	o := onnx.ConvOpts{Pads: []int64{p, p, p, p}}
	if stride != 1 {
		o.Strides = []int64{stride, stride}
	}
	return b.Conv(x, w, b.zeros(prefix+".bias", out), o)
}

// --- CLIP text encoders -------------------------------------------------

// textEncoder builds a CLIP text encoder with the optimum export's I/O:
// input_ids [batch, sequence] int64; outputs (first encoder)
// last_hidden_state, pooler_output, hidden_states.0…L, or (with a
// projection) text_embeds, last_hidden_state, hidden_states.0…L.
func textEncoder(c textConfig, half bool, seed uint64) *onnx.Graph {
	g := builder{onnx.NewGraph(onnx.Config{Name: "text_encoder", Seed: seed})}
	dt := ioType(half)
	B, L := onnx.Sym("batch_size"), onnx.Sym("sequence_length")
	ids := g.Input(inInputIDs, onnx.Int64, B, L)
	H := c.Hidden
	tok := g.Param("text_model.embeddings.token_embedding.weight", onnx.Float, []int64{c.Vocab, H}, onnx.Uniform(-0.05, 0.05))
	pos := g.Param("text_model.embeddings.position_embedding.weight", onnx.Float, []int64{c.MaxPos, H}, onnx.Uniform(-0.02, 0.02))
	seqLen := g.SliceConst(g.Shape(ids), []int64{1}, []int64{2}, []int64{0}) // [L]
	zero := g.Int64s(0)
	posL := g.Slice(pos, zero, seqLen, g.Int64s(0), "")
	x := g.Add(g.Gather(tok, ids, 0), posL)
	mask := g.Slice(g.CausalMask(c.MaxPos), g.Int64s(0, 0), g.Concat(0, seqLen, seqLen), g.Int64s(0, 1), "")
	hidden := []string{x}
	d := H / c.Heads
	for i := range c.Layers {
		p := fmt.Sprintf("text_model.encoder.layers.%d.", i)
		n := g.ln(p+"layer_norm1", x, H)
		q := g.Linear(p+"self_attn.q_proj", n, H, H, true)
		k := g.Linear(p+"self_attn.k_proj", n, H, H, true)
		v := g.Linear(p+"self_attn.v_proj", n, H, H, true)
		a := g.Linear(p+"self_attn.out_proj", g.Attention(q, k, v, c.Heads, d, mask), H, H, true)
		x = g.Add(x, a)
		n = g.ln(p+"layer_norm2", x, H)
		f := g.Linear(p+"mlp.fc1", n, H, c.Inter, true)
		if c.QuickGelu {
			f = g.QuickGelu(f)
		} else {
			f = g.Gelu(f)
		}
		x = g.Add(x, g.Linear(p+"mlp.fc2", f, c.Inter, H, true))
		hidden = append(hidden, x)
	}
	last := g.ln("text_model.final_layer_norm", x, H)
	// pooled = last[b, argmax(ids[b])]: the first end-of-text token, the
	// highest id of CLIP's vocabulary.
	am := g.ArgMax(g.Cast(ids, onnx.Float), 1, true) // [B, 1]
	pooled := g.Op("GatherND", []string{last, am}, onnx.IntAttr("batch_dims", 1))
	if c.Projection > 0 {
		w := g.Param("text_projection.weight", onnx.Float, []int64{H, c.Projection}, onnx.Xavier(H, c.Projection))
		g.floatOut(g.MatMul(pooled, w), outTextEmbeds, dt, B, onnx.Fix(c.Projection))
		g.floatOut(last, outLastHidden, dt, B, L, onnx.Fix(H))
	} else {
		g.floatOut(last, outLastHidden, dt, B, L, onnx.Fix(H))
		g.floatOut(pooled, outPooler, dt, B, onnx.Fix(H))
	}
	for i, h := range hidden {
		g.floatOut(h, hiddenStates(i), dt, B, L, onnx.Fix(H))
	}
	return g.Graph
}

// --- UNet ---------------------------------------------------------------

// timeProj is diffusers' Timesteps(dim, flip_sin_to_cos=True,
// downscale_freq_shift=0): t [*] → [n, dim] = [cos(t·f), sin(t·f)] with
// f_i = exp(−ln(10000)·i/(dim/2)).
func (b builder) timeProj(t string, dim int64) string {
	half := dim / 2
	f := make([]float32, half)
	for i := range f {
		f[i] = float32(math.Exp(-math.Log(10000) * float64(i) / float64(half)))
	}
	arg := b.Mul(b.ReshapeTo(b.Cast(t, onnx.Float), -1, 1), b.Const("", onnx.Float, []int64{1, half}, f))
	return b.Concat(-1, b.Cos(arg), b.Sin(arg))
}

// mlp2 is TimestepEmbedding: linear_2(silu(linear_1(x))).
func (b builder) mlp2(prefix, x string, in, out int64) string {
	return b.Linear(prefix+".linear_2", b.SiLU(b.Linear(prefix+".linear_1", x, in, out, true)), out, out, true)
}

// resnet is ResnetBlock2D; temb may be "" (the VAE's).
func (b builder) resnet(p, x, temb string, in, out, groups, tembDim int64, eps float32) string {
	h := b.conv(p+".conv1", b.SiLU(b.gn(p+".norm1", x, in, groups, eps)), in, out, 3, 1)
	if temb != "" {
		t := b.Linear(p+".time_emb_proj", b.SiLU(temb), tembDim, out, true)
		h = b.Add(h, b.Unsqueeze(t, 2, 3))
	}
	h = b.conv(p+".conv2", b.SiLU(b.gn(p+".norm2", h, out, groups, eps)), out, out, 3, 1)
	if in != out {
		x = b.conv(p+".conv_shortcut", x, in, out, 1, 1)
	}
	return b.Add(x, h)
}

// toTokens turns [B, C, H, W] into [B, H·W, C].
func (b builder) toTokens(x string, c int64) string {
	return b.ReshapeTo(b.Transpose(x, 0, 2, 3, 1), 0, -1, c)
}

// fromTokens turns [B, H·W, C] back into the shape of like [B, C, H, W].
func (b builder) fromTokens(x, like string) string {
	shape := b.Gather(b.Shape(like), b.Int64s(0, 2, 3, 1), 0)
	return b.Transpose(b.Reshape(x, shape), 0, 3, 1, 2)
}

// transformer is Transformer2DModel with linear projections and layers
// BasicTransformerBlocks of heads heads attending to ctx [B, S, cross].
func (b builder) transformer(p, x, ctx string, c, heads, layers, cross, groups int64) string {
	h := b.toTokens(b.gn(p+".norm", x, c, groups, 1e-6), c)
	h = b.Linear(p+".proj_in", h, c, c, true)
	d := c / heads
	for i := range layers {
		q := fmt.Sprintf("%s.transformer_blocks.%d", p, i)
		n := b.ln(q+".norm1", h, c)
		a := b.Attention(b.Linear(q+".attn1.to_q", n, c, c, false), b.Linear(q+".attn1.to_k", n, c, c, false),
			b.Linear(q+".attn1.to_v", n, c, c, false), heads, d, "")
		h = b.Add(h, b.Linear(q+".attn1.to_out.0", a, c, c, true))
		n = b.ln(q+".norm2", h, c)
		a = b.Attention(b.Linear(q+".attn2.to_q", n, c, c, false), b.Linear(q+".attn2.to_k", ctx, cross, c, false),
			b.Linear(q+".attn2.to_v", ctx, cross, c, false), heads, d, "")
		h = b.Add(h, b.Linear(q+".attn2.to_out.0", a, c, c, true))
		n = b.ln(q+".norm3", h, c)
		parts := b.Split(b.Linear(q+".ff.net.0.proj", n, c, 8*c, true), -1, 4*c, 4*c)
		h = b.Add(h, b.Linear(q+".ff.net.2", b.Mul(parts[0], b.Gelu(parts[1])), 4*c, c, true))
	}
	h = b.Linear(p+".proj_out", h, c, c, true)
	return b.Add(b.fromTokens(h, x), x)
}

// unet builds the SDXL UNet with the optimum export's I/O: sample
// [batch, C, h, w], timestep [1] float32 (optimum before 1.22 and
// diffusers' ONNX pipelines; onnxruntime_go cannot pass a scalar), encoder_hidden_states
// [batch, sequence, cross], text_embeds [batch, TextEmbedDim], time_ids
// [batch, 6] → out_sample [batch, C, h, w].
func unet(cfg config, seed uint64) *onnx.Graph {
	c := cfg.UNet
	g := builder{onnx.NewGraph(onnx.Config{Name: "unet", Seed: seed})}
	dt := ioType(cfg.Float16IO)
	B, Hs, Ws := onnx.Sym("batch_size"), onnx.Sym("height"), onnx.Sym("width")
	lc := cfg.LatentChannels
	sample := g.floatIn(inSample, dt, B, onnx.Fix(lc), Hs, Ws)
	ts := g.floatIn(inTimestep, dt, onnx.Sym("steps"))
	ctx := g.floatIn(inEncoderState, dt, B, onnx.Sym("sequence_length"), onnx.Fix(c.CrossDim))
	te := g.floatIn(inTextEmbeds, dt, B, onnx.Fix(c.TextEmbedDim))
	tid := g.floatIn(inTimeIDs, dt, B, onnx.Fix(6))
	ch0 := c.Channels[0]
	tdim := 4 * ch0
	temb := g.mlp2("time_embedding", g.timeProj(ts, ch0), ch0, tdim)
	tt := g.ReshapeTo(g.timeProj(g.ReshapeTo(tid, -1), c.TimeIDDim), -1, 6*c.TimeIDDim)
	aug := g.mlp2("add_embedding", g.Concat(-1, te, tt), c.TextEmbedDim+6*c.TimeIDDim, tdim)
	emb := g.Add(temb, aug)

	x := g.conv("conv_in", sample, lc, ch0, 3, 1)
	skips := []string{x}
	skipC := []int64{ch0}
	prev := ch0
	nb := len(c.Channels)
	for i, out := range c.Channels {
		for j := range c.LayersPerBlock {
			p := fmt.Sprintf("down_blocks.%d", i)
			in := prev
			if j > 0 {
				in = out
			}
			x = g.resnet(fmt.Sprintf("%s.resnets.%d", p, j), x, emb, in, out, c.Groups, tdim, 1e-5)
			if i > 0 { // CrossAttnDownBlock2D
				x = g.transformer(fmt.Sprintf("%s.attentions.%d", p, j), x, ctx, out, c.Heads[i], c.TLayers[i], c.CrossDim, c.Groups)
			}
			skips, skipC = append(skips, x), append(skipC, out)
		}
		if i < nb-1 {
			x = g.conv(fmt.Sprintf("down_blocks.%d.downsamplers.0.conv", i), x, out, out, 3, 2)
			skips, skipC = append(skips, x), append(skipC, out)
		}
		prev = out
	}
	top := c.Channels[nb-1]
	x = g.resnet("mid_block.resnets.0", x, emb, top, top, c.Groups, tdim, 1e-5)
	x = g.transformer("mid_block.attentions.0", x, ctx, top, c.Heads[nb-1], c.TLayers[nb-1], c.CrossDim, c.Groups)
	x = g.resnet("mid_block.resnets.1", x, emb, top, top, c.Groups, tdim, 1e-5)
	prev = top
	for i := range nb {
		k := nb - 1 - i // reversed channels, heads and layers
		out := c.Channels[k]
		p := fmt.Sprintf("up_blocks.%d", i)
		for j := range c.LayersPerBlock + 1 {
			s, sc := skips[len(skips)-1], skipC[len(skipC)-1]
			skips, skipC = skips[:len(skips)-1], skipC[:len(skipC)-1]
			in := out
			if j == 0 {
				in = prev
			}
			x = g.Concat(1, x, s)
			x = g.resnet(fmt.Sprintf("%s.resnets.%d", p, j), x, emb, in+sc, out, c.Groups, tdim, 1e-5)
			if k > 0 { // CrossAttnUpBlock2D
				x = g.transformer(fmt.Sprintf("%s.attentions.%d", p, j), x, ctx, out, c.Heads[k], c.TLayers[k], c.CrossDim, c.Groups)
			}
		}
		if i < nb-1 {
			x = g.conv(p+".upsamplers.0.conv", g.UpsampleNearest2x(x), out, out, 3, 1)
		}
		prev = out
	}
	x = g.SiLU(g.gn("conv_norm_out", x, ch0, c.Groups, 1e-5))
	w := g.Param("conv_out.weight", onnx.Float, []int64{lc, ch0, 3, 3}, onnx.Uniform(-0.02, 0.02))
	x = g.Conv(x, w, g.zeros("conv_out.bias", lc), onnx.ConvOpts{Pads: []int64{1, 1, 1, 1}})
	g.floatOut(x, outSample, dt, B, onnx.Fix(lc), Hs, Ws)
	return g.Graph
}

// --- VAE decoder --------------------------------------------------------

// vaeDecoder builds AutoencoderKL.decode with the optimum export's I/O:
// latent_sample [batch, C, h, w] → sample [batch, 3, 8h, 8w] (for four
// blocks).
func vaeDecoder(cfg config, seed uint64) *onnx.Graph {
	c := cfg.VAE
	g := builder{onnx.NewGraph(onnx.Config{Name: "vae_decoder", Seed: seed})}
	B := onnx.Sym("batch_size")
	lc := cfg.LatentChannels
	dt := ioType(cfg.Float16IO)
	z := g.floatIn(inLatentSample, dt, B, onnx.Fix(lc), onnx.Sym("latent_height"), onnx.Sym("latent_width"))
	z = g.conv("post_quant_conv", z, lc, lc, 1, 1)
	nb := len(c.Channels)
	top := c.Channels[nb-1]
	x := g.conv("decoder.conv_in", z, lc, top, 3, 1)
	x = g.resnet("decoder.mid_block.resnets.0", x, "", top, top, c.Groups, 0, 1e-6)
	// Single-head attention with its own group norm and residual.
	h := g.toTokens(g.gn("decoder.mid_block.attentions.0.group_norm", x, top, c.Groups, 1e-6), top)
	p := "decoder.mid_block.attentions.0."
	a := g.Attention(g.Linear(p+"to_q", h, top, top, true), g.Linear(p+"to_k", h, top, top, true), g.Linear(p+"to_v", h, top, top, true), 1, top, "")
	x = g.Add(g.fromTokens(g.Linear(p+"to_out.0", a, top, top, true), x), x)
	x = g.resnet("decoder.mid_block.resnets.1", x, "", top, top, c.Groups, 0, 1e-6)
	prev := top
	for i := range nb {
		out := c.Channels[nb-1-i]
		for j := range c.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			x = g.resnet(fmt.Sprintf("decoder.up_blocks.%d.resnets.%d", i, j), x, "", in, out, c.Groups, 0, 1e-6)
		}
		if i < nb-1 {
			x = g.conv(fmt.Sprintf("decoder.up_blocks.%d.upsamplers.0.conv", i), g.UpsampleNearest2x(x), out, out, 3, 1)
		}
		prev = out
	}
	x = g.SiLU(g.gn("decoder.conv_norm_out", x, c.Channels[0], c.Groups, 1e-6))
	x = g.conv("decoder.conv_out", x, c.Channels[0], 3, 3, 1)
	g.floatOut(x, outImage, dt, B, onnx.Fix(3), onnx.Sym("height"), onnx.Sym("width"))
	return g.Graph
}

// parts are the four graphs' folders in a model folder, as optimum
// exports them.
var parts = []string{"text_encoder", "text_encoder_2", "unet", "vae_decoder"}

// checkConfig reports an inconsistent config (for hand-made sizes).
func checkConfig(c config) error {
	u := c.UNet
	n := len(u.Channels)
	switch {
	case n < 2 || len(u.Heads) != n || len(u.TLayers) != n:
		return fmt.Errorf("sdxl: UNet config: %d channel, %d head and %d layer entries", n, len(u.Heads), len(u.TLayers))
	case u.CrossDim != c.Text1.Hidden+c.Text2.Hidden || u.TextEmbedDim != c.Text2.Projection:
		return fmt.Errorf("sdxl: UNet cross_attention_dim %d / text_embeds %d do not match the text encoders (%d+%d, %d)", u.CrossDim, u.TextEmbedDim, c.Text1.Hidden, c.Text2.Hidden, c.Text2.Projection)
	case slices.ContainsFunc(u.Channels, func(ch int64) bool { return ch%u.Groups != 0 }):
		return fmt.Errorf("sdxl: UNet channels %v not divisible by %d groups", u.Channels, u.Groups)
	case c.Text1.Vocab < 1 || c.Text2.Vocab < 1:
		return fmt.Errorf("sdxl: text encoder vocabulary not set")
	}
	return nil
}
