package metric

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mlperf-go/inference/accuracy/squadeval"
	"github.com/mlperf-go/inference/datasets/squad"
)

func init() {
	Register("squad", "SQuAD v1.1 EM/F1 of predictions.json against dev-v1.1.json (evaluate_v1.1.py)", metricSquad)
}

func metricSquad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric squad", flag.ContinueOnError)
	preds := fs.String("predictions", "", "predictions.json: {question id: answer text} (required)")
	data := fs.String("data", "", "dev-v1.1.json (required)")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *preds == "" || *data == "" {
		return usageError("--predictions FILE and --data dev-v1.1.json are required")
	}
	ds, err := squad.Load(*data)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(*preds)
	if err != nil {
		return fmt.Errorf("accuracy: %w", err)
	}
	var p map[string]string
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("accuracy: %s: want a JSON object of question id to answer text: %v", *preds, err)
	}
	r, err := squadeval.Score(ds, p)
	if err != nil {
		return err
	}
	var lines []string
	for _, id := range r.Unanswered {
		lines = append(lines, fmt.Sprintf("Unanswered question %s will receive score 0.", id))
	}
	return mo.Finish(stdout, append(lines, r.String()))
}
