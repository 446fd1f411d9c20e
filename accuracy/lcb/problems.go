package lcb

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/internal/pickle"
)

// Test is one test case: stdin and the expected stdout, or (functional)
// the JSON arguments one per line and the JSON result.
type Test struct {
	Input    string `json:"input"`
	Output   string `json:"output"`
	TestType string `json:"testtype"`
}

// Problem is one code_generation_lite problem, as LiveCodeBench's
// CodeGenerationProblem reads it: its public tests then its private ones
// are what a program is graded on; FuncName (metadata's func_name) makes
// it a LeetCode-style functional problem.
type Problem struct {
	QuestionID string
	Platform   string
	FuncName   string // "" for a standard-input problem
	Tests      []Test
}

// Releases are the code_generation_lite files each release_vN reads (the
// data set's loading script, ALLOWED_FILES): cumulative.
var Releases = map[string][]string{
	"release_v1": {"test.jsonl"},
	"release_v2": {"test.jsonl", "test2.jsonl"},
	"release_v3": {"test.jsonl", "test2.jsonl", "test3.jsonl"},
	"release_v4": {"test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl"},
	"release_v5": {"test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl"},
	"release_v6": {"test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl"},
}

// The releases the MLPerf references load: deepseek-r1's
// evaluate_livecodebench uses release_v1, gpt-oss-120b's release_v6.
const (
	ReleaseDeepSeekR1 = "release_v1"
	ReleaseGPTOSS     = "release_v6"
)

// maxLine bounds one JSON line (a problem with its compressed tests).
const maxLine = 256 << 20

// LoadRelease reads release's files from dir (a copy of the Hugging Face
// data set livecodebench/code_generation_lite) into a map by question id,
// later files overriding earlier ones as the reference's dict does.
func LoadRelease(dir, release string) (map[string]*Problem, error) {
	files, ok := Releases[release]
	if !ok {
		return nil, fmt.Errorf("lcb: unknown release %q (want release_v1 ... release_v6)", release)
	}
	out := map[string]*Problem{}
	for _, name := range files {
		path := filepath.Join(dir, name)
		ps, err := LoadFile(path)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out[p.QuestionID] = p
		}
	}
	return out, nil
}

// LoadFile reads one code_generation_lite JSON-lines file.
func LoadFile(path string) ([]*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lcb: %w (the LiveCodeBench problems: livecodebench/code_generation_lite's test*.jsonl)", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var out []*Problem
	for n := 1; ; n++ {
		line, err := readLine(r)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("lcb: %s line %d: %w", path, n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		p, err := ParseRow(line)
		if err != nil {
			return nil, fmt.Errorf("lcb: %s line %d: %w", path, n, err)
		}
		out = append(out, p)
	}
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return line, nil
			}
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// ParseRow reads one row: the test lists are JSON strings, the private
// one either JSON or, as the data set ships it, base64 of zlib of a
// pickled JSON string.
func ParseRow(line []byte) (*Problem, error) {
	var row struct {
		QuestionID string `json:"question_id"`
		Platform   string `json:"platform"`
		Public     string `json:"public_test_cases"`
		Private    string `json:"private_test_cases"`
		Metadata   string `json:"metadata"`
	}
	if err := json.Unmarshal(line, &row); err != nil {
		return nil, err
	}
	if row.QuestionID == "" {
		return nil, errors.New("no question_id")
	}
	var pub, priv []Test
	if err := json.Unmarshal([]byte(row.Public), &pub); err != nil {
		return nil, fmt.Errorf("%s: public_test_cases: %w", row.QuestionID, err)
	}
	if err := json.Unmarshal([]byte(row.Private), &priv); err != nil {
		s, derr := decodePrivate(row.Private)
		if derr != nil {
			return nil, fmt.Errorf("%s: private_test_cases: %w", row.QuestionID, derr)
		}
		if err := json.Unmarshal([]byte(s), &priv); err != nil {
			return nil, fmt.Errorf("%s: private_test_cases: %w", row.QuestionID, err)
		}
	}
	var meta map[string]any
	if row.Metadata != "" {
		if err := json.Unmarshal([]byte(row.Metadata), &meta); err != nil {
			return nil, fmt.Errorf("%s: metadata: %w", row.QuestionID, err)
		}
	}
	p := &Problem{QuestionID: row.QuestionID, Platform: row.Platform, Tests: append(pub, priv...)}
	if fn, ok := meta["func_name"].(string); ok {
		p.FuncName = fn
	}
	return p, nil
}

// decodePrivate is pickle.loads(zlib.decompress(base64.b64decode(s))): a
// pickled str.
func decodePrivate(s string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return "", err
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxLine+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxLine {
		return "", fmt.Errorf("more than %d bytes decompressed", maxLine)
	}
	v, err := pickle.Unpickle(data, func(pickle.Global) bool { return false })
	if err != nil {
		return "", err
	}
	str, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("the pickle holds a %T, not a str", v)
	}
	return str, nil
}

// WriteProblems writes ps as a code_generation_lite folder in dir, so
// that LoadRelease reads them for every release: all in test.jsonl (the
// rows in the data set's format: the test lists as JSON strings, the
// private tests plain JSON, metadata with func_name where set) and
// test2.jsonl to test6.jsonl empty. The synthetic reasoning data sets
// write their LiveCodeBench problems with it.
func WriteProblems(dir string, ps []*Problem) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("lcb: %w", err)
	}
	var b bytes.Buffer
	for _, p := range ps {
		tests, err := json.Marshal(nonNilTests(p.Tests))
		if err != nil {
			return fmt.Errorf("lcb: %w", err)
		}
		meta := map[string]string{}
		if p.FuncName != "" {
			meta["func_name"] = p.FuncName
		}
		m, err := json.Marshal(meta)
		if err != nil {
			return fmt.Errorf("lcb: %w", err)
		}
		line, err := json.Marshal(map[string]string{"question_id": p.QuestionID, "platform": p.Platform,
			"public_test_cases": string(tests), "private_test_cases": "[]", "metadata": string(m)})
		if err != nil {
			return fmt.Errorf("lcb: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	files := Releases["release_v6"]
	for i, name := range files {
		var data []byte
		if i == 0 {
			data = b.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("lcb: %w", err)
		}
	}
	return nil
}

func nonNilTests(t []Test) []Test {
	if t == nil {
		return []Test{}
	}
	return t
}

// SumProblem is the LiveCodeBench problem of the synthetic reasoning data
// sets' coding questions (question id id): read two integers from
// standard input and print their sum, on three tests.
func SumProblem(id string) *Problem {
	return &Problem{QuestionID: id, Platform: "atcoder", Tests: []Test{
		{Input: "3 4\n", Output: "7\n", TestType: "stdin"},
		{Input: "-5 12\n", Output: "7\n", TestType: "stdin"},
		{Input: "1000000000 1000000000\n", Output: "2000000000\n", TestType: "stdin"},
	}}
}
