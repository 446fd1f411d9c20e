package whisper

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/librispeech"
)

// openData resolves --data: synthetic (generated once into the cache
// folder), a data folder, or its dev-all-repack.json.
func openData(data, cacheDir string, count int, stderr io.Writer) (*librispeech.Dataset, error) {
	if data == "synthetic" {
		dir := filepath.Join(cacheDir, "librispeech-synthetic-small")
		if _, err := os.Stat(filepath.Join(dir, librispeech.ManifestName)); err != nil {
			fmt.Fprintf(stderr, "whisper: synthetic LibriSpeech (espeak-ng speech, %d clips) at %s\n", librispeech.SmallSynth.Samples, dir)
			tmp, err := os.MkdirTemp(cacheDir, ".librispeech-synthetic-*")
			if err != nil {
				return nil, fmt.Errorf("whisper: %w", err)
			}
			defer os.RemoveAll(tmp)
			if err := librispeech.Synth(tmp, librispeech.SmallSynth); err != nil {
				return nil, err
			}
			if err := os.Rename(tmp, dir); err != nil {
				if _, serr := os.Stat(filepath.Join(dir, librispeech.ManifestName)); serr != nil {
					return nil, fmt.Errorf("whisper: %w", err)
				}
			}
		}
		data = dir
	}
	ds, err := librispeech.Open(spec.FileIn(data, librispeech.ManifestName), "")
	if err != nil {
		return nil, err
	}
	if count > 0 && count < ds.Len() {
		ds.Samples = ds.Samples[:count]
	}
	return ds, nil
}
