package gptoss

// A run's samples: the data set of the run's set (or a synthetic one)
// and the tokenizer.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/accuracy/lcb"
	"github.com/mlperf-go/inference/accuracy/reasoneval"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/harmony"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// loadTokenizer reads gpt-oss's o200k_harmony tokenizer from --tokenizer
// (once per process while its files are unchanged).
func loadTokenizer(path string) (*tokenizer.O200k, error) {
	tok, err := tokenizer.Shared(path, tokenizer.LoadO200kHarmony)
	if err != nil {
		return nil, fmt.Errorf("gpt-oss-120b: %w (give --tokenizer the folder of gpt-oss's tokenizer.json)", err)
	}
	return tok, nil
}

// evalSet resolves --eval-set: auto is the accuracy set in accuracy mode
// and the performance set otherwise, as the reference's README pairs them.
func evalSet(e spec.Extra, mode loadgen.Mode) (string, error) {
	switch s := e["eval-set"]; s {
	case "", "auto":
		if mode == loadgen.AccuracyOnly {
			return setAccuracy, nil
		}
		return setPerformance, nil
	case setAccuracy, setPerformance, setCompliance:
		return s, nil
	default:
		return "", spec.UsageError("gpt-oss-120b: --eval-set %q: want auto, %s, %s or %s", s, setAccuracy, setPerformance, setCompliance)
	}
}

// maxNewTokens resolves --max-new-tokens: the set's reference value when
// not given.
func maxNewTokens(e spec.Extra, set string) (int, error) {
	return llmbench.NewTokens{Bench: "gpt-oss-120b", Default: sets[set].maxNew, Min: 2, Max: 1 << 20, Why: llmbench.TokenLatencyMin}.Parse(e)
}

// loadData resolves --data for a set and reads it: synthetic (generated
// once into the cache folder with tok), a file, or the folder of the
// reference's download holding the set's file.
func loadData(data, set, cacheDir string, tok *tokenizer.O200k, stderr io.Writer) (*reasoning.Set, error) {
	info := sets[set]
	var path string
	if data == "synthetic" {
		root := filepath.Join(cacheDir, "gpt-oss-120b-synthetic")
		path = filepath.Join(root, filepath.FromSlash(info.file))
		_, err := os.Stat(path)
		_, perr := os.Stat(filepath.Join(root, reasoneval.ProblemsDir))
		if err != nil || perr != nil {
			rows, err := synthesize(set, 1, tok)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(stderr, "gpt-oss-120b: synthetic %s set (generated questions, %d rows, %s reasoning effort) at %s\n", set, len(rows), info.effort, path)
			if err := writeSynthetic(path, root, rows); err != nil {
				return nil, err
			}
		}
	} else {
		path = data
		if st, err := os.Stat(data); err == nil && st.IsDir() {
			path = filepath.Join(data, filepath.FromSlash(info.file))
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("gpt-oss-120b: --data %s has no %s, the %s set's file (models/gptoss/download_dataset.sh fetches the reference's data sets)", data, info.file, set)
			}
		}
	}
	s, err := reasoning.Read(path)
	if err != nil {
		return nil, fmt.Errorf("gpt-oss-120b: %w", err)
	}
	for i, r := range s.Rows {
		for _, id := range r.TokInput {
			if int(id) >= tok.VocabSize() {
				return nil, fmt.Errorf("gpt-oss-120b: %s row %d: prompt id %d is outside o200k_harmony's %d ids: not this benchmark's data set", path, i, id, tok.VocabSize())
			}
		}
	}
	return s, nil
}

// writeSynthetic writes synthetic rows to path and, in
// root/code_generation_lite (reasoneval.ProblemsDir, where the scorer
// looks one folder above the set's file), the LiveCodeBench problems of
// the synthetic coding questions (lcb.SumProblem), the same for every
// set, so that the scorer grades them.
func writeSynthetic(path, root string, rows []reasoning.Row) error {
	if err := reasoning.WriteFile(path, rows); err != nil {
		return err
	}
	var ps []*lcb.Problem
	for q := range synthQuestions {
		ps = append(ps, lcb.SumProblem(synthLCBID(q)))
	}
	if err := lcb.WriteProblems(filepath.Join(root, reasoneval.ProblemsDir), ps); err != nil {
		return fmt.Errorf("gpt-oss-120b: %w", err)
	}
	return nil
}

// synthLCBID is the question id of synthetic coding question q.
func synthLCBID(q int) string { return fmt.Sprintf("synthetic_sum_%d", q) }

// The synthetic sets: our own questions of the reference's families, in
// the accuracy set's layout (each question repeated as its source is
// scored: AIME 2025 ×8, GPQA Diamond ×5, LiveCodeBench v6 ×3) or, for
// the performance and compliance sets, one row a question.
var synthRepeats = []struct {
	dataset string
	repeats int
}{{"aime25", 8}, {"gpqa_diamond", 5}, {"livecodebench_v6", 3}}

// synthQuestions is how many questions each source gets.
const synthQuestions = 2

// synthesize makes the synthetic rows of set with seed, their prompts
// rendered in the Harmony format at the set's reasoning effort.
func synthesize(set string, seed uint64, tok *tokenizer.O200k) ([]reasoning.Row, error) {
	effort, err := harmony.ParseEffort(sets[set].effort)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x67707473))
	var rows []reasoning.Row
	add := func(dataset string, repeats int) error {
		for q := range synthQuestions {
			row := synthRow(r, dataset, q)
			ids, err := encodePrompt(tok, dataset, row.Question, effort)
			if err != nil {
				return err
			}
			row.TokInput, row.TextInput = ids, promptText(dataset, row.Question, effort)
			for range repeats {
				rows = append(rows, row)
			}
		}
		return nil
	}
	switch set {
	case setAccuracy:
		for _, s := range synthRepeats {
			if err := add(s.dataset, s.repeats); err != nil {
				return nil, err
			}
		}
	case setCompliance:
		if err := add("gpqa_diamond", 5); err != nil {
			return nil, err
		}
	default:
		for _, d := range []string{"aime25", "gpqa_diamond", "livecodebench_v6", "math500", "mmlu_pro"} {
			if err := add(d, 1); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// synthRow is question q of dataset: our own problem in the source's
// answer format, with the ground truth and a reference output in the
// Harmony channels the model answers in.
func synthRow(r *rand.Rand, dataset string, q int) reasoning.Row {
	a, b := 2+r.IntN(97), 2+r.IntN(97)
	row := reasoning.Row{Dataset: dataset, RefOutputLen: -1}
	final := ""
	switch promptFamily(dataset) {
	case "aime", "math500":
		x, y := 100+r.IntN(900), 100+r.IntN(900)
		row.Question = fmt.Sprintf("Find the remainder when $%d \\cdot %d$ is divided by $1000$.", x, y)
		row.GroundTruth = strconv.Itoa(x * y % 1000)
		final = fmt.Sprintf("$%d \\cdot %d = %d$, so the remainder is $\\boxed{%s}$.", x, y, x*y, row.GroundTruth)
	case "gpqa", "mmlu":
		letters := "ABCD"
		if promptFamily(dataset) == "mmlu" {
			letters = "ABCDEFGHIJ"
		}
		right := r.IntN(len(letters))
		var opts strings.Builder
		for k := range len(letters) {
			fmt.Fprintf(&opts, "\n%c) %d", letters[k], a+b+k-right)
		}
		row.Question = fmt.Sprintf("A sample holds %d mol of one gas and %d mol of another. How many moles of gas does it hold?%s", a, b, opts.String())
		row.GroundTruth = string(letters[right])
		final = fmt.Sprintf("%d + %d = %d.\n\nAnswer: %c", a, b, a+b, letters[right])
	default: // livecodebench
		row.Question = fmt.Sprintf("Read two integers A and B from standard input and print A + B.\n\nSample Input 1\n\n%d %d\n\nSample Output 1\n\n%d", a, b, a+b)
		row.GroundTruth = synthLCBID(q)
		final = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
	}
	row.RefOutput = "<|channel|>analysis<|message|>Work it out.<|end|><|start|>assistant<|channel|>final<|message|>" + final + "<|return|>"
	return row
}
