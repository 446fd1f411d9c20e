package metric

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/clip"
	"github.com/mlperf-go/inference/preprocess"
)

func init() {
	Register("clip", "CLIP score of paired image and text feature vectors (SDXL tools/clip)", metricCLIP)
}

func metricCLIP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric clip", flag.ContinueOnError)
	img := fs.String("image-features", "", "N×D float32 .npy of CLIP image embeddings (required)")
	txt := fs.String("text-features", "", "N×D float32 .npy of the captions' text embeddings, same order (required)")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *img == "" || *txt == "" {
		return usageError("--image-features FILE and --text-features FILE are required")
	}
	_, mean, err := clipFromFiles(*img, *txt)
	if err != nil {
		return err
	}
	return mo.Finish(stdout, []string{fmt.Sprintf("{'CLIP_SCORE': '%s'}", pyRepr(mean))})
}

func clipFromFiles(imgPath, txtPath string) ([]float64, float64, error) {
	si, img, err := preprocess.LoadNpy(imgPath)
	if err != nil {
		return nil, 0, err
	}
	st, txt, err := preprocess.LoadNpy(txtPath)
	if err != nil {
		return nil, 0, err
	}
	if len(si) != 2 || !slices.Equal(si, st) {
		return nil, 0, fmt.Errorf("accuracy: clip: image features %v (%s) and text features %v (%s): want the same (N, D)", si, imgPath, st, txtPath)
	}
	s, m, err := clip.Scores(img, txt, si[0], si[1])
	if err != nil {
		return nil, 0, fmt.Errorf("%w (%s, %s)", err, imgPath, txtPath)
	}
	return s, m, nil
}

// pyRepr is Python's str() of a float64.
func pyRepr(x float64) string { return accuracy.PyFloatRepr(x) }
