package deepseekr1

// A run's samples: the data set file (or the synthetic one) and the
// tokenizer.

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
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// loadTokenizer reads DeepSeek-R1's tokenizer from --tokenizer (once per
// process while its files are unchanged).
func loadTokenizer(path string) (*tokenizer.DeepSeek, error) {
	tok, err := tokenizer.Shared(path, tokenizer.LoadDeepSeekR1)
	if err != nil {
		return nil, fmt.Errorf("deepseek-r1: %w (give --tokenizer the folder of DeepSeek-R1's or DeepSeek-V3's tokenizer.json)", err)
	}
	return tok, nil
}

// synthRows is the size of the synthetic data set a run generates.
const synthRows = 20

// loadData resolves --data and reads it: synthetic (generated once into
// the cache folder with tok), a file, or a folder holding the reference's
// file. It returns the file's path and its rows.
func loadData(data, cacheDir string, tok *tokenizer.DeepSeek, stderr io.Writer) (*reasoning.Set, error) {
	var path string
	if data == "synthetic" {
		dir := filepath.Join(cacheDir, "deepseek-r1-synthetic")
		path = filepath.Join(dir, dataFileName)
		_, err := os.Stat(path)
		_, perr := os.Stat(filepath.Join(dir, reasoneval.ProblemsDir))
		if err != nil || perr != nil {
			fmt.Fprintf(stderr, "deepseek-r1: synthetic data set (generated questions, %d rows) at %s\n", synthRows, path)
			if err := writeSynthetic(path, synthesize(synthRows, 1, tok)); err != nil {
				return nil, err
			}
		}
	} else {
		path = data
		if st, err := os.Stat(data); err == nil && st.IsDir() {
			path = filepath.Join(data, dataFileName)
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("deepseek-r1: --data %s has no %s (models/deepseekr1/download_dataset.sh fetches it)", data, dataFileName)
			}
		}
	}
	s, err := reasoning.Read(path)
	if err != nil {
		return nil, fmt.Errorf("deepseek-r1: %w", err)
	}
	if err := checkIDs(s, tok.VocabSize()); err != nil {
		return nil, err
	}
	return s, nil
}

// writeSynthetic writes synthetic rows to path and, beside it in
// reasoneval.ProblemsDir, the LiveCodeBench problems of their coding
// questions (lcb.SumProblem), so that the scorer grades them.
func writeSynthetic(path string, rows []reasoning.Row) error {
	if err := reasoning.WriteFile(path, rows); err != nil {
		return err
	}
	var ps []*lcb.Problem
	for _, r := range rows {
		if f, _ := reasoning.Family(r.Dataset); f == "livecodebench" {
			ps = append(ps, lcb.SumProblem(r.GroundTruth))
		}
	}
	if err := lcb.WriteProblems(filepath.Join(filepath.Dir(path), reasoneval.ProblemsDir), ps); err != nil {
		return fmt.Errorf("deepseek-r1: %w", err)
	}
	return nil
}

// checkIDs refuses a data set whose prompt ids fall outside the
// tokenizer's vocabulary (another model's data set).
func checkIDs(s *reasoning.Set, vocab int) error {
	for i, r := range s.Rows {
		for _, id := range r.TokInput {
			if int(id) >= vocab {
				return fmt.Errorf("deepseek-r1: %s row %d: prompt id %d is outside DeepSeek-R1's vocabulary of %d: not this benchmark's data set", s.Path, i, id, vocab)
			}
		}
	}
	return nil
}

// The synthetic rows: our own questions in the reference's five source
// families and their answer formats, each with a reference output the
// scorers count as right.
var (
	synthFamilies = []string{"math500", "aime1983", "gpqa", "mmlu_pro", "livecodebench"}
	synthNouns    = strings.Fields("apples marbles coins books stamps shells cards pencils")
	mcInstruction = "Answer the following multiple choice question. The last line of your response should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of %s. Think step by step before answering.\n\n"
)

// synthesize makes n rows, cycling the five families, with seed; tok
// templates and encodes their prompts.
func synthesize(n int, seed uint64, tok *tokenizer.DeepSeek) []reasoning.Row {
	r := rand.New(rand.NewPCG(seed, 0x64737231))
	rows := make([]reasoning.Row, n)
	for i := range rows {
		row := &rows[i]
		row.Dataset = synthFamilies[i%len(synthFamilies)]
		a, b := 2+r.IntN(97), 2+r.IntN(97)
		noun := synthNouns[r.IntN(len(synthNouns))]
		switch row.Dataset {
		case "math500":
			row.Question = fmt.Sprintf("Ann has $%d$ %s and buys $%d$ more. How many %s does she have?", a, noun, b, noun)
			row.TextInput = row.Question + "\nPlease reason step by step, and put your final answer within \\boxed{}."
			row.GroundTruth = strconv.Itoa(a + b)
			row.RefOutput = fmt.Sprintf("She has $%d + %d = %d$ %s.\n</think>\n\nThe answer is $\\boxed{%d}$.", a, b, a+b, noun, a+b)
		case "aime1983":
			row.Question = fmt.Sprintf("Find the remainder when $%d \\cdot %d \\cdot 1000 + %d$ is divided by $1000$.", a, b, a*b%1000)
			row.TextInput = row.Question + "\nPlease reason step by step, and put your final answer within \\boxed{}."
			row.GroundTruth = strconv.Itoa(a * b % 1000)
			row.RefOutput = fmt.Sprintf("The product is a multiple of 1000, so the remainder is %d.\n</think>\n\n$\\boxed{%d}$", a*b%1000, a*b%1000)
		case "gpqa", "mmlu_pro":
			letters := "ABCD"
			if row.Dataset == "mmlu_pro" {
				letters = "ABCDEFGHIJ"
			}
			right := r.IntN(len(letters))
			var opts strings.Builder
			for k := range len(letters) {
				v := a + b + k - right
				fmt.Fprintf(&opts, "\n%c) %d", letters[k], v)
			}
			row.Question = fmt.Sprintf("A box holds %d %s and another holds %d. How many %s are there in all?%s", a, noun, b, noun, opts.String())
			row.TextInput = fmt.Sprintf(mcInstruction, letters) + row.Question
			row.GroundTruth = string(letters[right])
			row.RefOutput = fmt.Sprintf("%d + %d = %d, option %c.\n</think>\n\nANSWER: %c", a, b, a+b, letters[right], letters[right])
		case "livecodebench":
			row.Question = fmt.Sprintf("Read two integers A and B from standard input and print A + B.\n\nSample Input 1\n\n%d %d\n\nSample Output 1\n\n%d", a, b, a+b)
			row.TextInput = "You will be given a question (problem specification) and will generate a correct Python program that matches the specification and passes all tests.\n\nQuestion: " + row.Question +
				"\n\n### Format: Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows.\n```python\n# YOUR CODE HERE\n```\n\n### Answer: (use the provided format with backticks)\n\n"
			row.GroundTruth = fmt.Sprintf("synthetic_sum_%03d", i)
			row.RefOutput = "Read both numbers and add them.\n</think>\n\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
		}
		row.TokInput = encodePrompt(tok, row.TextInput)
	}
	return rows
}
