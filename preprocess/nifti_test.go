package preprocess

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// niftiBytes builds a NIfTI-1 file of int16 voxels in file (Fortran)
// order.
func niftiBytes(bo interface {
	binary.ByteOrder
	binary.AppendByteOrder
}, shape []int, vals []int16, slope float32) []byte {
	h := make([]byte, 352)
	bo.PutUint32(h[0:], 348)
	bo.PutUint16(h[40:], uint16(len(shape)))
	for i, d := range shape {
		bo.PutUint16(h[42+2*i:], uint16(d))
	}
	bo.PutUint16(h[70:], 4)
	bo.PutUint16(h[72:], 16)
	bo.PutUint32(h[108:], math.Float32bits(352))
	bo.PutUint32(h[112:], math.Float32bits(slope))
	copy(h[344:], "n+1\x00")
	for _, v := range vals {
		h = bo.AppendUint16(h, uint16(v))
	}
	return h
}

func TestNiftiOrderAndScaling(t *testing.T) {
	// shape (2, 3): file order runs the first index fastest.
	file := []int16{0, 1, 2, 3, 4, 5} // a[i,j] = file[i + 2j]
	for _, bo := range []interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}{binary.LittleEndian, binary.BigEndian} {
		img, err := ReadNifti(bytes.NewReader(niftiBytes(bo, []int{2, 3}, file, 0.5)))
		if err != nil {
			t.Fatal(err)
		}
		// C order: a[0,0] a[0,1] a[0,2] a[1,0] ... = file[0] file[2] file[4] file[1] ...
		want := []float64{0, 1, 2, 0.5, 1.5, 2.5}
		if !slices.Equal(img.Shape, []int{2, 3}) || !slices.Equal(img.Data, want) {
			t.Fatalf("%v: shape %v data %v, want %v", bo, img.Shape, img.Data, want)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(niftiBytes(binary.LittleEndian, []int{3}, []int16{7, 8, 9}, 0))
	zw.Close()
	img, err := ReadNifti(&gz)
	if err != nil || !slices.Equal(img.Data, []float64{7, 8, 9}) {
		t.Fatalf("gzip: %v %v", img, err)
	}
}

func TestNiftiBadInput(t *testing.T) {
	ok := niftiBytes(binary.LittleEndian, []int{2, 2}, []int16{1, 2, 3, 4}, 0)
	mut := func(f func(b []byte) []byte) []byte { return f(slices.Clone(ok)) }
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"empty":     {nil, "short header"},
		"truncated": {ok[:len(ok)-1], "data truncated"},
		"nifti2":    {mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b, 540); return b }), "NIfTI-2"},
		"pair":      {mut(func(b []byte) []byte { copy(b[344:], "ni1"); return b }), "single .nii"},
		"datatype":  {mut(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[70:], 32); return b }), "datatype 32"},
		"dim":       {mut(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[42:], 0); return b }), "dim[1] = 0"},
		"ndim":      {mut(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[40:], 9); return b }), "dim[0] = 9"},
	} {
		_, err := ReadNifti(bytes.NewReader(c.b))
		if !errors.Is(err, ErrNifti) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	// A gzip trailer that does not match the data is refused, as Python's
	// gzip refuses it, though the voxels were all read before it.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(ok)
	zw.Close()
	good := gz.Bytes()
	if _, err := ReadNifti(bytes.NewReader(good)); err != nil {
		t.Fatalf("a good .nii.gz: %v", err)
	}
	for name, at := range map[string]int{"CRC-32": len(good) - 8, "length": len(good) - 4} {
		b := slices.Clone(good)
		b[at] ^= 0x01
		if _, err := ReadNifti(bytes.NewReader(b)); !errors.Is(err, ErrNifti) || !strings.Contains(err.Error(), "does not match the data (Python's gzip refuses it") {
			t.Errorf("bad gzip %s: %v", name, err)
		}
	}
	p := filepath.Join(t.TempDir(), "x.nii")
	os.WriteFile(p, ok[:356], 0o644)
	if _, err := LoadNifti(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("error does not name the file: %v", err)
	}
}

func npyBytes(descr string, shape string, data []byte) []byte {
	h := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }"
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(append(b, h...), data...)
}

func TestNpyArrayDtypes(t *testing.T) {
	f64 := binary.LittleEndian.AppendUint64(nil, math.Float64bits(-2.5))
	for _, c := range []struct {
		descr string
		data  []byte
		want  float64
	}{
		{"<f8", f64, -2.5},
		{"<f4", binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.25)), 0.25},
		{"<f2", []byte{0x00, 0x3c}, 1},
		{"|u1", []byte{200}, 200},
		{"|i1", []byte{0xff}, -1},
		{"<i2", []byte{0xfe, 0xff}, -2},
		{"<i8", binary.LittleEndian.AppendUint64(nil, uint64(1<<40)), 1 << 40},
		{"|b1", []byte{1}, 1},
	} {
		a, err := ReadNpyArray(bytes.NewReader(npyBytes(c.descr, "(1,)", c.data)))
		if err != nil {
			t.Fatalf("%s: %v", c.descr, err)
		}
		if got := a.Float64s(); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %v, want %v", c.descr, got, c.want)
		}
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"big endian": {npyBytes(">f4", "(1,)", make([]byte, 4)), "not a little-endian number"},
		"object":     {npyBytes("|O", "(1,)", make([]byte, 8)), "not a little-endian number"},
		"truncated":  {npyBytes("<f8", "(2,)", make([]byte, 12)), "data truncated"},
		"huge":       {npyBytes("<f8", "(1000000000000,)", nil), "too large"},
	} {
		_, err := ReadNpyArray(bytes.NewReader(c.b))
		if !errors.Is(err, ErrNpy) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func TestLoadNpz(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stats.npz")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("mu.npy")
	w.Write(npyBytes("<f8", "(2,)", binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(1)), math.Float64bits(2))))
	w, _ = zw.Create("sigma.npy")
	w.Write(npyBytes("<f8", "(1, 1)", binary.LittleEndian.AppendUint64(nil, math.Float64bits(3))))
	zw.Close()
	f.Close()
	m, err := LoadNpz(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m["mu"].Float64s(), []float64{1, 2}) || !slices.Equal(m["sigma"].Shape, []int{1, 1}) {
		t.Fatalf("%v", m)
	}
	if _, err := LoadNpz(filepath.Join(t.TempDir(), "none.npz")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func FuzzReadNifti(f *testing.F) {
	f.Add(niftiBytes(binary.LittleEndian, []int{2, 2}, []int16{1, 2, 3, 4}, 0))
	f.Add(niftiBytes(binary.BigEndian, []int{1, 1, 3}, []int16{1, 2, 3}, 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := ReadNifti(bytes.NewReader(b))
		if err == nil {
			n := 1
			for _, d := range img.Shape {
				n *= d
			}
			if n != len(img.Data) {
				t.Fatalf("shape %v, %d values", img.Shape, len(img.Data))
			}
		}
	})
}

func FuzzReadNpyArray(f *testing.F) {
	f.Add(npyBytes("<f8", "(1,)", make([]byte, 8)))
	f.Add(npyBytes("|u1", "(2, 2)", []byte{0, 1, 2, 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ReadNpyArray(bytes.NewReader(b))
		if err == nil && len(a.Float64s()) != a.Len() {
			t.Fatal("length mismatch")
		}
	})
}

func FuzzReadNpy(f *testing.F) {
	f.Add(npyBytes("<f4", "(2,)", make([]byte, 8)))
	f.Add(npyBytes("<f4", "(1, 3, 2, 2)", make([]byte, 48)))
	f.Add(npyBytes("<f8", "(1,)", make([]byte, 8)))
	f.Fuzz(func(t *testing.T, b []byte) {
		shape, data, err := ReadNpy(bytes.NewReader(b))
		if err != nil {
			return
		}
		n := 1
		for _, d := range shape {
			n *= d
		}
		if n != len(data) {
			t.Fatalf("shape %v, %d values", shape, len(data))
		}
	})
}

// FuzzLoadNpz feeds archives (valid ones with damaged members, and any
// bytes) to LoadNpz: it fails with a message naming the file or returns
// consistent arrays.
func FuzzLoadNpz(f *testing.F) {
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("x.npy")
	w.Write(npyBytes("<f8", "(2,)", make([]byte, 16)))
	zw.Close()
	f.Add(zb.Bytes())
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "a.npz")
		os.WriteFile(p, b, 0o644)
		m, err := LoadNpz(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, a := range m {
			if len(a.Float64s()) != a.Len() {
				t.Fatal("length mismatch")
			}
		}
	})
}
