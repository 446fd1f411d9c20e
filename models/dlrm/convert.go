package dlrm

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/preprocess"
)

// snapshotMetadataFile is the manifest at the root of a torchsnapshot.
const snapshotMetadataFile = ".snapshot_metadata"

// snapEntry is one manifest entry of a torchsnapshot (pytorch/torchsnapshot
// torchsnapshot/manifest.py): a Tensor, a ShardedTensor (shards), a
// ChunkedTensor (chunks) or a container/primitive/object the converter
// ignores.
type snapEntry struct {
	Type       string      `json:"type"`
	Location   string      `json:"location"`
	Serializer string      `json:"serializer"`
	DType      string      `json:"dtype"`
	Shape      []int64     `json:"shape"`
	ByteRange  []int64     `json:"byte_range"`
	Shards     []snapShard `json:"shards"`
	Chunks     []snapShard `json:"chunks"`
}

type snapShard struct {
	Offsets []int64   `json:"offsets"`
	Sizes   []int64   `json:"sizes"`
	Tensor  snapEntry `json:"tensor"`
}

type snapMetadata struct {
	Version   string               `json:"version"`
	WorldSize int                  `json:"world_size"`
	Manifest  map[string]snapEntry `json:"manifest"`
}

// snapTensor is a logical tensor of the snapshot: its pieces, each a
// block at offsets, merged over ranks.
type snapTensor struct {
	path   string
	shape  []int64
	pieces []snapShard
}

// snapshot is an opened torchsnapshot: the tensors of its manifest by
// state-dict key.
type snapshot struct {
	dir     string
	version string
	tensors map[string]*snapTensor
}

// openSnapshot reads the manifest of the torchsnapshot in dir. It reads
// the JSON metadata that torchsnapshot writes since 0.1.0 (the YAML of
// earlier development builds is refused), float32 tensors serialized with
// buffer_protocol (raw little-endian bytes, optionally a byte_range of a
// batched file), as plain Tensor, ChunkedTensor or ShardedTensor entries
// (row-wise, column-wise or table-wise shards, from every rank).
func openSnapshot(dir string) (*snapshot, error) {
	b, err := os.ReadFile(filepath.Join(dir, snapshotMetadataFile))
	if err != nil {
		return nil, fmt.Errorf("dlrm: snapshot: %w (want the torchsnapshot folder of the DLRMv2 weights, see download_model.sh)", err)
	}
	var md snapMetadata
	if err := json.Unmarshal(b, &md); err != nil {
		return nil, fmt.Errorf("dlrm: snapshot %s: %v (torchsnapshot ≥ 0.1.0 writes JSON metadata; YAML metadata of earlier builds is not read)", filepath.Join(dir, snapshotMetadataFile), err)
	}
	s := &snapshot{dir: dir, version: md.Version, tensors: map[string]*snapTensor{}}
	keys := make([]string, 0, len(md.Manifest))
	for k := range md.Manifest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := md.Manifest[k]
		// "RANK/app-state key/state-dict key": the last element is the key.
		name := k[strings.LastIndexByte(k, '/')+1:]
		var pieces []snapShard
		var shape []int64
		switch e.Type {
		case "Tensor":
			shape = e.Shape
			pieces = []snapShard{{Offsets: make([]int64, len(e.Shape)), Sizes: e.Shape, Tensor: e}}
		case "ChunkedTensor":
			shape, pieces = e.Shape, e.Chunks
		case "ShardedTensor", "DTensor":
			pieces = e.Shards
		default:
			continue
		}
		t := s.tensors[name]
		if t == nil {
			t = &snapTensor{path: k}
			s.tensors[name] = t
		} else if e.Type == "Tensor" || e.Type == "ChunkedTensor" {
			continue // a replicated tensor listed by several ranks
		}
		t.pieces = append(t.pieces, pieces...)
		if shape != nil {
			t.shape = shape
		}
	}
	for name, t := range s.tensors {
		if t.shape == nil { // sharded: the extent of the shards
			for _, p := range t.pieces {
				if t.shape == nil {
					t.shape = make([]int64, len(p.Sizes))
				}
				for d := range p.Sizes {
					if d < len(t.shape) {
						t.shape[d] = max(t.shape[d], p.Offsets[d]+p.Sizes[d])
					}
				}
			}
		}
		for _, p := range t.pieces {
			if p.Tensor.DType != "torch.float32" {
				return nil, fmt.Errorf("dlrm: snapshot tensor %s: dtype %s; the converter reads torch.float32", name, p.Tensor.DType)
			}
			if p.Tensor.Serializer != "buffer_protocol" {
				return nil, fmt.Errorf("dlrm: snapshot tensor %s: serializer %q; the converter reads buffer_protocol (raw bytes)", name, p.Tensor.Serializer)
			}
			if len(p.Offsets) != len(t.shape) || len(p.Sizes) != len(t.shape) {
				return nil, fmt.Errorf("dlrm: snapshot tensor %s: a piece of rank %d in a tensor of shape %v", name, len(p.Sizes), t.shape)
			}
		}
	}
	return s, nil
}

// find returns the tensor whose state-dict key ends with suffix.
func (s *snapshot) find(suffix string) (*snapTensor, error) {
	var hit *snapTensor
	for name, t := range s.tensors {
		if name == suffix || strings.HasSuffix(name, "."+suffix) {
			if hit != nil {
				return nil, fmt.Errorf("dlrm: snapshot: several tensors end with %s", suffix)
			}
			hit = t
		}
	}
	if hit == nil {
		return nil, fmt.Errorf("dlrm: snapshot: no tensor %s (is it a DLRM-DCNv2 snapshot?)", suffix)
	}
	return hit, nil
}

// pieceReader opens the bytes of a piece.
func (s *snapshot) pieceReader(p snapShard) (io.ReadCloser, int64, error) {
	n := int64(4)
	for _, d := range p.Sizes {
		n *= d
	}
	path := filepath.Join(s.dir, filepath.FromSlash(p.Tensor.Location))
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("dlrm: snapshot: %w", err)
	}
	off := int64(0)
	if len(p.Tensor.ByteRange) == 2 {
		off = p.Tensor.ByteRange[0]
		if p.Tensor.ByteRange[1]-off != n {
			f.Close()
			return nil, 0, fmt.Errorf("dlrm: snapshot: %s: byte range %v holds %d bytes, the piece %v needs %d", path, p.Tensor.ByteRange, p.Tensor.ByteRange[1]-off, p.Sizes, n)
		}
	}
	st, err := f.Stat()
	if err == nil && st.Size() < off+n {
		err = fmt.Errorf("%s: %d bytes, the piece needs %d from offset %d (truncated?)", path, st.Size(), n, off)
	}
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("dlrm: snapshot: %w", err)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, off, n), f}, n, nil
}

// dense reads a small tensor whole, checking its shape.
func (s *snapshot) dense(suffix string, shape ...int64) ([]float32, error) {
	t, err := s.find(suffix)
	if err != nil {
		return nil, err
	}
	if fmt.Sprint(t.shape) != fmt.Sprint(shape) {
		return nil, fmt.Errorf("dlrm: snapshot tensor %s: shape %v, want %v", suffix, t.shape, shape)
	}
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	out := make([]float32, n)
	for _, p := range t.pieces {
		err := s.copyPiece(p, func(at []int64, v []float32) error {
			o := int64(0)
			for d := range at {
				o = o*shape[d] + at[d]
			}
			copy(out[o:], v)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// copyPiece streams a piece as runs of its last dimension: put gets the
// global index of each run's first element and its values.
func (s *snapshot) copyPiece(p snapShard, put func(at []int64, v []float32) error) error {
	r, _, err := s.pieceReader(p)
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	nd := len(p.Sizes)
	if nd == 0 {
		return fmt.Errorf("dlrm: snapshot: scalar tensor")
	}
	run := p.Sizes[nd-1]
	buf := make([]byte, 4*run)
	v := make([]float32, run)
	idx := make([]int64, nd) // position within the piece
	at := make([]int64, nd)
	total := int64(1)
	for _, d := range p.Sizes[:nd-1] {
		total *= d
	}
	for range total {
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("dlrm: snapshot %s: %w", p.Tensor.Location, err)
		}
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		for d := range nd {
			at[d] = p.Offsets[d] + idx[d]
		}
		if err := put(at, v); err != nil {
			return err
		}
		for d := nd - 2; d >= 0; d-- {
			idx[d]++
			if idx[d] < p.Sizes[d] {
				break
			}
			idx[d] = 0
		}
	}
	return nil
}

// convertOptions tune Convert.
type convertOptions struct {
	// Progress receives a line per table (nil: none).
	Progress io.Writer
}

// convert reads the DLRM-DCNv2 torchsnapshot in snapshotDir (the official
// DLRMv2 weights: DistributedModelParallel(DLRMTrain(DLRM_DCN)) state,
// TorchRec key names) and writes the model folder out: model.onnx (the
// dense graph with the snapshot's weights), the 26 tables as float32 .npy
// files and embeddings.json (see README.md). The architecture (widths,
// embedding dimension, cross layers) is read from the tensor shapes;
// tables are streamed piece by piece, so memory stays small whatever
// their size.
func convert(snapshotDir, out string, o convertOptions) error {
	s, err := openSnapshot(snapshotDir)
	if err != nil {
		return err
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	a, err := s.arch()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	// The dense graph, weights transposed to x·W layout.
	g, err := denseGraph(a, 0, func(name string, dims []int64) (*onnx.Tensor, error) {
		v, err := s.weight(a, name, dims)
		if err != nil {
			return nil, err
		}
		return onnx.NewTensor(name, onnx.Float, dims, v), nil
	})
	if err != nil {
		return err
	}
	if err := g.WriteFile(filepath.Join(out, "model.onnx"), onnx.FileOptions{}); err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	m := &manifest{Dim: a.Dim}
	for k := range criteo.NumSparse {
		t, err := s.find(fmt.Sprintf("embedding_bags.t_cat_%d.weight", k))
		if err != nil {
			return err
		}
		if len(t.shape) != 2 || t.shape[1] != int64(a.Dim) {
			return fmt.Errorf("dlrm: snapshot table t_cat_%d: shape %v, want [rows, %d]", k, t.shape, a.Dim)
		}
		rows := int(t.shape[0])
		if err := s.writeTable(t, filepath.Join(out, tableFile(k)), rows, a.Dim); err != nil {
			return err
		}
		m.Tables = append(m.Tables, tableInfo{File: tableFile(k), Rows: rows, IDRange: rows})
		fmt.Fprintf(progress, "dlrm: table t_cat_%d: %d rows × %d (%d pieces)\n", k, rows, a.Dim, len(t.pieces))
	}
	return writeManifest(out, m)
}

// arch reads the architecture from the tensor shapes.
func (s *snapshot) arch() (arch, error) {
	var a arch
	in := int64(criteo.NumDense)
	for i := 0; ; i++ {
		t, err := s.find(fmt.Sprintf("dense_arch.model._mlp.%d._linear.weight", i))
		if err != nil {
			if i == 0 {
				return a, err
			}
			break
		}
		if len(t.shape) != 2 || t.shape[1] != in {
			return a, fmt.Errorf("dlrm: snapshot: dense_arch layer %d has shape %v, want [out, %d]", i, t.shape, in)
		}
		a.Bottom = append(a.Bottom, int(t.shape[0]))
		in = t.shape[0]
	}
	a.Dim = a.Bottom[len(a.Bottom)-1]
	for ; ; a.Layers++ {
		t, err := s.find(fmt.Sprintf("crossnet.V_kernels.%d", a.Layers))
		if err != nil {
			break
		}
		if len(t.shape) != 2 {
			return a, fmt.Errorf("dlrm: snapshot: V_kernels.%d has shape %v", a.Layers, t.shape)
		}
		a.LowRank = int(t.shape[0])
	}
	in = int64(a.Interaction())
	for i := 0; ; i++ {
		t, err := s.find(fmt.Sprintf("over_arch.model.0._mlp.%d._linear.weight", i))
		if err != nil {
			break
		}
		a.Top = append(a.Top, int(t.shape[0]))
		in = t.shape[0]
	}
	t, err := s.find("over_arch.model.1.weight")
	if err != nil {
		return a, err
	}
	if len(t.shape) != 2 || t.shape[1] != in || t.shape[0] != 1 {
		return a, fmt.Errorf("dlrm: snapshot: the last over_arch layer has shape %v, want [1, %d]", t.shape, in)
	}
	a.Top = append(a.Top, 1)
	return a, a.check()
}

// weight returns the dense graph's parameter name (shape dims) from the
// snapshot.
func (s *snapshot) weight(a arch, name string, dims []int64) ([]float32, error) {
	part := strings.Split(name, ".")
	var i int
	fmt.Sscan(part[1], &i)
	transposed := func(key string) ([]float32, error) {
		v, err := s.dense(key, dims[1], dims[0])
		if err != nil {
			return nil, err
		}
		return transpose(v, int(dims[1]), int(dims[0])), nil
	}
	switch {
	case part[0] == "bottom" && part[2] == "weight":
		return transposed(fmt.Sprintf("dense_arch.model._mlp.%d._linear.weight", i))
	case part[0] == "bottom":
		return s.dense(fmt.Sprintf("dense_arch.model._mlp.%d._linear.bias", i), dims...)
	case part[0] == "cross" && part[2] == "V":
		return transposed(fmt.Sprintf("crossnet.V_kernels.%d", i))
	case part[0] == "cross" && part[2] == "W":
		return transposed(fmt.Sprintf("crossnet.W_kernels.%d", i))
	case part[0] == "cross":
		return s.dense(fmt.Sprintf("crossnet.bias.%d", i), dims...)
	case part[0] == "top" && i == len(a.Top)-1 && part[2] == "weight":
		return transposed("over_arch.model.1.weight")
	case part[0] == "top" && i == len(a.Top)-1:
		return s.dense("over_arch.model.1.bias", dims...)
	case part[0] == "top" && part[2] == "weight":
		return transposed(fmt.Sprintf("over_arch.model.0._mlp.%d._linear.weight", i))
	case part[0] == "top":
		return s.dense(fmt.Sprintf("over_arch.model.0._mlp.%d._linear.bias", i), dims...)
	}
	return nil, fmt.Errorf("dlrm: no snapshot tensor for parameter %s", name)
}

func transpose(v []float32, rows, cols int) []float32 {
	out := make([]float32, len(v))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = v[r*cols+c]
		}
	}
	return out
}

// writeTable writes a table's pieces into a rows×dim float32 .npy,
// checking that they cover it exactly once.
func (s *snapshot) writeTable(t *snapTensor, path string, rows, dim int) error {
	hdr := preprocess.NpyHeaderBytes("<f4", []int{rows, dim})
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(hdr); err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	if err := f.Truncate(int64(len(hdr)) + 4*int64(rows)*int64(dim)); err != nil {
		return fmt.Errorf("dlrm: %w", err)
	}
	covered := int64(0)
	for _, p := range t.pieces {
		covered += p.Sizes[0] * p.Sizes[1]
		if p.Offsets[0]+p.Sizes[0] > int64(rows) || p.Offsets[1]+p.Sizes[1] > int64(dim) {
			return fmt.Errorf("dlrm: snapshot %s: a piece at %v of %v runs past the table [%d, %d]", t.path, p.Offsets, p.Sizes, rows, dim)
		}
		w := bufio.NewWriterSize(io.NewOffsetWriter(f, 0), 1<<20)
		pos := int64(-1)
		var b []byte
		err := s.copyPiece(p, func(at []int64, v []float32) error {
			o := int64(len(hdr)) + 4*(at[0]*int64(dim)+at[1])
			if o != pos { // not contiguous with the last run: flush and seek
				if err := w.Flush(); err != nil {
					return err
				}
				w.Reset(io.NewOffsetWriter(f, o))
			}
			b = b[:0]
			for _, x := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
			_, err := w.Write(b)
			pos = o + int64(len(b))
			return err
		})
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return fmt.Errorf("dlrm: table %s: %w", path, err)
		}
	}
	if covered != int64(rows)*int64(dim) {
		return fmt.Errorf("dlrm: snapshot %s: the pieces cover %d of the table's %d values", t.path, covered, int64(rows)*int64(dim))
	}
	return f.Close()
}
