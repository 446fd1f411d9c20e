package dlrm

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/onnx"
)

// stateDict is a DLRM_DCN state dict in TorchRec's names and layouts
// (Linear weights [out, in], V_kernels [r, n], W_kernels [n, r]).
type stateDict map[string]struct {
	shape []int64
	v     []float32
}

func tinyStateDict(a arch) stateDict {
	sd := stateDict{}
	rng := onnx.SplitMix64{State: 77}
	put := func(key string, shape ...int64) {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.Float64() - 0.5)
		}
		sd["model."+key] = struct {
			shape []int64
			v     []float32
		}{shape, v}
	}
	in := int64(criteo.NumDense)
	for i, out := range a.Bottom {
		put(fmt.Sprintf("dense_arch.model._mlp.%d._linear.weight", i), int64(out), in)
		put(fmt.Sprintf("dense_arch.model._mlp.%d._linear.bias", i), int64(out))
		in = int64(out)
	}
	n, r := int64(a.Interaction()), int64(a.LowRank)
	for l := range a.Layers {
		put(fmt.Sprintf("inter_arch.crossnet.V_kernels.%d", l), r, n)
		put(fmt.Sprintf("inter_arch.crossnet.W_kernels.%d", l), n, r)
		put(fmt.Sprintf("inter_arch.crossnet.bias.%d", l), n)
	}
	in = n
	for i, out := range a.Top {
		if i == len(a.Top)-1 {
			put("over_arch.model.1.weight", int64(out), in)
			put("over_arch.model.1.bias", int64(out))
			break
		}
		put(fmt.Sprintf("over_arch.model.0._mlp.%d._linear.weight", i), int64(out), in)
		put(fmt.Sprintf("over_arch.model.0._mlp.%d._linear.bias", i), int64(out))
		in = int64(out)
	}
	for k := range criteo.NumSparse {
		put(fmt.Sprintf("sparse_arch.embedding_bag_collection.embedding_bags.t_cat_%d.weight", k), int64(a.Rows(k)), int64(a.Dim))
	}
	return sd
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// writeSnapshot writes sd as torchsnapshot 0.1.0 lays out a 2-rank
// DistributedModelParallel state: dense tensors replicated (one of them
// chunked, two batched into one file with byte ranges), tables sharded
// row-wise over both ranks, column-wise, or whole on one rank.
func writeSnapshot(t *testing.T, dir string, sd stateDict) {
	t.Helper()
	manifest := map[string]any{}
	write := func(loc string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(loc))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tensor := func(loc string, shape []int64, br []int64) map[string]any {
		e := map[string]any{"type": "Tensor", "location": loc, "serializer": "buffer_protocol", "dtype": "torch.float32", "shape": shape, "replicated": false}
		if br != nil {
			e["byte_range"] = br
		}
		return e
	}
	var batched []byte
	for key, x := range sd {
		logical := "model/" + key
		switch {
		case strings.Contains(key, "t_cat_"):
			var k int
			fmt.Sscanf(key[strings.Index(key, "t_cat_"):], "t_cat_%d", &k)
			rows, dim := x.shape[0], x.shape[1]
			type blk struct{ rank, r0, c0, nr, nc int64 }
			var blocks []blk
			switch {
			case k%3 == 0 && rows >= 2: // row-wise over both ranks
				h := rows / 2
				blocks = []blk{{0, 0, 0, h, dim}, {1, h, 0, rows - h, dim}}
			case k%3 == 1: // column-wise
				blocks = []blk{{0, 0, 0, rows, dim / 2}, {1, 0, dim / 2, rows, dim - dim/2}}
			default: // table-wise, on rank 1
				blocks = []blk{{1, 0, 0, rows, dim}}
			}
			byRank := map[int64][]any{}
			for _, b := range blocks {
				var v []float32
				for r := b.r0; r < b.r0+b.nr; r++ {
					v = append(v, x.v[r*dim+b.c0:r*dim+b.c0+b.nc]...)
				}
				loc := fmt.Sprintf("sharded/%s_%d_%d", logical, b.r0, b.c0)
				write(loc, f32bytes(v))
				byRank[b.rank] = append(byRank[b.rank], map[string]any{"offsets": []int64{b.r0, b.c0}, "sizes": []int64{b.nr, b.nc}, "tensor": tensor(loc, []int64{b.nr, b.nc}, nil)})
			}
			for rank, shards := range byRank {
				manifest[fmt.Sprintf("%d/%s", rank, logical)] = map[string]any{"type": "ShardedTensor", "shards": shards}
			}
		case strings.HasSuffix(key, "crossnet.V_kernels.1"): // chunked along dim 0
			h := x.shape[0] / 2
			n := x.shape[1]
			var chunks []any
			for _, c := range [][2]int64{{0, h}, {h, x.shape[0] - h}} {
				loc := fmt.Sprintf("replicated/%s_%d_0", logical, c[0])
				write(loc, f32bytes(x.v[c[0]*n:(c[0]+c[1])*n]))
				chunks = append(chunks, map[string]any{"offsets": []int64{c[0], 0}, "sizes": []int64{c[1], n}, "tensor": tensor(loc, []int64{c[1], n}, nil)})
			}
			manifest["0/"+logical] = map[string]any{"type": "ChunkedTensor", "dtype": "torch.float32", "shape": x.shape, "chunks": chunks, "replicated": true}
		case strings.HasSuffix(key, ".bias"): // small: batched into one file
			start := int64(len(batched))
			batched = append(batched, f32bytes(x.v)...)
			manifest["0/"+logical] = tensor("batched/0", x.shape, []int64{start, int64(len(batched))})
		default:
			loc := "replicated/" + logical
			write(loc, f32bytes(x.v))
			manifest["0/"+logical] = tensor(loc, x.shape, nil)
		}
	}
	write("batched/0", batched)
	manifest["0/model"] = map[string]any{"type": "OrderedDict", "keys": []string{"..."}}
	b, _ := json.MarshalIndent(map[string]any{"version": "0.1.0", "world_size": 2, "manifest": manifest}, "", "  ")
	write(snapshotMetadataFile, b)
}

// TestConvertRoundTrip writes a snapshot of known weights in
// torchsnapshot's on-disk format, converts it, and checks that the model
// folder is byte for byte the one built directly from those weights.
func TestConvertRoundTrip(t *testing.T) {
	a := archTiny
	sd := tinyStateDict(a)
	snap := t.TempDir()
	writeSnapshot(t, snap, sd)
	out := t.TempDir()
	var progress bytes.Buffer
	// Through the descriptor's hook, as `mlperf model convert dlrm` calls it.
	if err := descriptor.Driver.(spec.ModelConverter).ConvertModel(context.Background(), snap, out, &progress); err != nil {
		t.Fatal(err)
	}
	// The dense graph built from the same weights, transposed by hand.
	g, err := denseGraph(a, 0, func(name string, dims []int64) (*onnx.Tensor, error) {
		p := strings.Split(name, ".")
		var key string
		switch p[0] + "." + p[2] {
		case "bottom.weight", "bottom.bias":
			key = "dense_arch.model._mlp." + p[1] + "._linear." + p[2]
		case "cross.V":
			key = "inter_arch.crossnet.V_kernels." + p[1]
		case "cross.W":
			key = "inter_arch.crossnet.W_kernels." + p[1]
		case "cross.bias":
			key = "inter_arch.crossnet.bias." + p[1]
		default:
			if p[1] == fmt.Sprint(len(a.Top)-1) {
				key = "over_arch.model.1." + p[2]
			} else {
				key = "over_arch.model.0._mlp." + p[1] + "._linear." + p[2]
			}
		}
		x := sd["model."+key]
		v := x.v
		if len(dims) == 2 { // torch [out, in] → [in, out]
			v = make([]float32, len(x.v))
			for r := range x.shape[0] {
				for c := range x.shape[1] {
					v[c*x.shape[0]+r] = x.v[r*x.shape[1]+c]
				}
			}
		}
		return onnx.NewTensor(name, onnx.Float, dims, v), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := g.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, "model.onnx"))
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("model.onnx differs from the dense graph of the snapshot's weights")
	}
	emb, err := openEmbeddings(out)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if emb.Wrap || emb.Dim != a.Dim {
		t.Errorf("manifest: wrap %v dim %d", emb.Wrap, emb.Dim)
	}
	for k := range criteo.NumSparse {
		x := sd[fmt.Sprintf("model.sparse_arch.embedding_bag_collection.embedding_bags.t_cat_%d.weight", k)]
		if emb.Rows(k) != int(x.shape[0]) {
			t.Fatalf("table %d: %d rows, want %d", k, emb.Rows(k), x.shape[0])
		}
		for i, v := range x.v {
			if emb.tables[k][i] != v {
				t.Fatalf("table %d value %d: %v, want %v", k, i, emb.tables[k][i], v)
			}
		}
	}
	if !strings.Contains(progress.String(), "t_cat_25") {
		t.Errorf("progress: %q", progress.String())
	}
}

func TestConvertRejects(t *testing.T) {
	sd := tinyStateDict(archTiny)
	for name, tc := range map[string]struct {
		mutate func(dir string)
		want   string
	}{
		"no metadata": {func(dir string) { os.Remove(filepath.Join(dir, snapshotMetadataFile)) }, "download_model.sh"},
		"yaml": {func(dir string) {
			os.WriteFile(filepath.Join(dir, snapshotMetadataFile), []byte("version: 0.0.3\nmanifest: {}\n"), 0o644)
		}, "YAML"},
		"missing file": {func(dir string) { os.Remove(filepath.Join(dir, "batched", "0")) }, "no such file"},
		"short table": {func(dir string) {
			os.WriteFile(filepath.Join(dir, "sharded", "model", "model.sparse_arch.embedding_bag_collection.embedding_bags.t_cat_2.weight_0_0"), []byte{1, 2, 3}, 0o644)
		}, "truncated"},
	} {
		dir := t.TempDir()
		writeSnapshot(t, dir, sd)
		tc.mutate(dir)
		err := convert(dir, t.TempDir(), convertOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

// TestConvertRejectsShapes: a state dict whose layers do not chain, or
// whose last layer or tables have another shape, is refused naming the
// tensor.
func TestConvertRejectsShapes(t *testing.T) {
	reshape := func(sd stateDict, key string, shape ...int64) {
		x := sd["model."+key]
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		x.shape, x.v = shape, make([]float32, n)
		sd["model."+key] = x
	}
	a := archTiny
	for name, tc := range map[string]struct {
		edit func(sd stateDict)
		want string
	}{
		"dense layer 1 of another input": {func(sd stateDict) {
			reshape(sd, "dense_arch.model._mlp.1._linear.weight", int64(a.Bottom[1]), int64(a.Bottom[0])+1)
		}, fmt.Sprintf("dense_arch layer 1 has shape [%d %d], want [out, %d]", a.Bottom[1], a.Bottom[0]+1, a.Bottom[0])},
		"last layer of 2 outputs": {func(sd stateDict) {
			x := sd["model.over_arch.model.1.weight"]
			reshape(sd, "over_arch.model.1.weight", 2, x.shape[1])
		}, "the last over_arch layer has shape"},
		"table of a wider dim": {func(sd stateDict) {
			x := sd["model.sparse_arch.embedding_bag_collection.embedding_bags.t_cat_4.weight"]
			reshape(sd, "sparse_arch.embedding_bag_collection.embedding_bags.t_cat_4.weight", x.shape[0], x.shape[1]+2)
		}, "t_cat_4: shape"},
	} {
		sd := tinyStateDict(a)
		tc.edit(sd)
		dir := t.TempDir()
		writeSnapshot(t, dir, sd)
		err := convert(dir, t.TempDir(), convertOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}
