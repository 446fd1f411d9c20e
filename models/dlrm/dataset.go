package dlrm

// The criteo data set's commands: mlperf dataset synth|verify criteo.

import (
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/criteo"
)

// dataset is the criteo data set's commands.
var dataset = &spec.Dataset{
	Name:     "criteo",
	DataWant: "the Criteo day-23 folder (day_23_labels.npy, day_23_dense.npy, day_23_sparse_multi_hot.npz)",
	Download: "datasets/criteo/download_dataset.sh",
	Summary:  "Criteo 1TB day 23, TorchRec-preprocessed with MLPerf multi-hot ids (DLRMv2)",
	Synth: func(req *spec.DatasetRequest) error {
		if err := criteo.Synth(req.Out, criteo.SynthConfig{Rows: req.N, Seed: req.Seed}); err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "criteo: synthetic day 23 in %s\n", req.Out)
		return nil
	},
	Verify: func(req *spec.DatasetRequest) error {
		rows := req.N
		if !req.NSet {
			rows = criteo.DayRows
		}
		return criteo.Verify(req.Data, rows, req.Stdout)
	},
}
