package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/benchmark/metric"
)

func init() {
	handle("accuracy", "score a benchmark's accuracy log (accuracy <benchmark> --log FILE --data PATH) or raw inputs with one metric (accuracy --metric NAME)", accuracyMetric)
}

// accuracyMetric dispatches `mlperf accuracy --metric NAME [flags]` to a
// metric and `mlperf accuracy <benchmark> [flags]` to the benchmark's
// scorer.
func accuracyMetric(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	name, rest, found := cutMetricFlag(args)
	if !found {
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			b, ok := spec.Lookup(args[0])
			if !ok {
				return usageError("%v", spec.Unknown(args[0]))
			}
			return accuracyBenchmark(ctx, b, args[1:], stdout, stderr)
		}
		printMetrics(stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return usageError("want 'accuracy <benchmark> ...' or 'accuracy --metric NAME ...'")
	}
	i := slices.IndexFunc(metrics, func(m metricCmd) bool { return m.name == name })
	if i < 0 {
		return usageError("--metric %q: want one of %s", name, strings.Join(metricNames(), ", "))
	}
	m := metrics[i]
	fs := flag.NewFlagSet("accuracy --metric "+m.name, flag.ContinueOnError)
	score := m.flags(fs, stderr)
	var rec benchmark.Record
	rec.Name = m.name
	fs.StringVar(&rec.Out, "out", "", "also write the score line(s) to this accuracy.txt")
	fs.StringVar(&rec.CheckerID, "benchmark", "", "judge the printed score against this benchmark's submission-checker targets (e.g. resnet, dlrm-v2-99, 3d-unet-99.9, stable-diffusion-xl); exit status 1 if it fails")
	fs.StringVar(&rec.HashLog, "hash", "", "with --out: append 'hash=<sha256 of this file>' (the mlperf_log_accuracy.json) as truncate_accuracy_log.py does")
	if err := parse(fs, rest, stdout); err != nil {
		return err
	}
	if rec.HashLog != "" && rec.Out == "" {
		return usageError("--hash needs --out")
	}
	sc, err := score()
	if err != nil {
		return err
	}
	return rec.Write(stdout, sc)
}

// metricCmd is one `mlperf accuracy --metric NAME`: flags registers the
// metric's flags on fs and returns the func that scores with their
// values (notes to stderr).
type metricCmd struct {
	name, summary string
	flags         func(fs *flag.FlagSet, stderr io.Writer) func() (*spec.Score, error)
}

// metrics are the raw-input scorers of package metric, in `mlperf
// accuracy -h` order.
var metrics = []metricCmd{
	{"auc", "DLRMv2 ROC AUC of an accuracy log or of (prediction, label) pairs (accuracy-dlrm.py)", func(fs *flag.FlagSet, _ io.Writer) func() (*spec.Score, error) {
		var o metric.AUCOptions
		fs.StringVar(&o.Log, "log", "", "mlperf_log_accuracy.json whose responses are float32 (prediction, label) pairs")
		fs.StringVar(&o.Pairs, "pairs", "", "instead of --log: an N×2 .npy of (prediction, label) rows")
		fs.StringVar(&o.DType, "dtype", "float32", "response type of --log: float32 (the reference), int32 or int64")
		fs.IntVar(&o.Samples, "samples", 0, "with --log: the number of aggregated samples; a larger qsl_idx is an error (330067 for the full data set; 0: no check)")
		return func() (*spec.Score, error) { return metric.AUC(o) }
	}},
	{"clip", "CLIP score of paired image and text feature vectors (SDXL tools/clip)", func(fs *flag.FlagSet, _ io.Writer) func() (*spec.Score, error) {
		var o metric.CLIPOptions
		fs.StringVar(&o.ImageFeatures, "image-features", "", "N×D float32 .npy of CLIP image embeddings (required)")
		fs.StringVar(&o.TextFeatures, "text-features", "", "N×D float32 .npy of the captions' text embeddings, same order (required)")
		return func() (*spec.Score, error) { return metric.CLIP(o) }
	}},
	{"coco", "COCO bbox mAP of a RetinaNet log (accuracy-openimages.py, pycocotools COCOeval)", func(fs *flag.FlagSet, stderr io.Writer) func() (*spec.Score, error) {
		o := metric.COCOOptions{Warn: stderr}
		fs.StringVar(&o.Log, "log", "", "mlperf_log_accuracy.json (required)")
		fs.StringVar(&o.Annotations, "annotations", "", "COCO-format annotation file, e.g. openimages-mlperf.json (required); qsl_idx i is its i-th image")
		fs.BoolVar(&o.UseInvMap, "use-inv-map", false, "map label k to ([0] + the file's category ids)[k] (the script's --use-inv-map)")
		fs.BoolVar(&o.NumPy1, "numpy1", false, "scale boxes as numpy 1.x (float64) instead of numpy >= 2 (float32, NEP 50)")
		fs.IntVar(&o.Workers, "workers", 0, "categories evaluated at once (0: all cores)")
		return func() (*spec.Score, error) { return metric.COCO(o) }
	}},
	{"dice", "KiTS19 mean DICE of predicted label volumes or a 3D-UNet accuracy log (accuracy_kits.py)", func(fs *flag.FlagSet, _ io.Writer) func() (*spec.Score, error) {
		var o metric.DiceOptions
		fs.StringVar(&o.GT, "gt", "", "ground truth folder: the reference's preprocessed_data (nifti/<case>/segmentation.nii.gz) or <case>/segmentation.nii.gz, <case>.nii[.gz] or <case>.npy (uint8) (required)")
		fs.StringVar(&o.Pred, "pred", "", "predictions folder: <case>/prediction.nii.gz (the reference's postprocessed_data), <case>.nii[.gz] or <case>.npy")
		fs.StringVar(&o.Log, "log", "", "instead of --pred: mlperf_log_accuracy.json, one entry per case; qsl_idx is the case's index in sorted order, the shape the ground truth's")
		fs.StringVar(&o.DType, "dtype", "uint8", "response type of --log (accuracy_kits.py --output_dtype)")
		fs.StringVar(&o.Summary, "summary", "", "also write summary.csv (per case and mean) here")
		return func() (*spec.Score, error) { return metric.Dice(o) }
	}},
	{"fid", "FID between two feature sets or statistics files (SDXL tools/fid); with CLIP features, the full SDXL line", func(fs *flag.FlagSet, stderr io.Writer) func() (*spec.Score, error) {
		o := metric.FIDOptions{Warn: stderr}
		fs.StringVar(&o.FeaturesA, "features-a", "", "N×D .npy of the first set's features (e.g. the generated images' 2048-d pool3 activations)")
		fs.StringVar(&o.FeaturesB, "features-b", "", "N×D .npy of the second set's features")
		fs.StringVar(&o.StatsA, "stats-a", "", "instead of --features-a: .npz with mu and sigma (the reference's val2014.npz)")
		fs.StringVar(&o.StatsB, "stats-b", "", "instead of --features-b: .npz with mu and sigma")
		fs.StringVar(&o.ImageFeatures, "image-features", "", "optional: image features for the CLIP score (see --metric clip); prints the SDXL line")
		fs.StringVar(&o.TextFeatures, "text-features", "", "optional: text features for the CLIP score")
		return func() (*spec.Score, error) { return metric.FID(o) }
	}},
	{"rouge", "ROUGE-1/2/L/Lsum of predictions against references (GPT-J evaluation.py, Llama 2 evaluate-accuracy.py)", func(fs *flag.FlagSet, _ io.Writer) func() (*spec.Score, error) {
		var o metric.ROUGEOptions
		fs.StringVar(&o.Predictions, "predictions", "", "predictions: a JSON array of strings, or text with one prediction per line (required)")
		fs.StringVar(&o.References, "references", "", "references, in the same form and order (required)")
		fs.StringVar(&o.Tokens, "tokens", "", "optional JSON array of generated token counts (gen_tok_len, tokens_per_sample)")
		fs.StringVar(&o.Format, "format", "", "print as gptj or llama2 (default: llama2 when --tokens is given, else gptj)")
		return func() (*spec.Score, error) { return metric.ROUGE(o) }
	}},
	{"squad", "SQuAD v1.1 EM/F1 of predictions.json against dev-v1.1.json (evaluate_v1.1.py)", func(fs *flag.FlagSet, _ io.Writer) func() (*spec.Score, error) {
		var o metric.SQuADOptions
		fs.StringVar(&o.Predictions, "predictions", "", "predictions.json: {question id: answer text} (required)")
		fs.StringVar(&o.Data, "data", "", "dev-v1.1.json (required)")
		return func() (*spec.Score, error) { return metric.SQuAD(o) }
	}},
	{"top1", "ImageNet top-1 of an accuracy log against val_map.txt (accuracy-imagenet.py)", func(fs *flag.FlagSet, _ io.Writer) func() (*spec.Score, error) {
		var o metric.Top1Options
		fs.StringVar(&o.Log, "log", "", "mlperf_log_accuracy.json (required)")
		fs.StringVar(&o.Labels, "labels", "", "val_map.txt: lines 'image label' in QSL order (required)")
		fs.StringVar(&o.DType, "dtype", "float32", "response type: float32 (the reference), int32 or int64")
		return func() (*spec.Score, error) { return metric.Top1(o) }
	}},
}

func metricNames() []string {
	n := make([]string, len(metrics))
	for i, m := range metrics {
		n[i] = m.name
	}
	return n
}

// cutMetricFlag removes "--metric NAME" or "--metric=NAME" (one or two
// dashes) from args.
func cutMetricFlag(args []string) (name string, rest []string, found bool) {
	for i, a := range args {
		flagName, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || flagName != "metric" {
			continue
		}
		rest = append(append(rest, args[:i]...), args[i+1:]...)
		if hasValue {
			return value, rest, true
		}
		if i+1 >= len(args) {
			return "", rest, true
		}
		rest = append(append([]string(nil), args[:i]...), args[i+2:]...)
		return args[i+1], rest, true
	}
	return "", args, false
}

func printMetrics(stderr io.Writer) {
	fmt.Fprintln(stderr, "usage: mlperf accuracy --metric NAME [flags]   (or: mlperf accuracy <benchmark> --log FILE ...)")
	fmt.Fprintln(stderr, "metrics:")
	for _, m := range metrics {
		fmt.Fprintf(stderr, "  %-8s %s\n", m.name, m.summary)
	}
}
