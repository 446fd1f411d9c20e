package metric

import (
	"context"
	"flag"
	"fmt"
	"github.com/mlperf-go/inference/datasets/kits19"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/dice"
	"github.com/mlperf-go/inference/preprocess"
)

func init() {
	Register("dice", "KiTS19 mean DICE of predicted label volumes or a 3D-UNet accuracy log (accuracy_kits.py)", metricDice)
}

func metricDice(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy --metric dice", flag.ContinueOnError)
	gt := fs.String("gt", "", "ground truth folder: the reference's preprocessed_data (nifti/<case>/segmentation.nii.gz) or <case>/segmentation.nii.gz, <case>.nii[.gz] or <case>.npy (uint8) (required)")
	pred := fs.String("pred", "", "predictions folder: <case>/prediction.nii.gz (the reference's postprocessed_data), <case>.nii[.gz] or <case>.npy")
	logPath := fs.String("log", "", "instead of --pred: mlperf_log_accuracy.json, one entry per case; qsl_idx is the case's index in sorted order, the shape the ground truth's")
	dtype := fs.String("dtype", "uint8", "response type of --log (accuracy_kits.py --output_dtype)")
	csv := fs.String("summary", "", "also write summary.csv (per case and mean) here")
	var mo Out
	mo.Flags(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *gt == "" || (*pred == "") == (*logPath == "") {
		return usageError("--gt DIR and one of --pred DIR or --log FILE are required")
	}
	gtDir := *gt
	if st, err := os.Stat(filepath.Join(gtDir, "nifti")); err == nil && st.IsDir() {
		gtDir = filepath.Join(gtDir, "nifti")
	}
	cases, err := kitsCases(gtDir)
	if err != nil {
		return err
	}
	truth := func(c string) ([]uint8, error) { return kitsVolume(gtDir, c, "segmentation") }
	var r dice.Result
	if *logPath != "" {
		dt, err := accuracy.ParseDType(*dtype)
		if err != nil {
			return usageError("--dtype: %v", err)
		}
		if r, err = dice.ScoreKiTS19Log(*logPath, dt, cases, truth); err != nil {
			return err
		}
	} else {
		var scores []dice.Case
		for _, c := range cases {
			g, err := truth(c)
			if err != nil {
				return err
			}
			p, err := kitsVolume(*pred, c, "prediction")
			if err != nil {
				return err
			}
			s, err := dice.NewCase(c, p, g)
			if err != nil {
				return err
			}
			scores = append(scores, s)
		}
		if r, err = dice.Summarize(scores); err != nil {
			return err
		}
	}
	if *csv != "" {
		if err := os.WriteFile(*csv, []byte(r.CSV()), 0o644); err != nil {
			return fmt.Errorf("accuracy: %w", err)
		}
	}
	return mo.Finish(stdout, []string{r.String()})
}

// kitsSuffixes are the file forms of a case, in the order tried.
var kitsSuffixes = []string{".nii.gz", ".nii", ".npy"}

// kitsCases lists the case names of a folder, sorted: sub-folders holding
// segmentation.nii.gz, or volume files.
func kitsCases(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w", err)
	}
	var cases []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, name, "segmentation.nii.gz")); err == nil {
				cases = append(cases, name)
			}
			continue
		}
		for _, s := range kitsSuffixes {
			if strings.HasSuffix(name, s) {
				cases = append(cases, strings.TrimSuffix(name, s))
				break
			}
		}
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("accuracy: %s: no cases (want <case>/segmentation.nii.gz, <case>.nii.gz, <case>.nii or <case>.npy)", dir)
	}
	sort.Strings(cases)
	return cases, nil
}

// kitsVolume loads a case's labels in C order: dir/case/<kind>.nii.gz,
// dir/case.nii.gz, dir/case.nii or dir/case.npy.
func kitsVolume(dir, c, kind string) ([]uint8, error) {
	paths := []string{filepath.Join(dir, c, kind+".nii.gz")}
	for _, s := range kitsSuffixes {
		paths = append(paths, filepath.Join(dir, c+s))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var v []float64
		if strings.HasSuffix(p, ".npy") {
			a, err := preprocess.LoadNpyArray(p)
			if err != nil {
				return nil, err
			}
			v = a.Float64s()
		} else {
			img, err := preprocess.LoadNifti(p)
			if err != nil {
				return nil, err
			}
			v = img.Data
		}
		l, err := kits19.Labels(v)
		if err != nil {
			return nil, fmt.Errorf("%w (%s)", err, p)
		}
		return l, nil
	}
	return nil, fmt.Errorf("accuracy: case %s: none of %s", c, strings.Join(paths, ", "))
}
