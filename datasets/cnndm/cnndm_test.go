package cnndm

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadWriteRoundTrip(t *testing.T) {
	recs := []Record{
		{Instruction: Instruction, Input: "(CNN) -- Zoë said: \"hi\" \\ tab\there\nline €5 \u0001 \b\f\r — done.", Output: "One .\nTwo ."},
		{Instruction: Instruction, Input: "<b>&amp;</b> \u2028", Output: "x"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, recs); err != nil {
		t.Fatal(err)
	}
	// Python: json.dump(recs, f, indent=4, ensure_ascii=False)
	want := "[\n    {\n        \"instruction\": \"Summarize the following news article:\",\n" +
		"        \"input\": \"(CNN) -- Zoë said: \\\"hi\\\" \\\\ tab\\there\\nline €5 \\u0001 \\b\\f\\r — done.\",\n" +
		"        \"output\": \"One .\\nTwo .\"\n    },\n    {\n" +
		"        \"instruction\": \"Summarize the following news article:\",\n" +
		"        \"input\": \"<b>&amp;</b> \u2028\",\n        \"output\": \"x\"\n    }\n]"
	if buf.String() != want {
		t.Fatalf("written:\n%s\nwant:\n%s", buf.String(), want)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, recs) {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestReadBad(t *testing.T) {
	for _, tc := range []struct{ name, in, msg string }{
		{"empty file", "", "EOF"},
		{"object", `{"instruction": "a"}`, "want a JSON array"},
		{"empty array", `[]`, "no records"},
		{"missing output", `[{"instruction": "a", "input": "b"}]`, `record 0 has no "output" field`},
		{"number field", `[{"instruction": "a", "input": "b", "output": "c"}, {"instruction": "a", "input": 3, "output": "c"}]`, `record 1: "input" is not a string`},
		{"null field", `[{"instruction": "a", "input": null, "output": "c"}]`, `"input" is not a string`},
		{"truncated", `[{"instruction": "a", "input": "b", "output": "c"}, {"instr`, "record 1"},
		{"not objects", `["a"]`, "record 0"},
		{"trailing data", `[{"instruction": "a", "input": "b", "output": "c"}] []`, "data after the array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "f.json")
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "cnndm: ") {
				t.Fatalf("err %v, want %q", err, tc.msg)
			}
		})
	}
}

func TestLoadAndVerify(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Fatalf("missing file: %v", err)
	}
	recs, err := Synth(SmallSynth)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	if err := WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir) // a folder means its cnn_eval.json
	if err != nil || !slices.Equal(got, recs) {
		t.Fatalf("load: %v", err)
	}
	rep, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	sum := md5.Sum(b)
	if rep.Records != len(recs) || rep.Complete || rep.MD5 != hex.EncodeToString(sum[:]) || rep.ArticleChars == 0 {
		t.Fatalf("report %+v", rep)
	}
	recs[3].Instruction = "Summarise this:"
	WriteFile(path, recs)
	if _, err := Verify(path); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "record 3 has instruction") {
		t.Fatalf("bad instruction: %v", err)
	}
}

func TestSynth(t *testing.T) {
	a, err := Synth(SmallSynth)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synth(SmallSynth)
	if !slices.Equal(a, b) || len(a) != SmallSynth.Records {
		t.Fatal("synth is not deterministic or has the wrong size")
	}
	c := SmallSynth
	c.Seed++
	if d, _ := Synth(c); slices.Equal(a, d) {
		t.Fatal("seed ignored")
	}
	var long, nonASCII int
	for i, r := range a {
		if r.Instruction != Instruction || r.Input == "" || !strings.Contains(r.Output, " .\n") {
			t.Fatalf("record %d: %+v", i, r)
		}
		if len(r.Input) > 12000 { // well over 1919 GPT-2 tokens (gptj tests count them)
			long++
		}
		if utf8.RuneCountInString(r.Input) != len(r.Input) {
			nonASCII++
		}
	}
	if long != 2 || nonASCII < len(a)/2 {
		t.Fatalf("%d long articles, %d with non-ASCII text", long, nonASCII)
	}
	if _, err := Synth(SynthConfig{Records: 0}); err == nil {
		t.Fatal("empty config accepted")
	}
}

func TestCalibrationList(t *testing.T) {
	b, err := os.ReadFile("calibration-list.txt")
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(b)
	if hex.EncodeToString(sum[:]) != CalibrationListMD5 {
		t.Fatalf("calibration-list.txt md5 %x", sum)
	}
	ids := CalibrationList()
	if len(ids) != CalibrationRecords || len(ids[0]) != 40 || ids[0] != "eceaa658027ad9625f832368198e11bd2fa38977" {
		t.Fatalf("%d ids, first %q", len(ids), ids[0])
	}
}
