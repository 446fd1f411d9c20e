package resnet50

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/onnx"
)

// archSummary counts what identifies ResNet50 v1.5 in a built graph.
type archSummary struct {
	ops                 string // op types in order
	convs, bns, adds    int
	stride2x3, stride21 int // 3×3 and 1×1 convolutions with stride 2
	trainable, all      int64
}

func summarize(t *testing.T, g *onnx.Graph) archSummary {
	t.Helper()
	var s archSummary
	dims := map[string][]int64{}
	for _, init := range g.Initializers() {
		dims[init.Name] = init.Dims
		s.all += init.Elements()
		if !strings.Contains(init.Name, ".moving_") {
			s.trainable += init.Elements()
		}
	}
	var ops []string
	for _, n := range g.Nodes() {
		ops = append(ops, n.OpType)
		switch n.OpType {
		case "Conv":
			s.convs++
			st, _ := n.Attr("strides")
			if fmt.Sprint(st.Ints()) == "[2 2]" {
				switch k := dims[n.Inputs[1]]; k[2] {
				case 3:
					s.stride2x3++
				case 1:
					s.stride21++
				}
			}
		case "BatchNormalization":
			s.bns++
		case "Add":
			s.adds++
		}
	}
	s.ops = strings.Join(ops, " ")
	return s
}

func TestArchStructure(t *testing.T) {
	full, err := arch(sizeFull, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := arch(sizeTiny, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	f, ti := summarize(t, full), summarize(t, tiny)
	// 1 stem + 16 blocks × 3 + 4 projections; stride 2 on the 3×3 (v1.5)
	// and on the projection of the first block of stages 2–4.
	if f.convs != 53 || f.bns != 53 || f.adds != 16 || f.stride2x3 != 3 || f.stride21 != 3 {
		t.Errorf("full: %d conv, %d BN, %d add, %d stride-2 3×3, %d stride-2 1×1; want 53, 53, 16, 3, 3",
			f.convs, f.bns, f.adds, f.stride2x3, f.stride21)
	}
	// torchvision's resnet50 (1000 classes, same layers) has 25,557,032
	// parameters; the 1001st class adds 2048 weights and a bias.
	if want := int64(25557032 + 2048 + 1); f.trainable != want {
		t.Errorf("full: %d trainable parameters, want %d", f.trainable, want)
	}
	if ti.ops != f.ops {
		t.Errorf("tiny and full graphs differ:\n%s\n%s", ti.ops, f.ops)
	}
	if ti.all*100 > f.all {
		t.Errorf("tiny has %d parameters, not much below full's %d", ti.all, f.all)
	}
	for _, g := range []*onnx.Graph{full, tiny} {
		in, out := g.Inputs(), g.Outputs()
		if len(in) != 1 || in[0].Name != archInput || fmt.Sprint(in[0].Shape) != "[{0 N} {3 } {224 } {224 }]" || in[0].DType != onnx.Float {
			t.Errorf("inputs %v", in)
		}
		if len(out) != 2 || out[0].Name != archArgMax || out[0].DType != onnx.Int64 || out[1].Name != archSoftmax || out[1].DType != onnx.Float ||
			fmt.Sprint(out[1].Shape) != "[{0 N} {1001 }]" {
			t.Errorf("outputs %v", out)
		}
	}
	if _, err := arch("huge", 1); err == nil || !strings.Contains(err.Error(), `unknown model size "huge"`) {
		t.Errorf("bad size: err = %v", err)
	}
}

func TestArchDeterministic(t *testing.T) {
	build := func(seed uint64) [32]byte {
		var buf bytes.Buffer
		if err := build(&buf, sizeTiny, seed); err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(buf.Bytes())
	}
	a, b, c := build(archSeed), build(archSeed), build(archSeed+1)
	if a != b {
		t.Error("two builds with the same seed differ")
	}
	if a == c {
		t.Error("different seeds give the same model")
	}
}
