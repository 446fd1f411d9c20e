package reasoning

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/parquet-go/parquet-go"
)

// TestReadsPandasPickle: a DataFrame pickle written by pandas in the
// official file's shape (numpy arrays and lists of ids, answers of mixed
// types, None and NaN) reads to the values make_goldens.py put in.
func TestReadsPandasPickle(t *testing.T) {
	s, err := Read("testdata/official_like.pkl")
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		Dataset     string  `json:"dataset"`
		GroundTruth string  `json:"ground_truth"`
		Null        bool    `json:"null"`
		Question    string  `json:"question"`
		TextInput   string  `json:"text_input"`
		TokInput    []int32 `json:"tok_input"`
		RefOutput   string  `json:"ref_output"`
		RefLen      int64   `json:"ref_len"`
	}
	b, err := os.ReadFile("testdata/official_like.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if s.Len() != len(want) || s.TokenColumn != ColTokInput || s.Parquet {
		t.Fatalf("%d rows, token column %s, parquet %v", s.Len(), s.TokenColumn, s.Parquet)
	}
	for i, w := range want {
		r := s.Rows[i]
		if r.Dataset != w.Dataset || r.GroundTruth != w.GroundTruth || r.GroundTruthNull != w.Null || r.Question != w.Question ||
			r.TextInput != w.TextInput || !slices.Equal(r.TokInput, w.TokInput) || r.RefOutput != w.RefOutput || r.RefOutputLen != w.RefLen {
			t.Errorf("row %d: %+v\nwant %+v", i, r, w)
		}
	}
	if got := s.ByDataset(); got["mmlu_pro"] != 2 || got["gpqa"] != 1 {
		t.Errorf("ByDataset %v", got)
	}
}

func sampleRows() []Row {
	return []Row{
		{Dataset: "aime25", GroundTruth: "70", Question: "Find it.", TextInput: "user: Find it.", TokInput: []int32{200006, 17360, 200008, 5, 200007}},
		{Dataset: "gpqa_diamond", GroundTruth: "B", Question: "Which?", TextInput: "user: Which?", TokInput: []int32{200006, 1428, 200008, 6, 7}},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"set.pkl", "set.parquet"} {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, sampleRows()); err != nil {
			t.Fatal(err)
		}
		s, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		wantCol := ColTokInput
		if strings.HasSuffix(name, ".parquet") {
			wantCol = ColInputTokens
		}
		if s.TokenColumn != wantCol || s.Parquet != strings.HasSuffix(name, ".parquet") {
			t.Errorf("%s: token column %s, parquet %v", name, s.TokenColumn, s.Parquet)
		}
		for i, w := range sampleRows() {
			r := s.Rows[i]
			if r.Dataset != w.Dataset || r.GroundTruth != w.GroundTruth || r.Question != w.Question || r.TextInput != w.TextInput || !slices.Equal(r.TokInput, w.TokInput) {
				t.Errorf("%s row %d: %+v, want %+v", name, i, r, w)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// pyarrowRow is a DataFrame as pyarrow writes one with int32 token lists,
// an integer answer column and pandas' index column.
type pyarrowRow struct {
	Dataset     string  `parquet:"dataset"`
	GroundTruth int64   `parquet:"ground_truth"`
	InputTokens []int32 `parquet:"input_tokens,list"`
	Index       int64   `parquet:"__index_level_0__"`
}

func TestReadsParquetWithIntAnswersAndInt32Lists(t *testing.T) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[pyarrowRow](&buf)
	if _, err := w.Write([]pyarrowRow{{"aime25", 70, []int32{1, 2, 3}, 0}, {"aime25", 588, []int32{4}, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "acc_eval_inputs.parquet")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows[1].GroundTruth != "588" || !slices.Equal(s.Rows[0].TokInput, []int32{1, 2, 3}) || s.Rows[0].RefOutputLen != -1 {
		t.Errorf("rows %+v", s.Rows)
	}
}

// TestRefusesOtherFiles: files that are not a reasoning data set (another
// benchmark's pickle, a damaged parquet, a folder, rows without ids or
// with negative ids) end in ErrFormat naming the file and what is wrong.
func TestRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	if err := WriteFile(good, sampleRows()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	cut := filepath.Join(dir, "cut.parquet")
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	flipped := filepath.Join(dir, "flipped.parquet")
	bad := slices.Clone(b)
	bad[len(bad)-6] ^= 0xff // footer length
	os.WriteFile(flipped, bad, 0o644)
	empty := filepath.Join(dir, "empty.pkl")
	rows := sampleRows()
	rows[1].TokInput = nil
	if err := WriteFile(empty, rows); err != nil {
		t.Fatal(err)
	}
	neg := filepath.Join(dir, "neg.pkl")
	rows = sampleRows()
	rows[0].TokInput = []int32{-5}
	if err := WriteFile(neg, rows); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"../mixtral/testdata/official_like.pkl": "Mixtral",
		"../openorca/testdata":                  "not a regular file",
		cut:                                     "cut.parquet",
		flipped:                                 "flipped.parquet",
		empty:                                   "row 1: no prompt ids",
		neg:                                     "token id -5",
	} {
		_, err := Read(path)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v (want ErrFormat and %q)", path, err, want)
		}
	}
	if _, err := Read(filepath.Join(dir, "none.pkl")); err == nil || !strings.Contains(err.Error(), "none.pkl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestFamilyAsTheReferencesMatch(t *testing.T) {
	for in, want := range map[string]string{"aime1983": "aime", "aime25": "aime", "gpqa_diamond": "gpqa", "livecodebench_v6": "livecodebench",
		"mmlu_pro": "mmlu_pro", "MMLU": "mmlu", "math500": "math500", "OpenOrca": "", "": ""} {
		got, ok := Family(in)
		if got != want || ok != (want != "") {
			t.Errorf("Family(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestQSLServesLoadedPromptsOnly: Prompt answers for loaded samples only,
// with the row's ids and text; --count cuts the set, beyond it is refused.
func TestQSLServesLoadedPromptsOnly(t *testing.T) {
	s := &Set{Path: "x", Rows: sampleRows()}
	q, err := NewQSL(s, 0, func(r Row) string { return "T:" + r.TextInput })
	if err != nil || q.TotalSampleCount() != 2 {
		t.Fatal(err)
	}
	if _, _, err := q.Prompt(1); err == nil {
		t.Error("an unloaded sample answered")
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{1, 1}); err != nil || q.Loaded() != 1 {
		t.Fatalf("%v, %d loaded", err, q.Loaded())
	}
	ids, text, err := q.Prompt(1)
	if err != nil || !slices.Equal(ids, sampleRows()[1].TokInput) || text != "T:user: Which?" {
		t.Errorf("%v %q %v", ids, text, err)
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{2}); err == nil {
		t.Error("sample 2 of 2 loaded")
	}
	q.UnloadSamples(context.Background(), []loadgen.SampleIndex{1})
	if _, _, err := q.Prompt(1); err == nil || q.Loaded() != 0 {
		t.Error("an unloaded sample answered")
	}
	if q, err := NewQSL(s, 1, nil); err != nil || q.TotalSampleCount() != 1 {
		t.Errorf("--count 1: %v", err)
	}
	if _, err := NewQSL(s, 3, nil); err == nil {
		t.Error("--count 3 of 2 accepted")
	}
}
