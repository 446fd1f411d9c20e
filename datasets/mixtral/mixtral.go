// Package mixtral reads and writes the Mixtral-8x7B data set of MLPerf
// Inference: 15,000 prompts, 5,000 each from OpenOrca (GPT-4 answers),
// GSM8K (math word problems, 5-shot) and MBXP (code completion), as the
// pandas DataFrame pickle the reference ships
// (09292024_mixtral_15k_mintoken2_v1.pkl; mlcommons/inference
// language/mixtral-8x7b/dataset.py reads it with pd.read_pickle), and the
// 1,000-prompt calibration set in the same format.
//
// The official file is read as it is, with internal/pickle (no
// conversion step, no Python): the DataFrame's columns, as the reference
// uses them,
//
//	dataset     "OpenOrca", "GSM8K" or "MBXP": which scorer a row goes to
//	id          the source id; for MBXP "<language>_<entry point>"
//	input       the Mixtral chat prompt (text)
//	tok_input   list of ints: the prompt ids the SUT runs, verbatim
//	gt_output   the reference answer (ROUGE target), the GSM8K answer, or the MBXP test code
//
// are required; question, ref_output, tok_ref_output, stop_sequence,
// tok_stop_sequence, tok_input_len and tok_ref_output_len are read when
// present. Row i is qsl_idx i.
package mixtral

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/pickle"
	"github.com/mlperf-go/inference/internal/pynum"
)

// The official files (URLs of the reference README; MD5 sums as NVIDIA's
// MLPerf Inference v5.0 submission checks them, download_mixtral_8x7b.sh).
const (
	FileName            = "09292024_mixtral_15k_mintoken2_v1.pkl"
	MD5                 = "ded6c711288c9bbca02929855557b8c1"
	URL                 = "https://inference.mlcommons-storage.org/mixtral_8x7b/09292024_mixtral_15k_mintoken2_v1.pkl"
	CalibrationFileName = "2024.06.06_mixtral_15k_calibration_v4.pkl"
	CalibrationMD5      = "75067c9fe5cb5baef216a4b124c61df1"
	CalibrationURL      = "https://inference.mlcommons-storage.org/mixtral_8x7b%2F2024.06.06_mixtral_15k_calibration_v4.pkl"
	// Rows and PerDataset are the shape of the official file;
	// CalibrationRows that of the calibration set.
	Rows            = 15000
	PerDataset      = 5000
	CalibrationRows = 1000
	// Vocab is the Mixtral tokenizer's vocabulary size.
	Vocab = 32000
)

// The three source data sets, as the dataset column names them.
const (
	OpenOrca = "OpenOrca"
	GSM8K    = "GSM8K"
	MBXP     = "MBXP"
)

// Datasets lists the source data sets.
var Datasets = []string{OpenOrca, GSM8K, MBXP}

// Column names.
const (
	ColDataset         = "dataset"
	ColID              = "id"
	ColQuestion        = "question"
	ColInput           = "input"
	ColGtOutput        = "gt_output"
	ColTokInput        = "tok_input"
	ColStopSequence    = "stop_sequence"
	ColTokStopSequence = "tok_stop_sequence"
	ColTokInputLen     = "tok_input_len"
	ColRefOutput       = "ref_output"
	ColTokRefOutput    = "tok_ref_output"
	ColTokRefOutputLen = "tok_ref_output_len"
)

// Columns lists the columns of the official file, in the order the
// reference's standalone_infer/hf_eval_all.py leaves them.
var Columns = []string{ColDataset, ColID, ColQuestion, ColInput, ColGtOutput, ColTokInput, ColStopSequence, ColTokStopSequence, ColTokInputLen, ColRefOutput, ColTokRefOutput, ColTokRefOutputLen}

// Required are the columns the benchmark needs.
var Required = []string{ColDataset, ColID, ColInput, ColTokInput, ColGtOutput}

// ErrFormat is wrapped by errors about a file that is not the Mixtral data
// set.
var ErrFormat = errors.New("mixtral: not the Mixtral-8x7B data set")

// fixHint says how to get a good file.
const fixHint = "download it with datasets/mixtral/download_dataset.sh (or write a synthetic one with mixtral.Synth and WriteFile)"

// Sample is one row.
type Sample struct {
	Dataset  string // OpenOrca, GSM8K or MBXP
	ID       string
	Input    string
	TokInput []int32
	GtOutput string
	// Optional columns ("" or nil when the file lacks them).
	Question, RefOutput, StopSequence string
	TokRefOutput, TokStopSequence     []int32
}

// Dataset is a loaded data set. Read-only after Load; safe for concurrent
// use.
type Dataset struct {
	Path    string
	Samples []Sample
	// Columns are the file's columns in its order.
	Columns []string
	lengths map[string][]int64 // tok_input_len, tok_ref_output_len
}

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.Samples) }

// Load reads a data set pickle (the official file, the calibration set, or
// one Synth wrote).
func Load(path string) (*Dataset, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w; %s", err, fixHint)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file; %s", ErrFormat, path, fixHint)
	}
	if fi.Size() > 4<<30 {
		return nil, fmt.Errorf("%w: %s is %d bytes, far above the official file's 71 MB", ErrFormat, path, fi.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	f, err := pickle.ReadDataFrame(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w; %s", ErrFormat, path, err, fixHint)
	}
	d, err := fromFrame(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	d.Path = path
	return d, nil
}

// fromFrame checks the columns and reads the samples.
func fromFrame(f *pickle.DataFrame) (*Dataset, error) {
	d := &Dataset{Columns: f.Names(), Samples: make([]Sample, f.Rows)}
	var missing []string
	for _, c := range Required {
		if _, ok := f.Column(c); !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		hint := ""
		if _, ok := f.Column("system_prompt"); ok {
			hint = "; it looks like the Llama 2 70B OpenOrca data set"
		} else if _, ok := f.Column("text_input"); ok {
			hint = "; it looks like a DeepSeek-R1 or Llama 3.1 data set"
		}
		return nil, fmt.Errorf("no column %s (it has %s)%s; %s", strings.Join(missing, ", "), strings.Join(d.Columns, ", "), hint, fixHint)
	}
	strs := func(name string, dst func(*Sample) *string) error {
		c, ok := f.Column(name)
		if !ok {
			return nil
		}
		if c.Array != nil {
			return fmt.Errorf("column %s holds %s, not text", name, c.Dtype())
		}
		optional := !slices.Contains(Required, name)
		for i, v := range c.Objects {
			if v == nil && optional {
				continue
			}
			s, err := text(v)
			if err != nil {
				return fmt.Errorf("column %s row %d %w", name, i, err)
			}
			*dst(&d.Samples[i]) = s
		}
		return nil
	}
	ids := func(name string, required bool, dst func(*Sample) *[]int32) error {
		c, ok := f.Column(name)
		if !ok {
			return nil
		}
		lists, err := c.IntLists()
		if err != nil {
			return err
		}
		for i, l := range lists {
			t := make([]int32, len(l))
			for j, v := range l {
				if v < 0 || v > math.MaxInt32 {
					return fmt.Errorf("column %s row %d: token id %d", name, i, v)
				}
				t[j] = int32(v)
			}
			if required && len(t) == 0 {
				return fmt.Errorf("column %s row %d: no token", name, i)
			}
			*dst(&d.Samples[i]) = t
		}
		return nil
	}
	for _, step := range []error{
		strs(ColDataset, func(s *Sample) *string { return &s.Dataset }),
		strs(ColID, func(s *Sample) *string { return &s.ID }),
		strs(ColInput, func(s *Sample) *string { return &s.Input }),
		strs(ColGtOutput, func(s *Sample) *string { return &s.GtOutput }),
		strs(ColQuestion, func(s *Sample) *string { return &s.Question }),
		strs(ColRefOutput, func(s *Sample) *string { return &s.RefOutput }),
		strs(ColStopSequence, func(s *Sample) *string { return &s.StopSequence }),
		ids(ColTokInput, true, func(s *Sample) *[]int32 { return &s.TokInput }),
		ids(ColTokRefOutput, false, func(s *Sample) *[]int32 { return &s.TokRefOutput }),
		ids(ColTokStopSequence, false, func(s *Sample) *[]int32 { return &s.TokStopSequence }),
	} {
		if step != nil {
			return nil, step
		}
	}
	d.lengths = map[string][]int64{}
	for _, name := range []string{ColTokInputLen, ColTokRefOutputLen} {
		if c, ok := f.Column(name); ok {
			v, err := c.Int64s()
			if err != nil {
				return nil, err
			}
			d.lengths[name] = v
		}
	}
	for i, s := range d.Samples {
		if !slices.Contains(Datasets, s.Dataset) {
			return nil, fmt.Errorf("row %d: dataset %q (want OpenOrca, GSM8K or MBXP)", i, s.Dataset)
		}
	}
	return d, nil
}

// text is a cell as the reference uses it as a string: a str, or (gt_output
// of GSM8K rows may be numbers) an int or a float as Python's str() prints
// it.
func text(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return pynum.FloatRepr(x), nil
	case pickle.Scalar:
		return text(x.Value)
	case nil:
		return "", errors.New("holds None")
	}
	return "", fmt.Errorf("holds a %T, not text", v)
}

// ByDataset counts the samples of each source data set.
func (d *Dataset) ByDataset() map[string]int {
	m := map[string]int{}
	for _, s := range d.Samples {
		m[s.Dataset]++
	}
	return m
}
