package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/models/bert"
)

func init() {
	handle("dataset synth squad", "write a synthetic SQuAD v1.1 file (long contexts, unicode, punctuation)", datasetSynthSquad)
	handle("dataset verify squad", "check a SQuAD v1.1 file (version, MD5) and optionally build its BERT features", datasetVerifySquad)
}

// squadParse parses flags; -h prints usage and ends the command with status 0.
func squadParse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError("%v", err)
	}
	if fs.NArg() > 0 {
		return usageError("unexpected arguments: %v", fs.Args())
	}
	return nil
}

// squadPath resolves a file-or-folder argument to the data set file.
func squadPath(p string) string {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return filepath.Join(p, squad.DevFileName)
	}
	return p
}

// defaultVocab is where scripts/setup.d/30-bert-vocab.sh puts vocab.txt.
func defaultVocab() string {
	deps := os.Getenv("MLPERF_DEPS")
	if deps == "" {
		deps = ".deps"
	}
	return filepath.Join(deps, "bert", "vocab.txt")
}

func datasetSynthSquad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dataset synth squad", flag.ContinueOnError)
	out := fs.String("o", "", "output file, or folder to write "+squad.DevFileName+" into (required)")
	size := fs.String("size", "small", "small (12 questions over 4 long paragraphs) or dev (the shape of dev-v1.1.json: 10570 questions, 2067 paragraphs)")
	seed := fs.Uint64("seed", 0, "content seed (0: the preset's; same size and seed, same bytes)")
	if err := squadParse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	var cfg squad.SynthConfig
	switch *size {
	case "small":
		cfg = squad.SmallSynth
	case "dev":
		cfg = squad.DevSizedSynth
	default:
		return usageError("--size %q: want small or dev", *size)
	}
	if *seed != 0 {
		cfg.Seed = *seed
	}
	ds, err := squad.Synth(cfg)
	if err != nil {
		return err
	}
	path := squadPath(*out)
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
	fmt.Printf("wrote %s: %d questions in %d paragraphs (synthetic, not the official dev set)\n", path, ds.NumQuestions(), ds.NumParagraphs())
	return nil
}

func datasetVerifySquad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dataset verify squad", flag.ContinueOnError)
	data := fs.String("data", "", "dev-v1.1.json, or the folder holding it (required)")
	official := fs.Bool("official", false, "fail unless the file is the official dev-v1.1.json (by MD5)")
	features := fs.Bool("features", false, "also build the BERT features (max_seq_length 384, doc_stride 128) and report their count")
	vocab := fs.String("vocab", defaultVocab(), "vocab.txt for --features")
	if err := squadParse(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usageError("--data FILE is required")
	}
	path := squadPath(*data)
	rep, err := squad.Verify(path)
	if err != nil {
		return err
	}
	kind := "not the official dev-v1.1.json"
	if rep.Official {
		kind = "the official dev-v1.1.json"
	}
	fmt.Printf("%s: SQuAD v%s, %d questions in %d paragraphs, md5 %s (%s)\n", rep.Path, squad.Version, rep.Questions, rep.Paragraphs, rep.MD5, kind)
	if *official && !rep.Official {
		return fmt.Errorf("squad: %s: md5 %s, want %s (download it with datasets/squad/download_dataset.sh)", path, rep.MD5, squad.DevMD5)
	}
	if *features {
		v, err := bert.LoadVocab(*vocab)
		if err != nil {
			return err
		}
		ds, err := squad.Load(path)
		if err != nil {
			return err
		}
		start := time.Now()
		feats, err := bert.BuildFeatures(bert.Examples(ds), bert.NewTokenizer(v), bert.DefaultConfig)
		if err != nil {
			return err
		}
		el := time.Since(start)
		fmt.Printf("built %d features in %.3fs\n", len(feats), el.Seconds())
		if rep.Official && len(feats) != squad.DevFeatures {
			return fmt.Errorf("squad: %s gives %d features, want %d", path, len(feats), squad.DevFeatures)
		}
	}
	fmt.Println("OK")
	return nil
}
