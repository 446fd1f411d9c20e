package pickle

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WriteColumn is one column for WriteDataFrame: Ints for an int64 column,
// else Cells for an object column, whose cells are string, int64,
// float64, []int64 (a list of ints) or nil.
type WriteColumn struct {
	Name  string
	Ints  []int64
	Cells []any
}

// WriteDataFrame writes cols as pandas (1.3 to 2.x) pickles a DataFrame
// with protocol 5, the default of DataFrame.to_pickle: the DataFrame's
// state holding BlockManager(blocks, axes), a RangeIndex, the object
// columns in one block and the int64 columns in another, each placed by a
// slice when its columns are adjacent, else by an array of positions;
// numeric data through numpy's _frombuffer.
func WriteDataFrame(w io.Writer, cols []WriteColumn) error {
	rows := -1
	var objPos, intPos []int
	for i, c := range cols {
		n := len(c.Cells)
		if c.Ints != nil {
			n = len(c.Ints)
			intPos = append(intPos, i)
		} else {
			objPos = append(objPos, i)
		}
		if rows >= 0 && n != rows {
			return fmt.Errorf("pickle: column %q has %d rows, others %d", c.Name, n, rows)
		}
		rows = n
		for r, v := range c.Cells {
			switch v.(type) {
			case string, int64, float64, []int64, nil:
			default:
				return fmt.Errorf("pickle: column %q row %d: cannot write a %T", c.Name, r, v)
			}
		}
	}
	if rows < 0 {
		return fmt.Errorf("pickle: a DataFrame needs a column")
	}
	e := &encoder{w: bufio.NewWriter(w)}
	e.op(0x80, 5)
	e.global("pandas.core.frame", "DataFrame")
	e.op(')', 0x81, '}', '(')
	e.str("_mgr")
	e.global("pandas.core.internals.managers", "BlockManager")

	// BlockManager(blocks, axes): each block _unpickle_block(values,
	// placement, 2).
	e.op('(')
	if len(objPos) > 0 {
		e.global("pandas._libs.internals", "_unpickle_block")
		e.objectArray(objPos, rows, cols)
		e.placement(objPos)
		e.int(2)
		e.op(0x87, 'R')
	}
	if len(intPos) > 0 {
		e.global("pandas._libs.internals", "_unpickle_block")
		data := make([]byte, 0, 8*rows*len(intPos))
		for _, p := range intPos {
			for _, v := range cols[p].Ints {
				data = binary.LittleEndian.AppendUint64(data, uint64(v))
			}
		}
		e.numericArray(data, []int{len(intPos), rows})
		e.placement(intPos)
		e.int(2)
		e.op(0x87, 'R')
	}
	e.op('t')
	e.op(']', '(')
	e.index(names(cols))
	e.global("pandas.core.indexes.base", "_new_Index")
	e.global("pandas.core.indexes.range", "RangeIndex")
	e.op('}', '(')
	e.str("name")
	e.op('N')
	e.str("start")
	e.int(0)
	e.str("stop")
	e.int(int64(rows))
	e.str("step")
	e.int(1)
	e.op('u', 0x86, 'R', 'e')
	e.op(0x86, 'R')
	e.str("_typ")
	e.str("dataframe")
	e.str("_metadata")
	e.op(']')
	e.str("attrs")
	e.op('}')
	e.str("_flags")
	e.op('}')
	e.str("allows_duplicate_labels")
	e.op(0x88, 's', 'u', 'b', '.')
	if e.err != nil {
		return fmt.Errorf("pickle: %w", e.err)
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("pickle: %w", err)
	}
	return nil
}

func names(cols []WriteColumn) []string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.Name
	}
	return n
}

type encoder struct {
	w   *bufio.Writer
	err error
}

func (e *encoder) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

func (e *encoder) op(ops ...byte) { e.write(ops) }

func (e *encoder) str(s string) {
	switch {
	case len(s) < 256:
		e.op(0x8c, byte(len(s)))
	default:
		e.op('X')
		e.write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	}
	e.write([]byte(s))
}

func (e *encoder) int(v int64) {
	switch {
	case v >= 0 && v < 256:
		e.op('K', byte(v))
	case v >= 0 && v < 65536:
		e.op('M', byte(v), byte(v>>8))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e.op('J')
		e.write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	default:
		// LONG1: the shortest two's complement little-endian bytes.
		b := binary.LittleEndian.AppendUint64(nil, uint64(v))
		n := 8
		for n > 1 && ((b[n-1] == 0 && b[n-2]&0x80 == 0) || (b[n-1] == 0xff && b[n-2]&0x80 != 0)) {
			n--
		}
		e.op(0x8a, byte(n))
		e.write(b[:n])
	}
}

func (e *encoder) global(m, n string) {
	e.str(m)
	e.str(n)
	e.op(0x93)
}

// dtype writes numpy.dtype(kind, False, True) with its state.
func (e *encoder) dtype(kind, order string, flags int64) {
	e.global("numpy", "dtype")
	e.str(kind)
	e.op(0x89, 0x88, 0x87, 'R', '(')
	e.int(3)
	e.str(order)
	e.op('N', 'N', 'N')
	e.int(-1)
	e.int(-1)
	e.int(flags)
	e.op('t', 'b')
}

// objectArray writes the object block of the columns at pos: shape
// (len(pos), rows), items in C order.
func (e *encoder) objectArray(pos []int, rows int, cols []WriteColumn) {
	e.global("numpy.core.multiarray", "_reconstruct")
	e.global("numpy", "ndarray")
	e.int(0)
	e.op(0x85)
	e.op('C', 1, 'b', 0x87, 'R', '(')
	e.int(1)
	e.int(int64(len(pos)))
	e.int(int64(rows))
	e.op(0x86)
	e.dtype("O8", "|", 63)
	e.op(0x89, ']', '(')
	for _, p := range pos {
		for _, v := range cols[p].Cells {
			e.value(v)
		}
	}
	e.op('e', 't', 'b')
}

// numericArray writes an int64 array by _frombuffer.
func (e *encoder) numericArray(data []byte, shape []int) {
	e.global("numpy.core.numeric", "_frombuffer")
	e.op('(', 0x96)
	e.write(binary.LittleEndian.AppendUint64(nil, uint64(len(data))))
	e.write(data)
	e.dtype("i8", "<", 0)
	for _, d := range shape {
		e.int(int64(d))
	}
	e.op(0x85 + byte(len(shape)) - 1)
	e.str("C")
	e.op('t', 'R')
}

func (e *encoder) value(v any) {
	switch x := v.(type) {
	case nil:
		e.op('N')
	case string:
		e.str(x)
	case int64:
		e.int(x)
	case float64:
		e.op('G')
		e.write(binary.BigEndian.AppendUint64(nil, math.Float64bits(x)))
	case []int64:
		e.op(']')
		for i := 0; i < len(x); i += 1000 { // pickle batches APPENDS by 1000
			e.op('(')
			for _, n := range x[i:min(i+1000, len(x))] {
				e.int(n)
			}
			e.op('e')
		}
	}
}

// index writes pandas' _new_Index(Index, {"data": names, "name": None}).
func (e *encoder) index(n []string) {
	e.global("pandas.core.indexes.base", "_new_Index")
	e.global("pandas.core.indexes.base", "Index")
	e.op('}', '(')
	e.str("data")
	e.global("numpy.core.multiarray", "_reconstruct")
	e.global("numpy", "ndarray")
	e.int(0)
	e.op(0x85, 'C', 1, 'b', 0x87, 'R', '(')
	e.int(1)
	e.int(int64(len(n)))
	e.op(0x85)
	e.dtype("O8", "|", 63)
	e.op(0x89, ']', '(')
	for _, s := range n {
		e.str(s)
	}
	e.op('e', 't', 'b')
	e.str("name")
	e.op('N', 'u', 0x86, 'R')
}

// placement writes a block's mgr_locs: slice(start, stop, 1) when the
// positions are adjacent, else an intp array.
func (e *encoder) placement(pos []int) {
	adjacent := true
	for i := 1; i < len(pos); i++ {
		adjacent = adjacent && pos[i] == pos[i-1]+1
	}
	if adjacent {
		e.global("builtins", "slice")
		e.int(int64(pos[0]))
		e.int(int64(pos[len(pos)-1] + 1))
		e.int(1)
		e.op(0x87, 'R')
		return
	}
	data := make([]byte, 0, 8*len(pos))
	for _, p := range pos {
		data = binary.LittleEndian.AppendUint64(data, uint64(p))
	}
	e.numericArray(data, []int{len(pos)})
}
