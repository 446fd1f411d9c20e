// Package cnndm reads and writes cnn_eval.json, the CNN-DailyMail 3.0.0
// validation set in the layout of the MLCommons GPT-J reference
// (language/gpt-j/download_cnndm.py): a JSON array of objects with the
// string fields "instruction" (always "Summarize the following news
// article:"), "input" (the article) and "output" (the highlights, the
// ROUGE reference), written by Python's json.dump with indent 4 and
// ensure_ascii=False.
//
// No checksum of cnn_eval.json is published (the reference builds it from
// the Hugging Face cnn_dailymail data set); Verify checks its shape
// instead: 13368 records, every field a string, every instruction the
// reference's.
//
// Llama 3.1 8B uses the same split in its own layout, with the prompt's
// token ids (llama3.go: ReadLlama3, WriteLlama3, SynthLlama3,
// VerifyLlama3).
package cnndm

import (
	"bufio"
	"bytes"
	"crypto/md5"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Facts of the reference data set (mlcommons/inference language/gpt-j/download_cnndm.py).
const (
	// FileName is the data set file the reference reads.
	FileName = "cnn_eval.json"
	// ValidationRecords is the number of records of the validation split
	// (and mlperf.conf's gptj performance_sample_count_override).
	ValidationRecords = 13368
	// Instruction is the instruction of every record.
	Instruction = "Summarize the following news article:"
	// CalibrationFileName is the calibration set prepare-calibration.py
	// writes (from the train split, in the same format).
	CalibrationFileName = "cnn_dailymail_calibration.json"
	// CalibrationListMD5 is the MD5 of calibration-list.txt (1000 train
	// article ids; MLCommons calibration/CNNDailyMail/calibration-list.txt).
	CalibrationListMD5 = "3bfd46979f1e7f9efd09d2b20b878344"
	// CalibrationRecords is the number of ids in the calibration list.
	CalibrationRecords = 1000
)

// ErrFormat is wrapped by errors about a file that is not in the
// cnn_eval.json format.
var ErrFormat = errors.New("cnndm: not a cnn_eval.json file")

// Record is one article of cnn_eval.json.
type Record struct {
	Instruction string `json:"instruction"`
	Input       string `json:"input"`  // the article
	Output      string `json:"output"` // the highlights (the ROUGE target)
}

// Path resolves a file-or-folder argument to the data set file: a folder
// means FileName inside it.
func Path(p string) string {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return filepath.Join(p, FileName)
	}
	return p
}

// Load reads the records of a cnn_eval.json file (or of the folder holding
// one).
func Load(path string) ([]Record, error) {
	path = Path(path)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cnndm: %s not found (get it with datasets/cnndm/download_dataset.sh, or use --data synthetic): %w", path, err)
		}
		return nil, fmt.Errorf("cnndm: %w", err)
	}
	defer f.Close()
	return Read(bufio.NewReaderSize(f, 1<<20), path)
}

// Read reads records from r; name is used in errors. Every element must be
// an object whose "instruction", "input" and "output" are strings (other
// keys are ignored); an empty array is an error.
func Read(r io.Reader, name string) ([]Record, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%w: %s: want a JSON array of {instruction, input, output} objects, found %v", ErrFormat, name, tok)
	}
	var recs []Record
	for dec.More() {
		var raw map[string]json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: %s: record %d: %v", ErrFormat, name, len(recs), err)
		}
		var rec Record
		for _, f := range []struct {
			key string
			dst *string
		}{{"instruction", &rec.Instruction}, {"input", &rec.Input}, {"output", &rec.Output}} {
			v, ok := raw[f.key]
			if !ok {
				return nil, fmt.Errorf("%w: %s: record %d has no %q field", ErrFormat, name, len(recs), f.key)
			}
			if err := json.Unmarshal(v, f.dst); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				return nil, fmt.Errorf("%w: %s: record %d: %q is not a string", ErrFormat, name, len(recs), f.key)
			}
		}
		recs = append(recs, rec)
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

// Write writes recs as download_cnndm.py does: json.dump(records, f,
// indent=4, ensure_ascii=False), keys in the order instruction, input,
// output, non-ASCII text as UTF-8 and no newline at the end.
func Write(w io.Writer, recs []Record) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if len(recs) == 0 {
		bw.WriteString("[]")
		return bw.Flush()
	}
	bw.WriteString("[\n")
	for i, r := range recs {
		bw.WriteString("    {\n")
		for j, kv := range [3][2]string{{"instruction", r.Instruction}, {"input", r.Input}, {"output", r.Output}} {
			bw.WriteString("        ")
			writePyString(bw, kv[0])
			bw.WriteString(": ")
			writePyString(bw, kv[1])
			if j < 2 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString("    }")
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

// writePyString writes s as Python's json encoder with ensure_ascii=False:
// '"' and '\\' escaped, \n \r \t \b \f by their short escapes, other
// control characters as \u00XX; everything else as is. Invalid UTF-8
// becomes U+FFFD.
func writePyString(w *bufio.Writer, s string) {
	w.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			w.WriteString(`\"`)
		case '\\':
			w.WriteString(`\\`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(w, `\u%04x`, r)
			} else {
				w.WriteRune(r)
			}
		}
	}
	w.WriteByte('"')
}

// WriteFile writes recs to path through a temporary file, so that a failed
// write leaves nothing under the final name.
func WriteFile(path string, recs []Record) error {
	return writeAtomic(path, func(w io.Writer) error { return Write(w, recs) })
}

// Report describes a verified file.
type Report struct {
	Path    string
	Records int
	MD5     string // of the file's bytes
	// Complete is true when the file has the validation split's 13368
	// records (the reference's QSL size).
	Complete bool
	// ArticleChars and TargetChars are the total lengths, in characters,
	// of the articles and of the highlights.
	ArticleChars, TargetChars int
}

// Verify reads path and checks its shape: the format Read accepts, every
// instruction the reference's, no empty article or highlights.
func Verify(path string) (Report, error) {
	path = Path(path)
	rep := Report{Path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		return rep, fmt.Errorf("cnndm: %w", err)
	}
	sum := md5.Sum(b)
	rep.MD5 = hex.EncodeToString(sum[:])
	recs, err := Read(bytes.NewReader(b), path)
	if err != nil {
		return rep, err
	}
	rep.Records = len(recs)
	rep.Complete = len(recs) == ValidationRecords
	for i, r := range recs {
		if r.Instruction != Instruction {
			return rep, fmt.Errorf("%w: %s: record %d has instruction %q, want %q", ErrFormat, path, i, r.Instruction, Instruction)
		}
		if strings.TrimSpace(r.Input) == "" || strings.TrimSpace(r.Output) == "" {
			return rep, fmt.Errorf("%w: %s: record %d has an empty input or output", ErrFormat, path, i)
		}
		rep.ArticleChars += utf8.RuneCountInString(r.Input)
		rep.TargetChars += utf8.RuneCountInString(r.Output)
	}
	return rep, nil
}

//go:embed calibration-list.txt
var calibrationList string

// CalibrationList returns the 1000 CNN-DailyMail train-split article ids
// of the MLPerf calibration set (calibration-list.txt, MD5
// CalibrationListMD5), in file order.
func CalibrationList() []string {
	return strings.Fields(calibrationList)
}
