package kits19

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/internal/pickle"
)

// The reference's preprocess.py writes case_XXXXX.pkl ([image, label]
// numpy arrays) and preprocessed_files.pkl (a dict of lists, strings,
// tuples and numpy arrays) with pickle protocols 2 to 5; internal/pickle
// reads them without running anything, allowing only numpy's array
// reconstruction and protocol 2's bytes.

// ErrPickle is wrapped by errors about pickles outside that subset.
var ErrPickle = pickle.ErrPickle

// unpickle decodes a pickle that may call numpy's array constructors and
// protocol 2's _codecs.encode only.
func unpickle(b []byte) (any, error) {
	return pickle.Unpickle(b, func(g pickle.Global) bool {
		return g == (pickle.Global{Module: "_codecs", Name: "encode"}) || strings.HasPrefix(g.Module, "numpy")
	})
}

// LoadPickleCase reads a reference case_XXXXX.pkl: [image float32
// (1, D, H, W), label uint8 (1, D, H, W)].
func LoadPickleCase(path string) (Volume[float32], Volume[uint8], error) {
	var img Volume[float32]
	var lbl Volume[uint8]
	b, err := os.ReadFile(path)
	if err != nil {
		return img, lbl, fmt.Errorf("kits19: %w", err)
	}
	v, err := unpickle(b)
	if err != nil {
		return img, lbl, fmt.Errorf("kits19: %w (%s)", err, path)
	}
	l, ok := v.(*pickle.List)
	if !ok || l.Len() != 2 {
		return img, lbl, fmt.Errorf("%w: %s holds %T, want [image, label]", ErrPickle, path, v)
	}
	a, ok1 := l.At(0).(*pickle.NDArray)
	c, ok2 := l.At(1).(*pickle.NDArray)
	if !ok1 || !ok2 || len(a.Shape) != 4 || a.Shape[0] != 1 || fmt.Sprint(a.Shape) != fmt.Sprint(c.Shape) || c.Dtype.Descr() != "|u1" {
		return img, lbl, fmt.Errorf("%w: %s: want [float32 (1,D,H,W), uint8 (1,D,H,W)]", ErrPickle, path)
	}
	data, err := a.Float32s()
	if err != nil {
		return img, lbl, fmt.Errorf("kits19: %w (%s)", err, path)
	}
	shape := [3]int(a.Shape[1:])
	return Volume[float32]{Shape: shape, Data: data}, Volume[uint8]{Shape: shape, Data: c.Data}, nil
}

// LoadPickleIndex reads the reference's preprocessed_files.pkl in dir into
// an Index.
func LoadPickleIndex(dir string) (*Index, error) {
	path := filepath.Join(dir, "preprocessed_files.pkl")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kits19: %w", err)
	}
	v, err := unpickle(b)
	if err != nil {
		return nil, fmt.Errorf("kits19: %w (%s)", err, path)
	}
	bad := func(what string) (*Index, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrPickle, path, what)
	}
	d, ok := v.(*pickle.Dict)
	if !ok {
		return bad("not a dict")
	}
	flv, _ := d.Get("file_list")
	csv, _ := d.Get("cases")
	fl, _ := flv.(*pickle.List)
	cs, _ := csv.(*pickle.Dict)
	if fl == nil || fl.Len() == 0 || cs == nil {
		return bad("no file_list or cases")
	}
	x := &Index{Cases: map[string]Aux{}}
	for i := range fl.Len() {
		s, ok := fl.At(i).(string)
		if !ok {
			return bad("file_list entry is not a string")
		}
		x.FileList = append(x.FileList, s)
	}
	for i, k := range cs.Keys {
		name, ok := k.(string)
		m, ok2 := cs.Values[i].(*pickle.Dict)
		if !ok || !ok2 {
			return bad(fmt.Sprintf("case %v is not a dict", k))
		}
		a := Aux{Case: name}
		for key, dst := range map[string]*[4][4]float64{"original_affine": &a.OriginalAffine, "reshaped_affine": &a.ReshapedAffine} {
			v, _ := m.Get(key)
			arr, ok := v.(*pickle.NDArray)
			if !ok {
				return bad(name + ": no " + key)
			}
			f, err := arr.Float64s()
			if err != nil || len(f) != 16 {
				return bad(name + ": " + key + " is not a 4×4 float64 array")
			}
			for i := range 16 {
				dst[i/4][i%4] = f[i]
			}
		}
		if v, ok := m.Get("zoom_factor"); ok {
			if arr, ok := v.(*pickle.NDArray); ok {
				if f, err := arr.Float64s(); err == nil && len(f) == 3 {
					a.ZoomFactor = [3]float64(f)
				}
			}
		}
		shv, _ := m.Get("image_shape")
		var sh []any
		switch t := shv.(type) {
		case pickle.Tuple:
			sh = t
		case *pickle.List:
			for j := range t.Len() {
				sh = append(sh, t.At(j))
			}
		}
		if len(sh) != 4 {
			return bad(name + ": image_shape is not a 4-tuple")
		}
		for i, s := range sh {
			n, ok := s.(int64)
			if !ok {
				return bad(name + ": image_shape holds a non-integer")
			}
			a.ImageShape[i] = int(n)
		}
		x.Cases[name] = a
	}
	return x, nil
}
