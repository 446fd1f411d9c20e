package bert

// The squad data set's commands: mlperf dataset synth|verify squad.

import (
	"fmt"
	"os"
	"time"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/squad"
)

// squadDataset is SQuAD v1.1's commands: synth and verify.
var squadDataset = &spec.Dataset{
	Name:     "squad",
	DataFile: true,
	DataWant: "the SQuAD v1.1 dev-v1.1.json file or the folder holding it",
	Download: "datasets/squad/download_dataset.sh",
	Summary:  "SQuAD v1.1 dev set (dev-v1.1.json)",
	Synth:    synthSquad,
	Verify:   verifySquad,
	Options: []spec.Option{
		{Name: "size", Default: "small", Usage: "synth: small (12 questions over 4 long paragraphs) or dev (the shape of dev-v1.1.json: 10570 questions, 2067 paragraphs)"},
		{Name: "official", Bool: true, Usage: "verify: fail unless the file is the official dev-v1.1.json (by MD5)"},
		{Name: "features", Bool: true, Usage: "verify: also build the BERT features (max_seq_length 384, doc_stride 128) and report their count"},
		vocabOption,
	},
}

func synthSquad(req *spec.DatasetRequest) error {
	var cfg squad.SynthConfig
	switch req.Extra["size"] {
	case "small":
		cfg = squad.SmallSynth
	case "dev":
		cfg = squad.DevSizedSynth
	default:
		return spec.UsageError("squad: --size %q: want small or dev", req.Extra["size"])
	}
	if req.Seed != 0 {
		cfg.Seed = req.Seed
	}
	ds, err := squad.Synth(cfg)
	if err != nil {
		return err
	}
	path := spec.FileIn(req.Out, squad.DevFileName)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("squad: %w", err)
	}
	if err := ds.Write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("squad: %w", err)
	}
	fmt.Fprintf(req.Stdout, "wrote %s: %d questions in %d paragraphs (synthetic, not the official dev set)\n", path, ds.NumQuestions(), ds.NumParagraphs())
	return nil
}

func verifySquad(req *spec.DatasetRequest) error {
	path := spec.FileIn(req.Data, squad.DevFileName)
	rep, err := squad.Verify(path)
	if err != nil {
		return err
	}
	kind := "not the official dev-v1.1.json"
	if rep.Official {
		kind = "the official dev-v1.1.json"
	}
	fmt.Fprintf(req.Stdout, "%s: SQuAD v%s, %d questions in %d paragraphs, md5 %s (%s)\n", rep.Path, squad.Version, rep.Questions, rep.Paragraphs, rep.MD5, kind)
	if req.Extra["official"] == "true" && !rep.Official {
		return fmt.Errorf("squad: %s: md5 %s, want %s (download it with datasets/squad/download_dataset.sh)", path, rep.MD5, squad.DevMD5)
	}
	if req.Extra["features"] == "true" {
		v, err := loadVocab(req.Extra["vocab"])
		if err != nil {
			return err
		}
		ds, err := squad.Load(path)
		if err != nil {
			return err
		}
		start := time.Now()
		feats, err := buildFeatures(examples(ds), newTokenizer(v), defaultConfig)
		if err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "built %d features in %.3fs\n", len(feats), time.Since(start).Seconds())
		if rep.Official && len(feats) != squad.DevFeatures {
			return fmt.Errorf("squad: %s gives %d features, want %d", path, len(feats), squad.DevFeatures)
		}
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}
