package bert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// errNoEmbedding is returned (wrapped) by ModelVocabSize when the model
// file has no word-embedding table that the token ids index directly.
var errNoEmbedding = errors.New("bert: no word-embedding table found")

// ModelVocabSize reads an ONNX model file's structure (not its weights) and
// returns the number of rows of the word-embedding table: the first input
// of the Gather node whose indices are the graph input input_ids (directly
// or through one node such as a Cast), either an
// initializer or the output of a node (such as DequantizeLinear or Cast)
// applied to one. Weights are skipped by offset, so the 1.3 GB official
// model costs a few reads. It returns an error wrapping ErrNoEmbedding when
// no such table is found; the vocabulary check is then skipped.
func ModelVocabSize(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("bert: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("bert: %w", err)
	}
	n, err := modelVocabSize(f, st.Size())
	if err != nil {
		return 0, fmt.Errorf("bert: %s: %w", path, err)
	}
	return n, nil
}

// pbField is one protobuf field: for the varint and fixed wire types val
// holds the value; for length-delimited ones the payload is at
// [off, off+val) of the reader.
type pbField struct {
	num  int
	wire int
	val  uint64
	off  int64
}

// pbWalk calls fn for every field of the message at [start, end) of r.
func pbWalk(r io.ReaderAt, start, end int64, fn func(f pbField) error) error {
	var buf [binary.MaxVarintLen64]byte
	varint := func(off int64) (uint64, int64, error) {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), end-off)], off)
		if n == 0 && err != nil {
			return 0, 0, err
		}
		v, k := binary.Uvarint(buf[:n])
		if k <= 0 {
			return 0, 0, errors.New("malformed protobuf varint")
		}
		return v, int64(k), nil
	}
	for off := start; off < end; {
		key, k, err := varint(off)
		if err != nil {
			return err
		}
		off += k
		f := pbField{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case 0:
			if f.val, k, err = varint(off); err != nil {
				return err
			}
			off += k
		case 1:
			off += 8
		case 5:
			off += 4
		case 2:
			if f.val, k, err = varint(off); err != nil {
				return err
			}
			off += k
			f.off = off
			if f.val > uint64(end-off) {
				return errors.New("protobuf field runs past its message")
			}
			off += int64(f.val)
		default:
			return fmt.Errorf("protobuf wire type %d not supported", f.wire)
		}
		if off > end {
			return errors.New("protobuf field runs past its message")
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// pbBytes reads a length-delimited field's payload.
func pbBytes(r io.ReaderAt, f pbField) ([]byte, error) {
	b := make([]byte, f.val)
	if _, err := r.ReadAt(b, f.off); err != nil && !(errors.Is(err, io.EOF) && len(b) == 0) {
		return nil, err
	}
	return b, nil
}

// The ONNX protobuf field numbers used here (onnx.proto).
const (
	pbModelGraph       = 7
	pbGraphNode        = 1
	pbGraphInitializer = 5
	pbNodeInput        = 1
	pbNodeOutput       = 2
	pbNodeOpType       = 4
	pbTensorDims       = 1
	pbTensorName       = 8
)

type pbNode struct {
	op      string
	inputs  []string
	outputs []string
}

func modelVocabSize(r io.ReaderAt, size int64) (int, error) {
	var graph *pbField
	err := pbWalk(r, 0, size, func(f pbField) error {
		if f.num == pbModelGraph && f.wire == 2 {
			graph = &f
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("not an ONNX model: %w", err)
	}
	if graph == nil {
		return 0, errors.New("not an ONNX model: no graph")
	}
	dims := map[string][]int64{} // initializer name → dims
	producer := map[string]pbNode{}
	var nodes []pbNode
	err = pbWalk(r, graph.off, graph.off+int64(graph.val), func(f pbField) error {
		switch {
		case f.num == pbGraphNode && f.wire == 2:
			b, err := pbBytes(r, f)
			if err != nil {
				return err
			}
			n, err := parseNode(b)
			if err != nil {
				return err
			}
			for _, o := range n.outputs {
				producer[o] = n
			}
			nodes = append(nodes, n)
		case f.num == pbGraphInitializer && f.wire == 2:
			name, d, err := parseTensorHeader(r, f)
			if err != nil {
				return err
			}
			dims[name] = d
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reading the ONNX graph: %w", err)
	}
	// The token ids reach the Gather directly or through one node (a Cast
	// or Unsqueeze of input_ids).
	isIDs := func(v string) bool {
		if v == inputIDs {
			return true
		}
		p, ok := producer[v]
		return ok && len(p.inputs) > 0 && p.inputs[0] == inputIDs
	}
	for _, g := range nodes {
		if g.op != "Gather" || len(g.inputs) != 2 || !isIDs(g.inputs[1]) {
			continue
		}
		table := g.inputs[0]
		d, ok := dims[table]
		if !ok { // a dequantised or cast table: look through one node
			if p, found := producer[table]; found && len(p.inputs) > 0 {
				d, ok = dims[p.inputs[0]]
			}
		}
		if ok && len(d) == 2 && d[0] > 0 {
			return int(d[0]), nil
		}
	}
	return 0, errNoEmbedding
}

func parseNode(b []byte) (pbNode, error) {
	var n pbNode
	r := bytes.NewReader(b)
	err := pbWalk(r, 0, int64(len(b)), func(f pbField) error {
		if f.wire != 2 {
			return nil
		}
		s := string(b[f.off : f.off+int64(f.val)])
		switch f.num {
		case pbNodeInput:
			n.inputs = append(n.inputs, s)
		case pbNodeOutput:
			n.outputs = append(n.outputs, s)
		case pbNodeOpType:
			n.op = s
		}
		return nil
	})
	return n, err
}

// parseTensorHeader reads a TensorProto's name and dims, skipping its data.
func parseTensorHeader(r io.ReaderAt, t pbField) (string, []int64, error) {
	var (
		name string
		dims []int64
	)
	err := pbWalk(r, t.off, t.off+int64(t.val), func(f pbField) error {
		switch {
		case f.num == pbTensorDims && f.wire == 0:
			dims = append(dims, int64(f.val))
		case f.num == pbTensorDims && f.wire == 2: // packed
			b, err := pbBytes(r, f)
			if err != nil {
				return err
			}
			for len(b) > 0 {
				v, k := binary.Uvarint(b)
				if k <= 0 {
					return errors.New("malformed packed dims")
				}
				dims = append(dims, int64(v))
				b = b[k:]
			}
		case f.num == pbTensorName && f.wire == 2:
			b, err := pbBytes(r, f)
			if err != nil {
				return err
			}
			name = string(b)
		}
		return nil
	})
	return name, dims, err
}
