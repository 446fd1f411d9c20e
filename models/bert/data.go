package bert

import (
	"fmt"

	"github.com/mlperf-go/inference/accuracy/squadeval"
	"github.com/mlperf-go/inference/datasets/squad"
)

// SQuAD is the text side of the benchmark, loaded once: the data set, its
// examples, the features in QSL order and the tokenizer that made them.
// It is immutable after LoadSQuAD and safe for concurrent use.
type SQuAD struct {
	Dataset   *squad.Dataset
	Examples  []Example
	Features  []Feature
	Tokenizer *Tokenizer
}

// LoadSQuAD reads a SQuAD v1.1 file and a vocab.txt and builds the features
// with cfg (DefaultConfig for the benchmark). On the official dev set this
// yields squad.DevFeatures (10833) features.
func LoadSQuAD(datasetPath, vocabPath string, cfg Config) (*SQuAD, error) {
	v, err := LoadVocab(vocabPath)
	if err != nil {
		return nil, err
	}
	ds, err := squad.Load(datasetPath)
	if err != nil {
		return nil, err
	}
	return NewSQuAD(ds, NewTokenizer(v), cfg)
}

// NewSQuAD builds the examples and features of ds.
func NewSQuAD(ds *squad.Dataset, tok *Tokenizer, cfg Config) (*SQuAD, error) {
	exs := Examples(ds)
	feats, err := BuildFeatures(exs, tok, cfg)
	if err != nil {
		return nil, err
	}
	if len(feats) == 0 {
		return nil, fmt.Errorf("bert: the data set has no question with a non-empty context")
	}
	return &SQuAD{Dataset: ds, Examples: exs, Features: feats, Tokenizer: tok}, nil
}

// Answers post-processes the responses (keyed by QSL index) into one
// answer per question, with the reference's n-best 20 and max answer
// length 30.
func (s *SQuAD) Answers(results map[int]Logits) ([]Prediction, error) {
	return Postprocess(s.Examples, s.Features, results, DefaultPostprocess)
}

// Score post-processes the responses and scores the answers with the
// official SQuAD v1.1 evaluation (accuracy-squad.py + evaluate_v1.1.py).
func (s *SQuAD) Score(results map[int]Logits) (squadeval.Result, error) {
	preds, err := s.Answers(results)
	if err != nil {
		return squadeval.Result{}, err
	}
	return squadeval.Score(s.Dataset, PredictionMap(preds))
}

// PredictionMap keys predictions by question id; a repeated id keeps the
// last answer, as the reference's predictions.json does.
func PredictionMap(preds []Prediction) map[string]string {
	m := make(map[string]string, len(preds))
	for _, p := range preds {
		m[p.QasID] = p.Text
	}
	return m
}
