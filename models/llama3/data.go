package llama3

// A run's samples: the data set file of the variant (or the synthetic
// one) and the tokenizer.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// loadTokenizer reads the Llama 3.1 tokenizer of --tokenizer.
func loadTokenizer(path string) (*tokenizer.Llama3, error) {
	tok, err := tokenizer.LoadLlama3(path)
	if err != nil {
		return nil, fmt.Errorf("llama3.1-8b: %w (give --tokenizer DIR)", err)
	}
	if n := tok.VocabSize(); n != tokenizer.Llama3VocabSize {
		return nil, fmt.Errorf("llama3.1-8b: the tokenizer of %s has %d ids, Llama 3.1's has %d: it is not this benchmark's (give --tokenizer the folder of Llama 3.1's tokenizer.json)", path, n, tokenizer.Llama3VocabSize)
	}
	return tok, nil
}

// dataFile is the data set file of a variant: sample_cnn_eval_5000.json
// for the edge one, cnn_eval.json for the others.
func dataFile(modelName string) string {
	if modelName == edgeName {
		return cnndm.Llama3EdgeFileName
	}
	return cnndm.FileName
}

// loadData resolves --data for the variant modelName and reads it:
// synthetic (generated once into the cache folder with tok), a file, or a
// folder holding the variant's file. It returns the file's path too.
func loadData(data, modelName, cacheDir string, tok *tokenizer.Llama3, stderr io.Writer) (string, []cnndm.Llama3Record, error) {
	var path string
	if data == "synthetic" {
		path = filepath.Join(cacheDir, "cnndm-llama3-synthetic-small", cnndm.FileName)
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(stderr, "llama3.1-8b: synthetic CNN-DailyMail file (generated text, %d records) at %s\n", cnndm.Llama3SmallSynth.Records, path)
			if err := synthFile(path, cnndm.Llama3SmallSynth, tok); err != nil {
				return "", nil, err
			}
		}
	} else {
		path = cnndm.Llama3Path(data, dataFile(modelName))
		if st, err := os.Stat(data); err == nil && st.IsDir() {
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				return "", nil, fmt.Errorf("llama3.1-8b: --data %s has no %s, the file of %s (models/llama3/download_dataset.sh fetches it)", data, dataFile(modelName), variant(modelName))
			}
		}
	}
	recs, err := cnndm.LoadLlama3(path)
	if err != nil {
		return "", nil, err
	}
	return path, recs, nil
}

func variant(modelName string) string {
	if modelName == "" {
		return benchmarkName
	}
	return modelName
}

// synthFile writes cfg's synthetic records, tokenized with tok, to path.
func synthFile(path string, cfg cnndm.SynthConfig, tok *tokenizer.Llama3) error {
	recs, err := cnndm.SynthLlama3(cfg, func(s string) []int32 { return tok.Encode(s, true) })
	if err != nil {
		return err
	}
	return cnndm.WriteLlama3File(path, recs)
}
