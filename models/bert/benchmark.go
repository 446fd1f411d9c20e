package bert

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/harness"
)

// Benchmark facts the descriptor needs; accuracy targets and latency
// bounds live in accuracy.Targets and mlperf.conf.
const (
	// Name is the benchmark's model name in mlperf.conf and user.conf.
	Name = "bert"
	// PerformanceSampleCount is the reference QSL's performance sample
	// count on the dev set (all its features; mlperf.conf's override is
	// the same 10833).
	PerformanceSampleCount = squad.DevFeatures
)

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
	sq, err := LoadSQuAD(cfg.Dataset, cfg.Vocab, DefaultConfig)
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

// NewQSL returns an in-memory QSL over the features of sq: LoadSamples
// pads the requested features into model inputs (untimed), and the QSL
// index is the feature's position, as in the reference. The performance
// sample count is every feature, as the reference QSL's.
func NewQSL(sq *SQuAD, cfg DataConfig) (*harness.QSL[Input], error) {
	q, err := harness.NewQSL(harness.QSLConfig[Input]{
		Total:       len(sq.Features),
		Performance: min(len(sq.Features), PerformanceSampleCount),
		Load: func(_ context.Context, i int) (Input, error) {
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
