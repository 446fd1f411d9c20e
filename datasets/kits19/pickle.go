package kits19

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// A reader for the subset of Python pickles the reference's preprocess.py
// writes: case_XXXXX.pkl ([image, label] numpy arrays) and
// preprocessed_files.pkl (a dict of lists, strings, tuples and numpy
// arrays), as pickle protocols 2 to 5 encode them and numpy's
// ndarray.__reduce__ (numpy.core.multiarray._reconstruct plus
// __setstate__) describes arrays. It builds no Python object: any other
// callable is an error, so a pickle cannot run code here.

// ErrPickle is wrapped by errors about pickles outside that subset.
var ErrPickle = errors.New("kits19: unsupported or malformed pickle")

// NDArray is a numpy array read from a pickle: Descr is its dtype ("<f4",
// "|u1", "<f8", ...), Data its raw bytes in C order (Fortran-ordered
// arrays are refused).
type NDArray struct {
	Shape []int
	Descr string
	Data  []byte
}

type pyTuple []any
type pyGlobal struct{ module, name string }
type pyDtype struct{ kind, order string }
type pyMark struct{}

// Float32s returns a float32 array's values.
func (a *NDArray) Float32s() ([]float32, error) {
	if a.Descr != "<f4" || len(a.Data)%4 != 0 {
		return nil, fmt.Errorf("%w: array of %s, want little-endian float32", ErrPickle, a.Descr)
	}
	out := make([]float32, len(a.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return out, nil
}

// Float64s returns a float64 array's values.
func (a *NDArray) Float64s() ([]float64, error) {
	if a.Descr != "<f8" || len(a.Data)%8 != 0 {
		return nil, fmt.Errorf("%w: array of %s, want little-endian float64", ErrPickle, a.Descr)
	}
	out := make([]float64, len(a.Data)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:]))
	}
	return out, nil
}

// Unpickle decodes one pickle into Go values: nil, bool, int64, float64,
// string, []byte, []any (lists and tuples), map[string]any (dicts with
// string keys) and *NDArray.
func Unpickle(b []byte) (any, error) {
	var (
		stack []any
		memo  = map[int]any{}
		pos   int
	)
	fail := func(f string, a ...any) (any, error) {
		return nil, fmt.Errorf("%w: at byte %d: %s", ErrPickle, pos, fmt.Sprintf(f, a...))
	}
	need := func(n int) ([]byte, bool) {
		if n < 0 || pos+n > len(b) {
			return nil, false
		}
		p := b[pos : pos+n]
		pos += n
		return p, true
	}
	pop := func() (any, bool) {
		if len(stack) == 0 {
			return nil, false
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v, true
	}
	popMark := func() ([]any, bool) {
		for i := len(stack) - 1; i >= 0; i-- {
			if _, ok := stack[i].(pyMark); ok {
				items := append([]any(nil), stack[i+1:]...)
				stack = stack[:i]
				return items, true
			}
		}
		return nil, false
	}
	for {
		if pos >= len(b) {
			return fail("truncated (no STOP)")
		}
		op := b[pos]
		pos++
		switch op {
		case 0x80: // PROTO
			if _, ok := need(1); !ok {
				return fail("truncated")
			}
		case 0x95: // FRAME
			if _, ok := need(8); !ok {
				return fail("truncated")
			}
		case '.': // STOP
			if len(stack) != 1 {
				return fail("%d values on the stack at STOP", len(stack))
			}
			return unwrap(stack[0]), nil
		case 0x94: // MEMOIZE
			if len(stack) == 0 {
				return fail("MEMOIZE on an empty stack")
			}
			memo[len(memo)] = stack[len(stack)-1]
		case 'q', 'r': // BINPUT, LONG_BINPUT
			n := 1
			if op == 'r' {
				n = 4
			}
			p, ok := need(n)
			if !ok || len(stack) == 0 {
				return fail("bad PUT")
			}
			memo[int(leUint(p))] = stack[len(stack)-1]
		case 'h', 'j': // BINGET, LONG_BINGET
			n := 1
			if op == 'j' {
				n = 4
			}
			p, ok := need(n)
			if !ok {
				return fail("truncated")
			}
			v, ok := memo[int(leUint(p))]
			if !ok {
				return fail("GET of an unknown memo entry")
			}
			stack = append(stack, v)
		case '(': // MARK
			stack = append(stack, pyMark{})
		case ']': // EMPTY_LIST
			stack = append(stack, &[]any{})
		case '}': // EMPTY_DICT
			stack = append(stack, map[string]any{})
		case ')': // EMPTY_TUPLE
			stack = append(stack, pyTuple{})
		case 0x85, 0x86, 0x87: // TUPLE1..3
			n := int(op-0x85) + 1
			if len(stack) < n {
				return fail("TUPLE%d on a short stack", n)
			}
			t := pyTuple(append([]any(nil), stack[len(stack)-n:]...))
			stack = append(stack[:len(stack)-n], t)
		case 't': // TUPLE
			items, ok := popMark()
			if !ok {
				return fail("TUPLE without MARK")
			}
			stack = append(stack, pyTuple(items))
		case 'a', 'e': // APPEND, APPENDS
			var items []any
			if op == 'a' {
				v, ok := pop()
				if !ok {
					return fail("APPEND on an empty stack")
				}
				items = []any{v}
			} else {
				var ok bool
				if items, ok = popMark(); !ok {
					return fail("APPENDS without MARK")
				}
			}
			if len(stack) == 0 {
				return fail("APPEND without a list")
			}
			l, ok := stack[len(stack)-1].(*[]any)
			if !ok {
				return fail("APPEND to a %T", stack[len(stack)-1])
			}
			*l = append(*l, items...)
		case 's', 'u': // SETITEM, SETITEMS
			var items []any
			if op == 's' {
				if len(stack) < 2 {
					return fail("SETITEM on a short stack")
				}
				items = append([]any(nil), stack[len(stack)-2:]...)
				stack = stack[:len(stack)-2]
			} else {
				var ok bool
				if items, ok = popMark(); !ok || len(items)%2 != 0 {
					return fail("bad SETITEMS")
				}
			}
			if len(stack) == 0 {
				return fail("SETITEM without a dict")
			}
			d, ok := stack[len(stack)-1].(map[string]any)
			if !ok {
				return fail("SETITEM on a %T", stack[len(stack)-1])
			}
			for i := 0; i < len(items); i += 2 {
				k, ok := items[i].(string)
				if !ok {
					return fail("dict key of type %T (only string keys are supported)", items[i])
				}
				d[k] = items[i+1]
			}
		case 'N':
			stack = append(stack, nil)
		case 0x88, 0x89: // NEWTRUE, NEWFALSE
			stack = append(stack, op == 0x88)
		case 'K', 'M', 'J': // BININT1, BININT2, BININT
			n := map[byte]int{'K': 1, 'M': 2, 'J': 4}[op]
			p, ok := need(n)
			if !ok {
				return fail("truncated")
			}
			v := int64(leUint(p))
			if op == 'J' {
				v = int64(int32(uint32(v)))
			}
			stack = append(stack, v)
		case 0x8a: // LONG1
			p, ok := need(1)
			if !ok {
				return fail("truncated")
			}
			q, ok := need(int(p[0]))
			if !ok || len(q) > 8 {
				return fail("LONG1 of %d bytes", len(q))
			}
			var v int64
			for i := len(q) - 1; i >= 0; i-- {
				v = v<<8 | int64(q[i])
			}
			if len(q) > 0 && len(q) < 8 && q[len(q)-1]&0x80 != 0 {
				v -= 1 << (8 * len(q))
			}
			stack = append(stack, v)
		case 'G': // BINFLOAT (big-endian)
			p, ok := need(8)
			if !ok {
				return fail("truncated")
			}
			stack = append(stack, math.Float64frombits(binary.BigEndian.Uint64(p)))
		case 0x8c, 'X', 0x8d, 'C', 'B', 0x8e, 0x96: // strings and bytes
			n := map[byte]int{0x8c: 1, 'X': 4, 0x8d: 8, 'C': 1, 'B': 4, 0x8e: 8, 0x96: 8}[op]
			p, ok := need(n)
			if !ok {
				return fail("truncated")
			}
			l := leUint(p)
			if l > uint64(len(b)) {
				return fail("length %d beyond the data", l)
			}
			s, ok := need(int(l))
			if !ok {
				return fail("truncated string or bytes")
			}
			if op == 0x8c || op == 'X' || op == 0x8d {
				stack = append(stack, string(s))
			} else {
				stack = append(stack, s)
			}
		case 0x93: // STACK_GLOBAL
			if len(stack) < 2 {
				return fail("STACK_GLOBAL on a short stack")
			}
			m, ok1 := stack[len(stack)-2].(string)
			n, ok2 := stack[len(stack)-1].(string)
			if !ok1 || !ok2 {
				return fail("STACK_GLOBAL of non-strings")
			}
			stack = append(stack[:len(stack)-2], pyGlobal{m, n})
		case 'c': // GLOBAL "module\nname\n"
			i := strings.IndexByte(string(b[pos:]), '\n')
			if i < 0 {
				return fail("truncated GLOBAL")
			}
			m := string(b[pos : pos+i])
			pos += i + 1
			j := strings.IndexByte(string(b[pos:]), '\n')
			if j < 0 {
				return fail("truncated GLOBAL")
			}
			stack = append(stack, pyGlobal{m, string(b[pos : pos+j])})
			pos += j + 1
		case 'R': // REDUCE
			if len(stack) < 2 {
				return fail("REDUCE on a short stack")
			}
			fn, args := stack[len(stack)-2], stack[len(stack)-1]
			stack = stack[:len(stack)-2]
			g, _ := fn.(pyGlobal)
			a, _ := args.(pyTuple)
			switch {
			case g.name == "_reconstruct" && (g.module == "numpy.core.multiarray" || g.module == "numpy._core.multiarray"):
				stack = append(stack, &NDArray{})
			case g.module == "_codecs" && g.name == "encode" && len(a) == 2 && a[1] == "latin1":
				// Protocol 2 writes bytes as _codecs.encode(text, "latin1").
				txt, ok := a[0].(string)
				if !ok {
					return fail("_codecs.encode of a %T", a[0])
				}
				out := make([]byte, 0, len(txt))
				for _, r := range txt {
					if r > 255 {
						return fail("latin1 text with rune %U", r)
					}
					out = append(out, byte(r))
				}
				stack = append(stack, out)
			case g.name == "dtype" && g.module == "numpy" && len(a) >= 1:
				k, _ := a[0].(string)
				stack = append(stack, &pyDtype{kind: k})
			default:
				return fail("call of %s.%s (only numpy arrays are supported)", g.module, g.name)
			}
		case 'b': // BUILD
			if len(stack) < 2 {
				return fail("BUILD on a short stack")
			}
			state := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			st, _ := state.(pyTuple)
			switch o := stack[len(stack)-1].(type) {
			case *pyDtype:
				if len(st) > 1 {
					o.order, _ = st[1].(string)
				}
			case *NDArray:
				if len(st) != 5 {
					return fail("ndarray state of %d items", len(st))
				}
				shape, _ := st[1].(pyTuple)
				dt, _ := st[2].(*pyDtype)
				fortran, _ := st[3].(bool)
				data, ok := st[4].([]byte)
				if dt == nil || !ok {
					return fail("ndarray state without dtype or raw data")
				}
				n := 1
				for _, d := range shape {
					v, ok := d.(int64)
					if !ok || v < 0 || v > 1<<31 {
						return fail("ndarray shape %v", shape)
					}
					o.Shape = append(o.Shape, int(v))
					n *= int(v)
				}
				if fortran && len(o.Shape) > 1 {
					return fail("Fortran-ordered array")
				}
				o.Descr = dt.order + dt.kind
				if dt.order == "" || dt.order == "=" {
					o.Descr = "<" + dt.kind
				}
				size := map[string]int{"f4": 4, "f8": 8, "u1": 1, "i1": 1, "i2": 2, "i4": 4, "i8": 8, "b1": 1}[dt.kind]
				if size == 0 || n*size != len(data) {
					return fail("ndarray of %s %v with %d bytes", dt.kind, o.Shape, len(data))
				}
				o.Data = data
			default:
				return fail("BUILD of a %T", o)
			}
		default:
			return fail("opcode 0x%02x", op)
		}
	}
}

func leUint(p []byte) uint64 {
	var v uint64
	for i := len(p) - 1; i >= 0; i-- {
		v = v<<8 | uint64(p[i])
	}
	return v
}

// unwrap turns list pointers and tuples into []any, recursively.
func unwrap(v any) any {
	switch x := v.(type) {
	case *[]any:
		out := make([]any, len(*x))
		for i, e := range *x {
			out[i] = unwrap(e)
		}
		return out
	case pyTuple:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unwrap(e)
		}
		return out
	case map[string]any:
		for k, e := range x {
			x[k] = unwrap(e)
		}
		return x
	}
	return v
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
	v, err := Unpickle(b)
	if err != nil {
		return img, lbl, fmt.Errorf("%w (%s)", err, path)
	}
	l, ok := v.([]any)
	if !ok || len(l) != 2 {
		return img, lbl, fmt.Errorf("%w: %s holds %T, want [image, label]", ErrPickle, path, v)
	}
	a, ok1 := l[0].(*NDArray)
	c, ok2 := l[1].(*NDArray)
	if !ok1 || !ok2 || len(a.Shape) != 4 || a.Shape[0] != 1 || fmt.Sprint(a.Shape) != fmt.Sprint(c.Shape) || c.Descr != "|u1" {
		return img, lbl, fmt.Errorf("%w: %s: want [float32 (1,D,H,W), uint8 (1,D,H,W)]", ErrPickle, path)
	}
	data, err := a.Float32s()
	if err != nil {
		return img, lbl, fmt.Errorf("%w (%s)", err, path)
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
	v, err := Unpickle(b)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	bad := func(what string) (*Index, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrPickle, path, what)
	}
	d, ok := v.(map[string]any)
	if !ok {
		return bad("not a dict")
	}
	fl, _ := d["file_list"].([]any)
	cs, _ := d["cases"].(map[string]any)
	if len(fl) == 0 || cs == nil {
		return bad("no file_list or cases")
	}
	x := &Index{Cases: map[string]Aux{}}
	for _, f := range fl {
		s, ok := f.(string)
		if !ok {
			return bad("file_list entry is not a string")
		}
		x.FileList = append(x.FileList, s)
	}
	for name, c := range cs {
		m, ok := c.(map[string]any)
		if !ok {
			return bad("case " + name + " is not a dict")
		}
		a := Aux{Case: name}
		for key, dst := range map[string]*[4][4]float64{"original_affine": &a.OriginalAffine, "reshaped_affine": &a.ReshapedAffine} {
			arr, ok := m[key].(*NDArray)
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
		if arr, ok := m["zoom_factor"].(*NDArray); ok {
			if f, err := arr.Float64s(); err == nil && len(f) == 3 {
				a.ZoomFactor = [3]float64(f)
			}
		}
		sh, _ := m["image_shape"].([]any)
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
