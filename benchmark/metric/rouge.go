package metric

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mlperf-go/inference/accuracy/rouge"
)

func init() {
	Register("rouge", "ROUGE-1/2/L/Lsum of predictions against references (GPT-J evaluation.py, Llama 2 evaluate-accuracy.py)", metricRouge)
}

func metricRouge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric rouge", flag.ContinueOnError)
	preds := fs.String("predictions", "", "predictions: a JSON array of strings, or text with one prediction per line (required)")
	refs := fs.String("references", "", "references, in the same form and order (required)")
	tokens := fs.String("tokens", "", "optional JSON array of generated token counts (gen_tok_len, tokens_per_sample)")
	format := fs.String("format", "", "print as gptj or llama2 (default: llama2 when --tokens is given, else gptj)")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *preds == "" || *refs == "" {
		return usageError("--predictions FILE and --references FILE are required")
	}
	p, err := readTexts(*preds)
	if err != nil {
		return err
	}
	r, err := readTexts(*refs)
	if err != nil {
		return err
	}
	var counts []int
	if *tokens != "" {
		b, err := os.ReadFile(*tokens)
		if err != nil {
			return fmt.Errorf("accuracy: %w", err)
		}
		if err := json.Unmarshal(b, &counts); err != nil {
			return fmt.Errorf("accuracy: %s: want a JSON array of integers: %v", *tokens, err)
		}
	}
	res, err := rouge.Evaluate(p, r, counts)
	if err != nil {
		return err
	}
	switch f := *format; {
	case f == "gptj" || (f == "" && counts == nil):
		return mo.Finish(stdout, []string{res.GPTJString()})
	case f == "llama2" || f == "":
		return mo.Finish(stdout, []string{res.Llama2String()})
	default:
		return usageError("--format %q: want gptj or llama2", f)
	}
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
