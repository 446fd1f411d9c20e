package metric

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/accuracy/fid"
	"github.com/mlperf-go/inference/preprocess"
)

func init() {
	Register("fid", "FID between two feature sets or statistics files (SDXL tools/fid); with CLIP features, the full SDXL line", metricFID)
}

func metricFID(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric fid", flag.ContinueOnError)
	fa := fs.String("features-a", "", "N×D .npy of the first set's features (e.g. the generated images' 2048-d pool3 activations)")
	fb := fs.String("features-b", "", "N×D .npy of the second set's features")
	sa := fs.String("stats-a", "", "instead of --features-a: .npz with mu and sigma (the reference's val2014.npz)")
	sb := fs.String("stats-b", "", "instead of --features-b: .npz with mu and sigma")
	img := fs.String("image-features", "", "optional: image features for the CLIP score (see --metric clip); prints the SDXL line")
	txt := fs.String("text-features", "", "optional: text features for the CLIP score")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if (*fa == "") == (*sa == "") || (*fb == "") == (*sb == "") {
		return usageError("give one of --features-a or --stats-a, and one of --features-b or --stats-b")
	}
	mu1, s1, err := fidStats(*fa, *sa)
	if err != nil {
		return err
	}
	mu2, s2, err := fidStats(*fb, *sb)
	if err != nil {
		return err
	}
	dist, info, err := fid.FrechetDistance(mu1, s1, mu2, s2)
	if err != nil {
		return err
	}
	if info.Offset {
		fmt.Fprintf(stderr, "fid calculation produces singular product; adding %v to diagonal of cov estimates\n", fid.Eps)
	}
	if (*img == "") != (*txt == "") {
		return usageError("--image-features and --text-features go together")
	}
	if *img == "" {
		return mo.Finish(stdout, []string{fmt.Sprintf("{'FID_SCORE': '%s'}", pyRepr(dist))})
	}
	_, clipScore, err := clipFromFiles(*img, *txt)
	if err != nil {
		return err
	}
	return mo.Finish(stdout, []string{fid.SDXLResult{FID: dist, CLIP: clipScore}.String()})
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
