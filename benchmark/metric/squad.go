package metric

import (
	"encoding/json"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"

	"github.com/mlperf-go/inference/accuracy/squadeval"
	"github.com/mlperf-go/inference/datasets/squad"
)

// SQuADOptions are the inputs of SQuAD.
type SQuADOptions struct {
	// Predictions is predictions.json ({question id: answer text}); Data
	// the dev-v1.1.json.
	Predictions, Data string
}

// SQuAD is evaluate_v1.1.py: exact match and F1, after a line for each
// unanswered question.
func SQuAD(o SQuADOptions) (*spec.Score, error) {
	if o.Predictions == "" || o.Data == "" {
		return nil, usageError("--predictions FILE and --data dev-v1.1.json are required")
	}
	ds, err := squad.Load(o.Data)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(o.Predictions)
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	var p map[string]string
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("accuracy: %s: want a JSON object of question id to answer text: %v", o.Predictions, err)
	}
	r, err := squadeval.Score(ds, p)
	if err != nil {
		return nil, err
	}
	var l []string
	for _, id := range r.Unanswered {
		l = append(l, fmt.Sprintf("Unanswered question %s will receive score 0.", id))
	}
	return lines(append(l, r.String())...), nil
}
