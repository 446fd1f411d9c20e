package mixtral

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/synth.pkl")

// pandasView is what testdata/make_goldens.py says pandas holds.
type pandasView struct {
	Rows    int
	Columns []struct {
		Name   string
		Dtype  string
		Values []any
	}
}

func readView(t *testing.T, path string) pandasView {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v pandasView
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// column returns pandas' values of a column as Go values: strings, ints,
// and int lists.
func (v pandasView) column(t *testing.T, name string) []any {
	t.Helper()
	for _, c := range v.Columns {
		if c.Name == name {
			return c.Values
		}
	}
	t.Fatalf("pandas shows no column %q", name)
	return nil
}

func ids(l any) []int32 {
	var out []int32
	for _, x := range l.([]any) {
		out = append(out, int32(x.(float64)))
	}
	return out
}

// checkAgainstPandas compares every sample field with pandas' view.
func checkAgainstPandas(t *testing.T, d *Dataset, v pandasView) {
	t.Helper()
	if d.Len() != v.Rows {
		t.Fatalf("%d rows, pandas %d", d.Len(), v.Rows)
	}
	var names []string
	for _, c := range v.Columns {
		names = append(names, c.Name)
	}
	if !slices.Equal(d.Columns, names) {
		t.Fatalf("columns %v, pandas %v", d.Columns, names)
	}
	str := func(x any) string {
		if x == nil {
			return ""
		}
		return x.(string)
	}
	for i, s := range d.Samples {
		for name, got := range map[string]string{ColDataset: s.Dataset, ColID: s.ID, ColInput: s.Input, ColGtOutput: s.GtOutput, ColQuestion: s.Question, ColRefOutput: s.RefOutput, ColStopSequence: s.StopSequence} {
			if want := str(v.column(t, name)[i]); got != want {
				t.Errorf("row %d %s: %q, pandas %q", i, name, got, want)
			}
		}
		for name, got := range map[string][]int32{ColTokInput: s.TokInput, ColTokRefOutput: s.TokRefOutput, ColTokStopSequence: s.TokStopSequence} {
			if want := ids(v.column(t, name)[i]); !slices.Equal(got, want) {
				t.Errorf("row %d %s: %v, pandas %v", i, name, got, want)
			}
		}
		for _, name := range []string{ColTokInputLen, ColTokRefOutputLen} {
			if got, want := d.lengths[name][i], int64(v.column(t, name)[i].(float64)); got != want {
				t.Errorf("row %d %s: %d, pandas %d", i, name, got, want)
			}
		}
	}
}

// TestLoadReadsWhatPandasHolds: a DataFrame built as the reference's
// hf_eval_all.py leaves the official file (unconsolidated blocks after
// drops, renames and new columns; a None question; a numpy array cell;
// an integer row index) reads as pandas reads it.
func TestLoadReadsWhatPandasHolds(t *testing.T) {
	d, err := Load("testdata/official_like.pkl")
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstPandas(t, d, readView(t, "testdata/official_like.json"))
	if got := d.ByDataset(); got[OpenOrca] != 2 || got[GSM8K] != 1 || got[MBXP] != 2 {
		t.Fatalf("per data set %v", got)
	}
}

// TestSynthIsWhatPandasReads: Write's bytes for a fixed synth are those
// of testdata/synth.pkl, which pandas reads as testdata/synth.json says
// (make_goldens.py --read), and Load reads them back to the same samples.
func TestSynthIsWhatPandasReads(t *testing.T) {
	samples, err := Synth(SynthConfig{Samples: 7, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, samples); err != nil {
		t.Fatal(err)
	}
	if *update {
		os.WriteFile("testdata/synth.pkl", buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile("testdata/synth.pkl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatal("Write's bytes differ from testdata/synth.pkl, the file pandas read: rerun with -update and redo synth.json")
	}
	d, err := Load("testdata/synth.pkl")
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstPandas(t, d, readView(t, "testdata/synth.json"))
	if !reflect.DeepEqual(d.Samples, samples) {
		t.Fatal("samples read back differ from those written")
	}
}

func TestSynthRoundTripAndShape(t *testing.T) {
	samples, err := Synth(SynthConfig{Samples: 36, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "synth.pkl")
	if err := WriteFile(path, samples); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Samples, samples) || !slices.Equal(d.Columns, Columns) {
		t.Fatal("round trip changed the samples or the columns")
	}
	langs := map[string]bool{}
	for _, s := range samples {
		if s.TokInput[0] != 1 || len(s.TokInput) < 3 {
			t.Fatalf("%s: tok_input %v", s.ID, s.TokInput)
		}
		if s.Dataset == MBXP {
			lang, _, _ := strings.Cut(s.ID, "_")
			langs[lang] = true
			if !strings.HasSuffix(s.RefOutput, "\n```\n") || !strings.Contains(s.RefOutput, s.Question) {
				t.Fatalf("%s: reference output %q", s.ID, s.RefOutput)
			}
		}
		if s.Dataset == GSM8K && !strings.HasSuffix(s.RefOutput, "The answer is "+s.GtOutput+".") {
			t.Fatalf("%s: %q for %s", s.ID, s.RefOutput, s.GtOutput)
		}
	}
	if d.ByDataset()[MBXP] != 12 || len(langs) != 6 {
		t.Fatalf("%v, MBXP languages %v", d.ByDataset(), langs)
	}
	r, err := Verify(path)
	if err != nil || len(r.Problems) != 0 || r.Official != "" {
		t.Fatalf("verify a synth: %+v %v", r, err)
	}
	if p := OfficialProblem(r, false); !strings.Contains(p, "not that of the official validation file") {
		t.Fatalf("official problem %q", p)
	}
	if !strings.Contains(r.String(), "36 rows (OpenOrca 12, GSM8K 12, MBXP 12)") {
		t.Fatalf("report %q", r)
	}
	other, _ := Synth(SynthConfig{Samples: 36, Seed: 8})
	if reflect.DeepEqual(other, samples) {
		t.Fatal("the seed changes nothing")
	}
	if _, err := Synth(SynthConfig{Samples: -1}); err == nil {
		t.Fatal("negative samples accepted")
	}
}

// TestVerifyFindsProblems: an official name with another MD5, length
// columns that disagree, ids outside the vocabulary, a bad MBXP id.
func TestVerifyFindsProblems(t *testing.T) {
	samples, _ := Synth(SynthConfig{Samples: 6})
	samples[0].TokInput[1] = Vocab + 5
	samples[2].ID = "nolanguage"
	path := filepath.Join(t.TempDir(), FileName)
	if err := WriteFile(path, samples); err != nil {
		t.Fatal(err)
	}
	r, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(r.Problems, "\n")
	for _, want := range []string{"not the official " + MD5, "token id 32005", `MBXP id "nolanguage"`} {
		if !strings.Contains(all, want) {
			t.Errorf("no problem %q in\n%s", want, all)
		}
	}
	// tok_input_len disagreeing with tok_input: the pandas-made file with
	// one list shortened by the Go writer.
	d, _ := Load("testdata/official_like.pkl")
	d.lengths[ColTokInputLen][1] = 99
	var probs []string
	checkLengths(d, func(f string, a ...any) { probs = append(probs, fmt.Sprintf(f, a...)) })
	if len(probs) != 1 || !strings.Contains(probs[0], "row 1: tok_input_len 99, but tok_input has 2 ids") {
		t.Fatalf("length problems %v", probs)
	}
}

// TestBadFilesSayWhatIsWrong: a pickle of another data set, of something
// that is not a DataFrame, truncated, a folder, a missing file, rows of an
// unknown data set or without tokens.
func TestBadFilesSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	good, _ := os.ReadFile("testdata/official_like.pkl")
	unknown, _ := Synth(SynthConfig{Samples: 3})
	unknown[1].Dataset = "HumanEval"
	var ub bytes.Buffer
	Write(&ub, unknown)
	empty, _ := Synth(SynthConfig{Samples: 3})
	empty[2].TokInput = []int32{}
	var eb bytes.Buffer
	Write(&eb, empty)
	for _, c := range []struct {
		path, want string
	}{
		{"testdata/llama2_openorca.pkl", "no column dataset, gt_output (it has id, system_prompt, question, output, input, tok_input, tok_output, origin); it looks like the Llama 2 70B OpenOrca data set"},
		{write("series.pkl", []byte("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00]\x94(K\x01K\x02e.")), "the pickle holds a list, not a pandas DataFrame"},
		{write("cut.pkl", good[:len(good)/2]), "truncated"},
		{write("text.pkl", []byte("dataset,id\nGSM8K,1\n")), "not the Mixtral-8x7B data set"},
		{write("unknown.pkl", ub.Bytes()), `row 1: dataset "HumanEval"`},
		{write("empty.pkl", eb.Bytes()), "column tok_input row 2: no token"},
		{dir, "is not a regular file"},
		{filepath.Join(dir, "missing.pkl"), "download_dataset.sh"},
	} {
		_, err := Load(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", filepath.Base(c.path), err, c.want)
		}
		if err != nil && c.path != filepath.Join(dir, "missing.pkl") && !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v does not wrap ErrFormat", c.path, err)
		}
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "x.pkl"), unknown); err == nil {
		t.Error("WriteFile into a missing folder succeeded")
	}
	if err := Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("Write of no samples succeeded")
	}
}

func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/official_like.pkl", "testdata/synth.pkl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "x.pkl")
		os.WriteFile(p, b, 0o644)
		Load(p) // must not panic or hang
	})
}

// BenchmarkLoadFullSize loads a file of the official size: 15,000 rows
// with 600 prompt ids each (the official file is 71 MB).
func BenchmarkLoadFullSize(b *testing.B) {
	samples, err := Synth(SynthConfig{Samples: Rows, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for i := range samples {
		ids := make([]int32, 600)
		for j := range ids {
			ids[j] = int32((i*31 + j*7) % Vocab)
		}
		samples[i].TokInput = ids
	}
	path := filepath.Join(b.TempDir(), "full.pkl")
	if err := WriteFile(path, samples); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTrimOutputMatchesReference: the golden is what dataset.py's own
// remove_trailing_twos and mbxp_stop made of the same ids
// (testdata/make_trim_golden.py).
func TestTrimOutputMatchesReference(t *testing.T) {
	b, err := os.ReadFile("testdata/trim_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ IDs, Other, MBXP []int32 }
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		in := slices.Clone(c.IDs)
		for _, ds := range []string{OpenOrca, GSM8K} {
			if got := TrimOutput(ds, in); !slices.Equal(got, c.Other) && !(len(got) == 0 && len(c.Other) == 0) {
				t.Errorf("%s %v: %v, want %v", ds, c.IDs, got, c.Other)
			}
		}
		if got := TrimOutput(MBXP, in); !slices.Equal(got, c.MBXP) && !(len(got) == 0 && len(c.MBXP) == 0) {
			t.Errorf("MBXP %v: %v, want %v", c.IDs, got, c.MBXP)
		}
		if !slices.Equal(in, c.IDs) && !(len(in) == 0 && len(c.IDs) == 0) {
			t.Errorf("TrimOutput changed its input %v to %v", c.IDs, in)
		}
	}
}
