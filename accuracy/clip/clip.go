package clip

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/internal/pynum"
)

// Scores returns the CLIP score of each of n samples and their mean,
// as the SDXL reference computes them (tools/clip/clip_encoder.py and
// accuracy_coco.py): image and text feature vectors (row i of the n×dim
// row-major float32 matrices) are each divided by their L2 norm in
// float32, the score is 100 × their dot product (a float32, widened to
// float64 before the × 100), and CLIP_SCORE is np.mean of the scores
// (pairwise summation). Norms and dot products are accumulated in float64
// and rounded to float32 once, so a score may differ from torch's float32
// kernels in its last float32 bit (about 1e-6 of a score). Non-finite
// values and zero vectors are errors naming the row.
func Scores(image, text []float32, n, dim int) (scores []float64, mean float64, err error) {
	if n < 1 || dim < 1 || len(image) != n*dim || len(text) != n*dim {
		return nil, 0, fmt.Errorf("accuracy: clip: %d image and %d text values for %d samples of %d features", len(image), len(text), n, dim)
	}
	scores = make([]float64, n)
	a, b := make([]float32, dim), make([]float32, dim)
	for i := range n {
		if err := clipNormalize(a, image[i*dim:(i+1)*dim]); err != nil {
			return nil, 0, fmt.Errorf("accuracy: clip: image features of sample %d: %w", i, err)
		}
		if err := clipNormalize(b, text[i*dim:(i+1)*dim]); err != nil {
			return nil, 0, fmt.Errorf("accuracy: clip: text features of sample %d: %w", i, err)
		}
		var dot float64
		for k := range dim {
			dot += float64(a[k]) * float64(b[k])
		}
		scores[i] = 100 * float64(float32(dot))
	}
	return scores, pynum.Sum(scores) / float64(n), nil
}

// clipNormalize writes x / ‖x‖ (float32) into dst.
func clipNormalize(dst, x []float32) error {
	var ss float64
	for k, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("feature %d is %v", k, v)
		}
		ss += float64(v) * float64(v)
	}
	norm := float32(math.Sqrt(ss))
	if norm == 0 || math.IsInf(float64(norm), 0) {
		return fmt.Errorf("the vector's norm is %v", norm)
	}
	for k, v := range x {
		dst[k] = v / norm
	}
	return nil
}
