package dice

import (
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/datasets/kits19"
	"io"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/internal/pynum"
)

// Smooth is the numerator and denominator smoothing of the KiTS19
// DICE (accuracy_kits.py's smooth_nr and smooth_dr).
const Smooth = 1e-6

// Case is one KiTS19 case's scores.
type Case struct {
	Case      string
	Kidney    float64 // DICE of label 1
	Tumor     float64 // DICE of label 2
	Composite float64 // np.mean([Kidney, Tumor])
}

// Dice scores one case as accuracy_kits.py's get_dice_score: both label
// volumes one-hot encoded over the classes 0, 1, 2 and background dropped;
// for kidney (label 1) and tumor (label 2) separately,
// (2·|P∩T| + 1e-6) / (|T| + |P| + 1e-6) in float64. A class absent from
// both volumes scores 1; absent from the truth but predicted, about 0.
// pred and gt must have the same length; a label above 2 is an error (the
// reference's np.eye(3)[x] raises IndexError).
func Dice(pred, gt []uint8) (kidney, tumor float64, err error) {
	if len(pred) != len(gt) {
		return 0, 0, fmt.Errorf("accuracy: dice: prediction of %d voxels, ground truth of %d", len(pred), len(gt))
	}
	// counts[p*3+t]: voxels predicted p with truth t.
	var counts [9]int
	for i, p := range pred {
		t := gt[i]
		if p > 2 || t > 2 {
			which, v := "prediction", p
			if t > 2 {
				which, v = "ground truth", t
			}
			return 0, 0, fmt.Errorf("accuracy: dice: %s voxel %d has label %d (KiTS19 labels are 0, 1, 2)", which, i, v)
		}
		counts[int(p)*3+int(t)]++
	}
	score := func(c int) float64 {
		inter, ps, ts := 0, 0, 0
		for k := range 3 {
			ps += counts[c*3+k]
			ts += counts[k*3+c]
		}
		inter = counts[c*3+c]
		return (2.0*float64(inter) + Smooth) / (float64(ts) + float64(ps) + Smooth)
	}
	return score(1), score(2), nil
}

// NewCase scores one case with Dice and fills in its composite.
func NewCase(name string, pred, gt []uint8) (Case, error) {
	k, t, err := Dice(pred, gt)
	if err != nil {
		return Case{}, fmt.Errorf("%w (case %s)", err, name)
	}
	return Case{Case: name, Kidney: k, Tumor: t, Composite: pynum.Sum([]float64{k, t}) / 2}, nil
}

// Result is the evaluation summary: the cases in the data set's order
// and the "mean" row (column means, numpy pairwise summation).
type Result struct {
	Cases []Case
	Mean  Case
}

// Summarize computes the mean row of cases as save_evaluation_summary
// does (no case can be NaN here, so fillna(0) changes nothing).
func Summarize(cases []Case) (Result, error) {
	if len(cases) == 0 {
		return Result{}, fmt.Errorf("accuracy: dice: no cases")
	}
	col := make([]float64, len(cases))
	mean := func(f func(Case) float64) float64 {
		for i, c := range cases {
			col[i] = f(c)
		}
		return pynum.Sum(col) / float64(len(cases))
	}
	r := Result{Cases: cases, Mean: Case{Case: "mean"}}
	r.Mean.Kidney = mean(func(c Case) float64 { return c.Kidney })
	r.Mean.Tumor = mean(func(c Case) float64 { return c.Tumor })
	r.Mean.Composite = mean(func(c Case) float64 { return c.Composite })
	return r, nil
}

// String is accuracy_kits.py's line, "Accuracy: mean = 0.86170, kidney =
// 0.9347, tumor = 0.7887"; the checker's DICE pattern reads the mean.
func (r Result) String() string {
	return fmt.Sprintf("Accuracy: mean = %.5f, kidney = %.4f, tumor = %.4f", r.Mean.Composite, r.Mean.Kidney, r.Mean.Tumor)
}

// CSV is summary.csv as the reference writes it with pandas (case,
// kidney, tumor, composite; Python float repr), for comparison by eye.
func (r Result) CSV() string {
	s := "case,kidney,tumor,composite\n"
	for _, c := range append(append([]Case(nil), r.Cases...), r.Mean) {
		s += fmt.Sprintf("%s,%s,%s,%s\n", c.Case, pynum.FloatRepr(c.Kidney), pynum.FloatRepr(c.Tumor), pynum.FloatRepr(c.Composite))
	}
	return s
}

// ScoreKiTS19Log scores a 3D-UNet accuracy log as accuracy_kits.py does:
// the log must hold exactly one entry per case (the reference asserts it:
// no duplicates, none missing); entry qsl_idx is cases[qsl_idx]; its data,
// decoded as d (uint8 in the reference), must have as many voxels as that
// case's ground truth, which truth returns in the same (C) order. Cases
// are reported in the order of cases.
func ScoreKiTS19Log(logPath string, d accuracy.DType, cases []string, truth func(name string) ([]uint8, error)) (Result, error) {
	r, err := accuracy.OpenLog(logPath)
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	scores := make([]Case, len(cases))
	seen := make([]bool, len(cases))
	for {
		e, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return Result{}, err
		}
		if e.QSLIdx >= uint64(len(cases)) {
			return Result{}, fmt.Errorf("accuracy: %s: seq_id %d: qsl_idx %d is outside the %d cases (\"Invalid qsl_idx!\")", logPath, e.SeqID, e.QSLIdx, len(cases))
		}
		name := cases[e.QSLIdx]
		if seen[e.QSLIdx] {
			return Result{}, fmt.Errorf("accuracy: %s: seq_id %d: a second entry for qsl_idx %d (%s); the reference wants exactly one per case", logPath, e.SeqID, e.QSLIdx, name)
		}
		seen[e.QSLIdx] = true
		gt, err := truth(name)
		if err != nil {
			return Result{}, err
		}
		if len(e.Data)%d.Size() != 0 || len(e.Data)/d.Size() != len(gt) {
			return Result{}, fmt.Errorf("accuracy: %s: seq_id %d (%s): %d bytes are not the %d voxels of %s of the ground truth", logPath, e.SeqID, name, len(e.Data), len(gt), d)
		}
		var pred []uint8
		if d == accuracy.Uint8 {
			pred = e.Data
		} else {
			v, err := accuracy.Decode(e.Data, d)
			if err != nil {
				return Result{}, err
			}
			if pred, err = kits19.Labels(v); err != nil {
				return Result{}, fmt.Errorf("%w (%s, seq_id %d)", err, name, e.SeqID)
			}
		}
		if scores[e.QSLIdx], err = NewCase(name, pred, gt); err != nil {
			return Result{}, err
		}
	}
	for i, ok := range seen {
		if !ok {
			return Result{}, fmt.Errorf("accuracy: %s: no entry for case %s (qsl_idx %d); the reference wants one per case", logPath, cases[i], i)
		}
	}
	return Summarize(scores)
}
