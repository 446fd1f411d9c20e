package cnndm

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The Llama 3.1 8B layout of the same validation split
// (mlcommons/inference language/llama3.1-8b: download_cnndm.py writes it,
// dataset.py reads it): a JSON array of objects
//
//	"instruction": {"llama": Llama3Template}
//	"input":       the article
//	"tok_input":   the prompt's Llama 3.1 token ids, <|begin_of_text|> first
//	"output":      the highlights (the ROUGE target)
//
// written by json.dump(..., indent=4, ensure_ascii=False). The datacenter
// benchmark reads all 13368 records of cnn_eval.json, the edge one the
// 5000 of sample_cnn_eval_5000.json. MLCommons publishes them through its
// R2 downloader (MD5 lists beside the metadata), no checksum elsewhere.
const (
	// Llama3EdgeFileName is the edge subset's file.
	Llama3EdgeFileName = "sample_cnn_eval_5000.json"
	// Llama3EdgeRecords is the edge subset's size (mlperf.conf's
	// llama3_1-8b-edge performance_sample_count_override).
	Llama3EdgeRecords = 5000
	// Llama3InstructionKey is the key of the template in "instruction".
	Llama3InstructionKey = "llama"
	// Llama3Template is download_cnndm.py's instruction_template["llama"];
	// {input} stands for the article.
	Llama3Template = "Summarize the following news article in 128 tokens. Please output the summary only, without any other text.\n\nArticle:\n{input}\n\nSummary:"
)

// Llama3Prompt returns the prompt of an article: Llama3Template with
// {input} replaced (Python's str.format_map).
func Llama3Prompt(article string) string {
	return strings.Replace(Llama3Template, "{input}", article, 1)
}

// Llama3Record is one article of the Llama 3.1 8B data set.
type Llama3Record struct {
	Instruction string  // the "llama" template
	Input       string  // the article
	TokInput    []int32 // the prompt's token ids
	Output      string  // the highlights
}

// Llama3Path resolves a file-or-folder argument: a folder means file
// inside it (FileName or Llama3EdgeFileName).
func Llama3Path(p, file string) string {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return filepath.Join(p, file)
	}
	return p
}

// LoadLlama3 reads the records of a Llama 3.1 8B data set file.
func LoadLlama3(path string) ([]Llama3Record, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cnndm: %s not found (get it with models/llama3/download_dataset.sh, or use --data synthetic): %w", path, err)
		}
		return nil, fmt.Errorf("cnndm: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("cnndm: %s is not a regular file", path)
	}
	return ReadLlama3(bufio.NewReaderSize(f, 1<<20), path)
}

// ReadLlama3 reads Llama 3.1 8B records from r; name is used in errors.
// Every element must be an object with "instruction" (an object with a
// "llama" string), "input" and "output" strings and "tok_input" a
// non-empty array of int32 ids; other keys are ignored.
func ReadLlama3(r io.Reader, name string) ([]Llama3Record, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%w: %s: want a JSON array of {instruction, input, tok_input, output} objects, found %v", ErrFormat, name, tok)
	}
	dec.UseNumber()
	var recs []Llama3Record
	for dec.More() {
		var raw struct {
			Instruction json.RawMessage `json:"instruction"`
			Input       *string         `json:"input"`
			TokInput    []json.Number   `json:"tok_input"`
			Output      *string         `json:"output"`
		}
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: %s: record %d: %v", ErrFormat, name, len(recs), err)
		}
		at := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s: record %d: %s", ErrFormat, name, len(recs), fmt.Sprintf(format, args...))
		}
		if raw.Input == nil || raw.Output == nil {
			return nil, at("\"input\" and \"output\" must be strings")
		}
		var ins map[string]string
		if err := json.Unmarshal(raw.Instruction, &ins); err != nil || ins == nil {
			return nil, at("\"instruction\" is not an object of strings (want {%q: template})", Llama3InstructionKey)
		}
		tmpl, ok := ins[Llama3InstructionKey]
		if !ok {
			return nil, at("\"instruction\" has no %q template", Llama3InstructionKey)
		}
		if len(raw.TokInput) == 0 {
			return nil, at("no \"tok_input\" ids (is this the GPT-J cnn_eval.json? Llama 3.1 8B needs the file of language/llama3.1-8b)")
		}
		ids := make([]int32, len(raw.TokInput))
		for i, n := range raw.TokInput {
			v, err := strconv.ParseInt(string(n), 10, 32)
			if err != nil || v < 0 {
				return nil, at("tok_input[%d] = %s is not a token id", i, n)
			}
			ids[i] = int32(v)
		}
		recs = append(recs, Llama3Record{Instruction: tmpl, Input: *raw.Input, TokInput: ids, Output: *raw.Output})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %s: after record %d: %v", ErrFormat, name, len(recs), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: %s: data after the array", ErrFormat, name)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: %s: no records", ErrFormat, name)
	}
	return recs, nil
}

// WriteLlama3 writes recs as download_cnndm.py does: json.dump(records,
// f, indent=4, ensure_ascii=False), keys in the order instruction, input,
// tok_input, output, one id per line, no newline at the end.
func WriteLlama3(w io.Writer, recs []Llama3Record) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if len(recs) == 0 {
		bw.WriteString("[]")
		return bw.Flush()
	}
	bw.WriteString("[\n")
	for i, r := range recs {
		bw.WriteString("    {\n        \"instruction\": {\n            ")
		writePyString(bw, Llama3InstructionKey)
		bw.WriteString(": ")
		writePyString(bw, r.Instruction)
		bw.WriteString("\n        },\n        \"input\": ")
		writePyString(bw, r.Input)
		bw.WriteString(",\n        \"tok_input\": [")
		for j, id := range r.TokInput {
			if j > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n            ")
			bw.WriteString(strconv.Itoa(int(id)))
		}
		if len(r.TokInput) > 0 {
			bw.WriteString("\n        ")
		}
		bw.WriteString("],\n        \"output\": ")
		writePyString(bw, r.Output)
		bw.WriteString("\n    }")
		if i < len(recs)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("]")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cnndm: %w", err)
	}
	return nil
}

// WriteLlama3File writes recs to path through a temporary file, so that a
// failed write leaves nothing under the final name.
func WriteLlama3File(path string, recs []Llama3Record) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteLlama3(w, recs) })
}

func writeAtomic(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cnndm: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("cnndm: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cnndm: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cnndm: %w", err)
	}
	return nil
}

// Llama3SmallSynth is the test fixture's shape: 8 articles of 6 to 24
// sentences (a few hundred tokens each).
var Llama3SmallSynth = SynthConfig{Seed: 3, Records: 8, MinSentences: 6, MaxSentences: 24}

// SynthLlama3 returns generated articles (as Synth) in the Llama 3.1 8B
// record format, tok_input made by encode (the Llama 3.1 tokenizer with
// BOS) from the prompt.
func SynthLlama3(cfg SynthConfig, encode func(string) []int32) ([]Llama3Record, error) {
	base, err := Synth(cfg)
	if err != nil {
		return nil, err
	}
	out := make([]Llama3Record, len(base))
	for i, r := range base {
		out[i] = Llama3Record{Instruction: Llama3Template, Input: r.Input, TokInput: encode(Llama3Prompt(r.Input)), Output: r.Output}
	}
	return out, nil
}

// Llama3Report describes a verified Llama 3.1 8B data set file.
type Llama3Report struct {
	Path    string
	Records int
	MD5     string
	// Datacenter is true for the 13368 records of cnn_eval.json, Edge for
	// the 5000 of sample_cnn_eval_5000.json.
	Datacenter, Edge bool
	// MaxPrompt is the longest tok_input; PromptTokens their total.
	MaxPrompt, PromptTokens int
	// Retokenized is true when every tok_input was checked against the
	// tokenizer.
	Retokenized bool
}

// Llama3Check configures VerifyLlama3.
type Llama3Check struct {
	// Vocab bounds the ids (128256 for Llama 3.1); 0 skips the check.
	Vocab int
	// BOS is the id every tok_input starts with; negative skips the check.
	BOS int32
	// Encode, when set, re-tokenizes every prompt and compares the ids.
	Encode func(string) []int32
}

// VerifyLlama3 reads path and checks every record: the reference's
// template, a non-empty article and highlights, tok_input starting with
// BOS, ids inside the vocabulary, and (with Encode) tok_input equal to the
// tokenized prompt.
func VerifyLlama3(path string, c Llama3Check) (Llama3Report, error) {
	rep := Llama3Report{Path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		return rep, fmt.Errorf("cnndm: %w", err)
	}
	sum := md5.Sum(b)
	rep.MD5 = hex.EncodeToString(sum[:])
	recs, err := ReadLlama3(bytes.NewReader(b), path)
	if err != nil {
		return rep, err
	}
	rep.Records = len(recs)
	rep.Datacenter = len(recs) == ValidationRecords
	rep.Edge = len(recs) == Llama3EdgeRecords
	for i, r := range recs {
		bad := func(format string, args ...any) (Llama3Report, error) {
			return rep, fmt.Errorf("%w: %s: record %d: %s", ErrFormat, path, i, fmt.Sprintf(format, args...))
		}
		if r.Instruction != Llama3Template {
			return bad("instruction %q, want the reference's %q", r.Instruction, Llama3Template)
		}
		if strings.TrimSpace(r.Input) == "" || strings.TrimSpace(r.Output) == "" {
			return bad("empty input or output")
		}
		if c.BOS >= 0 && r.TokInput[0] != c.BOS {
			return bad("tok_input starts with %d, not <|begin_of_text|> %d", r.TokInput[0], c.BOS)
		}
		if c.Vocab > 0 {
			for j, id := range r.TokInput {
				if int(id) >= c.Vocab {
					return bad("tok_input[%d] = %d is outside the vocabulary of %d (is the file tokenized for Llama 3.1?)", j, id, c.Vocab)
				}
			}
		}
		if c.Encode != nil {
			if want := c.Encode(Llama3Prompt(r.Input)); !slices.Equal(want, r.TokInput) {
				return bad("tok_input (%d ids) is not the tokenized prompt (%d ids)", len(r.TokInput), len(want))
			}
		}
		rep.MaxPrompt = max(rep.MaxPrompt, len(r.TokInput))
		rep.PromptTokens += len(r.TokInput)
	}
	rep.Retokenized = c.Encode != nil
	return rep, nil
}
