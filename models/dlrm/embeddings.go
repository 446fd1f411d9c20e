package dlrm

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/preprocess"
)

// manifestFile describes a model folder's embedding tables; it sits beside
// model.onnx.
const manifestFile = "embeddings.json"

// manifest is the content of ManifestFile.
type manifest struct {
	// Dim is the embedding dimension.
	Dim int `json:"dim"`
	// Tables are the 26 tables in feature order.
	Tables []tableInfo `json:"tables"`
	// WrapIDs makes a lookup take the id modulo the table's rows (tables
	// capped below their id range: synthetic models); otherwise an id
	// outside the table is an error.
	WrapIDs bool `json:"wrap_ids"`
}

// tableInfo is one table of a Manifest.
type tableInfo struct {
	// File is a float32 [Rows, Dim] .npy in the model folder.
	File string `json:"file"`
	// Rows are the stored rows; IDRange is the feature's id range (the
	// real table size).
	Rows    int `json:"rows"`
	IDRange int `json:"id_range"`
}

// tableFile is the name of table k's file in a model folder.
func tableFile(k int) string { return fmt.Sprintf("embedding_%02d.npy", k) }

// writeManifest writes m into dir.
func writeManifest(dir string, m *manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, manifestFile), append(b, '\n'), 0o644)
}

// tableWriter streams one float32 [rows, dim] table into a .npy file.
type tableWriter struct {
	f    *os.File
	w    *bufio.Writer
	left int
	path string
}

// createTable starts the .npy file of a rows×dim table at path.
func createTable(path string, rows, dim int) (*tableWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("dlrm: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(preprocess.NpyHeaderBytes("<f4", []int{rows, dim}))
	return &tableWriter{f: f, w: w, left: rows * dim, path: path}, nil
}

// Write appends values (row-major).
func (t *tableWriter) Write(v []float32) error {
	if len(v) > t.left {
		return fmt.Errorf("dlrm: %s: %d values past the table's end", t.path, len(v)-t.left)
	}
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		t.w.Write(b[:])
	}
	t.left -= len(v)
	return nil
}

// Close finishes the file; every value must have been written.
func (t *tableWriter) Close() error {
	err := t.w.Flush()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && t.left != 0 {
		err = fmt.Errorf("dlrm: %s: %d values missing", t.path, t.left)
	}
	if err != nil {
		return fmt.Errorf("dlrm: table %s: %w", t.path, err)
	}
	return nil
}

// writeSyntheticTables writes a's 26 seeded tables and the manifest into
// dir: table k's values are uniform in ±0.05 from the onnx package's
// SplitMix64 stream of StreamSeed(seed, "embedding_k").
func writeSyntheticTables(dir string, a arch, seed uint64) error {
	m := &manifest{Dim: a.Dim, WrapIDs: true}
	row := make([]float32, a.Dim)
	for k := range criteo.NumSparse {
		rows := a.Rows(k)
		m.Tables = append(m.Tables, tableInfo{File: tableFile(k), Rows: rows, IDRange: criteo.TableRows[k]})
		tw, err := createTable(filepath.Join(dir, tableFile(k)), rows, a.Dim)
		if err != nil {
			return err
		}
		r := onnx.SplitMix64{State: onnx.StreamSeed(seed, fmt.Sprintf("embedding_%d", k))}
		for range rows {
			for d := range row {
				row[d] = float32(r.Float64()*0.1 - 0.05)
			}
			tw.Write(row)
		}
		if err := tw.Close(); err != nil {
			return err
		}
	}
	return writeManifest(dir, m)
}

// embeddings are a model folder's 26 tables, memory-mapped: the embedding
// stage. Lookups only read, so an Embeddings is safe for concurrent use
// until Close.
type embeddings struct {
	// Dim is the embedding dimension.
	Dim int
	// Wrap is the manifest's WrapIDs.
	Wrap   bool
	tables [criteo.NumSparse][]float32
	rows   [criteo.NumSparse]int
	maps   []*criteo.Mapping
}

// openEmbeddings maps the tables that dir's manifest lists.
func openEmbeddings(dir string) (e *embeddings, err error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return nil, fmt.Errorf("dlrm: %w (a DLRMv2 model is a folder of model.onnx, %s and the tables: see models/dlrm/README.md)", err, manifestFile)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("dlrm: %s: %w", filepath.Join(dir, manifestFile), err)
	}
	if m.Dim < 1 || len(m.Tables) != criteo.NumSparse {
		return nil, fmt.Errorf("dlrm: %s: dim %d and %d tables; want a positive dim and %d tables", filepath.Join(dir, manifestFile), m.Dim, len(m.Tables), criteo.NumSparse)
	}
	e = &embeddings{Dim: m.Dim, Wrap: m.WrapIDs}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	for k, t := range m.Tables {
		path := filepath.Join(dir, t.File)
		mp, err := criteo.Map(path)
		if err != nil {
			return nil, fmt.Errorf("dlrm: embedding table %d: %w", k, err)
		}
		e.maps = append(e.maps, mp)
		h, err := preprocess.ParseNpyHeader(mp.Data)
		if err != nil {
			return nil, fmt.Errorf("dlrm: %s: %w", path, err)
		}
		if h.Descr != "<f4" || h.Fortran || len(h.Shape) != 2 || h.Shape[1] != m.Dim || h.Shape[0] < 1 {
			return nil, fmt.Errorf("dlrm: %s: %s %v (fortran %v); want float32 [rows, %d]", path, h.Descr, h.Shape, h.Fortran, m.Dim)
		}
		n := h.Shape[0] * m.Dim
		if len(mp.Data)-h.DataOffset < 4*n {
			return nil, fmt.Errorf("dlrm: %s: truncated: %d rows of %d floats need %d bytes", path, h.Shape[0], m.Dim, 4*n)
		}
		raw := mp.Data[h.DataOffset : h.DataOffset+4*n]
		if uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%4 == 0 && nativeLittleEndian() {
			e.tables[k] = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(raw))), n)
		} else {
			v := make([]float32, n)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
			e.tables[k] = v
		}
		e.rows[k] = h.Shape[0]
	}
	return e, nil
}

func nativeLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// Close unmaps the tables.
func (e *embeddings) Close() error {
	var first error
	for _, m := range e.maps {
		if err := m.Close(); err != nil && first == nil {
			first = err
		}
	}
	e.maps = nil
	return first
}

// Rows is the number of stored rows of table k.
func (e *embeddings) Rows(k int) int { return e.rows[k] }

// Pool sums the table-k rows of the ids of n data rows (ids: raw
// little-endian int32, mh per row) into dst: row r's sum goes to
// dst[r·stride : r·stride+Dim], overwriting it. An id outside the table
// is an error unless Wrap.
func (e *embeddings) Pool(k int, ids []byte, n, mh int, dst []float32, stride int) error {
	t, rows, dim := e.tables[k], e.rows[k], e.Dim
	for r := range n {
		acc := dst[r*stride : r*stride+dim]
		clear(acc)
		for j := range mh {
			id := int(int32(binary.LittleEndian.Uint32(ids[4*(r*mh+j):])))
			if id < 0 || id >= rows {
				if !e.Wrap || id < 0 {
					return fmt.Errorf("dlrm: feature %d: id %d outside its embedding table of %d rows", k, id, rows)
				}
				id %= rows
			}
			addTo(acc, t[id*dim:id*dim+dim])
		}
	}
	return nil
}

// addTo adds src to dst element-wise (len(src) ≥ len(dst)), eight at a
// time without bounds checks in the loop body.
func addTo(dst, src []float32) {
	src = src[:len(dst)]
	for len(dst) >= 8 {
		d, s := dst[:8:8], src[:8:8]
		d[0] += s[0]
		d[1] += s[1]
		d[2] += s[2]
		d[3] += s[3]
		d[4] += s[4]
		d[5] += s[5]
		d[6] += s[6]
		d[7] += s[7]
		dst, src = dst[8:], src[8:]
	}
	for i := range dst {
		dst[i] += src[i]
	}
}
