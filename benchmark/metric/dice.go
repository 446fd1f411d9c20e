package metric

import (
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/kits19"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/dice"
	"github.com/mlperf-go/inference/preprocess"
)

// DiceOptions are the inputs of Dice: GT and one of Pred and Log.
type DiceOptions struct {
	// GT is the ground truth folder: the reference's preprocessed_data
	// (nifti/<case>/segmentation.nii.gz), or <case>/segmentation.nii.gz,
	// <case>.nii[.gz] or <case>.npy.
	GT string
	// Pred is a predictions folder: <case>/prediction.nii.gz,
	// <case>.nii[.gz] or <case>.npy.
	Pred string
	// Log is instead an mlperf_log_accuracy.json, one entry per case
	// (qsl_idx: the case's index in sorted order), responses of type DType
	// (uint8 when "").
	Log, DType string
	// Summary, if set, is where summary.csv (per case and mean) is
	// written.
	Summary string
}

// Dice is accuracy_kits.py's mean DICE over the cases.
func Dice(o DiceOptions) (*spec.Score, error) {
	if o.GT == "" || (o.Pred == "") == (o.Log == "") {
		return nil, usageError("--gt DIR and one of --pred DIR or --log FILE are required")
	}
	gtDir := o.GT
	if st, err := os.Stat(filepath.Join(gtDir, "nifti")); err == nil && st.IsDir() {
		gtDir = filepath.Join(gtDir, "nifti")
	}
	cases, err := kitsCases(gtDir)
	if err != nil {
		return nil, err
	}
	truth := func(c string) ([]uint8, error) { return kitsVolume(gtDir, c, "segmentation") }
	var r dice.Result
	if o.Log != "" {
		if o.DType == "" {
			o.DType = "uint8"
		}
		dt, err := accuracy.ParseDType(o.DType)
		if err != nil {
			return nil, usageError("--dtype: %v", err)
		}
		if r, err = dice.ScoreKiTS19Log(o.Log, dt, cases, truth); err != nil {
			return nil, err
		}
	} else {
		var scores []dice.Case
		for _, c := range cases {
			g, err := truth(c)
			if err != nil {
				return nil, err
			}
			p, err := kitsVolume(o.Pred, c, "prediction")
			if err != nil {
				return nil, err
			}
			s, err := dice.NewCase(c, p, g)
			if err != nil {
				return nil, err
			}
			scores = append(scores, s)
		}
		if r, err = dice.Summarize(scores); err != nil {
			return nil, err
		}
	}
	if o.Summary != "" {
		if err := os.WriteFile(o.Summary, []byte(r.CSV()), 0o644); err != nil {
			return nil, fmt.Errorf("accuracy: %w", err)
		}
	}
	return lines(r.String()), nil
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
