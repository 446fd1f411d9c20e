// Package criteo reads the DLRMv2 inference data set: day 23 of the
// Criteo 1TB Click Logs as preprocessed by TorchRec and materialised with
// the synthetic multi-hot ids of the MLPerf training benchmark
// (mlcommons/training recommendation_v2/torchrec_dlrm), in the three files
// the reference loader memory-maps (mlcommons/inference
// recommendation/dlrm_v2/pytorch/python/multihot_criteo.py):
//
//	day_23_dense.npy             float32 [N, 13]
//	day_23_labels.npy            int32   [N, 1]
//	day_23_sparse_multi_hot.npz  members 0.npy … 25.npy, int32 [N, mh_k], stored uncompressed
//
// Files are memory-mapped and never read whole. It also builds the
// reference's query-sample aggregation (trace.go), writes small synthetic
// data sets in the same formats (synth.go) and checks the published MD5s
// (verify.go).
package criteo

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/mlperf-go/inference/preprocess"
)

// Feature counts of the Criteo data set.
const (
	NumDense  = 13
	NumSparse = 26
)

// File names of the data set in its folder.
const (
	DenseFile  = "day_23_dense.npy"
	LabelsFile = "day_23_labels.npy"
	SparseFile = "day_23_sparse_multi_hot.npz"
)

// Sizes of the real data set.
const (
	// DayRows is the number of rows of day 23.
	DayRows = 178274637
	// ValidationRows is the first half of day 23 that the reference
	// evaluates, ceil(DayRows/2).
	ValidationRows = 89137319
	// AggregatedSamples is the number of aggregated samples the
	// reference's dist_quantile.txt trace makes of ValidationRows (the
	// submission checker's dataset size for dlrm-v2).
	AggregatedSamples = 330067
)

// MultiHot are the multi-hot sizes (ids per row) of features 0..25 in the
// MLPerf data set (mlcommons/training recommendation_v2/torchrec_dlrm
// README, mlcommons/inference tools/make_fake_criteo.sh). The reader takes
// them from the file shapes; these are what Synth writes.
var MultiHot = [NumSparse]int{3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1}

// TableRows are the embedding table sizes (rows) of features 0..25, the
// id range of each feature (mlcommons/inference python/main.py).
var TableRows = [NumSparse]int{40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10, 2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36}

// ErrFormat is wrapped by errors about files that are not in the data
// set's format.
var ErrFormat = errors.New("criteo: bad data set file")

// Options select how Open reads a data set.
type Options struct {
	// WholeDay keeps every row; by default only the first half
	// (ceil(N/2) rows) is used, as the reference does for the
	// multihot-criteo data set.
	WholeDay bool
}

// Dataset is an opened data set: memory-mapped views of its arrays. It is
// read-only and safe for concurrent use until Close.
type Dataset struct {
	// Dir is the data set folder.
	Dir string
	// FileRows is the number of rows in the files; Rows the number in use.
	FileRows, Rows int
	// MultiHot is the number of ids per row of each feature, from the
	// file shapes.
	MultiHot [NumSparse]int

	dense  []byte // FileRows×13 float32
	labels []byte // FileRows int32 (one column)
	sparse [NumSparse][]byte
	maps   []*Mapping
}

// npyView checks the .npy array at the start of b and returns its shape
// and the bytes of its data.
func npyView(b []byte, name, descr string) ([]int, []byte, error) {
	h, err := preprocess.ParseNpyHeader(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	if h.Descr != descr {
		return nil, nil, fmt.Errorf("%w: %s: dtype %q, want %q (%s)", ErrFormat, name, h.Descr, descr, dtypeName(descr))
	}
	if h.Fortran {
		return nil, nil, fmt.Errorf("%w: %s: Fortran order; want a C-order array", ErrFormat, name)
	}
	n := int64(4)
	for _, d := range h.Shape {
		if d > 0 && n > math.MaxInt64/int64(d) {
			return nil, nil, fmt.Errorf("%w: %s: shape %v too large", ErrFormat, name, h.Shape)
		}
		n *= int64(d)
	}
	if have := int64(len(b) - h.DataOffset); have < n {
		return nil, nil, fmt.Errorf("%w: %s: truncated: shape %v needs %d data bytes, the file holds %d (download it again)", ErrFormat, name, h.Shape, n, have)
	}
	return h.Shape, b[h.DataOffset : int64(h.DataOffset)+n], nil
}

func dtypeName(descr string) string {
	switch descr {
	case "<f4":
		return "float32"
	case "<i4":
		return "int32"
	}
	return descr
}

// Open memory-maps the data set in dir and checks it: the dtypes, shapes
// and sizes of the three files, the npz members stored uncompressed, and
// every array having the labels' row count.
func Open(dir string, o Options) (ds *Dataset, err error) {
	d := &Dataset{Dir: dir}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	mapFile := func(name string) ([]byte, error) {
		m, err := Map(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("criteo: %w (download the data set with datasets/criteo/download_dataset.sh, or make one with `mlperf dataset synth criteo`)", err)
		}
		d.maps = append(d.maps, m)
		return m.Data, nil
	}
	b, err := mapFile(LabelsFile)
	if err != nil {
		return nil, err
	}
	shape, labels, err := npyView(b, LabelsFile, "<i4")
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 || len(shape) > 2 || (len(shape) == 2 && shape[1] != 1) {
		return nil, fmt.Errorf("%w: %s: shape %v, want (N, 1)", ErrFormat, LabelsFile, shape)
	}
	d.FileRows, d.labels = shape[0], labels
	if b, err = mapFile(DenseFile); err != nil {
		return nil, err
	}
	shape, dense, err := npyView(b, DenseFile, "<f4")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[1] != NumDense {
		return nil, fmt.Errorf("%w: %s: shape %v, want (N, %d)", ErrFormat, DenseFile, shape, NumDense)
	}
	if shape[0] != d.FileRows {
		return nil, fmt.Errorf("%w: %s has %d rows but %s has %d: the files are not of one data set", ErrFormat, DenseFile, shape[0], LabelsFile, d.FileRows)
	}
	d.dense = dense
	if err := d.openSparse(mapFile); err != nil {
		return nil, err
	}
	d.Rows = d.FileRows
	if !o.WholeDay {
		d.Rows = (d.FileRows + 1) / 2
	}
	if d.Rows == 0 {
		return nil, fmt.Errorf("%w: %s: no rows", ErrFormat, dir)
	}
	return d, nil
}

func (d *Dataset) openSparse(mapFile func(string) ([]byte, error)) error {
	path := filepath.Join(d.Dir, SparseFile)
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %v (want the .npz numpy.savez writes)", ErrFormat, SparseFile, err)
	}
	defer zr.Close()
	members := map[string]*zip.File{}
	for _, f := range zr.File {
		members[f.Name] = f
	}
	b, err := mapFile(SparseFile)
	if err != nil {
		return err
	}
	for k := range NumSparse {
		name := strconv.Itoa(k) + ".npy"
		f := members[name]
		if f == nil {
			return fmt.Errorf("%w: %s has no member %s (want 0.npy … 25.npy)", ErrFormat, SparseFile, name)
		}
		if f.Method != zip.Store {
			return fmt.Errorf("%w: %s: member %s is compressed (method %d); the arrays are memory-mapped and must be stored uncompressed (numpy.savez, not savez_compressed)", ErrFormat, SparseFile, name, f.Method)
		}
		off, err := f.DataOffset()
		if err != nil {
			return fmt.Errorf("%w: %s: member %s: %v", ErrFormat, SparseFile, name, err)
		}
		end := off + int64(f.UncompressedSize64)
		if off < 0 || end > int64(len(b)) || end < off {
			return fmt.Errorf("%w: %s: member %s runs past the end of the file (truncated download?)", ErrFormat, SparseFile, name)
		}
		shape, data, err := npyView(b[off:end], SparseFile+":"+name, "<i4")
		if err != nil {
			return err
		}
		if len(shape) != 2 || shape[1] < 1 {
			return fmt.Errorf("%w: %s:%s: shape %v, want (N, multi-hot size)", ErrFormat, SparseFile, name, shape)
		}
		if shape[0] != d.FileRows {
			return fmt.Errorf("%w: %s:%s has %d rows but %s has %d: the files are not of one data set", ErrFormat, SparseFile, name, shape[0], LabelsFile, d.FileRows)
		}
		d.MultiHot[k], d.sparse[k] = shape[1], data
	}
	return nil
}

// Close unmaps the files. Views returned earlier must not be used
// afterwards.
func (d *Dataset) Close() error {
	var first error
	for _, m := range d.maps {
		if err := m.Close(); err != nil && first == nil {
			first = err
		}
	}
	d.maps = nil
	return first
}

// Label is the ground truth (0 or 1) of row r as float32, as the
// reference's response carries it.
func (d *Dataset) Label(r int) float32 {
	return float32(int32(binary.LittleEndian.Uint32(d.labels[4*r:])))
}

// Dense copies the 13 dense features of rows [s, e) into dst (row-major,
// len ≥ 13·(e−s)).
func (d *Dataset) Dense(s, e int, dst []float32) {
	src := d.dense[s*NumDense*4 : e*NumDense*4]
	for i := range (e - s) * NumDense {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

// IDs returns the raw little-endian int32 ids of feature k for rows
// [s, e): MultiHot[k] ids per row, row-major. The bytes are a view of the
// mapped file.
func (d *Dataset) IDs(k, s, e int) []byte {
	m := d.MultiHot[k]
	return d.sparse[k][s*m*4 : e*m*4]
}

// CheckRows refuses rows [s, e) whose values the reference could not
// use: a dense feature that is NaN or infinite (the model would predict
// NaN there, and scikit-learn's roc_auc_score refuses NaN), a label other
// than 0 or 1, or a sparse id outside its table (TableRows: the MLPerf
// multi-hot hash sizes). The error names the file, the row and the
// feature, and the fix.
func (d *Dataset) CheckRows(s, e int) error {
	fix := "the data set is damaged: download it again with datasets/criteo/download_dataset.sh and check it with 'mlperf dataset verify criteo'"
	for r := s; r < e; r++ {
		for f := range NumDense {
			v := math.Float32frombits(binary.LittleEndian.Uint32(d.dense[4*(r*NumDense+f):]))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("criteo: %s: row %d: dense feature %d is %v (the reference's model would predict NaN, and roc_auc_score refuses it); %s", filepath.Join(d.Dir, DenseFile), r, f, v, fix)
			}
		}
		if l := int32(binary.LittleEndian.Uint32(d.labels[4*r:])); l != 0 && l != 1 {
			return fmt.Errorf("criteo: %s: row %d: label %d, want 0 or 1; %s", filepath.Join(d.Dir, LabelsFile), r, l, fix)
		}
		for k := range NumSparse {
			m := d.MultiHot[k]
			ids := d.sparse[k][4*r*m : 4*(r+1)*m]
			for j := range m {
				if id := int32(binary.LittleEndian.Uint32(ids[4*j:])); id < 0 || int(id) >= TableRows[k] {
					return fmt.Errorf("criteo: %s: row %d: sparse feature %d id %d is outside its table of %d rows (the MLPerf hash size); %s", filepath.Join(d.Dir, SparseFile), r, k, id, TableRows[k], fix)
				}
			}
		}
	}
	return nil
}

// Touch reads one byte per page of rows [s, e) of every array, so that a
// later use of those rows does not wait on the disk (the QSL's untimed
// load). It returns a value derived from the bytes so the reads are kept.
func (d *Dataset) Touch(s, e int) byte {
	var x byte
	touch := func(b []byte) {
		for i := 0; i < len(b); i += 4096 {
			x ^= b[i]
		}
		if len(b) > 0 {
			x ^= b[len(b)-1]
		}
	}
	touch(d.dense[s*NumDense*4 : e*NumDense*4])
	touch(d.labels[4*s : 4*e])
	for k := range NumSparse {
		touch(d.IDs(k, s, e))
	}
	return x
}
