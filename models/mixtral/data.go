package mixtral

// A run's samples: the data set pickle (or the synthetic one) and the
// tokenizer.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// syntheticSamples is the size of the synthetic data set a run generates:
// 4 rows of each source, the MBXP ones in C++, Python, PHP and
// JavaScript.
const syntheticSamples = 12

// loadTokenizer reads the Mixtral tokenizer of --tokenizer and checks it
// is Mixtral's (Llama 2's has as many ids, but other pieces).
func loadTokenizer(path string) (*tokenizer.Llama, error) {
	tok, err := tokenizer.LoadMistral(path)
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w (give --tokenizer the folder of mistral-tokenizer.js)", err)
	}
	if n := tok.VocabSize(); n != tokenizer.MistralVocabSize || tok.Piece(28705) != "▁" || tok.Piece(415) != "▁The" {
		return nil, fmt.Errorf("mixtral: the tokenizer of %s (%d ids) is not Mixtral-8x7B's (give --tokenizer the folder of mistral-tokenizer.js of mistral-tokenizer-js@1.0.0)", path, n)
	}
	return tok, nil
}

// loadData resolves --data and reads it: synthetic (generated once into
// the cache folder with tok), the pickle, or a folder holding the
// official file. It returns the file's path too.
func loadData(data, cacheDir string, tok *tokenizer.Llama, stderr io.Writer) (string, *mixtral.Dataset, error) {
	var path string
	if data == "synthetic" {
		path = filepath.Join(cacheDir, "mixtral-synthetic-small", mixtral.FileName)
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(stderr, "mixtral: synthetic data set (generated prompts, %d rows) at %s\n", syntheticSamples, path)
			if err := synthFile(path, mixtral.SynthConfig{Samples: syntheticSamples}, tok); err != nil {
				return "", nil, err
			}
		}
	} else {
		path = data
		if st, err := os.Stat(data); err == nil && st.IsDir() {
			path = filepath.Join(data, mixtral.FileName)
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return "", nil, fmt.Errorf("mixtral: --data %s has no %s (datasets/mixtral/download_dataset.sh fetches it; or give the pickle's path)", data, mixtral.FileName)
			}
		}
	}
	ds, err := mixtral.Load(path)
	if err != nil {
		return "", nil, err
	}
	if ds.Len() == 0 {
		return "", nil, fmt.Errorf("mixtral: %s has no rows", path)
	}
	return path, ds, nil
}

// synthFile writes cfg's synthetic rows, tokenized with tok as the
// reference tokenized the real ones (special tokens of the prompt
// template read as such), to path.
func synthFile(path string, cfg mixtral.SynthConfig, tok *tokenizer.Llama) error {
	cfg.Encode = func(s string) []int32 { return tok.EncodeSpecial(s, true) }
	rows, err := mixtral.Synth(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("mixtral: %w", err)
	}
	return mixtral.WriteFile(path, rows)
}
