package bert

import (
	"fmt"
	"io"
	"math"

	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: BERT-large for question answering
// (BertForQuestionAnswering, the MLPerf bert_config.json) written with the
// onnx package under the official fp32 ONNX file's contract:
//
//	input  "input_ids"           int64   [N, 384]  token ids
//	input  "input_mask"          int64   [N, 384]  1 for real tokens, 0 for padding
//	input  "segment_ids"         int64   [N, 384]  0 for the query, 1 for the context
//	output "output_start_logits" float32 [N, 384]
//	output "output_end_logits"   float32 [N, 384]
//
// Layers, with the Hugging Face names of the weights:
//
//	embeddings: word [vocab, H] and token-type [2, H] lookups plus the first
//	  384 rows of the position table [512, H], summed → LayerNorm (ε 1e-12);
//	attention mask: (1 − input_mask) · −10000 added to every score row;
//	24 × encoder layer (post-LayerNorm): self-attention with 16 heads
//	  (Q, K, V dense H→H, softmax(QKᵀ/√64 + mask)·V, output dense H→H) →
//	  residual → LayerNorm; feed-forward H→4096, exact GELU (erf),
//	  4096→H → residual → LayerNorm;
//	QA head: dense H→2, split into start and end logits.
//
// The graph uses opset 17 (LayerNormalization) where the official export
// uses opset 11 and decomposed LayerNorm; ONNX Runtime fuses both into the
// same kernels.

// Synthetic model sizes.
const (
	// sizeFull is the real architecture (334,094,338 parameters: BERT-large
	// without the pooler, plus the 1024→2 QA head).
	sizeFull = "full"
	// sizeTiny keeps the vocabulary, position table, sequence length and
	// graph shape of the full model with 2 layers of width 64, for tests.
	sizeTiny = "tiny"
)

// archSeed is the weight seed used when the caller has no reason to pick
// another: the same size and seed always give the same file, byte for byte.
const archSeed uint64 = 20191106

// Tensor names of the official fp32 ONNX model (bert_tf_to_pytorch.py's
// save_to_onnx), and of the int8 model's inputs (onnxruntime_SUT.py's
// quantized branch).
const (
	inputIDs        = "input_ids"
	inputMask       = "input_mask"
	inputSegmentIDs = "segment_ids"
	// int8InputMask and Int8InputSegmentIDs are the int8 model's names for
	// input_mask and segment_ids (its token ids are input_ids too).
	int8InputMask       = "attention_mask"
	int8InputSegmentIDs = "token_type_ids"
	outputStart         = "output_start_logits"
	outputEnd           = "output_end_logits"
)

// ArchConfig is the shape of a BERT question-answering model.
type ArchConfig struct {
	Layers       int64   // encoder layers
	Hidden       int64   // hidden size H
	Heads        int64   // attention heads (H must be a multiple)
	Intermediate int64   // feed-forward width
	Vocab        int64   // word-embedding rows
	Positions    int64   // position-embedding rows (at least SeqLen)
	TypeVocab    int64   // token-type rows
	SeqLen       int64   // fixed sequence length of the inputs
	Eps          float32 // LayerNorm epsilon
	// InputNames are the names of the token ids, mask and segment ids
	// inputs; empty strings take the official ones.
	InputNames [3]string
}

// fullArch is BERT-large with the MLPerf bert_config.json values.
var fullArch = ArchConfig{
	Layers: 24, Hidden: 1024, Heads: 16, Intermediate: 4096,
	Vocab: VocabSize, Positions: 512, TypeVocab: 2, SeqLen: MaxSeqLength, Eps: 1e-12,
}

// TinyArch is FullArch with 2 layers of width 64 (4 heads of 16,
// feed-forward 256): the same vocabulary, tables and contract.
var TinyArch = ArchConfig{
	Layers: 2, Hidden: 64, Heads: 4, Intermediate: 256,
	Vocab: VocabSize, Positions: 512, TypeVocab: 2, SeqLen: MaxSeqLength, Eps: 1e-12,
}

// SampleWorkingBytes is the memory one sequence takes in an engine
// running the encoder, in bytes (float32): the attention scores and their
// softmax (2 × Heads × SeqLen² values) and the feed-forward and hidden
// activations of one layer at a time (2 × SeqLen × Intermediate + 6 ×
// SeqLen × Hidden). An estimate: the attention scores make a batch of
// BERT take far more than its inputs.
func (c ArchConfig) SampleWorkingBytes() int64 {
	s := c.SeqLen
	return 4 * (2*c.Heads*s*s + 2*s*c.Intermediate + 6*s*c.Hidden)
}

// archFor returns the configuration of a size name ("full" or "tiny").
func archFor(size string) (ArchConfig, error) {
	switch size {
	case sizeFull:
		return fullArch, nil
	case sizeTiny:
		return TinyArch, nil
	}
	return ArchConfig{}, fmt.Errorf("bert: unknown model size %q (want %s or %s)", size, sizeFull, sizeTiny)
}

// inputNames returns the configured input names, defaulting to the
// official ones.
func (c ArchConfig) inputNames() [3]string {
	n := [3]string{inputIDs, inputMask, inputSegmentIDs}
	for i, s := range c.InputNames {
		if s != "" {
			n[i] = s
		}
	}
	return n
}

func (c ArchConfig) validate() error {
	switch {
	case c.Layers < 0, c.Hidden < 1, c.Heads < 1, c.Intermediate < 1, c.Vocab < 1, c.TypeVocab < 1, c.SeqLen < 1:
		return fmt.Errorf("bert: bad architecture %+v: sizes must be positive", c)
	case c.Hidden%c.Heads != 0:
		return fmt.Errorf("bert: bad architecture: hidden size %d is not a multiple of %d heads", c.Hidden, c.Heads)
	case c.Positions < c.SeqLen:
		return fmt.Errorf("bert: bad architecture: %d positions for sequence length %d", c.Positions, c.SeqLen)
	case !(c.Eps > 0):
		return fmt.Errorf("bert: bad architecture: LayerNorm epsilon %g", c.Eps)
	}
	return nil
}

// Params is the number of weights of the architecture: embeddings, encoder
// layers and QA head (no pooler, as BertForQuestionAnswering).
func (c ArchConfig) Params() int64 {
	h, f := c.Hidden, c.Intermediate
	emb := (c.Vocab+c.Positions+c.TypeVocab)*h + 2*h
	layer := 4*(h*h+h) + 2*h + (h*f + f) + (f*h + h) + 2*h
	return emb + c.Layers*layer + 2*h + 2
}

// Weight initialisation: BERT's truncated normal of standard deviation
// 0.02, here the uniform distribution of the same deviation (±0.02·√3);
// biases small, LayerNorm scales near one. Activations then keep their
// scale through the layers and the logits are O(1), neither constant nor
// saturated.
var (
	archWeight = onnx.Uniform(-0.02*math.Sqrt(3), 0.02*math.Sqrt(3))
	archBias   = onnx.Uniform(-0.02, 0.02)
	archGamma  = onnx.Uniform(0.9, 1.1)
	archBeta   = onnx.Uniform(-0.05, 0.05)
)

// arch builds the BERT question-answering graph of a size ("full" or
// "tiny") with weights drawn from seed (see onnx.Init).
func arch(size string, seed uint64) (*onnx.Graph, error) {
	c, err := archFor(size)
	if err != nil {
		return nil, err
	}
	return archOf(c, seed, "bert_large_squad_"+size)
}

// archOf builds the graph of any configuration (tests use it for models
// that break the contract: another vocabulary, sequence length or input
// names). name is the graph name.
func archOf(c ArchConfig, seed uint64, name string) (*onnx.Graph, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	g := onnx.NewGraph(onnx.Config{
		Name: name,
		Seed: seed,
		Doc: fmt.Sprintf("BERT for SQuAD (%d layers, hidden %d, %d heads), synthetic weights, seed %d: performance only, accuracy not meaningful",
			c.Layers, c.Hidden, c.Heads, seed),
	})
	b := archBuilder{g: g, c: c}
	names := c.inputNames()
	batch := onnx.Sym("batch_size")
	ids := g.Input(names[0], onnx.Int64, batch, onnx.Fix(c.SeqLen))
	mask := g.Input(names[1], onnx.Int64, batch, onnx.Fix(c.SeqLen))
	seg := g.Input(names[2], onnx.Int64, batch, onnx.Fix(c.SeqLen))
	h := c.Hidden

	// Embeddings.
	word := g.Param("bert.embeddings.word_embeddings.weight", onnx.Float, []int64{c.Vocab, h}, archWeight)
	pos := g.Param("bert.embeddings.position_embeddings.weight", onnx.Float, []int64{c.Positions, h}, archWeight)
	typ := g.Param("bert.embeddings.token_type_embeddings.weight", onnx.Float, []int64{c.TypeVocab, h}, archWeight)
	x := g.Add(g.Gather(word, ids, 0), g.Gather(typ, seg, 0))
	x = g.Add(x, g.SliceConst(pos, []int64{0}, []int64{c.SeqLen}, []int64{0}))
	x = b.layerNorm("bert.embeddings.LayerNorm", x)

	// Additive attention mask [N, 1, 1, S]: 0 for tokens, −10000 for padding.
	m := g.Cast(g.Unsqueeze(mask, 1, 2), onnx.Float)
	m = g.Mul(g.Sub(g.Scalar(onnx.Float, 1), m), g.Scalar(onnx.Float, -10000))

	for i := range c.Layers {
		x = b.layer(fmt.Sprintf("bert.encoder.layer.%d", i), x, m)
	}

	logits := b.dense("qa_outputs", x, h, 2) // [N, S, 2]
	se := g.Split(logits, 2, 1, 1)
	g.Node("Squeeze", []string{se[0], g.Int64s(2)}, []string{outputStart})
	g.Node("Squeeze", []string{se[1], g.Int64s(2)}, []string{outputEnd})
	g.Output(outputStart, onnx.Float, batch, onnx.Fix(c.SeqLen))
	g.Output(outputEnd, onnx.Float, batch, onnx.Fix(c.SeqLen))
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("bert: build model: %w", err)
	}
	return g, nil
}

type archBuilder struct {
	g *onnx.Graph
	c ArchConfig
}

// dense appends x·W + b with W [in, out] named prefix.weight (stored
// transposed relative to PyTorch's [out, in], as the ONNX export's MatMul
// initializers are) and b [out] named prefix.bias.
func (b archBuilder) dense(prefix, x string, in, out int64) string {
	g := b.g
	w := g.Param(prefix+".weight", onnx.Float, []int64{in, out}, archWeight)
	return g.Add(g.MatMul(x, w), g.Param(prefix+".bias", onnx.Float, []int64{out}, archBias))
}

// layerNorm appends LayerNorm over the last axis with prefix.weight and
// prefix.bias.
func (b archBuilder) layerNorm(prefix, x string) string {
	g := b.g
	h := b.c.Hidden
	return g.LayerNorm(x,
		g.Param(prefix+".weight", onnx.Float, []int64{h}, archGamma),
		g.Param(prefix+".bias", onnx.Float, []int64{h}, archBeta),
		-1, b.c.Eps)
}

// layer appends one post-LayerNorm encoder layer; mask is the additive
// attention mask [N, 1, 1, S].
func (b archBuilder) layer(prefix, x, mask string) string {
	g := b.g
	h, heads := b.c.Hidden, b.c.Heads
	dh := h / heads
	att := prefix + ".attention"
	// [N, S, H] → [N, heads, S, dh]
	split := func(y string, perm ...int64) string {
		return g.Transpose(g.ReshapeTo(y, 0, 0, heads, dh), perm...)
	}
	q := split(b.dense(att+".self.query", x, h, h), 0, 2, 1, 3)
	k := split(b.dense(att+".self.key", x, h, h), 0, 2, 3, 1) // [N, heads, dh, S]
	v := split(b.dense(att+".self.value", x, h, h), 0, 2, 1, 3)
	scores := g.Div(g.MatMul(q, k), g.Scalar(onnx.Float, math.Sqrt(float64(dh))))
	probs := g.Softmax(g.Add(scores, mask), -1)
	ctx := g.ReshapeTo(g.Transpose(g.MatMul(probs, v), 0, 2, 1, 3), 0, 0, h)
	a := b.dense(att+".output.dense", ctx, h, h)
	x = b.layerNorm(att+".output.LayerNorm", g.Add(a, x))

	f := b.c.Intermediate
	y := g.Gelu(b.dense(prefix+".intermediate.dense", x, h, f))
	y = b.dense(prefix+".output.dense", y, f, h)
	return b.layerNorm(prefix+".output.LayerNorm", g.Add(y, x))
}

// build writes the BERT model of the given size and seed to w as one ONNX
// protobuf (about 1.34 GB for full, 8 MB for tiny). The same arguments
// always write the same bytes.
func build(w io.Writer, size string, seed uint64) error {
	g, err := arch(size, seed)
	if err != nil {
		return err
	}
	if _, err := g.WriteTo(w); err != nil {
		return fmt.Errorf("bert: write %s model: %w", size, err)
	}
	return nil
}

// buildFile writes the model to path (atomically: a failed write leaves no
// file).
func buildFile(path, size string, seed uint64) error {
	g, err := arch(size, seed)
	if err != nil {
		return err
	}
	return writeGraph(g, path)
}

// BuildFileOf writes the model of any configuration to path.
func BuildFileOf(path string, c ArchConfig, seed uint64) error {
	g, err := archOf(c, seed, "bert_squad_custom")
	if err != nil {
		return err
	}
	return writeGraph(g, path)
}

func writeGraph(g *onnx.Graph, path string) error {
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("bert: %w", err)
	}
	return nil
}
