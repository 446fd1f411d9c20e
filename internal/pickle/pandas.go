package pickle

import (
	"fmt"
	"strings"
)

// AllowPandas accepts the callables a pandas DataFrame pickle names:
// pandas' own, numpy's arrays, dtypes and scalars, builtins.slice, and the
// bytes constructors of protocol 2.
func AllowPandas(g Global) bool {
	if numpyGlobal(g) != "" || strings.HasPrefix(g.Module, "pandas.") {
		return true
	}
	switch g {
	case Global{"builtins", "slice"}, Global{"_codecs", "encode"}, Global{"builtins", "bytearray"}:
		return true
	}
	return false
}

// DataFrame is a pandas DataFrame read from a pickle: its columns in
// order, each Rows long.
type DataFrame struct {
	Columns []*Column
	Rows    int
}

// Column is one column: an object column's cells in Objects (string,
// *List, *NDArray, int64, float64, nil, ...), a numeric column's in Array.
type Column struct {
	Name    string
	Objects []any
	Array   *NDArray
}

// Dtype is the column's numpy dtype.str ("|O" for objects).
func (c *Column) Dtype() string {
	if c.Array != nil {
		return c.Array.Dtype.Descr()
	}
	return "|O"
}

// Column returns the column named name.
func (f *DataFrame) Column(name string) (*Column, bool) {
	for _, c := range f.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// Names lists the column names in order.
func (f *DataFrame) Names() []string {
	n := make([]string, len(f.Columns))
	for i, c := range f.Columns {
		n[i] = c.Name
	}
	return n
}

// Strings returns an object column of str.
func (c *Column) Strings() ([]string, error) {
	if c.Array != nil {
		return nil, fmt.Errorf("%w: column %q holds %s, not strings", ErrPickle, c.Name, c.Dtype())
	}
	out := make([]string, len(c.Objects))
	for i, v := range c.Objects {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%w: column %q row %d holds %s, not a string", ErrPickle, c.Name, i, typeName(v))
		}
		out[i] = s
	}
	return out, nil
}

// Int64s returns an integer column, or an object column of ints.
func (c *Column) Int64s() ([]int64, error) {
	if c.Array != nil {
		v, err := c.Array.Int64s()
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		return v, nil
	}
	out := make([]int64, len(c.Objects))
	for i, v := range c.Objects {
		switch x := v.(type) {
		case int64:
			out[i] = x
		case Scalar:
			n, ok := x.Value.(int64)
			if !ok {
				return nil, fmt.Errorf("%w: column %q row %d holds %T, not an int", ErrPickle, c.Name, i, x.Value)
			}
			out[i] = n
		default:
			return nil, fmt.Errorf("%w: column %q row %d holds %s, not an int", ErrPickle, c.Name, i, typeName(v))
		}
	}
	return out, nil
}

// IntLists returns an object column whose cells are lists of ints or
// 1-D integer numpy arrays.
func (c *Column) IntLists() ([][]int64, error) {
	if c.Array != nil {
		return nil, fmt.Errorf("%w: column %q holds %s, not lists", ErrPickle, c.Name, c.Dtype())
	}
	out := make([][]int64, len(c.Objects))
	for i, v := range c.Objects {
		bad := func() ([][]int64, error) {
			return nil, fmt.Errorf("%w: column %q row %d holds %s, not a list of ints", ErrPickle, c.Name, i, typeName(v))
		}
		switch x := v.(type) {
		case *List:
			ints, ok := x.Int64s()
			if !ok {
				return bad()
			}
			out[i] = ints
		case *NDArray:
			if len(x.Shape) != 1 {
				return bad()
			}
			ints, err := x.Int64s()
			if err != nil {
				return bad()
			}
			out[i] = ints
		default:
			return bad()
		}
	}
	return out, nil
}

func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return "a str"
	case int64:
		return "an int"
	case float64:
		return "a float"
	case bool:
		return "a bool"
	case *List:
		return "a list"
	case *Dict:
		return "a dict"
	case Tuple:
		return "a tuple"
	case Bytes:
		return "bytes"
	case *NDArray:
		return "a numpy array of " + x.Dtype.Descr()
	case *Object:
		return "a " + x.Callable.String()
	}
	return fmt.Sprintf("a %T", v)
}

// ReadDataFrame decodes a pickle of a pandas DataFrame as pandas 1.x and
// 2.x write it (DataFrame state {"_mgr": BlockManager}, the manager's
// state (axes, values, items, {"0.14.1": {"axes", "blocks"}}), blocks of
// numpy arrays placed by a slice or an array of column positions).
func ReadDataFrame(b []byte) (*DataFrame, error) {
	v, err := Unpickle(b, AllowPandas)
	if err != nil {
		return nil, err
	}
	bad := func(f string, a ...any) (*DataFrame, error) {
		return nil, fmt.Errorf("%w: %s", ErrPickle, fmt.Sprintf(f, a...))
	}
	o, ok := v.(*Object)
	if !ok || o.Callable != (Global{"pandas.core.frame", "DataFrame"}) {
		return bad("the pickle holds %s, not a pandas DataFrame", typeName(v))
	}
	st, ok := o.State.(*Dict)
	if !ok {
		return bad("DataFrame state %s", typeName(o.State))
	}
	m, ok := st.Get("_mgr")
	if !ok {
		m, ok = st.Get("_data")
	}
	mgr, isObj := m.(*Object)
	if !ok || !isObj {
		return bad("DataFrame without a block manager")
	}
	if !strings.HasSuffix(mgr.Callable.Name, "BlockManager") {
		return bad("DataFrame kept by a %s (only pandas' BlockManager is read)", mgr.Callable)
	}
	axes, blocks, err := managerParts(mgr)
	if err != nil {
		return nil, err
	}
	names, err := indexNames(axes.At(0))
	if err != nil {
		return nil, err
	}
	rows, err := indexLen(axes.At(1))
	if err != nil {
		return nil, err
	}
	f := &DataFrame{Rows: rows, Columns: make([]*Column, len(names))}
	for i, blk := range blocks {
		vals, locs := blk[0], blk[1]
		arr, ok := vals.(*NDArray)
		if !ok {
			return bad("block %d holds %s (pandas extension arrays are not read; only numpy blocks)", i, typeName(vals))
		}
		pos, err := placement(locs, len(names))
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
		if len(arr.Shape) != 2 || arr.Shape[0] != len(pos) || arr.Shape[1] != rows {
			return bad("block %d of shape %v for %d columns of %d rows", i, arr.Shape, len(pos), rows)
		}
		for j, p := range pos {
			if f.Columns[p] != nil {
				return bad("column %d in two blocks", p)
			}
			c := &Column{Name: names[p]}
			if arr.Dtype.Kind == "O8" {
				c.Objects = arr.Objects[j*rows : (j+1)*rows]
			} else {
				size := arr.Dtype.Size()
				c.Array = &NDArray{Shape: []int{rows}, Dtype: arr.Dtype, Data: arr.Data[j*rows*size : (j+1)*rows*size]}
			}
			f.Columns[p] = c
		}
	}
	for i, c := range f.Columns {
		if c == nil {
			return bad("column %d (%q) in no block", i, names[i])
		}
	}
	return f, nil
}

// managerParts returns a block manager's axes and its blocks' (values,
// placement): from the arguments of its __reduce__ (pandas 1.3 and later:
// BlockManager(blocks, axes), each block _unpickle_block(values,
// placement, ndim)), else from its state (earlier pandas: (axes, values,
// items, {"0.14.1": {"axes": ..., "blocks": [{"values", "mgr_locs"}]}})).
func managerParts(mgr *Object) (*List, [][2]any, error) {
	bad := func(f string, a ...any) (*List, [][2]any, error) {
		return nil, nil, fmt.Errorf("%w: %s", ErrPickle, fmt.Sprintf(f, a...))
	}
	var blocks [][2]any
	if len(mgr.Args) == 2 {
		bt, ok1 := mgr.Args[0].(Tuple)
		axes, ok2 := mgr.Args[1].(*List)
		if ok1 && ok2 {
			for i, b := range bt {
				o, ok := b.(*Object)
				if !ok || (o.Callable.Name != "_unpickle_block" && o.Callable.Name != "new_block") || len(o.Args) < 2 {
					return bad("block %d is %s", i, typeName(b))
				}
				blocks = append(blocks, [2]any{o.Args[0], o.Args[1]})
			}
			if axes.Len() != 2 {
				return bad("block manager of %d axes (a DataFrame has 2)", axes.Len())
			}
			return axes, blocks, nil
		}
	}
	ms, ok := mgr.State.(Tuple)
	if !ok || len(ms) < 4 {
		return bad("block manager with neither blocks nor state (%s)", typeName(mgr.State))
	}
	var cur *Dict
	if extra, ok := ms[3].(*Dict); ok {
		x, _ := extra.Get("0.14.1")
		cur, _ = x.(*Dict)
	}
	if cur == nil {
		return bad("block manager state without its 0.14.1 part (pandas before 0.14.1?)")
	}
	axv, _ := cur.Get("axes")
	blv, _ := cur.Get("blocks")
	axes, ok1 := axv.(*List)
	bl, ok2 := blv.(*List)
	if !ok1 || !ok2 || axes.Len() != 2 {
		return bad("block manager of %s axes and %s blocks", typeName(axv), typeName(blv))
	}
	for i := range bl.Len() {
		bd, ok := bl.At(i).(*Dict)
		if !ok {
			return bad("block %d is %s", i, typeName(bl.At(i)))
		}
		v, _ := bd.Get("values")
		l, _ := bd.Get("mgr_locs")
		blocks = append(blocks, [2]any{v, l})
	}
	return axes, blocks, nil
}

// newIndex unpacks pandas' _new_Index(cls, d) call.
func newIndex(v any) (Global, *Dict, error) {
	o, ok := v.(*Object)
	if !ok || o.Callable.Name != "_new_Index" || len(o.Args) != 2 {
		return Global{}, nil, fmt.Errorf("%w: index %s", ErrPickle, typeName(v))
	}
	cls, _ := o.Args[0].(Global)
	d, ok := o.Args[1].(*Dict)
	if !ok {
		return Global{}, nil, fmt.Errorf("%w: index of %s", ErrPickle, cls)
	}
	return cls, d, nil
}

// indexNames reads the column index: its items as strings.
func indexNames(v any) ([]string, error) {
	cls, d, err := newIndex(v)
	if err != nil {
		return nil, err
	}
	data, _ := d.Get("data")
	a, ok := data.(*NDArray)
	if !ok || len(a.Shape) != 1 || a.Dtype.Kind != "O8" {
		return nil, fmt.Errorf("%w: column index %s of %s (want column names)", ErrPickle, cls, typeName(data))
	}
	names := make([]string, len(a.Objects))
	for i, n := range a.Objects {
		s, ok := n.(string)
		if !ok {
			return nil, fmt.Errorf("%w: column name %d is %s", ErrPickle, i, typeName(n))
		}
		names[i] = s
	}
	return names, nil
}

// indexLen is the length of the row index (a RangeIndex or an index of
// values).
func indexLen(v any) (int, error) {
	cls, d, err := newIndex(v)
	if err != nil {
		return 0, err
	}
	if data, ok := d.Get("data"); ok {
		if a, ok := data.(*NDArray); ok && len(a.Shape) == 1 {
			return a.Shape[0], nil
		}
		return 0, fmt.Errorf("%w: row index %s of %s", ErrPickle, cls, typeName(data))
	}
	start, _ := d.Get("start")
	stop, _ := d.Get("stop")
	step, _ := d.Get("step")
	a, ok1 := start.(int64)
	b, ok2 := stop.(int64)
	s, ok3 := step.(int64)
	if !ok1 || !ok2 || !ok3 || s == 0 {
		return 0, fmt.Errorf("%w: row index %s without data or range", ErrPickle, cls)
	}
	n := (b - a + s - sign(s)) / s
	if n < 0 {
		n = 0
	}
	if n > 1<<40 {
		return 0, fmt.Errorf("%w: row index of %d rows", ErrPickle, n)
	}
	return int(n), nil
}

func sign(x int64) int64 {
	if x < 0 {
		return -1
	}
	return 1
}

// placement lists the column positions of a block: a slice or an array.
func placement(v any, ncols int) ([]int, error) {
	var pos []int
	switch x := v.(type) {
	case *Object:
		if x.Callable != (Global{"builtins", "slice"}) || len(x.Args) != 3 {
			return nil, fmt.Errorf("%w: block placement %s", ErrPickle, typeName(v))
		}
		start, ok1 := x.Args[0].(int64)
		stop, ok2 := x.Args[1].(int64)
		step := int64(1)
		ok3 := true
		if x.Args[2] != nil {
			step, ok3 = x.Args[2].(int64)
		}
		if !ok1 || !ok2 || !ok3 || step <= 0 || start < 0 || stop > int64(ncols) {
			return nil, fmt.Errorf("%w: block placement slice%v for %d columns", ErrPickle, x.Args, ncols)
		}
		for p := start; p < stop; p += step {
			pos = append(pos, int(p))
		}
	case *NDArray:
		ints, err := x.Int64s()
		if err != nil {
			return nil, err
		}
		for _, p := range ints {
			if p < 0 || p >= int64(ncols) {
				return nil, fmt.Errorf("%w: block placement %d for %d columns", ErrPickle, p, ncols)
			}
			pos = append(pos, int(p))
		}
	default:
		return nil, fmt.Errorf("%w: block placement %s", ErrPickle, typeName(v))
	}
	return pos, nil
}
