package bert

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/onnx"
)

// weightCount sums the elements of the named weights (initializers whose
// names follow the Hugging Face layout), leaving out the graph's shape and
// scalar constants.
func weightCount(g *onnx.Graph) (n int64, tensors int) {
	for _, t := range g.Initializers() {
		if strings.HasPrefix(t.Name, "bert.") || strings.HasPrefix(t.Name, "qa_outputs.") {
			n += t.Elements()
			tensors++
		}
	}
	return n, tensors
}

func TestArchSizes(t *testing.T) {
	for _, tc := range []struct {
		size    string
		params  int64 // BERT-large QA: 24 × 12,596,224 + 31,782,912 embeddings + 2,050 head
		tensors int   // 5 embedding tensors + 16 per layer + 2 head
		ops     map[string]int
	}{
		{sizeFull, 334_094_338, 5 + 16*24 + 2, map[string]int{"LayerNormalization": 1 + 2*24, "Softmax": 24, "Erf": 24, "Gather": 2, "MatMul": 8*24 + 1}},
		{sizeTiny, TinyArch.Params(), 5 + 16*2 + 2, map[string]int{"LayerNormalization": 1 + 2*2, "Softmax": 2, "Erf": 2, "Gather": 2, "MatMul": 8*2 + 1}},
	} {
		t.Run(tc.size, func(t *testing.T) {
			g, err := arch(tc.size, archSeed)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := archFor(tc.size)
			n, tensors := weightCount(g)
			if n != tc.params || c.Params() != tc.params || tensors != tc.tensors {
				t.Errorf("%d weights in %d tensors (config says %d), want %d in %d", n, tensors, c.Params(), tc.params, tc.tensors)
			}
			ops := map[string]int{}
			for _, nd := range g.Nodes() {
				ops[nd.OpType]++
			}
			for op, want := range tc.ops {
				if ops[op] != want {
					t.Errorf("%d %s nodes, want %d", ops[op], op, want)
				}
			}
			var ins, outs []string
			for _, v := range g.Inputs() {
				ins = append(ins, fmt.Sprintf("%s:%v:%v", v.Name, v.DType, v.Shape))
			}
			for _, v := range g.Outputs() {
				outs = append(outs, fmt.Sprintf("%s:%v:%v", v.Name, v.DType, v.Shape))
			}
			wantIn := "input_ids:int64:[{0 batch_size} {384 }] input_mask:int64:[{0 batch_size} {384 }] segment_ids:int64:[{0 batch_size} {384 }]"
			wantOut := "output_start_logits:float32:[{0 batch_size} {384 }] output_end_logits:float32:[{0 batch_size} {384 }]"
			if strings.Join(ins, " ") != wantIn || strings.Join(outs, " ") != wantOut {
				t.Errorf("inputs %v\noutputs %v\nwant %s\n%s", ins, outs, wantIn, wantOut)
			}
		})
	}
	if p := fullArch.Params(); p < 330e6 || p > 340e6 {
		t.Errorf("full BERT-large has %d parameters, want about 335M", p)
	}
}

func TestArchBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(c *ArchConfig)
		want string
	}{
		{"heads", func(c *ArchConfig) { c.Heads = 5 }, "not a multiple"},
		{"positions", func(c *ArchConfig) { c.Positions = 100 }, "positions for sequence length"},
		{"zero hidden", func(c *ArchConfig) { c.Hidden = 0 }, "must be positive"},
		{"eps", func(c *ArchConfig) { c.Eps = 0 }, "epsilon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := TinyArch
			tc.mod(&c)
			if _, err := archOf(c, 1, "x"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := arch("huge", 1); err == nil || !strings.Contains(err.Error(), "unknown model size") {
		t.Fatalf("unknown size: %v", err)
	}
}

// TestArchDeterministic checks that a size and seed always write the same
// bytes, and another seed other weights.
func TestArchDeterministic(t *testing.T) {
	sum := func(seed uint64) [32]byte {
		var b bytes.Buffer
		if err := build(&b, sizeTiny, seed); err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b.Bytes())
	}
	a, b, c := sum(archSeed), sum(archSeed), sum(archSeed+1)
	if a != b {
		t.Fatal("same seed, different bytes")
	}
	if a == c {
		t.Fatal("different seeds, same bytes")
	}
}
