package metric

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"

	"github.com/mlperf-go/inference/accuracy/fid"
	"github.com/mlperf-go/inference/preprocess"
)

// FIDOptions are the inputs of FID: one of FeaturesA and StatsA, one of
// FeaturesB and StatsB, and optionally CLIP's features.
type FIDOptions struct {
	// FeaturesA and FeaturesB are N×D .npy feature matrices (e.g. 2048-d
	// pool3 activations); StatsA and StatsB instead .npz files of mu and
	// sigma (the reference's val2014.npz).
	FeaturesA, FeaturesB, StatsA, StatsB string
	// ImageFeatures and TextFeatures, together, add the CLIP score: the
	// line is then SDXL's.
	ImageFeatures, TextFeatures string
	// Warn receives the reference's note on a singular product (nil:
	// none).
	Warn io.Writer
}

// FID is the Fréchet distance of SDXL's tools/fid, or with CLIP features
// the full SDXL line.
func FID(o FIDOptions) (*spec.Score, error) {
	if (o.FeaturesA == "") == (o.StatsA == "") || (o.FeaturesB == "") == (o.StatsB == "") {
		return nil, usageError("give one of --features-a or --stats-a, and one of --features-b or --stats-b")
	}
	mu1, s1, err := fidStats(o.FeaturesA, o.StatsA)
	if err != nil {
		return nil, err
	}
	mu2, s2, err := fidStats(o.FeaturesB, o.StatsB)
	if err != nil {
		return nil, err
	}
	dist, info, err := fid.FrechetDistance(mu1, s1, mu2, s2)
	if err != nil {
		return nil, err
	}
	if info.Offset && o.Warn != nil {
		fmt.Fprintf(o.Warn, "fid calculation produces singular product; adding %v to diagonal of cov estimates\n", fid.Eps)
	}
	if (o.ImageFeatures == "") != (o.TextFeatures == "") {
		return nil, usageError("--image-features and --text-features go together")
	}
	if o.ImageFeatures == "" {
		return lines(fmt.Sprintf("{'FID_SCORE': '%s'}", pyRepr(dist))), nil
	}
	_, clipScore, err := clipFromFiles(o.ImageFeatures, o.TextFeatures)
	if err != nil {
		return nil, err
	}
	return lines(fid.SDXLResult{FID: dist, CLIP: clipScore}.String()), nil
}

// fidStats loads a feature matrix (mean and covariance computed) or an
// .npz of mu and sigma.
func fidStats(features, stats string) ([]float64, fid.Matrix, error) {
	if stats != "" {
		m, err := preprocess.LoadNpz(stats)
		if err != nil {
			return nil, fid.Matrix{}, err
		}
		mu, sigma := m["mu"], m["sigma"]
		if mu == nil || sigma == nil {
			return nil, fid.Matrix{}, fmt.Errorf("accuracy: %s: want arrays mu and sigma", stats)
		}
		n := mu.Len()
		if len(mu.Shape) != 1 || len(sigma.Shape) != 2 || sigma.Shape[0] != n || sigma.Shape[1] != n {
			return nil, fid.Matrix{}, fmt.Errorf("accuracy: %s: mu %v and sigma %v, want (D,) and (D, D)", stats, mu.Shape, sigma.Shape)
		}
		return mu.Float64s(), fid.Matrix{N: n, Data: sigma.Float64s()}, nil
	}
	a, err := preprocess.LoadNpyArray(features)
	if err != nil {
		return nil, fid.Matrix{}, err
	}
	if len(a.Shape) != 2 {
		return nil, fid.Matrix{}, fmt.Errorf("accuracy: %s: shape %v, want (N, D) features", features, a.Shape)
	}
	mu, cov, err := fid.MeanCov(a.Float64s(), a.Shape[0], a.Shape[1])
	if err != nil {
		return nil, fid.Matrix{}, fmt.Errorf("%w (%s)", err, features)
	}
	return mu, cov, nil
}
