package onnx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// MaxInlineBytes is the largest model written as a single protobuf: the
// protobuf limit of 2 GiB, less a margin for the graph structure.
const MaxInlineBytes = 2<<30 - 64<<20

// maxInline is MaxInlineBytes; tests lower it to exercise external data.
var maxInline int64 = MaxInlineBytes

// ErrTooLarge reports a model too large for a single protobuf.
var ErrTooLarge = errors.New("onnx: model over 2 GiB needs external data")

// extRef places a tensor's data in the side file.
type extRef struct {
	location       string
	offset, length int64
}

func encodeDims(m *msg, field int, dims []int64) {
	// proto2 repeated int64 written unpacked, like the reference writer.
	for _, d := range dims {
		m.int64Field(field, d)
	}
}

func encodeTensor(t *Tensor, ext *extRef) *msg {
	var m msg
	encodeDims(&m, 1, t.Dims)
	m.int64Field(2, int64(t.DType))
	m.stringField(8, t.Name)
	if ext == nil {
		m.payload(9, t, t.Bytes())
		return &m
	}
	for _, kv := range [][2]string{
		{"location", ext.location},
		{"offset", strconv.FormatInt(ext.offset, 10)},
		{"length", strconv.FormatInt(ext.length, 10)},
	} {
		var e msg
		e.stringField(1, kv[0])
		e.stringField(2, kv[1])
		m.message(13, &e)
	}
	m.int64Field(14, 1) // data_location = EXTERNAL
	return &m
}

func encodeValueInfo(v ValueInfo) *msg {
	var tt msg
	tt.int64Field(1, int64(v.DType))
	if v.Shape != nil {
		var sh msg
		for _, d := range v.Shape {
			var dm msg
			if d.Param != "" {
				dm.stringField(2, d.Param)
			} else {
				dm.int64Field(1, d.Value)
			}
			sh.message(1, &dm)
		}
		tt.message(2, &sh)
	}
	var typ msg
	typ.message(1, &tt)
	var m msg
	m.stringField(1, v.Name)
	m.message(2, &typ)
	return &m
}

func encodeNode(n *Node) *msg {
	var m msg
	for _, in := range n.Inputs {
		m.stringField(1, in)
	}
	for _, out := range n.Outputs {
		m.stringField(2, out)
	}
	m.stringField(3, n.Name)
	m.stringField(4, n.OpType)
	for i := range n.Attrs {
		m.message(5, n.Attrs[i].encode())
	}
	if n.Domain != "" {
		m.stringField(7, n.Domain)
	}
	return &m
}

// encode builds the ModelProto; ext maps initializer index → side-file place.
func (g *Graph) encode(ext map[int]*extRef) *msg {
	var gm msg
	for _, n := range g.nodes {
		gm.message(1, encodeNode(n))
	}
	gm.stringField(2, g.cfg.Name)
	for i, t := range g.inits {
		gm.message(5, encodeTensor(t, ext[i]))
	}
	if g.cfg.Doc != "" {
		gm.stringField(10, g.cfg.Doc)
	}
	for _, v := range g.inputs {
		gm.message(11, encodeValueInfo(v))
	}
	for _, v := range g.outputs {
		gm.message(12, encodeValueInfo(v))
	}
	for _, v := range g.valueInfo {
		gm.message(13, encodeValueInfo(v))
	}

	var m msg
	m.int64Field(1, g.cfg.IRVersion)
	m.stringField(2, g.cfg.Producer)
	m.message(7, &gm)
	var op msg
	op.stringField(1, "")
	op.int64Field(2, g.cfg.Opset)
	m.message(8, &op)
	domains := make([]string, 0, len(g.domains))
	for d := range g.domains {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	for _, d := range domains {
		var o msg
		o.stringField(1, d)
		o.int64Field(2, g.domains[d])
		m.message(8, &o)
	}
	return &m
}

// Size is the size in bytes of the model written as one protobuf.
func (g *Graph) Size() (int64, error) {
	if err := g.check(); err != nil {
		return 0, err
	}
	return g.encode(nil).size, nil
}

// WriteTo writes the model as one protobuf (all weights inline) to w and
// returns the number of bytes written. Models over MaxInlineBytes return
// ErrTooLarge; write them with WriteFile.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	if err := g.check(); err != nil {
		return 0, err
	}
	m := g.encode(nil)
	if m.size > maxInline {
		return 0, fmt.Errorf("%w (%d bytes)", ErrTooLarge, m.size)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	if err := m.writeTo(cw); err != nil {
		return cw.n, fmt.Errorf("onnx: write model: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("onnx: write model: %w", err)
	}
	return cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// External selects where WriteFile puts the weights.
type External int

const (
	// ExternalAuto writes weights inline unless the model exceeds
	// MaxInlineBytes.
	ExternalAuto External = iota
	// ExternalAlways writes every initializer of at least ExternalMinBytes
	// to the side file.
	ExternalAlways
	// ExternalNever always writes one protobuf (ErrTooLarge when it cannot).
	ExternalNever
)

// ExternalMinBytes is the smallest initializer moved to the side file;
// smaller ones stay inline.
const ExternalMinBytes = 1024

// ExternalAlign is the alignment of each tensor in the side file, so that
// ONNX Runtime can map it straight from the page cache.
const ExternalAlign = 4096

// FileOptions tunes WriteFile.
type FileOptions struct {
	External External
}

// DataPath is the side file WriteFile uses for a model at path: path + ".data".
func DataPath(path string) string { return path + ".data" }

// Files returns the files of the model at path, path and, when there is
// one, its external-data side file DataPath(path), with their total size
// in bytes. The model file itself must exist.
func Files(path string) (files []string, size int64, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	files, size = []string{path}, st.Size()
	if d, err := os.Stat(DataPath(path)); err == nil {
		files, size = append(files, DataPath(path)), size+d.Size()
	}
	return files, size, nil
}

// WriteFile writes the model to path, with its weights in DataPath(path)
// when they go external (see FileOptions), streaming weights so that memory
// use stays bounded whatever the model size. Files are written under
// temporary names and renamed into place, so a failed write leaves no
// partial model. A stale side file from an earlier write is removed when the
// new model is inline.
func (g *Graph) WriteFile(path string, o FileOptions) error {
	if err := g.check(); err != nil {
		return err
	}
	external := o.External == ExternalAlways
	if o.External == ExternalAuto {
		external = g.encode(nil).size > maxInline
	}
	if !external {
		if err := writeAtomic(path, func(w io.Writer) error { _, err := g.WriteTo(w); return err }); err != nil {
			return err
		}
		if err := os.Remove(DataPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("onnx: remove stale %s: %w", DataPath(path), err)
		}
		return nil
	}
	dataPath := DataPath(path)
	loc := filepath.Base(dataPath)
	ext := map[int]*extRef{}
	err := writeAtomic(dataPath, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		cw := &countWriter{w: bw}
		var zeros [ExternalAlign]byte
		for i, t := range g.inits {
			if t.Bytes() < ExternalMinBytes {
				continue
			}
			if pad := (ExternalAlign - cw.n%ExternalAlign) % ExternalAlign; pad != 0 {
				if _, err := cw.Write(zeros[:pad]); err != nil {
					return err
				}
			}
			ref := &extRef{location: loc, offset: cw.n, length: t.Bytes()}
			if err := t.writeRaw(cw); err != nil {
				return err
			}
			ext[i] = ref
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	m := g.encode(ext)
	if m.size > maxInline {
		return fmt.Errorf("%w: graph structure alone is %d bytes", ErrTooLarge, m.size)
	}
	return writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := m.writeTo(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

func writeAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("onnx: create %s: %w", path, err)
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("onnx: write %s: %w", path, err)
	}
	return nil
}
