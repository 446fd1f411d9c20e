package sdxl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/diffusion"
	"github.com/mlperf-go/inference/diffusion/cliptok"
	"github.com/mlperf-go/inference/onnx"
)

// guidance is the reference's classifier-free guidance scale
// (text_to_image/backend_pytorch.py, guidance=8).
const guidance = 8

// referenceSteps is the reference's number of denoising steps.
const referenceSteps = 20

// opener opens one ONNX file of the model folder (the run's engine
// settings; see spec.Engine.OpenSession).
type opener func(path string) (backend.Session, error)

// pipelineConfig configures OpenPipeline.
type pipelineConfig struct {
	// Dir is the model folder (see ModelDir).
	Dir string
	// Open opens each part.
	Open opener
	// Latents is the fixed initial noise, [1, C, h, w] float32, used for
	// every prompt (the reference's latents.npy).
	Latents      []float32
	LatentsShape []int
	// Steps overrides the number of denoising steps (0: the model
	// folder's, else the reference's 20). Only for diagnosis.
	Steps int
}

// pipeline is the SDXL text-to-image pipeline over the four ONNX parts:
// both tokenizers, both text encoders (penultimate hidden states
// concatenated, pooled projection of the second), the Euler loop with
// guidance 8 and the micro-conditioning time ids, the VAE decode and the
// uint8 HWC image. Generate is safe for concurrent use.
type pipeline struct {
	te1, te2, unet, vae backend.Session
	tok1, tok2          *cliptok.Tokenizer
	sched               *diffusion.Euler
	latents             []float32 // [C·h·w]
	c, h, w             int64
	scale               float32
	hid1, hid2, pool2   string // output names
	cross, proj         int64
	negEmb, negPool     []float32
	// ImageH and ImageW are the decoded image's size (8× the latents).
	ImageH, ImageW int64
}

// Steps is the number of denoising steps the pipeline runs.
func (p *pipeline) Steps() int { return p.sched.Steps() }

// openPipeline opens the parts of a model folder and checks them against
// each other and the latents: the UNet's latent channels and the text
// encoders' widths must agree, and every part must have the optimum
// export's inputs and outputs. Errors name the part and what is wrong.
func openPipeline(ctx context.Context, cfg pipelineConfig) (_ *pipeline, err error) {
	p := &pipeline{}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	for _, part := range parts {
		if _, err := statFile(partPath(cfg.Dir, part)); err != nil {
			return nil, fmt.Errorf("sdxl: model folder %s lacks %s/model.onnx (%v); want the four parts optimum exports", cfg.Dir, part, err)
		}
	}
	if p.tok1, err = cliptok.Load(filepath.Join(cfg.Dir, tokenizerDir)); err != nil {
		return nil, fmt.Errorf("sdxl: %w", err)
	}
	if p.tok2, err = cliptok.Load(filepath.Join(cfg.Dir, tokenizer2Dir)); err != nil {
		return nil, fmt.Errorf("sdxl: %w", err)
	}
	sc := diffusion.DefaultSchedulerConfig()
	if _, serr := statFile(filepath.Join(cfg.Dir, schedulerFile)); serr == nil {
		if sc, err = diffusion.LoadSchedulerConfig(filepath.Join(cfg.Dir, schedulerFile)); err != nil {
			return nil, fmt.Errorf("sdxl: %w", err)
		}
	}
	steps := cfg.Steps
	if steps == 0 {
		steps = referenceSteps
		if m := readModelIndex(cfg.Dir); m.Steps > 0 {
			steps = m.Steps
		}
	}
	if p.sched, err = diffusion.NewEuler(sc, steps); err != nil {
		return nil, fmt.Errorf("sdxl: %w", err)
	}
	if p.scale, err = vaeScalingFactor(cfg.Dir); err != nil {
		return nil, err
	}
	if len(cfg.LatentsShape) != 4 || cfg.LatentsShape[0] != 1 || len(cfg.Latents) != cfg.LatentsShape[1]*cfg.LatentsShape[2]*cfg.LatentsShape[3] {
		return nil, fmt.Errorf("sdxl: latents of shape %v (%d values); want (1, 4, 128, 128) float32 as the reference's latents.npy", cfg.LatentsShape, len(cfg.Latents))
	}
	p.latents = cfg.Latents
	p.c, p.h, p.w = int64(cfg.LatentsShape[1]), int64(cfg.LatentsShape[2]), int64(cfg.LatentsShape[3])
	open := func(part string) (backend.Session, error) {
		s, err := cfg.Open(partPath(cfg.Dir, part))
		if err != nil {
			return nil, fmt.Errorf("sdxl: %s: %w", part, err)
		}
		return s, nil
	}
	// The UNet first: a model that cannot take the latents fails before
	// the other parts load.
	if p.unet, err = open("unet"); err != nil {
		return nil, err
	}
	if err := p.checkLatents(); err != nil {
		return nil, err
	}
	if p.te1, err = open("text_encoder"); err != nil {
		return nil, err
	}
	if p.te2, err = open("text_encoder_2"); err != nil {
		return nil, err
	}
	if p.vae, err = open("vae_decoder"); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	p.ImageH, p.ImageW = 8*p.h, 8*p.w
	// The negative prompt's embeddings are the same for every sample.
	if p.negEmb, p.negPool, err = p.encode(ctx, []string{negativePrompt}); err != nil {
		return nil, err
	}
	return p, nil
}

// check validates the parts' I/O against each other and the latents.
func (p *pipeline) check() error {
	var err error
	var w1, w2 int64
	if p.hid1, w1, err = penultimate("text_encoder", p.te1); err != nil {
		return err
	}
	if p.hid2, w2, err = penultimate("text_encoder_2", p.te2); err != nil {
		return err
	}
	te, ok := find(p.te2.Outputs(), outTextEmbeds)
	if !ok || len(te.Shape) != 2 {
		return fmt.Errorf("sdxl: text_encoder_2 has no %s [batch, projection] output (outputs %s)", outTextEmbeds, names(p.te2.Outputs()))
	}
	p.pool2, p.proj = te.Name, te.Shape[1]
	p.cross = w1 + w2
	for _, want := range []string{inSample, inTimestep, inEncoderState, inTextEmbeds, inTimeIDs} {
		if _, ok := find(p.unet.Inputs(), want); !ok {
			return fmt.Errorf("sdxl: unet has no input %q (inputs %s; want sample, timestep, encoder_hidden_states, text_embeds, time_ids)", want, names(p.unet.Inputs()))
		}
	}
	e, _ := find(p.unet.Inputs(), inEncoderState)
	if len(e.Shape) != 3 || (e.Shape[2] >= 0 && e.Shape[2] != p.cross) {
		return fmt.Errorf("sdxl: unet encoder_hidden_states %s, the text encoders give %d (%d+%d) features", backend.FormatShape(e.Shape), p.cross, w1, w2)
	}
	t, _ := find(p.unet.Inputs(), inTextEmbeds)
	if len(t.Shape) != 2 || (t.Shape[1] >= 0 && t.Shape[1] != p.proj) {
		return fmt.Errorf("sdxl: unet text_embeds %s, text_encoder_2 gives %d", backend.FormatShape(t.Shape), p.proj)
	}
	if ts, _ := find(p.unet.Inputs(), inTimestep); len(ts.Shape) != 1 {
		return fmt.Errorf("sdxl: unet timestep input %s: want shape [1] (a scalar timestep cannot be passed through onnxruntime_go; export with a 1-D timestep)", backend.FormatShape(ts.Shape))
	}
	if _, ok := find(p.unet.Outputs(), outSample); !ok {
		return fmt.Errorf("sdxl: unet has no output %q (outputs %s)", outSample, names(p.unet.Outputs()))
	}
	l, ok := find(p.vae.Inputs(), inLatentSample)
	if !ok || len(l.Shape) != 4 || (l.Shape[1] >= 0 && l.Shape[1] != p.c) {
		return fmt.Errorf("sdxl: vae_decoder wants %s %v; want latent_sample [batch, %d, h, w]", names(p.vae.Inputs()), l.Shape, p.c)
	}
	if o, ok := find(p.vae.Outputs(), outImage); !ok || len(o.Shape) != 4 || (o.Shape[1] >= 0 && o.Shape[1] != 3) {
		return fmt.Errorf("sdxl: vae_decoder outputs %s; want sample [batch, 3, H, W]", names(p.vae.Outputs()))
	}
	return nil
}

// checkLatents checks the UNet's sample input against the latents.
func (p *pipeline) checkLatents() error {
	s, ok := find(p.unet.Inputs(), inSample)
	if !ok {
		return fmt.Errorf("sdxl: unet has no input %q (inputs %s; want sample, timestep, encoder_hidden_states, text_embeds, time_ids)", inSample, names(p.unet.Inputs()))
	}
	if len(s.Shape) != 4 || (s.Shape[1] >= 0 && s.Shape[1] != p.c) {
		return fmt.Errorf("sdxl: unet sample input %s does not take %d latent channels (the latents file is (1, %d, %d, %d))", backend.FormatShape(s.Shape), p.c, p.c, p.h, p.w)
	}
	for i, d := range []int64{p.h, p.w} {
		if s.Shape[2+i] >= 0 && s.Shape[2+i] != d {
			return fmt.Errorf("sdxl: unet sample input %s does not take %d×%d latents", backend.FormatShape(s.Shape), p.h, p.w)
		}
	}
	return nil
}

// penultimate finds a text encoder's hidden_states.i outputs and returns
// the second to last (the reference's hidden_states[-2]) and its width.
func penultimate(part string, s backend.Session) (string, int64, error) {
	n := -1
	var width int64
	for _, o := range s.Outputs() {
		if rest, ok := strings.CutPrefix(o.Name, "hidden_states."); ok {
			if i, err := strconv.Atoi(rest); err == nil {
				n = max(n, i)
				if len(o.Shape) == 3 {
					width = o.Shape[2]
				}
			}
		}
	}
	if n < 1 || width < 1 {
		return "", 0, fmt.Errorf("sdxl: %s has no hidden_states.N outputs of fixed width (outputs %s); export it with output_hidden_states as optimum does for SDXL", part, names(s.Outputs()))
	}
	if _, ok := find(s.Inputs(), inInputIDs); !ok {
		return "", 0, fmt.Errorf("sdxl: %s has no input_ids input (inputs %s)", part, names(s.Inputs()))
	}
	return hiddenStates(n - 1), width, nil
}

func find(infos []backend.Info, name string) (backend.Info, bool) {
	i := slices.IndexFunc(infos, func(x backend.Info) bool { return x.Name == name })
	if i < 0 {
		return backend.Info{}, false
	}
	return infos[i], true
}

func names(infos []backend.Info) string {
	var n []string
	for _, x := range infos {
		n = append(n, x.Name+" "+x.DType.String()+backend.FormatShape(x.Shape))
	}
	return strings.Join(n, ", ")
}

// Close releases the sessions.
func (p *pipeline) Close() error {
	var errs []error
	for _, s := range []backend.Session{p.te1, p.te2, p.unet, p.vae} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// tokens are one prompt's ids for both tokenizers.
type tokens struct{ IDs1, IDs2 []int32 }

// Tokenize returns a caption's ids for both tokenizers (77 each, each
// padded with its own pad token).
func (p *pipeline) Tokenize(caption string) tokens {
	return tokens{IDs1: p.tok1.Tokens(caption), IDs2: p.tok2.Tokens(caption)}
}

// encode returns prompt_embeds [B, 77, cross] and pooled [B, proj].
func (p *pipeline) encode(ctx context.Context, captions []string) (emb, pooled []float32, err error) {
	toks := make([]tokens, len(captions))
	for i, c := range captions {
		toks[i] = p.Tokenize(c)
	}
	return p.encodeTokens(ctx, toks)
}

func (p *pipeline) encodeTokens(ctx context.Context, toks []tokens) (emb, pooled []float32, err error) {
	B := int64(len(toks))
	L := int64(len(toks[0].IDs1))
	var ids1, ids2 [][]int32
	for _, t := range toks {
		ids1, ids2 = append(ids1, t.IDs1), append(ids2, t.IDs2)
	}
	h1, err := runText(ctx, p.te1, ids1, []string{p.hid1})
	if err != nil {
		return nil, nil, fmt.Errorf("sdxl: text_encoder: %w", err)
	}
	h2, err := runText(ctx, p.te2, ids2, []string{p.hid2, p.pool2})
	if err != nil {
		return nil, nil, fmt.Errorf("sdxl: text_encoder_2: %w", err)
	}
	w1, w2 := int64(len(h1[0]))/(B*L), int64(len(h2[0]))/(B*L)
	emb = make([]float32, 0, B*L*(w1+w2))
	for r := range B * L {
		emb = append(emb, h1[0][r*w1:(r+1)*w1]...)
		emb = append(emb, h2[0][r*w2:(r+1)*w2]...)
	}
	return emb, h2[1], nil
}

// runText runs a text encoder on ids [B, L] and returns the named
// outputs as float32.
func runText(ctx context.Context, s backend.Session, ids [][]int32, outs []string) ([][]float32, error) {
	B, L := int64(len(ids)), int64(len(ids[0]))
	info, _ := find(s.Inputs(), inInputIDs)
	t := backend.Tensor{Name: inInputIDs, DType: info.DType, Shape: []int64{B, L}}
	switch info.DType {
	case backend.Int64:
		d := make([]int64, 0, B*L)
		for _, r := range ids {
			for _, v := range r {
				d = append(d, int64(v))
			}
		}
		t.Data = d
	case backend.Int32:
		t.Data = slices.Concat(ids...)
	default:
		return nil, fmt.Errorf("input_ids of type %v; want int64 or int32", info.DType)
	}
	return run(ctx, s, []backend.Tensor{t}, outs, []int64{B, L})
}

// floatTensor makes an input of the session's float type (float32, or
// float16 for a half-precision export) from float32 values.
func floatTensor(s backend.Session, name string, shape []int64, v []float32) backend.Tensor {
	info, _ := find(s.Inputs(), name)
	if info.DType == backend.Float16 {
		h := make([]uint16, len(v))
		for i, x := range v {
			h[i] = onnx.Float16Bits(x)
		}
		return backend.Tensor{Name: name, DType: backend.Float16, Shape: shape, Data: h}
	}
	return backend.Tensor{Name: name, DType: backend.Float32, Shape: shape, Data: v}
}

// runner is the ONNX Runtime session's RunInto.
type runner interface {
	RunInto(ctx context.Context, in, out []backend.Tensor) error
}

// run runs s and returns the named outputs as float32. Dynamic output
// dimensions take the values of dims at the same position (float16
// outputs must be allocated with their full shape).
func run(ctx context.Context, s backend.Session, in []backend.Tensor, outs []string, dims []int64) ([][]float32, error) {
	all := s.Outputs()
	res := make([]backend.Tensor, len(all))
	for i, o := range all {
		res[i].Name = o.Name
		if o.DType == backend.Float16 {
			shape := slices.Clone(o.Shape)
			for k, d := range shape {
				if d < 0 && k < len(dims) {
					shape[k] = dims[k]
				}
			}
			res[i] = backend.Tensor{Name: o.Name, DType: backend.Float16, Shape: shape, Data: make([]uint16, backend.Elements(shape))}
		}
	}
	if r, ok := s.(runner); ok {
		if err := r.RunInto(ctx, in, res); err != nil {
			return nil, err
		}
	} else {
		var err error
		if res, err = s.Run(ctx, in); err != nil {
			return nil, err
		}
	}
	out := make([][]float32, len(outs))
	for i, name := range outs {
		k := slices.IndexFunc(res, func(t backend.Tensor) bool { return t.Name == name })
		if k < 0 {
			return nil, fmt.Errorf("no output %q", name)
		}
		switch d := res[k].Data.(type) {
		case []float32:
			out[i] = d
		case []uint16:
			f := make([]float32, len(d))
			for j, h := range d {
				f[j] = onnx.Float16ToFloat32(h)
			}
			out[i] = f
		default:
			return nil, fmt.Errorf("output %q is %v; want float32 or float16", name, res[k].DType)
		}
	}
	return out, nil
}

// timestepTensor is the UNet's timestep input of the model's type, shape
// [1] as diffusers' ONNX pipelines pass it.
func (p *pipeline) timestepTensor(t float32) backend.Tensor {
	info, _ := find(p.unet.Inputs(), inTimestep)
	shape := []int64{1}
	switch info.DType {
	case backend.Int64:
		return backend.Tensor{Name: inTimestep, DType: backend.Int64, Shape: shape, Data: []int64{int64(t)}}
	case backend.Int32:
		return backend.Tensor{Name: inTimestep, DType: backend.Int32, Shape: shape, Data: []int32{int32(t)}}
	}
	return floatTensor(p.unet, inTimestep, shape, []float32{t})
}

// Generate runs the pipeline on a batch of prompts and returns one image
// per prompt: ImageH×ImageW×3 uint8, row-major HWC, each value
// round(clamp(x/2+0.5, 0, 1)·255) as the reference's post-processing
// computes it.
func (p *pipeline) Generate(ctx context.Context, toks []tokens) ([][]byte, error) {
	B := int64(len(toks))
	if B == 0 {
		return nil, nil
	}
	emb, pooled, err := p.encodeTokens(ctx, toks)
	if err != nil {
		return nil, err
	}
	L := int64(len(toks[0].IDs1))
	// Guidance batch: B negative copies, then the B prompts.
	ctxEmb := make([]float32, 0, 2*int64(len(emb)))
	ctxPool := make([]float32, 0, 2*int64(len(pooled)))
	for range B {
		ctxEmb = append(ctxEmb, p.negEmb...)
		ctxPool = append(ctxPool, p.negPool...)
	}
	ctxEmb = append(ctxEmb, emb...)
	ctxPool = append(ctxPool, pooled...)
	// Micro-conditioning: original size, crop (0, 0), target size.
	ids := make([]float32, 0, 12*B)
	for range 2 * B {
		ids = append(ids, float32(p.ImageH), float32(p.ImageW), 0, 0, float32(p.ImageH), float32(p.ImageW))
	}
	in := []backend.Tensor{
		{}, // sample, per step
		{}, // timestep, per step
		floatTensor(p.unet, inEncoderState, []int64{2 * B, L, p.cross}, ctxEmb),
		floatTensor(p.unet, inTextEmbeds, []int64{2 * B, p.proj}, ctxPool),
		floatTensor(p.unet, inTimeIDs, []int64{2 * B, 6}, ids),
	}
	sampleShape := []int64{2 * B, p.c, p.h, p.w}
	lat := make([]float32, 0, B*int64(len(p.latents)))
	for range B {
		lat = append(lat, p.latents...)
	}
	x, err := p.sched.Sample(ctx, lat, int(B), guidance, func(ctx context.Context, x []float32, t float32) ([]float32, error) {
		in[0] = floatTensor(p.unet, inSample, sampleShape, x)
		in[1] = p.timestepTensor(t)
		out, err := run(ctx, p.unet, in, []string{outSample}, sampleShape)
		if err != nil {
			return nil, fmt.Errorf("sdxl: unet: %w", err)
		}
		return out[0], nil
	})
	if err != nil {
		return nil, err
	}
	for i := range x {
		x[i] /= p.scale
	}
	latShape := []int64{B, p.c, p.h, p.w}
	img, err := run(ctx, p.vae, []backend.Tensor{floatTensor(p.vae, inLatentSample, latShape, x)}, []string{outImage}, []int64{B, 3, p.ImageH, p.ImageW})
	if err != nil {
		return nil, fmt.Errorf("sdxl: vae_decoder: %w", err)
	}
	hw := p.ImageH * p.ImageW
	if int64(len(img[0])) != B*3*hw {
		return nil, fmt.Errorf("sdxl: vae_decoder gave %d values for %d images of %d×%d", len(img[0]), B, p.ImageH, p.ImageW)
	}
	out := make([][]byte, B)
	for b := range B {
		out[b] = toHWC(img[0][b*3*hw:(b+1)*3*hw], p.ImageH, p.ImageW)
	}
	return out, nil
}

// toHWC converts one decoded image [3, h, w] in [−1, 1] to uint8 HWC:
// (x/2+0.5).clamp(0, 1) (diffusers' denormalize), ×255, round half to
// even (torch.round), in float32.
func toHWC(chw []float32, h, w int64) []byte {
	out := make([]byte, 3*h*w)
	for c := range int64(3) {
		for i := range h * w {
			v := chw[c*h*w+i]/2 + 0.5
			if !(v > 0) { // NaN too
				v = 0
			} else if v > 1 {
				v = 1
			}
			out[i*3+c] = byte(math.RoundToEven(float64(float32(v * 255))))
		}
	}
	return out
}
