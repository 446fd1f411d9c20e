package whisper

// The librispeech data set's commands: mlperf dataset
// synth|verify|preprocess librispeech.

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/librispeech"
)

// librispeechData is the repacked librispeechData's commands: synth, verify and
// preprocess (from an extracted librispeechData).
var librispeechData = &spec.Dataset{
	Name:     "librispeech",
	Summary:  "LibriSpeech dev-clean + dev-other repacked into clips of at most 30 s (dev-all-repack.json)",
	DataFile: true,
	DataWant: "the repacked LibriSpeech folder (dev-all-repack.json and dev-all-repack/) or its dev-all-repack.json",
	Download: "datasets/librispeech/download_dataset.sh",
	Synth:    synthLibriSpeech,
	Verify:   verifyLibriSpeech,
	// preprocess: --data an extracted LibriSpeech (dev-clean, dev-other),
	// -o the data folder to write.
	Preprocess: prepareLibriSpeech,
}

func synthLibriSpeech(req *spec.DatasetRequest) error {
	cfg := librispeech.SmallSynth
	if req.N > 0 {
		cfg.Samples = req.N
	}
	if req.Seed != 0 {
		cfg.Seed = req.Seed
	}
	if err := librispeech.Synth(req.Out, cfg); err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %s: %d clips of espeak-ng speech in the repacked LibriSpeech layout (synthetic, not the official data set)\n",
		filepath.Join(req.Out, librispeech.ManifestName), cfg.Samples)
	return nil
}

func verifyLibriSpeech(req *spec.DatasetRequest) error {
	ds, err := librispeech.Open(spec.FileIn(req.Data, librispeech.ManifestName), "")
	if err != nil {
		return err
	}
	rep, err := librispeech.Verify(ds)
	if err != nil {
		return err
	}
	fmt.Fprintln(req.Stdout, rep)
	for _, p := range rep.Problems {
		fmt.Fprintln(req.Stdout, "  "+p)
	}
	want := librispeech.OfficialSamples // -n: another count; -n 0: any
	if req.NSet {
		want = req.N
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("librispeech: %s: %d problem(s)", ds.Manifest, len(rep.Problems))
	}
	if want > 0 && rep.Samples != want {
		return fmt.Errorf("librispeech: %s has %d clips, want %d (-n 0 accepts any count)", ds.Manifest, rep.Samples, want)
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}

func prepareLibriSpeech(req *spec.DatasetRequest) error {
	if req.Out == "" {
		return spec.UsageError("librispeech: preprocess needs -o, the data folder to write")
	}
	n, err := librispeech.Prepare(req.Data, req.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "wrote %s: %d clips repacked from %s\n", filepath.Join(req.Out, librispeech.ManifestName), n, req.Data)
	return nil
}
