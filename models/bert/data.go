package bert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/accuracy/squadeval"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/harness"
)

// SQuAD is the text side of the benchmark, loaded once: the data set, its
// examples, the features in QSL order and the tokenizer that made them.
// It is immutable after LoadSQuAD and safe for concurrent use.
type SQuAD struct {
	Dataset   *squad.Dataset
	Examples  []example
	Features  []feature
	Tokenizer *wordPieceTokenizer
}

// loadSQuAD reads a SQuAD v1.1 file and a vocab.txt and builds the features
// with cfg (DefaultConfig for the benchmark). On the official dev set this
// yields squad.DevFeatures (10833) features.
func loadSQuAD(datasetPath, vocabPath string, cfg config) (*SQuAD, error) {
	v, err := loadVocab(vocabPath)
	if err != nil {
		return nil, err
	}
	ds, err := squad.Load(datasetPath)
	if err != nil {
		return nil, err
	}
	return newSQuAD(ds, newTokenizer(v), cfg)
}

// newSQuAD builds the examples and features of ds.
func newSQuAD(ds *squad.Dataset, tok *wordPieceTokenizer, cfg config) (*SQuAD, error) {
	exs := examples(ds)
	feats, err := buildFeatures(exs, tok, cfg)
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
func (s *SQuAD) Answers(results map[int]Logits) ([]prediction, error) {
	return postprocess(s.Examples, s.Features, results, defaultPostprocess)
}

// Score post-processes the responses and scores the answers with the
// official SQuAD v1.1 evaluation (accuracy-squad.py + evaluate_v1.1.py).
func (s *SQuAD) Score(results map[int]Logits) (squadeval.Result, error) {
	preds, err := s.Answers(results)
	if err != nil {
		return squadeval.Result{}, err
	}
	return squadeval.Score(s.Dataset, predictionMap(preds))
}

// predictionMap keys predictions by question id; a repeated id keeps the
// last answer, as the reference's predictions.json does.
func predictionMap(preds []prediction) map[string]string {
	m := make(map[string]string, len(preds))
	for _, p := range preds {
		m[p.QasID] = p.Text
	}
	return m
}

// DataConfig says where a run's samples come from.
type DataConfig struct {
	// Dataset is the SQuAD v1.1 file (dev-v1.1.json).
	Dataset string
	// Vocab is the uncased WordPiece vocab.txt.
	Vocab string
	// Count, if positive, keeps only the first Count features (QSL
	// samples). Questions whose features are all dropped are left out of
	// the score (see SQuAD.Truncate).
	Count int
	// Workers is the number of samples loaded in parallel (< 1: all cores).
	Workers int
	// Progress, if not nil, reports loading progress (see
	// harness.QSLConfig.Progress).
	Progress func(done, total int)
}

// OpenData reads the data set and the vocabulary and builds the features
// (LoadSQuAD with DefaultConfig), keeping the first cfg.Count.
func OpenData(cfg DataConfig) (*SQuAD, error) {
	sq, err := loadSQuAD(cfg.Dataset, cfg.Vocab, defaultConfig)
	if err != nil {
		return nil, err
	}
	if cfg.Count > 0 {
		sq = sq.Truncate(cfg.Count)
	}
	return sq, nil
}

// Truncate returns the data set restricted to its first n features and the
// questions they belong to (all of them when n ≥ the feature count). A
// question whose later spans are cut keeps the spans it has: its answer is
// then chosen among those. The receiver is not modified; the result shares
// its features and examples.
func (s *SQuAD) Truncate(n int) *SQuAD {
	if n >= len(s.Features) || n < 1 {
		return s
	}
	feats := s.Features[:n:n]
	last := feats[n-1].ExampleIndex
	ds := &squad.Dataset{Version: s.Dataset.Version}
	// Keep the articles, paragraphs and questions of examples 0..last, in
	// file order (Examples numbers questions in that order).
	q := 0
	for _, a := range s.Dataset.Data {
		if q > last {
			break
		}
		na := squad.Article{Title: a.Title}
		for _, p := range a.Paragraphs {
			if q > last {
				break
			}
			np := squad.Paragraph{Context: p.Context}
			for _, qa := range p.QAs {
				if q > last {
					break
				}
				np.QAs = append(np.QAs, qa)
				q++
			}
			na.Paragraphs = append(na.Paragraphs, np)
		}
		ds.Data = append(ds.Data, na)
	}
	return &SQuAD{Dataset: ds, Examples: s.Examples[: last+1 : last+1], Features: feats, Tokenizer: s.Tokenizer}
}

// SynthDataset writes the small synthetic SQuAD file (squad.SmallSynth:
// long contexts that need several spans per question, unicode and
// punctuation) to path unless a valid file is there already, and returns
// path.
func SynthDataset(path string) (string, error) {
	if _, err := squad.Load(path); err == nil {
		return path, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("bert: %s exists but is not a SQuAD file (%w); delete it", path, err)
	}
	ds, err := squad.Synth(squad.SmallSynth)
	if err != nil {
		return "", fmt.Errorf("bert: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("bert: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return "", fmt.Errorf("bert: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := ds.Write(tmp); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("bert: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("bert: %w", err)
	}
	return path, nil
}

// newQSL returns an in-memory QSL over the features of sq: LoadSamples
// pads the requested features into model inputs (untimed), and the QSL
// index is the feature's position, as in the reference. The performance
// sample count is every feature, as the reference QSL's.
func newQSL(sq *SQuAD, cfg DataConfig) (*harness.QSL[input], error) {
	q, err := harness.NewQSL(harness.QSLConfig[input]{
		Total:       len(sq.Features),
		Performance: min(len(sq.Features), performanceSampleCount),
		Load: func(_ context.Context, i int) (input, error) {
			return NewInput(&sq.Features[i])
		},
		Workers:  cfg.Workers,
		Progress: cfg.Progress,
	})
	if err != nil {
		return nil, fmt.Errorf("bert: %w", err)
	}
	return q, nil
}

// squadPath resolves --data: a file, a folder holding dev-v1.1.json, or
// synthetic (a small generated file written once into the cache folder).
func squadPath(data, cacheDir string, stderr io.Writer) (string, error) {
	if data == "synthetic" {
		path := filepath.Join(cacheDir, "squad-synthetic-small", squad.DevFileName)
		fmt.Fprintf(stderr, "bert: synthetic SQuAD v1.1 file (generated text, not the dev set) at %s\n", path)
		return SynthDataset(path)
	}
	return spec.FileIn(data, squad.DevFileName), nil
}

// openSQuAD resolves the data set and the vocabulary and builds the
// features.
func openSQuAD(data, vocab, cacheDir string, count int, stderr io.Writer) (*SQuAD, string, error) {
	path, err := squadPath(data, cacheDir, stderr)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(vocab); err != nil {
		return nil, "", fmt.Errorf("bert: vocabulary %s not found: run `make setup` (it installs the MLPerf vocab.txt) or give --vocab FILE", vocab)
	}
	sq, err := OpenData(DataConfig{Dataset: path, Vocab: vocab, Count: count})
	return sq, path, err
}
