package bert

// The bert benchmark's descriptor and the squad data set's commands, as
// the benchmark registry runs them (see package benchmark/spec).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(Descriptor)
	spec.RegisterDataset(SquadDataset)
}

// vocabOption is --vocab, shared by run, perf, accuracy and dataset verify.
var vocabOption = spec.Option{Name: "vocab", Default: spec.DepsPath("bert", "vocab.txt"), Deps: "bert/vocab.txt",
	Usage: "uncased WordPiece vocab.txt (the MLPerf one; `make setup` installs it)"}

// Descriptor is BERT-large on SQuAD v1.1 (F1) as the registry runs it: a
// tensor model in the generic harness.
var Descriptor = &spec.Benchmark{
	Name:       Name,
	Summary:    "BERT-large question answering (SQuAD v1.1, F1)",
	ConfNames:  []string{Name},
	CheckerIDs: []string{"bert-99", "bert-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Server, loadgen.Offline},
	Dataset:    "squad",
	Model: spec.Models{
		Default: "synthetic",
		Sizes:   []spec.Size{{Name: SizeFull, Summary: "BERT-large, 334M parameters, 1.34 GB"}, {Name: SizeTiny, Summary: "2 layers of width 64, 8 MB"}},
		Seed:    ArchSeed,
	},
	// The reference runs every sample alone; batching helps Offline on an
	// accelerator.
	Batch:      spec.Batches{loadgen.Offline: {CPU: 1, GPU: 16}},
	Options:    []spec.Option{vocabOption},
	LogShape:   &accuracy.LogShape{Benchmark: Name, DType: accuracy.Float32, MinElems: 2 * MaxSeqLength, MaxElems: 2 * MaxSeqLength},
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the bert benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return BuildFile(path, size, seed) }

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

// Open builds the features and opens the model, checked against the
// contract and the vocabulary; the framework warms it up twice.
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	if r.Cache != "" {
		fmt.Fprintln(r.Stderr, "bert: --cache is not used: the features are built in memory at start-up (about 0.1 s for the dev set)")
	}
	vocab := r.Extra["vocab"]
	start := time.Now()
	sq, path, err := openSQuAD(r.Data, vocab, r.CacheDir, r.Count, r.Stderr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Stderr, "bert: %d features from %d questions of %s in %.2fs\n", len(sq.Features), len(sq.Examples), path, time.Since(start).Seconds())
	qsl, err := NewQSL(sq, DataConfig{Progress: r.Progress("loading samples", "features").Update})
	if err != nil {
		return nil, err
	}
	rows, err := ModelVocabSize(r.ModelPath)
	switch {
	case r.Remote:
		// The served model's weights are not here; its contract is
		// checked from the server's metadata below.
	case errors.Is(err, ErrNoEmbedding):
		fmt.Fprintf(r.Stderr, "bert: %s: no word-embedding table found; the vocabulary size is not checked\n", r.ModelPath)
	case err != nil:
		return nil, err
	default:
		if err := CheckVocab(rows, sq.Tokenizer.Vocab()); err != nil {
			return nil, fmt.Errorf("%w (model %s, vocab %s)", err, r.ModelPath, vocab)
		}
	}
	sess, err := r.Engine.OpenSession(r.ModelPath, nil)
	if err != nil {
		return nil, err
	}
	m, err := New(sess, qsl.Sample)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, r.ModelDesc)
	}
	return &spec.Instance{Model: m, QSL: qsl, Warmups: 2, Describe: r.Describe(qsl.TotalSampleCount()), Close: sess.Close}, nil
}

// Score is accuracy-squad.py: the logged logits of every feature go
// through the reference's post-processing (n-best 20, max answer length
// 30, get_final_text) and the official SQuAD v1.1 evaluation.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	if req.DType != "" && req.DType != "float32" {
		return nil, spec.UsageError("bert: --dtype %q: the logits are float32", req.DType)
	}
	sq, _, err := openSQuAD(req.Data, req.Extra["vocab"], req.CacheDir, req.Count, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreLog(req.Log, sq)
}

// scoreLog scores a BERT accuracy log against sq's features.
func scoreLog(logPath string, sq *SQuAD) (*spec.Score, error) {
	results, err := ReadLog(logPath, len(sq.Features))
	if err != nil {
		return nil, err
	}
	res, err := sq.Score(results)
	if err != nil {
		return nil, err
	}
	return &spec.Score{Lines: []string{res.String()}}, nil
}

// ReadLog reads an accuracy log's responses as logits keyed by QSL index;
// a repeated index keeps the first entry, as accuracy-squad.py's
// deduplication does. samples is the data set's feature count.
func ReadLog(path string, samples int) (map[int]Logits, error) {
	out := map[int]Logits{}
	_, err := accuracy.ReadUnique(path, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(samples) {
			return fmt.Errorf("bert: accuracy log %s: qsl_idx %d, but the data set has %d features (another data set or --count?)", path, e.QSLIdx, samples)
		}
		l, err := DecodeResponse(e.Data)
		if err != nil {
			return fmt.Errorf("bert: accuracy log %s: qsl_idx %d: %w", path, e.QSLIdx, err)
		}
		out[int(e.QSLIdx)] = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SquadDataset is SQuAD v1.1's commands: synth and verify.
var SquadDataset = &spec.Dataset{
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
		v, err := LoadVocab(req.Extra["vocab"])
		if err != nil {
			return err
		}
		ds, err := squad.Load(path)
		if err != nil {
			return err
		}
		start := time.Now()
		feats, err := BuildFeatures(Examples(ds), NewTokenizer(v), DefaultConfig)
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
