package openorca

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/parquet-go/parquet-go"
)

// llamaTokenizer loads the Llama 2 tokenizer that make setup installs, or
// skips the test.
func llamaTokenizer(t testing.TB) *tokenizer.Llama {
	t.Helper()
	deps := os.Getenv("MLPERF_DEPS")
	if deps == "" {
		deps = filepath.Join("..", "..", ".deps")
	}
	tok, err := tokenizer.LoadLlama(filepath.Join(deps, "llama2"))
	if err != nil {
		t.Skipf("Llama 2 tokenizer not installed: %v", err)
	}
	return tok
}

func writeSynth(t *testing.T, cfg SynthConfig) (string, []Record) {
	t.Helper()
	tok := llamaTokenizer(t)
	recs, err := Synth(tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	return path, recs
}

func TestSynthRoundTrip(t *testing.T) {
	path, recs := writeSynth(t, SynthConfig{Samples: 9, Seed: 3})
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Len() != 9 {
		t.Fatalf("Len %d", d.Len())
	}
	for _, c := range Columns {
		if !d.HasColumn(c) {
			t.Errorf("column %s missing", c)
		}
	}
	got, err := d.Records()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("records differ after the round trip:\n%+v\n%+v", got[0], recs[0])
	}
	// a subset, out of order and repeated
	rows := []int{7, 2, 7, 0}
	toks, err := d.Tokens(ColTokInput, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if !slices.Equal(widen(toks[i]), recs[r].TokInput) {
			t.Errorf("row %d: %v, want %v", r, toks[i], recs[r].TokInput)
		}
	}
	if _, err := d.Tokens(ColTokInput, []int{9}); err == nil {
		t.Error("row 9 of 9: no error")
	}
	rep, err := Verify(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || rep.Rows != 9 || rep.Official || rep.Origins["cot"] != 3 || rep.Origins["t0"] != 2 {
		t.Fatalf("verify: %+v", rep)
	}
}

func TestSynthFormat(t *testing.T) {
	tok := llamaTokenizer(t)
	recs, err := Synth(tok, SmallSynth)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Synth(tok, SmallSynth)
	if !reflect.DeepEqual(recs, again) {
		t.Fatal("Synth is not deterministic")
	}
	lens := map[int]bool{}
	sawSystem, sawNone := false, false
	for i, r := range recs {
		in := r.TokInput
		if in[0] != 1 || in[1] != 1 || in[len(in)-1] != tokenizer.LlamaSpaceID || r.TokOutput[0] != 1 {
			t.Errorf("row %d: tok_input %v…%v, tok_output %v…", i, in[:4], in[len(in)-1], r.TokOutput[:2])
		}
		// "[INST]" is ▁[ INST ] = 518 25580 29962 in Llama 2's vocabulary
		if !slices.Equal(in[2:5], []int64{518, 25580, 29962}) {
			t.Errorf("row %d: prompt starts %v, want [INST] = 518 25580 29962", i, in[2:5])
		}
		if got := tok.Decode(toInt32(r.TokOutput), tokenizer.DecodeOptions{SkipSpecial: true}); got != r.Output {
			t.Errorf("row %d: tok_output decodes to %q, output %q", i, got, r.Output)
		}
		if r.SystemPrompt == "" {
			sawNone = true
			if !strings.HasPrefix(r.Input, "<s>[INST] ") || strings.Contains(r.Input, "<<SYS>>") {
				t.Errorf("row %d: input %q", i, r.Input)
			}
		} else {
			sawSystem = true
			if !strings.HasPrefix(r.Input, "<s>[INST] <<SYS>>\n"+r.SystemPrompt+"\n<</SYS>>\n\n") {
				t.Errorf("row %d: input %q", i, r.Input)
			}
		}
		if originOf(r.ID) != r.Origin {
			t.Errorf("row %d: id %s origin %s", i, r.ID, r.Origin)
		}
		lens[len(in)/16] = true
	}
	if len(lens) < 4 || !sawSystem || !sawNone {
		t.Errorf("not varied: %d length buckets, system prompts %v, none %v", len(lens), sawSystem, sawNone)
	}
}

func toInt32(x []int64) []int32 {
	out := make([]int32, len(x))
	for i, v := range x {
		out[i] = int32(v)
	}
	return out
}

// writeParquet writes rows of any struct type.
func writeParquet[T any](t *testing.T, rows []T) string {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInt32ListsAndExtraColumns(t *testing.T) {
	type row struct {
		Index    int64   `parquet:"__index_level_0__"`
		TokInput []int32 `parquet:"tok_input,list"`
		Output   *string `parquet:"output,optional"`
	}
	s := "answer"
	path := writeParquet(t, []row{{5, []int32{1, 2, 29871}, &s}, {9, nil, nil}, {3, []int32{7}, &s}})
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	toks, err := d.Tokens(ColTokInput, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(toks, [][]int32{{1, 2, 29871}, nil, {7}}) {
		t.Fatalf("tokens %v", toks)
	}
	out, err := d.Strings(ColOutput)
	if err != nil || !slices.Equal(out, []string{"answer", "", "answer"}) {
		t.Fatalf("output %q, %v", out, err)
	}
	rep, err := Verify(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) == 0 || !strings.Contains(strings.Join(rep.Problems, "\n"), "row 1: empty tok_input") {
		t.Fatalf("problems %q", rep.Problems)
	}
}

func TestBadFiles(t *testing.T) {
	type raw struct {
		ID           string `parquet:"id"`
		SystemPrompt string `parquet:"system_prompt"`
		Question     string `parquet:"question"`
		Response     string `parquet:"response"`
	}
	type wrongType struct {
		TokInput string `parquet:"tok_input"`
	}
	dir := t.TempDir()
	pkl := filepath.Join(dir, PickleName)
	os.WriteFile(pkl, []byte("\x80\x04\x95 not parquet"), 0o644)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"raw OpenOrca parquet", writeParquet(t, []raw{{"cot.1", "", "q", "r"}}), "has no tok_input column (columns: id, system_prompt, question, response); the benchmark runs the preprocessed prompt ids"},
		{"tok_input not a list", writeParquet(t, []wrongType{{"1 2 3"}}), "is not a list of integers"},
		{"pickle", pkl, "pandas pickle; convert it once to parquet"},
		{"missing", filepath.Join(dir, "none.parquet"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Open(tc.path)
			if err == nil {
				d.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "openorca: ") {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
			if tc.name != "missing" && !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
		})
	}
}

func TestVerifyFindsProblems(t *testing.T) {
	tok := llamaTokenizer(t)
	recs, err := Synth(tok, SynthConfig{Samples: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	recs[0].TokInput = recs[0].TokInput[:len(recs[0].TokInput)-1] // no 29871
	recs[1].TokInputLength++
	recs[2].Origin = "flan"                            // id says niv
	recs[3].TokInput = append(recs[3].TokInput, 40000) // outside the vocabulary
	path := filepath.Join(t.TempDir(), "bad.parquet")
	if err := WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rep, err := Verify(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(rep.Problems, "\n")
	for _, want := range []string{"row 0: tok_input ends with", "row 1: tok_input_length", `row 2: origin "flan" but id "niv.`, "row 3: tok_input id 40000 outside"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
}

// A damaged file (a flipped byte inside a page, or a cut tail) is named as
// damaged with the fix, whichever way the parquet reader trips.
func TestDamagedFileSaysHowToFixIt(t *testing.T) {
	type row struct {
		TokInput []int64 `parquet:"tok_input,list"`
	}
	rows := make([]row, 2000)
	for i := range rows {
		rows[i].TokInput = []int64{int64(i), int64(i * 7), 29871}
	}
	path := writeParquet(t, rows)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := 0
	for _, mut := range []func([]byte) []byte{
		func(b []byte) []byte { b[len(b)/3] ^= 0x5a; return b },
		func(b []byte) []byte { b[200] ^= 0xff; b[201] ^= 0xff; return b },
		func(b []byte) []byte { return b[:len(b)-40] },
		func(b []byte) []byte { return b[:len(b)/2] },
	} {
		b := mut(append([]byte(nil), good...))
		os.WriteFile(path, b, 0o644)
		d, err := Open(path)
		if err == nil {
			_, err = d.Tokens(ColTokInput, nil)
			d.Close()
		}
		if err == nil {
			continue // the flip hit bytes the reader does not check
		}
		damaged++
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "download_dataset.sh") {
			t.Errorf("error %q does not say the file is damaged and how to fix it", err)
		}
	}
	if damaged < 2 {
		t.Fatalf("only %d of 4 damaged files were noticed", damaged)
	}
}

// Any bytes given as the data set file open or fail with ErrFormat; none
// panics.
func FuzzOpen(f *testing.F) {
	type row struct {
		TokInput []int64 `parquet:"tok_input,list"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{[]int64{1, 2, 29871}}, {[]int64{7}}}); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "x.parquet")
		os.WriteFile(p, b, 0o644)
		d, err := Open(p)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		defer d.Close()
		if _, err := d.Tokens(ColTokInput, nil); err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("error without ErrFormat: %v", err)
		}
	})
}

// A damaged footer length is refused before the parquet reader allocates
// it (it would allocate up to 4 GiB).
func TestHugeFooterLengthIsRefusedCheaply(t *testing.T) {
	b := append([]byte("PAR1"), make([]byte, 100)...)
	b = append(b, 0x00, 0x94, 0x35, 0x77) // 2e9, little-endian
	b = append(b, "PAR1"...)
	p := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(p, b, 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Open(p)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "footer of 2000000000 bytes") {
		t.Fatalf("err = %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Fatalf("refusing allocated %d MB", d>>20)
	}
}

// A damaged byte in a column a run does not read (output, only scored in
// accuracy mode) is found when the file is opened: every page's CRC-32 is
// checked, and the error names the column.
func TestOpenChecksEveryPage(t *testing.T) {
	path, _ := writeSynth(t, SynthConfig{Samples: 9, Seed: 3})
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var off, size int64
	for i, c := range d.pf.Metadata().RowGroups[0].Columns {
		if d.pf.Schema().Columns()[i][0] == ColOutput {
			off, size = c.MetaData.DataPageOffset, c.MetaData.TotalCompressedSize
		}
	}
	d.Close()
	if size == 0 {
		t.Fatal("no output column chunk")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off+size-3] ^= 0x20 // inside the last page's data
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "column output is damaged") || !strings.Contains(err.Error(), "crc32 checksum mismatch") {
		t.Errorf("a flipped byte in the output column: %v", err)
	}
}
