package cnndm

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLlama3FormatMatchesPython: the writer reproduces Python's json.dump
// of download_cnndm.py byte for byte (testdata/gen_llama3_format.py), and
// the reader gives the records back.
func TestLlama3FormatMatchesPython(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "llama3_format.json"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadLlama3(bytes.NewReader(want), "llama3_format.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Instruction != Llama3Template || !slices.Equal(recs[0].TokInput, []int32{128000, 9906, 1917, 0}) ||
		!strings.Contains(recs[0].Input, "\x01ctl\r\n") || recs[1].Output != "Short ." {
		t.Fatalf("read %+v", recs)
	}
	var got bytes.Buffer
	if err := WriteLlama3(&got, recs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("written:\n%s\nPython:\n%s", got.Bytes(), want)
	}
}

func TestLlama3Prompt(t *testing.T) {
	got := Llama3Prompt("Body {input} text.")
	want := "Summarize the following news article in 128 tokens. Please output the summary only, without any other text.\n\nArticle:\nBody {input} text.\n\nSummary:"
	if got != want {
		t.Errorf("prompt %q", got)
	}
}

// fakeEncode stands for the tokenizer: BOS then one id per byte.
func fakeEncode(s string) []int32 {
	out := []int32{128000}
	for i := 0; i < len(s); i++ {
		out = append(out, int32(s[i]))
	}
	return out
}

func TestLlama3SynthVerify(t *testing.T) {
	recs, err := SynthLlama3(Llama3SmallSynth, fakeEncode)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := WriteLlama3File(path, recs); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyLlama3(path, Llama3Check{Vocab: 128256, BOS: 128000, Encode: fakeEncode})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != Llama3SmallSynth.Records || rep.Datacenter || rep.Edge || !rep.Retokenized || rep.MaxPrompt < 300 || len(rep.MD5) != 32 {
		t.Errorf("report %+v", rep)
	}
	again, err := SynthLlama3(Llama3SmallSynth, fakeEncode)
	if err != nil || !slices.EqualFunc(recs, again, func(a, b Llama3Record) bool { return a.Input == b.Input && slices.Equal(a.TokInput, b.TokInput) }) {
		t.Error("synth is not deterministic")
	}
	if got := Llama3Path(filepath.Dir(path), FileName); got != path {
		t.Errorf("folder resolved to %s", got)
	}

	// each broken record is named
	for name, mut := range map[string]func(r *Llama3Record){
		"template":     func(r *Llama3Record) { r.Instruction = Instruction },
		"no BOS":       func(r *Llama3Record) { r.TokInput[0] = 1 },
		"outside":      func(r *Llama3Record) { r.TokInput[3] = 128256 },
		"retokenized":  func(r *Llama3Record) { r.TokInput = r.TokInput[:len(r.TokInput)-1] },
		"empty output": func(r *Llama3Record) { r.Output = " " },
	} {
		bad := slices.Clone(recs)
		bad[5].TokInput = slices.Clone(bad[5].TokInput)
		mut(&bad[5])
		if err := WriteLlama3File(path, bad); err != nil {
			t.Fatal(err)
		}
		_, err := VerifyLlama3(path, Llama3Check{Vocab: 128256, BOS: 128000, Encode: fakeEncode})
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "record 5") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestReadLlama3RefusesOtherShapes(t *testing.T) {
	gptj, err := os.CreateTemp(t.TempDir(), "gptj*.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(gptj, []Record{{Instruction: Instruction, Input: "a", Output: "b"}}); err != nil {
		t.Fatal(err)
	}
	gptj.Close()
	if _, err := LoadLlama3(gptj.Name()); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "instruction") {
		t.Errorf("GPT-J file: %v", err)
	}
	ok := `{"instruction":{"llama":"t"},"input":"a","output":"b","tok_input":[128000,5]}`
	for name, body := range map[string]string{
		"empty":       `[]`,
		"object":      `{}`,
		"no ids":      `[{"instruction":{"llama":"t"},"input":"a","output":"b","tok_input":[]}]`,
		"float id":    `[{"instruction":{"llama":"t"},"input":"a","output":"b","tok_input":[1.5]}]`,
		"negative id": `[{"instruction":{"llama":"t"},"input":"a","output":"b","tok_input":[-1]}]`,
		"huge id":     `[{"instruction":{"llama":"t"},"input":"a","output":"b","tok_input":[4294967296]}]`,
		"null input":  `[{"instruction":{"llama":"t"},"input":null,"output":"b","tok_input":[1]}]`,
		"other key":   `[{"instruction":{"mixtral":"t"},"input":"a","output":"b","tok_input":[1]}]`,
		"truncated":   `[` + ok + `,` + ok[:30],
		"trailing":    `[` + ok + `] x`,
	} {
		if _, err := ReadLlama3(strings.NewReader(body), name); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadLlama3(filepath.Join(t.TempDir(), "absent.json")); err == nil || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadLlama3(t.TempDir()); err == nil {
		t.Error("read a folder")
	}
}
