package unet3d

// The kits19 data set's commands: mlperf dataset
// synth|verify|preprocess kits19.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/kits19"
)

// dataset is the kits19 data set's commands.
var dataset = &spec.Dataset{
	Name:       "kits19",
	DataWant:   "the KiTS19 folder (raw case_NNNNN folders with imaging.nii.gz, or the preprocessed folder with preprocessed_files.json)",
	Download:   "models/unet3d/download_dataset.sh",
	Summary:    "KiTS19 CT volumes and segmentations (43 inference cases; case_00400 copies case_00185)",
	Synth:      datasetSynth,
	Verify:     datasetVerify,
	Preprocess: datasetPreprocess,
	Options: []spec.Option{{
		Name:    "cases",
		Default: "inference",
		Usage:   "preprocess: which cases, in QSL order: inference (the reference's 43), calibration (its 20) or all (every case_* folder, sorted, e.g. a synthetic set)",
	}},
}

func datasetSynth(req *spec.DatasetRequest) error {
	if req.Out == "" {
		return errors.New("kits19: synth needs -o FOLDER")
	}
	names, err := kits19.Synth(req.Out, req.N, max(req.Seed, 1))
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "kits19: wrote %d synthetic raw cases (%s) into %s; preprocess them with `mlperf dataset preprocess kits19 --data %s --cases all -o OUT`\n", len(names), strings.Join(names, ", "), req.Out, req.Out)
	return nil
}

func datasetPreprocess(req *spec.DatasetRequest) error {
	if req.Data == "" || req.Out == "" {
		return errors.New("kits19: preprocess needs --data RAW and -o OUT")
	}
	var cases []string
	switch set := req.Extra["cases"]; set {
	case "", "inference":
		cases = kits19.InferenceCases()
	case "calibration":
		cases = kits19.CalibrationCases()
	case "all":
		ents, _ := filepath.Glob(filepath.Join(req.Data, "case_*", kits19.ImageFile))
		if len(ents) == 0 {
			return fmt.Errorf("kits19: %s holds no case_XXXXX/%s; download the data with models/unet3d/download_dataset.sh", req.Data, kits19.ImageFile)
		}
		for _, e := range ents {
			cases = append(cases, filepath.Base(filepath.Dir(e)))
		}
	default:
		return fmt.Errorf("kits19: --cases %q: want inference, calibration or all", set)
	}
	nifti := req.Extra["cases"] != "calibration" // as the reference, for the inference set only
	if req.Count > 0 && req.Count < len(cases) {
		cases = cases[:req.Count]
	}
	w := req.Workers
	if w < 1 {
		w = 2 // a raw CT volume takes about 1 GiB while it is resampled
	}
	idx, err := kits19.PreprocessDir(req.Data, req.Out, kits19.PreprocessOptions{Cases: cases, NoNifti: !nifti, Workers: w, Log: req.Stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(req.Stdout, "kits19: preprocessed %d cases into %s\n", len(idx.FileList), req.Out)
	return nil
}

func datasetVerify(req *spec.DatasetRequest) error {
	if req.Data == "" {
		return errors.New("kits19: verify needs --data FOLDER")
	}
	rep, err := kits19.Verify(req.Data)
	for _, l := range rep {
		fmt.Fprintln(req.Stdout, l)
	}
	return err
}
