package metric

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"slices"

	"github.com/mlperf-go/inference/accuracy/clip"
	"github.com/mlperf-go/inference/preprocess"
)

// CLIPOptions are the inputs of CLIP: N×D float32 .npy files of image
// embeddings and of the captions' text embeddings, in the same order.
type CLIPOptions struct {
	ImageFeatures, TextFeatures string
}

// CLIP is the mean CLIP score of SDXL's tools/clip.
func CLIP(o CLIPOptions) (*spec.Score, error) {
	if o.ImageFeatures == "" || o.TextFeatures == "" {
		return nil, usageError("--image-features FILE and --text-features FILE are required")
	}
	_, mean, err := clipFromFiles(o.ImageFeatures, o.TextFeatures)
	if err != nil {
		return nil, err
	}
	return lines(fmt.Sprintf("{'CLIP_SCORE': '%s'}", pyRepr(mean))), nil
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
