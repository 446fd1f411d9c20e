package preprocess

import (
	"bytes"
	"errors"
	"testing"
)

func TestNpyRoundTrip(t *testing.T) {
	for _, shape := range [][]int{{3, 224, 224}, {5}, {2, 0, 3}, {1, 1, 1, 1}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(i)*0.25 - 7
		}
		var buf bytes.Buffer
		if err := WriteNpy(&buf, shape, data); err != nil {
			t.Fatal(err)
		}
		if (buf.Len()-4*n)%64 != 0 {
			t.Errorf("shape %v: header of %d bytes is not 64-aligned", shape, buf.Len()-4*n)
		}
		gotShape, got, err := ReadNpy(&buf)
		if err != nil {
			t.Fatalf("shape %v: %v", shape, err)
		}
		if len(gotShape) != len(shape) || len(got) != n {
			t.Fatalf("shape %v: read back %v with %d values", shape, gotShape, len(got))
		}
		for i := range got {
			if got[i] != data[i] {
				t.Fatalf("shape %v: value %d is %v, want %v", shape, i, got[i], data[i])
			}
		}
	}
	if err := WriteNpy(&bytes.Buffer{}, []int{2, 2}, make([]float32, 3)); !errors.Is(err, ErrNpy) {
		t.Errorf("wrong length: %v", err)
	}
}

func TestReadNpyErrors(t *testing.T) {
	var good bytes.Buffer
	if err := WriteNpy(&good, []int{2, 3}, make([]float32, 6)); err != nil {
		t.Fatal(err)
	}
	g := good.Bytes()
	hdr := func(dict string) []byte {
		b := []byte("\x93NUMPY\x01\x00")
		b = append(b, byte(len(dict)), 0)
		return append(b, dict...)
	}
	for name, data := range map[string][]byte{
		"empty":     nil,
		"magic":     []byte("NUMPY\x01\x00\x00\x00"),
		"truncated": g[:len(g)-3],
		"float64":   append(hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n"), make([]byte, 8)...),
		"fortran":   append(hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n"), make([]byte, 4)...),
		"no shape":  hdr("{'descr': '<f4', 'fortran_order': False}\n"),
		"version":   []byte("\x93NUMPY\x09\x00\x00\x00"),
		"bad dim":   hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }\n"),
	} {
		if _, _, err := ReadNpy(bytes.NewReader(data)); !errors.Is(err, ErrNpy) {
			t.Errorf("%s: got %v, want ErrNpy", name, err)
		}
	}
}
