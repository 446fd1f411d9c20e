package metric

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"strings"

	"github.com/mlperf-go/inference/accuracy/rouge"
)

// ROUGEOptions are the inputs of ROUGE.
type ROUGEOptions struct {
	// Predictions and References are a JSON array of strings or text with
	// one per line, in the same order.
	Predictions, References string
	// Tokens, if set, is a JSON array of generated token counts
	// (gen_tok_len, tokens_per_sample).
	Tokens string
	// Format is gptj or llama2 ("": llama2 with Tokens, else gptj).
	Format string
}

// ROUGE is ROUGE-1/2/L/Lsum as GPT-J's evaluation.py or Llama 2's
// evaluate-accuracy.py print it.
func ROUGE(o ROUGEOptions) (*spec.Score, error) {
	if o.Predictions == "" || o.References == "" {
		return nil, usageError("--predictions FILE and --references FILE are required")
	}
	if o.Format != "" && o.Format != "gptj" && o.Format != "llama2" {
		return nil, usageError("--format %q: want gptj or llama2", o.Format)
	}
	p, err := readTexts(o.Predictions)
	if err != nil {
		return nil, err
	}
	r, err := readTexts(o.References)
	if err != nil {
		return nil, err
	}
	var counts []int
	if o.Tokens != "" {
		b, err := os.ReadFile(o.Tokens)
		if err != nil {
			return nil, fmt.Errorf("accuracy: %w", err)
		}
		if err := json.Unmarshal(b, &counts); err != nil {
			return nil, fmt.Errorf("accuracy: %s: want a JSON array of integers: %v", o.Tokens, err)
		}
	}
	res, err := rouge.Evaluate(p, r, counts)
	if err != nil {
		return nil, err
	}
	if o.Format == "gptj" || (o.Format == "" && counts == nil) {
		return lines(res.GPTJString()), nil
	}
	return lines(res.Llama2String()), nil
}

// readTexts reads a JSON array of strings (a file starting with '['),
// else one text per line.
func readTexts(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	if strings.HasPrefix(strings.TrimSpace(string(b)), "[") {
		var out []string
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, fmt.Errorf("accuracy: %s: want a JSON array of strings: %v", path, err)
		}
		return out, nil
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
