// Package squad reads the SQuAD v1.1 data set (dev-v1.1.json) that the
// MLPerf BERT benchmark answers questions from, writes small synthetic files
// in the same format, and carries the MLPerf calibration lists.
//
// The reader keeps the file's order (articles, paragraphs, questions), which
// is the order the reference feature builder and evaluator use.
package squad

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
)

// Version is the only data set version the reference evaluator accepts.
const Version = "1.1"

// DevMD5 is the MD5 of the official dev-v1.1.json (MLCommons
// get-dataset-squad). DevURL is where download_dataset.sh fetches it.
const (
	DevMD5      = "3e85deb501d4e538b6bc56f786231552"
	DevURL      = "https://raw.githubusercontent.com/rajpurkar/SQuAD-explorer/master/dataset/dev-v1.1.json"
	DevFileName = "dev-v1.1.json"
)

// Sizes of the official dev set: its questions and paragraphs (public
// SQuAD statistics), and the features the reference builds from it with
// max_seq_length 384 and doc_stride 128 (the QSL size in mlperf.conf).
const (
	DevQuestions  = 10570
	DevParagraphs = 2067
	DevFeatures   = 10833
)

// ErrFormat is returned (wrapped) for a file that is not SQuAD v1.1 JSON
// or misses a field every question needs.
var ErrFormat = errors.New("not a SQuAD JSON file")

// describeJSONError says where and why a SQuAD document failed to decode,
// in the file's terms rather than the decoder's Go types.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("JSON syntax error at byte %d (%v)", se.Offset, se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the top level"
		}
		return fmt.Sprintf("at byte %d, %s holds a JSON %s where SQuAD has %s", te.Offset, field, te.Value, jsonKind(te.Type.Kind().String()))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the file is empty or ends early"
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	}
	return "another type"
}

// ErrVersion is returned (wrapped) when a file's "version" is not "1.1".
var ErrVersion = errors.New("squad: unsupported data set version")

// Dataset is a parsed SQuAD file. It is a plain value; concurrent reads are
// safe.
type Dataset struct {
	Version string    `json:"version"`
	Data    []Article `json:"data"`
}

// Article is one Wikipedia article of the data set.
type Article struct {
	Title      string      `json:"title"`
	Paragraphs []Paragraph `json:"paragraphs"`
}

// Paragraph is one context and the questions asked about it.
type Paragraph struct {
	Context string `json:"context"`
	QAs     []QA   `json:"qas"`
}

// QA is one question with its ground-truth answers.
type QA struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Answers  []Answer `json:"answers"`
}

// Answer is one ground-truth answer; AnswerStart is a character (code
// point) offset into the paragraph's context.
type Answer struct {
	Text        string `json:"text"`
	AnswerStart int    `json:"answer_start"`
}

// Load reads and validates a SQuAD v1.1 JSON file.
func Load(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("squad: %w (download it with datasets/squad/download_dataset.sh or make one with 'mlperf dataset synth squad')", err)
	}
	defer f.Close()
	ds, err := Read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return ds, nil
}

// Read parses a SQuAD v1.1 JSON document from r and validates it: the
// version must be "1.1" and every question needs a non-empty id. Questions
// without answers are accepted here (the scorer reports them). Duplicate
// ids are accepted, as the reference does: each occurrence is its own
// example, and predictions, keyed by id, keep the last one's answer.
func Read(r io.Reader) (*Dataset, error) {
	var raw struct {
		Version *string   `json:"version"`
		Data    []Article `json:"data"`
	}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("squad: %w: %s; the file is damaged or not SQuAD v1.1 JSON: re-download it with datasets/squad/download_dataset.sh (or make a synthetic one with 'mlperf dataset synth squad')", ErrFormat, describeJSONError(err))
	}
	if raw.Version == nil {
		return nil, fmt.Errorf("%w: no \"version\" field, want %q", ErrVersion, Version)
	}
	if *raw.Version != Version {
		return nil, fmt.Errorf("%w: version %q, want %q (the BERT benchmark uses SQuAD v1.1 dev-v1.1.json)", ErrVersion, *raw.Version, Version)
	}
	ds := &Dataset{Version: *raw.Version, Data: raw.Data}
	if err := ds.validate(); err != nil {
		return nil, err
	}
	return ds, nil
}

// fixText says how to replace a damaged data set file.
const fixText = "the file is damaged or not SQuAD v1.1: re-download it with datasets/squad/download_dataset.sh (or make a synthetic one with 'mlperf dataset synth squad')"

func (ds *Dataset) validate() error {
	for a, art := range ds.Data {
		for p, par := range art.Paragraphs {
			if par.Context == "" && len(par.QAs) > 0 {
				return fmt.Errorf("squad: %w: data[%d].paragraphs[%d] (article %q) has %d questions but an empty \"context\": there is no text to find their answers in; %s", ErrFormat, a, p, art.Title, len(par.QAs), fixText)
			}
			for q, qa := range par.QAs {
				if qa.ID == "" {
					return fmt.Errorf("squad: %w: data[%d].paragraphs[%d].qas[%d] has no \"id\" (the accuracy log is scored by question id); %s", ErrFormat, a, p, q, fixText)
				}
				if qa.Question == "" {
					return fmt.Errorf("squad: %w: data[%d].paragraphs[%d].qas[%d] (id %q) has an empty \"question\"; %s", ErrFormat, a, p, q, qa.ID, fixText)
				}
			}
		}
	}
	return nil
}

// NumQuestions is the number of questions in the data set.
func (ds *Dataset) NumQuestions() int {
	n := 0
	for _, a := range ds.Data {
		for _, p := range a.Paragraphs {
			n += len(p.QAs)
		}
	}
	return n
}

// NumParagraphs is the number of paragraphs (contexts) in the data set.
func (ds *Dataset) NumParagraphs() int {
	n := 0
	for _, a := range ds.Data {
		n += len(a.Paragraphs)
	}
	return n
}

// Write encodes ds as compact JSON, in the field order of the official files.
func (ds *Dataset) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ds); err != nil {
		return fmt.Errorf("squad: write: %w", err)
	}
	return nil
}

// FileMD5 returns the hex MD5 of the file at path.
func FileMD5(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("squad: %w", err)
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("squad: read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// VerifyReport is what Verify found about a data set file.
type VerifyReport struct {
	Path       string
	MD5        string
	Official   bool // the MD5 is the official dev-v1.1.json's
	Questions  int
	Paragraphs int
}

// Verify checks that path is a readable SQuAD v1.1 file and whether it is
// the official dev set (by MD5). A file that parses but is not the official
// one is not an error; the report says so.
func Verify(path string) (*VerifyReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("squad: %w", err)
	}
	sum := md5.Sum(b)
	ds, err := Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	rep := &VerifyReport{
		Path:       path,
		MD5:        hex.EncodeToString(sum[:]),
		Questions:  ds.NumQuestions(),
		Paragraphs: ds.NumParagraphs(),
	}
	rep.Official = rep.MD5 == DevMD5
	return rep, nil
}
