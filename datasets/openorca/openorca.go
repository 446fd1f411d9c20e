// Package openorca reads and writes the MLPerf Llama 2 70B data set: the
// MLCommons preprocessed OpenOrca sample (open_orca_gpt4_tokenized_llama.
// sampled_24576) as a parquet file with the reference's columns.
//
// The reference ships a pandas pickle, which Go cannot read. A user who has
// it converts it once with pandas (not part of this project):
//
//	python3 -c "import pandas as pd; pd.read_pickle('open_orca_gpt4_tokenized_llama.sampled_24576.pkl').to_parquet('open_orca_gpt4_tokenized_llama.sampled_24576.parquet')"
//
// (a .pkl.gz is read by read_pickle as well). The columns, as
// processorca.py makes them (mlcommons/inference language/llama2-70b/processorca.py):
//
//	id, system_prompt, question   strings from the source parquet
//	output                        the reference answer (the ROUGE target)
//	input                         the formatted Llama 2 chat prompt
//	tok_input                     list of ints: the prompt ids the SUT runs, verbatim
//	tok_output                    list of ints: the tokenized reference answer
//	origin                        id prefix before the first "." (cot, flan, niv, t0)
//	tok_input_length, tok_output_length   list lengths
//
// Only tok_input is required to run, and output to score. Lists may be
// pyarrow's 3-level LIST of int64 or int32 (what to_parquet writes) or a
// legacy 2-level list; extra columns (pandas' __index_level_0__) are
// ignored. Rows are read in file order: qsl_idx i is row i.
package openorca

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// File and data set facts.
const (
	// FileName is the name the converted pickle gets by convention.
	FileName = "open_orca_gpt4_tokenized_llama.sampled_24576.parquet"
	// PickleName is the reference's preprocessed file.
	PickleName = "open_orca_gpt4_tokenized_llama.sampled_24576.pkl"
	// Rows is the number of samples of the official file.
	Rows = 24576
	// MaxTokens bounds tok_input and tok_output lengths (processorca.py
	// keeps rows with both < 1024).
	MaxTokens = 1024
)

// Column names.
const (
	ColID              = "id"
	ColSystemPrompt    = "system_prompt"
	ColQuestion        = "question"
	ColOutput          = "output"
	ColInput           = "input"
	ColTokInput        = "tok_input"
	ColTokOutput       = "tok_output"
	ColOrigin          = "origin"
	ColTokInputLength  = "tok_input_length"
	ColTokOutputLength = "tok_output_length"
)

// Columns lists every column of the reference's data frame, in its order.
var Columns = []string{ColID, ColSystemPrompt, ColQuestion, ColOutput, ColInput, ColTokInput, ColTokOutput, ColOrigin, ColTokInputLength, ColTokOutputLength}

// fixHint says how to replace a damaged data set file.
const fixHint = "re-download it with datasets/openorca/download_dataset.sh (or re-create it with 'mlperf dataset synth openorca') and check it with 'mlperf dataset verify openorca'"

// ErrFormat is wrapped by errors about a file that is not the preprocessed
// OpenOrca data set.
var ErrFormat = errors.New("openorca: not the preprocessed OpenOrca format")

// Dataset is an open parquet file of the data set. Columns are read on
// demand; nothing is cached. Its methods are safe for concurrent use (each
// reads through its own page readers).
type Dataset struct {
	path string
	f    *os.File
	pf   *parquet.File
}

// Open opens a parquet file and checks that it has a tok_input column of
// integer lists.
func Open(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("openorca: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("openorca: %w", err)
	}
	if err := checkFooter(f, st.Size()); err != nil {
		f.Close()
		if strings.HasSuffix(path, ".pkl") || strings.HasSuffix(path, ".pkl.gz") {
			return nil, fmt.Errorf("%w: %s is a pandas pickle; convert it once to parquet (see datasets/openorca/README.md): %v", ErrFormat, path, err)
		}
		return nil, fmt.Errorf("%w: %s is damaged or not a parquet file (%v); %s", ErrFormat, path, err, fixHint)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		f.Close()
		if strings.HasSuffix(path, ".pkl") || strings.HasSuffix(path, ".pkl.gz") {
			return nil, fmt.Errorf("%w: %s is a pandas pickle; convert it once to parquet (see datasets/openorca/README.md): %v", ErrFormat, path, err)
		}
		return nil, fmt.Errorf("%w: %s is damaged or not a parquet file (%v); %s", ErrFormat, path, err, fixHint)
	}
	d := &Dataset{path: path, f: f, pf: pf}
	if _, err := d.listLeaf(ColTokInput); err != nil {
		f.Close()
		return nil, err
	}
	if err := d.checkPages(); err != nil {
		f.Close()
		return nil, err
	}
	return d, nil
}

// checkPages reads every page of every column once: parquet-go checks
// each page's CRC-32 where the file has one (this package's writer and
// pyarrow's with write_page_checksum set it) and decodes it, so that a
// damaged byte anywhere in the data is found when the file is opened,
// not only in the columns a run happens to read.
func (d *Dataset) checkPages() error {
	for _, rg := range d.pf.RowGroups() {
		for i, cc := range rg.ColumnChunks() {
			err := func() error {
				pages := cc.Pages()
				defer pages.Close()
				for {
					p, err := pages.ReadPage()
					if err == io.EOF {
						return nil
					}
					if err != nil {
						return err
					}
					parquet.Release(p)
				}
			}()
			if err != nil {
				name := "?"
				if cols := d.pf.Schema().Columns(); i < len(cols) {
					name = strings.Join(cols[i], ".")
				}
				return fmt.Errorf("%w: %s: column %s is damaged (%v); %s", ErrFormat, d.path, name, err, fixHint)
			}
		}
	}
	return nil
}

// checkFooter checks the parquet trailer (footer length, "PAR1") before
// the parquet reader trusts it: a damaged length would make the reader
// allocate up to 4 GiB for the footer.
func checkFooter(f *os.File, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes, too short for parquet", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return fmt.Errorf("no parquet magic at the end")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("footer of %d bytes in a file of %d bytes", n, size)
	}
	return nil
}

// Path is the file name given to Open.
func (d *Dataset) Path() string { return d.path }

// Len is the number of rows.
func (d *Dataset) Len() int { return int(d.pf.NumRows()) }

// Close closes the file.
func (d *Dataset) Close() error { return d.f.Close() }

// HasColumn reports whether the file has a top-level column name.
func (d *Dataset) HasColumn(name string) bool {
	for _, f := range d.pf.Schema().Fields() {
		if f.Name() == name {
			return true
		}
	}
	return false
}

// leaves returns the leaf columns under top-level column name.
func (d *Dataset) leaves(name string) []parquet.LeafColumn {
	var out []parquet.LeafColumn
	for _, p := range d.pf.Schema().Columns() {
		if len(p) > 0 && p[0] == name {
			if l, ok := d.pf.Schema().Lookup(p...); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

func (d *Dataset) columnNames() string {
	var n []string
	for _, f := range d.pf.Schema().Fields() {
		n = append(n, f.Name())
	}
	return strings.Join(n, ", ")
}

// listLeaf finds the one integer leaf of the list column name.
func (d *Dataset) listLeaf(name string) (parquet.LeafColumn, error) {
	ls := d.leaves(name)
	if len(ls) == 0 {
		hint := ""
		if name == ColTokInput {
			hint = "; the benchmark runs the preprocessed prompt ids, so the file must be the MLCommons open_orca_gpt4_tokenized_llama pickle converted to parquet (see datasets/openorca/README.md), not the raw OpenOrca parquet"
		}
		return parquet.LeafColumn{}, fmt.Errorf("%w: %s has no %s column (columns: %s)%s", ErrFormat, d.path, name, d.columnNames(), hint)
	}
	l := ls[0]
	if len(ls) != 1 || l.MaxRepetitionLevel != 1 || !isInt(l.Node.Type().Kind()) {
		return parquet.LeafColumn{}, fmt.Errorf("%w: %s: column %s (leaf %s, %v, repetition level %d) is not a list of integers", ErrFormat, d.path, name, strings.Join(l.Path, "."), l.Node.Type(), l.MaxRepetitionLevel)
	}
	return l, nil
}

// scalarLeaf finds the leaf of a non-repeated column name of kind want
// (isInt or isString).
func (d *Dataset) scalarLeaf(name string, want func(parquet.Kind) bool, what string) (parquet.LeafColumn, error) {
	ls := d.leaves(name)
	if len(ls) == 0 {
		return parquet.LeafColumn{}, fmt.Errorf("%w: %s has no %s column (columns: %s)", ErrFormat, d.path, name, d.columnNames())
	}
	l := ls[0]
	if len(ls) != 1 || l.MaxRepetitionLevel != 0 || !want(l.Node.Type().Kind()) {
		return parquet.LeafColumn{}, fmt.Errorf("%w: %s: column %s is %v, want %s", ErrFormat, d.path, name, l.Node.Type(), what)
	}
	return l, nil
}

func isInt(k parquet.Kind) bool    { return k == parquet.Int32 || k == parquet.Int64 }
func isString(k parquet.Kind) bool { return k == parquet.ByteArray }

// scan calls fn with every value of a leaf column and the row it belongs to
// (rows numbered from 0 across row groups, a new row at repetition level 0).
func (d *Dataset) scan(l parquet.LeafColumn, fn func(row int, v parquet.Value) error) error {
	row := -1
	buf := make([]parquet.Value, 4096)
	for _, rg := range d.pf.RowGroups() {
		pages := rg.ColumnChunks()[l.ColumnIndex].Pages()
		err := func() error {
			defer pages.Close()
			for {
				p, err := pages.ReadPage()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				vr := p.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						if v.RepetitionLevel() == 0 {
							row++
						}
						if row < 0 {
							return fmt.Errorf("column starts inside a row")
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
				parquet.Release(p)
			}
		}()
		if err != nil {
			return fmt.Errorf("%w: %s: column %s is damaged (%v); %s", ErrFormat, d.path, l.Path[0], err, fixHint)
		}
	}
	if row+1 != d.Len() {
		return fmt.Errorf("%w: %s: column %s has %d rows, the file %d", ErrFormat, d.path, l.Path[0], row+1, d.Len())
	}
	return nil
}

func intOf(v parquet.Value) int64 {
	if v.Kind() == parquet.Int32 {
		return int64(v.Int32())
	}
	return v.Int64()
}

// Tokens returns the integer lists of column name (tok_input or
// tok_output) for rows (in that order; a row may repeat), or for every row
// when rows is nil. Ids outside int32 and null elements are errors; a null
// list reads as empty.
func (d *Dataset) Tokens(name string, rows []int) ([][]int32, error) {
	l, err := d.listLeaf(name)
	if err != nil {
		return nil, err
	}
	n := d.Len()
	want := make([]int, n) // row → position+1 in an out slot list (0: not wanted)
	var slots int
	if rows == nil {
		for i := range want {
			want[i] = i + 1
		}
		slots = n
	} else {
		for _, r := range rows {
			if r < 0 || r >= n {
				return nil, fmt.Errorf("openorca: %s: row %d outside [0, %d)", d.path, r, n)
			}
			if want[r] == 0 {
				slots++
				want[r] = slots
			}
		}
	}
	got := make([][]int32, slots)
	elemOptional := l.Node.Optional()
	err = d.scan(l, func(row int, v parquet.Value) error {
		if row >= n {
			return fmt.Errorf("more rows than the file's %d", n)
		}
		k := want[row]
		if k == 0 {
			return nil
		}
		if v.IsNull() {
			if v.RepetitionLevel() > 0 || (elemOptional && v.DefinitionLevel() == l.MaxDefinitionLevel-1) {
				return fmt.Errorf("row %d: null element", row)
			}
			return nil // null or empty list
		}
		x := intOf(v)
		if x < -1<<31 || x >= 1<<31 {
			return fmt.Errorf("row %d: id %d does not fit int32", row, x)
		}
		got[k-1] = append(got[k-1], int32(x))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows == nil {
		return got, nil
	}
	out := make([][]int32, len(rows))
	for i, r := range rows {
		out[i] = got[want[r]-1]
	}
	return out, nil
}

// Strings returns a string column for every row (null reads as "").
func (d *Dataset) Strings(name string) ([]string, error) {
	l, err := d.scalarLeaf(name, isString, "a string")
	if err != nil {
		return nil, err
	}
	out := make([]string, d.Len())
	err = d.scan(l, func(row int, v parquet.Value) error {
		if row >= len(out) {
			return fmt.Errorf("more rows than the file's %d", len(out))
		}
		if !v.IsNull() {
			out[row] = string(v.ByteArray())
		}
		return nil
	})
	return out, err
}

// Ints returns an integer column for every row (null reads as -1).
func (d *Dataset) Ints(name string) ([]int64, error) {
	l, err := d.scalarLeaf(name, isInt, "an integer")
	if err != nil {
		return nil, err
	}
	out := make([]int64, d.Len())
	err = d.scan(l, func(row int, v parquet.Value) error {
		if row >= len(out) {
			return fmt.Errorf("more rows than the file's %d", len(out))
		}
		out[row] = -1
		if !v.IsNull() {
			out[row] = intOf(v)
		}
		return nil
	})
	return out, err
}

// Record is one row of the data set.
type Record struct {
	ID              string  `parquet:"id"`
	SystemPrompt    string  `parquet:"system_prompt"`
	Question        string  `parquet:"question"`
	Output          string  `parquet:"output"`
	Input           string  `parquet:"input"`
	TokInput        []int64 `parquet:"tok_input,list"`
	TokOutput       []int64 `parquet:"tok_output,list"`
	Origin          string  `parquet:"origin,dict"`
	TokInputLength  int64   `parquet:"tok_input_length"`
	TokOutputLength int64   `parquet:"tok_output_length"`
}

// Records reads every row; columns the file lacks are left zero.
func (d *Dataset) Records() ([]Record, error) {
	out := make([]Record, d.Len())
	strs := []struct {
		name string
		set  func(*Record, string)
	}{
		{ColID, func(r *Record, s string) { r.ID = s }},
		{ColSystemPrompt, func(r *Record, s string) { r.SystemPrompt = s }},
		{ColQuestion, func(r *Record, s string) { r.Question = s }},
		{ColOutput, func(r *Record, s string) { r.Output = s }},
		{ColInput, func(r *Record, s string) { r.Input = s }},
		{ColOrigin, func(r *Record, s string) { r.Origin = s }},
	}
	for _, c := range strs {
		if !d.HasColumn(c.name) {
			continue
		}
		v, err := d.Strings(c.name)
		if err != nil {
			return nil, err
		}
		for i := range out {
			c.set(&out[i], v[i])
		}
	}
	for _, c := range []struct {
		name string
		set  func(*Record, []int32)
	}{
		{ColTokInput, func(r *Record, t []int32) { r.TokInput = widen(t) }},
		{ColTokOutput, func(r *Record, t []int32) { r.TokOutput = widen(t) }},
	} {
		if !d.HasColumn(c.name) {
			continue
		}
		v, err := d.Tokens(c.name, nil)
		if err != nil {
			return nil, err
		}
		for i := range out {
			c.set(&out[i], v[i])
		}
	}
	for _, c := range []struct {
		name string
		set  func(*Record, int64)
	}{
		{ColTokInputLength, func(r *Record, n int64) { r.TokInputLength = n }},
		{ColTokOutputLength, func(r *Record, n int64) { r.TokOutputLength = n }},
	} {
		if !d.HasColumn(c.name) {
			continue
		}
		v, err := d.Ints(c.name)
		if err != nil {
			return nil, err
		}
		for i := range out {
			c.set(&out[i], v[i])
		}
	}
	return out, nil
}

func widen(t []int32) []int64 {
	out := make([]int64, len(t))
	for i, x := range t {
		out[i] = int64(x)
	}
	return out
}

// Write writes recs as a parquet file in the reference's column layout
// (lists as 3-level LIST of int64, as pyarrow writes them).
func Write(w io.Writer, recs []Record) error {
	pw := parquet.NewGenericWriter[Record](w)
	if _, err := pw.Write(recs); err != nil {
		return fmt.Errorf("openorca: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("openorca: %w", err)
	}
	return nil
}

// WriteFile writes recs to path through a temporary file in the same
// folder, so that a failed write leaves nothing under path.
func WriteFile(path string, recs []Record) error {
	tmp, err := os.CreateTemp(dirOf(path), ".openorca-*.parquet")
	if err != nil {
		return fmt.Errorf("openorca: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := Write(tmp, recs); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("openorca: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("openorca: %w", err)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// Origins are the four source groups of the sample, 6144 rows each in the
// official file.
var Origins = []string{"cot", "flan", "niv", "t0"}

// originOf is processorca.py's origin: the id up to the first ".".
func originOf(id string) string {
	o, _, _ := strings.Cut(id, ".")
	return o
}

// knownOrigin reports whether o is one of Origins.
func knownOrigin(o string) bool { return slices.Contains(Origins, o) }
