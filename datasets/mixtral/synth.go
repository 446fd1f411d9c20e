package mixtral

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/pickle"
)

// SynthConfig configures Synth.
type SynthConfig struct {
	// Samples is the number of rows (default 30), cycling OpenOrca, GSM8K,
	// MBXP; the MBXP rows cycle cpp, python, php, javascript, typescript,
	// ruby.
	Samples int
	Seed    uint64
	// Encode tokenizes text. Nil uses a stand-in (BOS 1, then one id per
	// word, hashed into 3..Vocab-1), not the Mixtral tokenizer: the ids
	// are in range, so a model runs them, but they do not spell the text.
	Encode func(string) []int32
}

// StandInEncode is the stand-in tokenizer of SynthConfig.Encode.
func StandInEncode(s string) []int32 {
	ids := []int32{1}
	for _, w := range strings.Fields(s) {
		h := fnv.New32a()
		h.Write([]byte(w))
		ids = append(ids, int32(3+h.Sum32()%(Vocab-3)))
	}
	return ids
}

// synthMBXP are small problems in MBXP's format (our own, not MBXP's),
// one per language the reference scores, with a solution that passes.
var synthMBXP = []struct{ lang, entry, prompt, solution, test string }{
	{"cpp", "sumList",
		"#include <vector>\n#include <stdexcept>\nusing namespace std;\n\n\n/**\n * Write a function to sum the integers of a list.\n * > sumList(vector<int>{1, 2, 3})\n * 6\n */\nint sumList(vector<int> nums) {\n",
		"    int s = 0;\n    for (int x : nums) {\n        s += x;\n    }\n    return s;\n}",
		"\ntemplate <typename T> bool compare(T a, T b){ \n    return a == b; \n}\n\nint main(int argc, char* argv[]) {\n    int x0 = sumList(vector<int>{1, 2, 3});\n    if (!(compare(x0, 6))) {\n        throw runtime_error(\"Exception -- test case 0 did not pass.\");\n    }\n\n    int x1 = sumList(vector<int>{});\n    if (!(compare(x1, 0))) {\n        throw runtime_error(\"Exception -- test case 1 did not pass.\");\n    }\n    return 0;\n}\n"},
	{"python", "sum_list",
		"\n\ndef sum_list(nums):\n\t\"\"\"\n\tWrite a function to sum the integers of a list.\n\t>>> sum_list([1, 2, 3])\n\t6\n\t\"\"\"\n",
		"\treturn sum(nums)",
		"\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate([1, 2, 3]) == 6\n    assert candidate([]) == 0\n\n"},
	{"php", "sumList",
		"<?php\n\n/**\n * Write a function to sum the integers of a list.\n * php > sumList([1, 2, 3])\n * 6\n */\nfunction sumList($nums){\n",
		"    return array_sum($nums);\n}",
		"\n\nfunction compare($x, $y) {\n    return $x == $y;\n}\n\n$x0 = sumList([1, 2, 3]);\nif (!compare($x0, 6)) {\n    throw new Exception(\"Error at 1th assert statement.\");\n}\n$x1 = sumList([]);\nif (!compare($x1, 0)) {\n    throw new Exception(\"Error at 2th assert statement.\");\n}\n"},
	{"javascript", "sumList",
		"/**\n * Write a function to sum the integers of a list.\n *\n * > sumList([1, 2, 3])\n * 6\n */\nfunction sumList(nums) {\n",
		"  return nums.reduce((a, b) => a + b, 0);\n}",
		"\nconst _ = require(\"lodash\")\n\nfunction compare(object1, object2){\n    return _.isEqual(object1, object2)\n}\n\nvar x0 = sumList([1, 2, 3]);\nif(!compare(x0, 6)){\n    throw 'Error at 1th assert statement.'\n}\n\nvar x1 = sumList([]);\nif(!compare(x1, 0)){\n    throw 'Error at 2th assert statement.'\n}\n"},
	{"typescript", "sum_list",
		"/**\n * Write a function to sum the integers of a list.\n * \n * Examples:\n * >>> sum_list([1, 2, 3])\n * >>> 6\n */\nconst sum_list = function (nums: Array<number>) : number  {\n",
		"\treturn nums.reduce((a, b) => a + b, 0);\n}",
		"\nimport * as assert from 'assert'\n\nlet actual_1 = sum_list([1, 2, 3]);\nlet expected_1 = 6;\nassert.deepEqual(actual_1, expected_1, \"Exception --- test case 0 failed to pass\");\n\nlet actual_2 = sum_list([]);\nlet expected_2 = 0;\nassert.deepEqual(actual_2, expected_2, \"Exception --- test case 1 failed to pass\");\n\n"},
	{"ruby", "sum_list",
		"\n##\n# Write a function to sum the integers of a list.\n# irb> sum_list([1, 2, 3])\n# => 6\ndef sum_list(nums)",
		"\n  nums.sum\nend\n",
		"\n\nx0 = sum_list([1, 2, 3])\nif x0 != 6\n    raise StandardError, \"Error at test case 1\"\nend\n\nx1 = sum_list([])\nif x1 != 0\n    raise StandardError, \"Error at test case 2\"\nend\n\n"},
}

var synthWords = strings.Fields("the a model answer question river city light water quickly small bright number system people music history science paper travel green market house winter summer garden story simple careful explain because therefore")

// Synth makes data set rows in the official format. RefOutput holds a
// response the scorers count as right: the OpenOrca answer, a GSM8K
// solution ending "The answer is N.", the MBXP prompt's code completed and
// closed with a fence.
func Synth(cfg SynthConfig) ([]Sample, error) {
	n := cfg.Samples
	if n == 0 {
		n = 30
	}
	if n < 0 || n > 1_000_000 {
		return nil, fmt.Errorf("mixtral: synth: %d samples (want 1..1000000)", n)
	}
	enc := cfg.Encode
	if enc == nil {
		enc = StandInEncode
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x6d697874))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = synthWords[r.IntN(len(synthWords))]
		}
		w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
		return strings.Join(w, " ") + "."
	}
	out := make([]Sample, n)
	for i := range out {
		s := &out[i]
		s.StopSequence, s.TokStopSequence = "</s>", []int32{2}
		switch i % 3 {
		case 0:
			s.Dataset, s.ID = OpenOrca, "cot."+strconv.Itoa(1000+i)
			s.Question = words(8+r.IntN(20)) + " " + words(5+r.IntN(10))
			s.Input = "<s> [INST] You are an AI assistant. Answer the question.\n\n" + s.Question + " [/INST]"
			s.GtOutput = words(10+r.IntN(30)) + " " + words(5+r.IntN(10))
			s.RefOutput = s.GtOutput
		case 1:
			a, b := 2+r.IntN(500), 2+r.IntN(500)
			s.Dataset, s.ID = GSM8K, "train."+strconv.Itoa(i)
			s.Question = fmt.Sprintf("Tom has %d apples and buys %d more. How many apples does Tom have?", a, b)
			s.Input = "<s> [INST] As an expert problem solver solve step by step the following mathematical questions.\n\nQ: Ann has 2 pens and gets 3 more. How many pens does Ann have? [/INST] A: Ann has 2 + 3 = 5 pens. The answer is 5.\n\n</s> [INST] Q: " + s.Question + " [/INST] A:"
			s.GtOutput = strconv.Itoa(a + b)
			s.RefOutput = fmt.Sprintf("Tom has %d + %d = %d apples. The answer is %d.", a, b, a+b, a+b)
		default:
			p := synthMBXP[(i/3)%len(synthMBXP)]
			s.Dataset, s.ID = MBXP, p.lang+"_"+p.entry
			s.Question = p.prompt
			s.Input = "<s> [INST] Complete the following code. Be concise, don't output anything that isn't necessary.\n```" + p.lang + "\n" + p.prompt + "\n``` [/INST]Here's the completed code:\n\n```" + p.lang
			s.GtOutput = p.test
			s.RefOutput = "\n" + p.prompt + p.solution + "\n```\n"
		}
		s.TokInput = enc(s.Input)
		s.TokRefOutput = append(enc(s.RefOutput)[1:], 2)
	}
	return out, nil
}

// Write writes samples as the DataFrame pickle of the official file: the
// columns of Columns, in that order (tok_input_len and tok_ref_output_len
// int64, the others objects).
func Write(w io.Writer, samples []Sample) error {
	if len(samples) == 0 {
		return fmt.Errorf("mixtral: no samples to write")
	}
	str := func(f func(Sample) string) []any {
		c := make([]any, len(samples))
		for i, s := range samples {
			c[i] = f(s)
		}
		return c
	}
	ids := func(f func(Sample) []int32) []any {
		c := make([]any, len(samples))
		for i, s := range samples {
			t := f(s)
			l := make([]int64, len(t))
			for j, v := range t {
				l[j] = int64(v)
			}
			c[i] = l
		}
		return c
	}
	lens := func(f func(Sample) []int32) []int64 {
		c := make([]int64, len(samples))
		for i, s := range samples {
			c[i] = int64(len(f(s)))
		}
		return c
	}
	tokIn := func(s Sample) []int32 { return s.TokInput }
	tokRef := func(s Sample) []int32 { return s.TokRefOutput }
	cols := []pickle.WriteColumn{
		{Name: ColDataset, Cells: str(func(s Sample) string { return s.Dataset })},
		{Name: ColID, Cells: str(func(s Sample) string { return s.ID })},
		{Name: ColQuestion, Cells: str(func(s Sample) string { return s.Question })},
		{Name: ColInput, Cells: str(func(s Sample) string { return s.Input })},
		{Name: ColGtOutput, Cells: str(func(s Sample) string { return s.GtOutput })},
		{Name: ColTokInput, Cells: ids(tokIn)},
		{Name: ColStopSequence, Cells: str(func(s Sample) string { return s.StopSequence })},
		{Name: ColTokStopSequence, Cells: ids(func(s Sample) []int32 { return s.TokStopSequence })},
		{Name: ColTokInputLen, Ints: lens(tokIn)},
		{Name: ColRefOutput, Cells: str(func(s Sample) string { return s.RefOutput })},
		{Name: ColTokRefOutput, Cells: ids(tokRef)},
		{Name: ColTokRefOutputLen, Ints: lens(tokRef)},
	}
	if err := pickle.WriteDataFrame(w, cols); err != nil {
		return fmt.Errorf("mixtral: %w", err)
	}
	return nil
}

// WriteFile writes samples to path (through a temporary file in its
// folder, renamed when complete).
func WriteFile(path string, samples []Sample) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("mixtral: folder %s of %s does not exist", dir, path)
	}
	f, err := os.CreateTemp(dir, ".mixtral-*.pkl")
	if err != nil {
		return fmt.Errorf("mixtral: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("mixtral: %w", err)
	}
	bw := bufio.NewWriter(f)
	if err := Write(bw, samples); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("mixtral: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("mixtral: writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("mixtral: %w", err)
	}
	return nil
}
