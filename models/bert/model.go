package bert

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/loadgen"
)

// errContract is wrapped by errors about a model whose inputs or outputs
// are not those of the official BERT SQuAD ONNX models.
var errContract = errors.New("bert: model does not match the BERT SQuAD contract")

// contractFix is the advice appended to contract errors.
const contractFix = "give the official model.onnx (models/bert/download_model.sh) or build one with `mlperf model build bert`"

// contract is what CheckContract found out about a model: which of its
// inputs and outputs play which role.
type contract struct {
	// IDs, Mask and Segments are the names of the token ids, input mask
	// and segment ids inputs: input_ids, input_mask, segment_ids (fp32
	// model) or input_ids, attention_mask, token_type_ids (int8 model).
	IDs, Mask, Segments string
	// Start and End are the positions of the start and end logits among
	// the session's outputs.
	Start, End int
	// FixedBatch is the model's fixed batch size, or 0 when dynamic.
	FixedBatch int
}

// checkContract validates a session's inputs and outputs against the
// official models' contract before any run: three int64 [N, 384] inputs
// named as the fp32 model's (input_ids, input_mask, segment_ids) or the
// int8 model's (input_ids, attention_mask, token_type_ids), and two
// float32 [N, 384] outputs, output_start_logits and output_end_logits (or,
// for a model without those names, exactly two outputs taken in order, as
// the reference SUT does with the int8 model). A sequence dimension other
// than 384 is an error; a dynamic one is accepted and fed 384 tokens.
func checkContract(inputs, outputs []backend.Info) (contract, error) {
	var c contract
	has := func(name string) bool { return findInfo(inputs, name) != nil }
	switch {
	case len(inputs) == 3 && has(inputIDs) && has(inputMask) && has(inputSegmentIDs):
		c.IDs, c.Mask, c.Segments = inputIDs, inputMask, inputSegmentIDs
	case len(inputs) == 3 && has(inputIDs) && has(int8InputMask) && has(int8InputSegmentIDs):
		c.IDs, c.Mask, c.Segments = inputIDs, int8InputMask, int8InputSegmentIDs
	default:
		return c, fmt.Errorf("%w: want inputs %q, %q, %q (or the int8 model's %q, %q, %q), model has %s; %s",
			errContract, inputIDs, inputMask, inputSegmentIDs, inputIDs, int8InputMask, int8InputSegmentIDs, describe(inputs), contractFix)
	}
	for _, name := range []string{c.IDs, c.Mask, c.Segments} {
		in := findInfo(inputs, name)
		if in.DType != backend.Int64 || len(in.Shape) != 2 {
			return c, fmt.Errorf("%w: input %q is %s %s, want int64 [N,%d]; %s", errContract, name, in.DType, backend.FormatShape(in.Shape), MaxSeqLength, contractFix)
		}
		if s := in.Shape[1]; s >= 0 && s != MaxSeqLength {
			return c, fmt.Errorf("%w: input %q has sequence length %d, but the benchmark's features are %d tokens (max_seq_length); use a model exported for %d", errContract, name, s, MaxSeqLength, MaxSeqLength)
		}
		if n := int(in.Shape[0]); n > 0 {
			if c.FixedBatch > 0 && c.FixedBatch != n {
				return c, fmt.Errorf("%w: inputs have different fixed batch sizes (%s); %s", errContract, describe(inputs), contractFix)
			}
			c.FixedBatch = n
		}
	}
	c.Start, c.End = indexOf(outputs, outputStart), indexOf(outputs, outputEnd)
	if c.Start < 0 || c.End < 0 {
		if len(outputs) != 2 || c.Start >= 0 || c.End >= 0 {
			return c, fmt.Errorf("%w: want outputs %q and %q, model has %s; %s", errContract, outputStart, outputEnd, describe(outputs), contractFix)
		}
		c.Start, c.End = 0, 1 // unnamed (int8) outputs: start, end in order
	}
	for _, i := range []int{c.Start, c.End} {
		o := outputs[i]
		if o.DType != backend.Float32 || len(o.Shape) != 2 || (o.Shape[1] >= 0 && o.Shape[1] != MaxSeqLength) {
			return c, fmt.Errorf("%w: output %q is %s %s, want float32 [N,%d]; %s", errContract, o.Name, o.DType, backend.FormatShape(o.Shape), MaxSeqLength, contractFix)
		}
	}
	return c, nil
}

func findInfo(infos []backend.Info, name string) *backend.Info {
	if i := indexOf(infos, name); i >= 0 {
		return &infos[i]
	}
	return nil
}

func indexOf(infos []backend.Info, name string) int {
	for i := range infos {
		if infos[i].Name == name {
			return i
		}
	}
	return -1
}

func describe(infos []backend.Info) string {
	if len(infos) == 0 {
		return "none"
	}
	s := make([]string, len(infos))
	for i, x := range infos {
		s[i] = fmt.Sprintf("%q %s %s", x.Name, x.DType, backend.FormatShape(x.Shape))
	}
	return strings.Join(s, ", ")
}

// checkVocab compares the word-embedding rows of a model (see
// ModelVocabSize) with a tokenizer's vocabulary. A vocabulary with more
// entries than the model would feed ids the model cannot look up; one with
// fewer is another vocabulary than the model was trained with. Both are
// errors naming the two sizes and the fix.
func checkVocab(modelRows int, v *vocab) error {
	if v == nil || modelRows <= 0 || modelRows == v.Size() {
		return nil
	}
	return fmt.Errorf("%w: the model embeds %d token ids but vocab.txt has %d entries; use the vocab.txt the model was trained with (the MLPerf uncased vocab has %d, md5 %s)",
		errContract, modelRows, v.Size(), VocabSize, vocabMD5)
}

// input is one sample as the model takes it: MaxSeqLength token ids,
// input mask and segment ids. Loaded samples are shared between
// concurrent readers and must not be modified.
type input struct {
	IDs, Mask, Segments []int64
}

// NewInput pads a feature into a new Input of MaxSeqLength positions.
func NewInput(f *feature) (input, error) {
	buf := make([]int64, 3*MaxSeqLength)
	in := input{IDs: buf[:MaxSeqLength:MaxSeqLength], Mask: buf[MaxSeqLength : 2*MaxSeqLength : 2*MaxSeqLength], Segments: buf[2*MaxSeqLength:]}
	if err := f.Fill(in.IDs, in.Mask, in.Segments); err != nil {
		return input{}, err
	}
	return in, nil
}

func (in input) valid() bool {
	return len(in.IDs) == MaxSeqLength && len(in.Mask) == MaxSeqLength && len(in.Segments) == MaxSeqLength
}

// sampleFunc returns loaded sample i, or false if it is not loaded.
// harness.QSL[Input]'s Sample method is one.
type sampleFunc func(i loadgen.SampleIndex) (input, bool)

// Model runs BERT on loaded samples and writes the reference's responses.
// It implements harness.Model and is safe for concurrent use (as the
// session is).
type Model struct {
	sess    backend.Session
	samples sampleFunc
	c       contract
	bufs    sync.Pool // *[]int64 batch buffers of 3 × n × MaxSeqLength
}

// New wraps a session after checking it against the contract. samples
// gives the model its inputs (usually a QSL's Sample method); it may be
// nil if only Logits is used.
func New(sess backend.Session, samples sampleFunc) (*Model, error) {
	if sess == nil {
		return nil, errors.New("bert: nil session")
	}
	c, err := checkContract(sess.Inputs(), sess.Outputs())
	if err != nil {
		return nil, err
	}
	return &Model{sess: sess, samples: samples, c: c}, nil
}

// Contract is what New found out about the model.
func (m *Model) Contract() contract { return m.c }

// FixedBatch is the model's fixed batch size, or 0 if it is dynamic.
func (m *Model) FixedBatch() int { return m.c.FixedBatch }

// Logits runs the model on n samples held back to back in ids, mask and
// seg (n × MaxSeqLength values each) and returns the start and end logits,
// n × MaxSeqLength each. The inputs are only read, and not retained.
func (m *Model) Logits(ctx context.Context, ids, mask, seg []int64, n int) (start, end []float32, err error) {
	want := n * MaxSeqLength
	if n < 1 || len(ids) != want || len(mask) != want || len(seg) != want {
		return nil, nil, fmt.Errorf("bert: batch of %d, %d, %d values for %d samples, want %d each", len(ids), len(mask), len(seg), n, want)
	}
	run := n
	if fb := m.c.FixedBatch; fb > 0 {
		if n > fb {
			return nil, nil, fmt.Errorf("bert: batch of %d samples for a model with fixed batch size %d; use --batch %d", n, fb, fb)
		}
		if n < fb { // pad with all-padding rows
			run = fb
			pad := func(x []int64) []int64 { p := make([]int64, fb*MaxSeqLength); copy(p, x); return p }
			ids, mask, seg = pad(ids), pad(mask), pad(seg)
		}
	}
	shape := []int64{int64(run), MaxSeqLength}
	outs, err := m.sess.Run(ctx, []backend.Tensor{
		{Name: m.c.IDs, DType: backend.Int64, Shape: shape, Data: ids},
		{Name: m.c.Mask, DType: backend.Int64, Shape: shape, Data: mask},
		{Name: m.c.Segments, DType: backend.Int64, Shape: shape, Data: seg},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("bert: %w", err)
	}
	get := func(i int) ([]float32, error) {
		if i >= len(outs) {
			return nil, fmt.Errorf("bert: session returned %d outputs, want at least %d", len(outs), i+1)
		}
		x, ok := outs[i].Data.([]float32)
		if !ok || len(x) < want {
			return nil, fmt.Errorf("bert: output %q holds %T %v, want %d float32 values", outs[i].Name, outs[i].Data, outs[i].Shape, want)
		}
		return x[:want:want], nil
	}
	if start, err = get(m.c.Start); err != nil {
		return nil, nil, err
	}
	if end, err = get(m.c.End); err != nil {
		return nil, nil, err
	}
	return start, end, nil
}

// Predict implements harness.Model: it gathers the loaded samples of idx
// into one batch (a single sample is passed without copying), runs the
// model and writes each response: the start and end logits as float32
// [384, 2] interleaved, ResponseBytes (3072) bytes, as the reference's
// np.stack([start, end], axis=-1). A sample that is not loaded fails on
// its own; the others still run.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	if m.samples == nil {
		return errors.New("bert: model has no sample source")
	}
	ok := make([]int, 0, len(idx)) // positions in idx of loaded samples
	var single input
	for i, x := range idx {
		s, loaded := m.samples(x)
		if !loaded || !s.valid() {
			out[i].Err = fmt.Errorf("bert: sample %d not loaded", x)
			continue
		}
		ok = append(ok, i)
		single = s
	}
	if len(ok) == 0 {
		return nil
	}
	ids, mask, seg := single.IDs, single.Mask, single.Segments
	var pooled *[]int64
	if len(ok) > 1 {
		pooled = m.buffer(len(ok))
		n := len(ok) * MaxSeqLength
		b := *pooled
		ids, mask, seg = b[:n:n], b[n:2*n:2*n], b[2*n:]
		for k, i := range ok {
			s, _ := m.samples(idx[i])
			copy(ids[k*MaxSeqLength:], s.IDs)
			copy(mask[k*MaxSeqLength:], s.Mask)
			copy(seg[k*MaxSeqLength:], s.Segments)
		}
	}
	start, end, err := m.Logits(ctx, ids, mask, seg, len(ok))
	if pooled != nil {
		m.bufs.Put(pooled)
	}
	if err != nil {
		return err
	}
	data := make([]byte, ResponseBytes*len(ok))
	for k, i := range ok {
		lo, hi := k*MaxSeqLength, (k+1)*MaxSeqLength
		r, err := EncodeResponse(data[k*ResponseBytes:(k+1)*ResponseBytes:(k+1)*ResponseBytes], start[lo:hi], end[lo:hi])
		if err != nil {
			return err
		}
		out[i].Data = r
	}
	return nil
}

// buffer returns a pooled batch buffer of n samples' three inputs.
func (m *Model) buffer(n int) *[]int64 {
	size := 3 * n * MaxSeqLength
	p, _ := m.bufs.Get().(*[]int64)
	if p == nil || cap(*p) < size {
		b := make([]int64, size)
		return &b
	}
	*p = (*p)[:size]
	return p
}

// Warmup runs a batch of n all-padding samples (only [CLS] and [SEP])
// count times, so that the first timed query does not pay for the
// engine's lazy initialisation.
func (m *Model) Warmup(ctx context.Context, n, count int) error {
	n = max(n, 1)
	ids := make([]int64, n*MaxSeqLength)
	mask := make([]int64, n*MaxSeqLength)
	seg := make([]int64, n*MaxSeqLength)
	for k := range n {
		ids[k*MaxSeqLength], ids[k*MaxSeqLength+1] = 101, 102 // [CLS] [SEP]
		mask[k*MaxSeqLength], mask[k*MaxSeqLength+1] = 1, 1
	}
	for range count {
		if _, _, err := m.Logits(ctx, ids, mask, seg, n); err != nil {
			return fmt.Errorf("bert: warm-up: %w", err)
		}
	}
	return nil
}
