// Package reasoning reads and writes the data sets of MLPerf's reasoning
// benchmarks, DeepSeek-R1 and gpt-oss-120b: pandas DataFrames, one row a
// prompt, as pickles (DeepSeek-R1's mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl;
// gpt-oss's older .pkl files) or parquet files (gpt-oss's
// acc_eval_inputs.parquet and the others). The official files are read
// as they are, with internal/pickle or internal/parquetframe: no
// conversion step, no Python. Row i is qsl_idx i.
//
// The columns, as the references use them (mlcommons/inference
// language/deepseek-r1: run_mlperf.py, eval_accuracy.py;
// language/gpt-oss-120b: utils/tokenization.py, eval_mlperf_accuracy.py):
//
//	dataset        the source: gpqa, mmlu_pro, math500, aime1983, livecodebench
//	               (DeepSeek-R1); aime25, gpqa_diamond, livecodebench_v6 (gpt-oss)
//	ground_truth   the answer ("C", "42"), or a LiveCodeBench question id;
//	               gt_output in older files
//	tok_input      list of ints: the templated prompt's ids, sent verbatim;
//	               input_tokens in gpt-oss's newer files
//	text_input     the prompt text (DeepSeek-R1: the user message the chat
//	               template wraps; gpt-oss: the conversation as "role: content" lines)
//	question       the question as its source poses it
//
// dataset, ground_truth and a token column are required; text_input and
// question are read when present, and so are ref_output and
// tok_ref_output_len (a reference answer and its length).
package reasoning

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/parquetframe"
	"github.com/mlperf-go/inference/internal/pickle"
	"github.com/mlperf-go/inference/internal/pynum"
	"github.com/parquet-go/parquet-go"
)

// Column names.
const (
	ColDataset         = "dataset"
	ColGroundTruth     = "ground_truth"
	ColGtOutput        = "gt_output"
	ColQuestion        = "question"
	ColTextInput       = "text_input"
	ColTokInput        = "tok_input"
	ColInputTokens     = "input_tokens"
	ColTokInputLen     = "tok_input_len"
	ColRefOutput       = "ref_output"
	ColTokRefOutputLen = "tok_ref_output_len"
)

// MaxFileBytes bounds a data set file: the official ones are tens of
// megabytes.
const MaxFileBytes = 4 << 30

// ErrFormat is wrapped by errors about a file that is not a reasoning
// data set.
var ErrFormat = errors.New("reasoning: not a reasoning data set")

// Families are the evaluator families of the references'
// DATASET_EVALUATORS, in their order; a row's dataset belongs to the first
// family whose name it contains, lower-cased (eval_accuracy.py's
// get_evaluator: "aime1983" and "aime25" are aime, "gpqa_diamond" gpqa).
var Families = []string{"gpqa", "mmlu_pro", "math500", "aime", "livecodebench", "mmlu"}

// Family returns the evaluator family of a dataset name, false if it has
// none.
func Family(dataset string) (string, bool) {
	d := strings.ToLower(dataset)
	for _, f := range Families {
		if strings.Contains(d, f) {
			return f, true
		}
	}
	return "", false
}

// Row is one prompt.
type Row struct {
	Dataset     string
	GroundTruth string
	// GroundTruthNull reports a missing answer (None or NaN), which the
	// references count as wrong without parsing the output.
	GroundTruthNull bool
	Question        string
	TextInput       string
	TokInput        []int32
	// RefOutput and RefOutputLen are a reference answer and its token
	// count, where the file has them ("" and -1 otherwise).
	RefOutput    string
	RefOutputLen int64
}

// Set is a loaded data set. Read-only after Read; safe for concurrent
// use.
type Set struct {
	Path string
	Rows []Row
	// Columns are the file's columns in its order; TokenColumn the one
	// the prompt ids came from (tok_input or input_tokens).
	Columns     []string
	TokenColumn string
	// Parquet reports a parquet file (else a pickle).
	Parquet bool
}

// Len is the number of rows.
func (s *Set) Len() int { return len(s.Rows) }

// ByDataset counts the rows of each source data set.
func (s *Set) ByDataset() map[string]int {
	m := map[string]int{}
	for _, r := range s.Rows {
		m[r.Dataset]++
	}
	return m
}

// Read loads a data set file: a pandas pickle or a parquet file, told
// apart by their bytes.
func Read(path string) (*Set, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reasoning: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrFormat, path)
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, far above the official files' tens of megabytes", ErrFormat, path, fi.Size())
	}
	var s *Set
	if parquetframe.IsParquet(path) {
		s, err = readParquet(path)
	} else {
		s, err = readPickle(path)
	}
	if err != nil {
		return nil, err
	}
	s.Path = path
	if len(s.Rows) == 0 {
		return nil, fmt.Errorf("%w: %s has no rows", ErrFormat, path)
	}
	for i, r := range s.Rows {
		if _, ok := Family(r.Dataset); !ok {
			hint := ""
			if r.Dataset == "OpenOrca" || r.Dataset == "GSM8K" || r.Dataset == "MBXP" {
				hint = "; it looks like the Mixtral-8x7B data set"
			}
			return nil, fmt.Errorf("%w: %s row %d: dataset %q is none of the references' evaluator families (%s)%s", ErrFormat, path, i, r.Dataset, strings.Join(Families, ", "), hint)
		}
		if len(r.TokInput) == 0 {
			return nil, fmt.Errorf("%w: %s row %d: no prompt ids in %s", ErrFormat, path, i, s.TokenColumn)
		}
	}
	return s, nil
}

func tokenColumn(has func(string) bool) string {
	for _, c := range []string{ColTokInput, ColInputTokens} {
		if has(c) {
			return c
		}
	}
	return ""
}

func missing(path string, cols []string, has func(string) bool) error {
	var want []string
	if !has(ColDataset) {
		want = append(want, ColDataset)
	}
	if !has(ColGroundTruth) && !has(ColGtOutput) {
		want = append(want, ColGroundTruth+" (or "+ColGtOutput+")")
	}
	if tokenColumn(has) == "" {
		want = append(want, ColTokInput+" (or "+ColInputTokens+")")
	}
	if len(want) == 0 {
		return nil
	}
	hint := ""
	switch {
	case has("system_prompt"):
		hint = "; it looks like the Llama 2 70B OpenOrca data set"
	case has("gt_output") && has("id"):
		hint = "; it looks like the Mixtral-8x7B data set"
	}
	return fmt.Errorf("%w: %s has no column %s (it has %s)%s", ErrFormat, path, strings.Join(want, ", "), strings.Join(cols, ", "), hint)
}

func readPickle(path string) (*Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reasoning: %w", err)
	}
	f, err := pickle.ReadDataFrame(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is neither a parquet file nor a pandas DataFrame pickle: %v", ErrFormat, path, err)
	}
	has := func(c string) bool { _, ok := f.Column(c); return ok }
	if err := missing(path, f.Names(), has); err != nil {
		return nil, err
	}
	s := &Set{Columns: f.Names(), TokenColumn: tokenColumn(has), Rows: make([]Row, f.Rows)}
	for i := range s.Rows {
		s.Rows[i].RefOutputLen = -1
	}
	text := func(name string, required bool, set func(*Row, string, bool)) error {
		c, ok := f.Column(name)
		if !ok {
			return nil
		}
		if c.Array != nil {
			if name == ColGroundTruth || name == ColGtOutput {
				v, err := c.Int64s()
				if err == nil {
					for i, x := range v {
						set(&s.Rows[i], strconv.FormatInt(x, 10), false)
					}
					return nil
				}
			}
			return fmt.Errorf("%w: %s: column %s holds %s, not text", ErrFormat, path, name, c.Dtype())
		}
		for i, v := range c.Objects {
			t, null, err := cellText(v)
			if err != nil || (null && required) {
				if err == nil {
					err = errors.New("holds None")
				}
				return fmt.Errorf("%w: %s: column %s row %d %v", ErrFormat, path, name, i, err)
			}
			set(&s.Rows[i], t, null)
		}
		return nil
	}
	gt := ColGroundTruth
	if !has(gt) {
		gt = ColGtOutput
	}
	for _, step := range []error{
		text(ColDataset, true, func(r *Row, t string, _ bool) { r.Dataset = t }),
		text(gt, false, func(r *Row, t string, null bool) { r.GroundTruth, r.GroundTruthNull = t, null }),
		text(ColQuestion, false, func(r *Row, t string, _ bool) { r.Question = t }),
		text(ColTextInput, false, func(r *Row, t string, _ bool) { r.TextInput = t }),
		text(ColRefOutput, false, func(r *Row, t string, _ bool) { r.RefOutput = t }),
	} {
		if step != nil {
			return nil, step
		}
	}
	c, _ := f.Column(s.TokenColumn)
	lists, err := c.IntLists()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	for i, l := range lists {
		ids := make([]int32, len(l))
		for j, v := range l {
			if v < 0 || v > math.MaxInt32 {
				return nil, fmt.Errorf("%w: %s: column %s row %d: token id %d", ErrFormat, path, s.TokenColumn, i, v)
			}
			ids[j] = int32(v)
		}
		s.Rows[i].TokInput = ids
	}
	if c, ok := f.Column(ColTokRefOutputLen); ok {
		if v, err := c.Int64s(); err == nil {
			for i, x := range v {
				s.Rows[i].RefOutputLen = x
			}
		}
	}
	return s, nil
}

// cellText is an object cell as the references use it as text: a str, or
// (answers may be numbers) an int or a float as Python's str() prints it;
// None and NaN are null.
func cellText(v any) (string, bool, error) {
	switch x := v.(type) {
	case string:
		return x, false, nil
	case int64:
		return strconv.FormatInt(x, 10), false, nil
	case float64:
		if math.IsNaN(x) {
			return "", true, nil
		}
		return pynum.FloatRepr(x), false, nil
	case pickle.Scalar:
		return cellText(x.Value)
	case nil:
		return "", true, nil
	}
	return "", false, fmt.Errorf("holds a %T, not text", v)
}

func readParquet(path string) (*Set, error) {
	p, err := parquetframe.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	defer p.Close()
	if err := missing(path, p.Columns(), p.Has); err != nil {
		return nil, err
	}
	s := &Set{Columns: p.Columns(), TokenColumn: tokenColumn(p.Has), Rows: make([]Row, p.Len()), Parquet: true}
	for i := range s.Rows {
		s.Rows[i].RefOutputLen = -1
	}
	text := func(name string, set func(*Row, string, bool)) error {
		if !p.Has(name) {
			return nil
		}
		switch p.Kind(name) {
		case "int":
			v, null, err := p.Ints(name)
			if err != nil {
				return err
			}
			for i := range v {
				set(&s.Rows[i], strconv.FormatInt(v[i], 10), null[i])
			}
			return nil
		case "float":
			v, null, err := p.Floats(name)
			if err != nil {
				return err
			}
			for i := range v {
				set(&s.Rows[i], pynum.FloatRepr(v[i]), null[i] || math.IsNaN(v[i]))
			}
			return nil
		}
		v, null, err := p.Strings(name)
		if err != nil {
			return err
		}
		for i := range v {
			set(&s.Rows[i], v[i], null[i])
		}
		return nil
	}
	gt := ColGroundTruth
	if !p.Has(gt) {
		gt = ColGtOutput
	}
	for _, step := range []error{
		text(ColDataset, func(r *Row, t string, _ bool) { r.Dataset = t }),
		text(gt, func(r *Row, t string, null bool) { r.GroundTruth, r.GroundTruthNull = t, null }),
		text(ColQuestion, func(r *Row, t string, _ bool) { r.Question = t }),
		text(ColTextInput, func(r *Row, t string, _ bool) { r.TextInput = t }),
		text(ColRefOutput, func(r *Row, t string, _ bool) { r.RefOutput = t }),
	} {
		if step != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, step)
		}
	}
	ids, err := p.IntLists(s.TokenColumn)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	for i, l := range ids {
		for _, id := range l {
			if id < 0 {
				return nil, fmt.Errorf("%w: %s: column %s row %d: token id %d", ErrFormat, path, s.TokenColumn, i, id)
			}
		}
		s.Rows[i].TokInput = l
	}
	if p.Kind(ColTokRefOutputLen) == "int" {
		if v, null, err := p.Ints(ColTokRefOutputLen); err == nil {
			for i := range v {
				if !null[i] {
					s.Rows[i].RefOutputLen = v[i]
				}
			}
		}
	}
	return s, nil
}

// WritePickle writes rows as a DataFrame pickle (pandas' to_pickle) with
// the columns dataset, question, ground_truth, text_input, tokens (the
// token column named tokens: tok_input or input_tokens) and its _len.
func WritePickle(w io.Writer, rows []Row, tokens string) error {
	if len(rows) == 0 {
		return errors.New("reasoning: no rows to write")
	}
	str := func(f func(Row) string) []any {
		c := make([]any, len(rows))
		for i, r := range rows {
			c[i] = f(r)
		}
		return c
	}
	ids := make([]any, len(rows))
	lens := make([]int64, len(rows))
	for i, r := range rows {
		l := make([]int64, len(r.TokInput))
		for j, v := range r.TokInput {
			l[j] = int64(v)
		}
		ids[i], lens[i] = l, int64(len(l))
	}
	cols := []pickle.WriteColumn{
		{Name: ColDataset, Cells: str(func(r Row) string { return r.Dataset })},
		{Name: ColQuestion, Cells: str(func(r Row) string { return r.Question })},
		{Name: ColGroundTruth, Cells: str(func(r Row) string { return r.GroundTruth })},
		{Name: ColTextInput, Cells: str(func(r Row) string { return r.TextInput })},
		{Name: tokens, Cells: ids},
		{Name: tokens + "_len", Ints: lens},
	}
	if err := pickle.WriteDataFrame(w, cols); err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	return nil
}

// parquetRow is a row as WriteParquet writes it (input_tokens).
type parquetRow struct {
	Dataset        string  `parquet:"dataset"`
	Question       string  `parquet:"question"`
	GroundTruth    string  `parquet:"ground_truth"`
	TextInput      string  `parquet:"text_input"`
	InputTokens    []int64 `parquet:"input_tokens,list"`
	InputTokensLen int64   `parquet:"input_tokens_len"`
}

// WriteParquet writes rows as a parquet file as pyarrow writes a
// DataFrame (lists as 3-level LIST of int64), with the columns dataset,
// question, ground_truth, text_input, input_tokens and input_tokens_len.
func WriteParquet(w io.Writer, rows []Row) error {
	if len(rows) == 0 {
		return errors.New("reasoning: no rows to write")
	}
	out := make([]parquetRow, len(rows))
	for i, r := range rows {
		l := make([]int64, len(r.TokInput))
		for j, v := range r.TokInput {
			l[j] = int64(v)
		}
		out[i] = parquetRow{Dataset: r.Dataset, Question: r.Question, GroundTruth: r.GroundTruth, TextInput: r.TextInput, InputTokens: l, InputTokensLen: int64(len(l))}
	}
	pw := parquet.NewGenericWriter[parquetRow](w)
	if _, err := pw.Write(out); err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	return nil
}

// WriteFile writes rows to path, a parquet file when path ends in
// .parquet and a pickle (token column tok_input) otherwise, through a
// temporary file in its folder renamed when complete.
func WriteFile(path string, rows []Row) error {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	var err error
	if strings.HasSuffix(path, ".parquet") {
		err = WriteParquet(bw, rows)
	} else {
		err = WritePickle(bw, rows, ColTokInput)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	f, err := os.CreateTemp(dir, ".reasoning-*")
	if err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("reasoning: %w", err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("reasoning: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("reasoning: %w", err)
	}
	return nil
}
