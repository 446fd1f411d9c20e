// Package parquetframe reads the columns of a pandas DataFrame saved with
// DataFrame.to_parquet (pyarrow): text columns, integer columns and
// columns of integer lists (pyarrow's 3-level LIST of int32 or int64, or a
// legacy 2-level list), by name, row i being the DataFrame's row i. It
// checks the trailer before trusting the footer and reads every page once
// when the file is opened (parquet-go checks each page's CRC where the
// file has one), so a damaged file fails at Open with the column named.
package parquetframe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// ErrFormat is wrapped by errors about a file that is not a readable
// parquet DataFrame or lacks a column of the wanted kind.
var ErrFormat = errors.New("parquetframe: not a parquet data frame of the expected shape")

// File is an open parquet file. Columns are read on demand. Its methods
// are safe for concurrent use.
type File struct {
	path string
	f    *os.File
	pf   *parquet.File
}

// Open opens path and reads every page once to find damage.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("parquetframe: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("parquetframe: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrFormat, path)
	}
	if err := checkTrailer(f, st.Size()); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	var pf *parquet.File
	err = guard(path, func() (err error) {
		pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
		return err
	})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	p := &File{path: path, f: f, pf: pf}
	if err := guard(path, p.readAllPages); err != nil {
		f.Close()
		if !errors.Is(err, ErrFormat) {
			err = fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
		}
		return nil, err
	}
	return p, nil
}

// guard runs fn, a call into parquet-go, and turns a panic in it into an
// error: parquet-go panics on some damaged files (a page header whose
// sizes are negative makes it slice out of range; found by FuzzOpen),
// and a damaged data set file must be refused, naming it, not crash the
// run.
func guard(path string, fn func() error) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("%w: %s: the parquet reader failed on damaged data (%v)", ErrFormat, path, e)
		}
	}()
	return fn()
}

// IsParquet reports whether the file at path ends with parquet's magic.
func IsParquet(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() < 12 {
		return false
	}
	var tail [4]byte
	_, err = f.ReadAt(tail[:], st.Size()-4)
	return err == nil && string(tail[:]) == "PAR1"
}

// checkTrailer checks the footer length and "PAR1" before the parquet
// reader trusts them: a damaged length would make it allocate up to 4 GiB.
func checkTrailer(f *os.File, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes, too short for parquet", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("no parquet magic at the end")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("footer of %d bytes in a file of %d bytes", n, size)
	}
	return nil
}

// readAllPages reads (and so decodes and checks) every page, and checks
// that the row counts the footer states are the rows the pages hold: the
// column readers allocate one slot per row the footer states, and a
// damaged or hostile count (billions of rows in a file of a few KB)
// would otherwise ask for that much memory.
func (p *File) readAllPages() error {
	var total int64
	for g, rg := range p.pf.RowGroups() {
		want := rg.NumRows()
		if want < 0 {
			return fmt.Errorf("%w: %s: row group %d says it has %d rows", ErrFormat, p.path, g, want)
		}
		total += want
		for i, cc := range rg.ColumnChunks() {
			rows, err := func() (int64, error) {
				var rows int64
				pages := cc.Pages()
				defer pages.Close()
				for {
					pg, err := pages.ReadPage()
					if err == io.EOF {
						return rows, nil
					}
					if err != nil {
						return rows, err
					}
					rows += pg.NumRows()
					parquet.Release(pg)
				}
			}()
			if err == nil && rows != want {
				err = fmt.Errorf("it holds %d rows where its row group says %d", rows, want)
			}
			if err != nil {
				name := "?"
				if cols := p.pf.Schema().Columns(); i < len(cols) {
					name = strings.Join(cols[i], ".")
				}
				return fmt.Errorf("%w: %s: column %s is damaged (%v)", ErrFormat, p.path, name, err)
			}
		}
	}
	if n := p.pf.NumRows(); n != total {
		return fmt.Errorf("%w: %s: the footer says %d rows, its row groups hold %d", ErrFormat, p.path, n, total)
	}
	return nil
}

// Close closes the file.
func (p *File) Close() error { return p.f.Close() }

// Len is the number of rows.
func (p *File) Len() int { return int(p.pf.NumRows()) }

// Columns are the top-level column names in file order.
func (p *File) Columns() []string {
	var n []string
	for _, f := range p.pf.Schema().Fields() {
		n = append(n, f.Name())
	}
	return n
}

// Has reports whether the file has a top-level column name.
func (p *File) Has(name string) bool {
	for _, f := range p.pf.Schema().Fields() {
		if f.Name() == name {
			return true
		}
	}
	return false
}

func (p *File) leaves(name string) []parquet.LeafColumn {
	var out []parquet.LeafColumn
	for _, c := range p.pf.Schema().Columns() {
		if len(c) > 0 && c[0] == name {
			if l, ok := p.pf.Schema().Lookup(c...); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

func (p *File) leaf(name string, repeated bool, kinds ...parquet.Kind) (parquet.LeafColumn, error) {
	ls := p.leaves(name)
	if len(ls) == 0 {
		return parquet.LeafColumn{}, fmt.Errorf("%w: %s has no column %s (it has %s)", ErrFormat, p.path, name, strings.Join(p.Columns(), ", "))
	}
	l := ls[0]
	rep := 0
	if repeated {
		rep = 1
	}
	ok := len(ls) == 1 && l.MaxRepetitionLevel == rep
	kindOK := false
	for _, k := range kinds {
		kindOK = kindOK || l.Node.Type().Kind() == k
	}
	if !ok || !kindOK {
		what := "a scalar"
		if repeated {
			what = "a list"
		}
		return parquet.LeafColumn{}, fmt.Errorf("%w: %s: column %s is %v (repetition level %d), not %s of %v", ErrFormat, p.path, name, l.Node.Type(), l.MaxRepetitionLevel, what, kinds)
	}
	return l, nil
}

// scan calls fn with every value of a leaf and the row it belongs to.
func (p *File) scan(l parquet.LeafColumn, fn func(row int, v parquet.Value) error) error {
	return guard(p.path, func() error { return p.scanValues(l, fn) })
}

func (p *File) scanValues(l parquet.LeafColumn, fn func(row int, v parquet.Value) error) error {
	row := -1
	buf := make([]parquet.Value, 4096)
	for _, rg := range p.pf.RowGroups() {
		pages := rg.ColumnChunks()[l.ColumnIndex].Pages()
		err := func() error {
			defer pages.Close()
			for {
				pg, err := pages.ReadPage()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				vr := pg.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						if v.RepetitionLevel() == 0 {
							row++
						}
						if row < 0 || row >= p.Len() {
							return fmt.Errorf("row %d outside the file's %d", row, p.Len())
						}
						if err := fn(row, v); err != nil {
							return err
						}
					}
					if err == io.EOF {
						break
					}
					if err != nil {
						return err
					}
				}
				parquet.Release(pg)
			}
		}()
		if err != nil {
			return fmt.Errorf("%w: %s: column %s: %v", ErrFormat, p.path, l.Path[0], err)
		}
	}
	if row+1 != p.Len() {
		return fmt.Errorf("%w: %s: column %s has %d rows, the file %d", ErrFormat, p.path, l.Path[0], row+1, p.Len())
	}
	return nil
}

// Strings returns a text column; null reads as "" with null[i] set.
func (p *File) Strings(name string) (vals []string, null []bool, err error) {
	l, err := p.leaf(name, false, parquet.ByteArray)
	if err != nil {
		return nil, nil, err
	}
	vals, null = make([]string, p.Len()), make([]bool, p.Len())
	err = p.scan(l, func(row int, v parquet.Value) error {
		if v.IsNull() {
			null[row] = true
		} else {
			vals[row] = string(v.ByteArray())
		}
		return nil
	})
	return vals, null, err
}

// Kind returns the leaf type of a scalar column name: "text", "int",
// "float", or "" when it is not one of those (or missing).
func (p *File) Kind(name string) string {
	ls := p.leaves(name)
	if len(ls) != 1 || ls[0].MaxRepetitionLevel != 0 {
		return ""
	}
	switch ls[0].Node.Type().Kind() {
	case parquet.ByteArray:
		return "text"
	case parquet.Int32, parquet.Int64:
		return "int"
	case parquet.Float, parquet.Double:
		return "float"
	}
	return ""
}

// Ints returns an integer column; null reads as 0 with null[i] set.
func (p *File) Ints(name string) (vals []int64, null []bool, err error) {
	l, err := p.leaf(name, false, parquet.Int32, parquet.Int64)
	if err != nil {
		return nil, nil, err
	}
	vals, null = make([]int64, p.Len()), make([]bool, p.Len())
	err = p.scan(l, func(row int, v parquet.Value) error {
		if v.IsNull() {
			null[row] = true
		} else {
			vals[row] = intOf(v)
		}
		return nil
	})
	return vals, null, err
}

// Floats returns a floating-point column; null reads as NaN-free 0 with
// null[i] set.
func (p *File) Floats(name string) (vals []float64, null []bool, err error) {
	l, err := p.leaf(name, false, parquet.Float, parquet.Double)
	if err != nil {
		return nil, nil, err
	}
	vals, null = make([]float64, p.Len()), make([]bool, p.Len())
	err = p.scan(l, func(row int, v parquet.Value) error {
		switch {
		case v.IsNull():
			null[row] = true
		case v.Kind() == parquet.Float:
			vals[row] = float64(v.Float())
		default:
			vals[row] = v.Double()
		}
		return nil
	})
	return vals, null, err
}

func intOf(v parquet.Value) int64 {
	if v.Kind() == parquet.Int32 {
		return int64(v.Int32())
	}
	return v.Int64()
}

// IntLists returns a column of integer lists as int32 (an id outside
// int32 is an error); a null list reads as empty, a null element is an
// error.
func (p *File) IntLists(name string) ([][]int32, error) {
	l, err := p.leaf(name, true, parquet.Int32, parquet.Int64)
	if err != nil {
		return nil, err
	}
	out := make([][]int32, p.Len())
	elemOptional := l.Node.Optional()
	err = p.scan(l, func(row int, v parquet.Value) error {
		if v.IsNull() {
			if v.RepetitionLevel() > 0 || (elemOptional && v.DefinitionLevel() == l.MaxDefinitionLevel-1) {
				return fmt.Errorf("row %d: null element", row)
			}
			return nil
		}
		x := intOf(v)
		if x < -1<<31 || x >= 1<<31 {
			return fmt.Errorf("row %d: %d does not fit int32", row, x)
		}
		out[row] = append(out[row], int32(x))
		return nil
	})
	return out, err
}
