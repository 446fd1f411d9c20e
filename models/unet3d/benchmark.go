package unet3d

// The unet3d benchmark as the framework runs it: its descriptor and driver
// (see package benchmark/spec).

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/dice"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// descriptor is the 3D-UNet benchmark descriptor: mlperf.conf model 3d-unet,
// checker variants 3d-unet-99 and 3d-unet-99.9, SingleStream and Offline
// (the reference's run.py accepts only these).
var descriptor = &spec.Benchmark{
	Name:       "unet3d",
	Summary:    "3D-UNet kidney-tumour segmentation on KiTS19 (sliding window, mean DICE)",
	ConfNames:  []string{"3d-unet"},
	CheckerIDs: []string{"3d-unet-99", "3d-unet-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline},
	Dataset:    "kits19",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: sizeFull, Summary: "channels 32-64-128-256-320-320, 31.2M parameters"},
			{Name: sizeTiny, Summary: "channels 2-4-8-8-8-8, for tests"},
		},
		Seed: archSeed,
	},
	// The round's checker runs TEST01 for 3d-unet-99 and -99.9 only.
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the unet3d benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildModel(path, size, seed) }

// Open implements spec.Driver: the preprocessed cases and the model,
// which runs the sliding window over each case.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (*spec.Instance, error) {
	if env.Cache != "" {
		fmt.Fprintln(env.Stderr, "unet3d: --cache is not used: the cases are read preprocessed from --data (mlperf dataset preprocess kits19)")
	}
	if env.Remote {
		// The sliding window runs here, one request per patch, and the
		// patches are blended here: a reduction in the QDL, which the
		// Network division does not allow (the SUT node takes the whole
		// volume).
		fmt.Fprintf(env.Stderr, "unet3d: --backend %s sends each sliding-window patch as a request and blends the answers on this node; the Network division wants the SUT node to take the whole volume: not a conformant Network division run\n", env.Backend)
	}
	dir, idx, err := resolveData(env.Data, env.CacheDir, env.Stderr)
	if err != nil {
		return nil, err
	}
	cases := idx.FileList
	if env.Count > 0 && env.Count < len(cases) {
		cases = cases[:env.Count]
	}
	qsl, err := harness.NewQSL(harness.QSLConfig[kits19.Volume[float32]]{
		Total: len(cases),
		Load: func(ctx context.Context, i int) (kits19.Volume[float32], error) {
			return kits19.LoadImage(dir, idx.Cases[cases[i]])
		},
		Workers: 2,
	})
	if err != nil {
		return nil, err
	}
	sess, err := env.Engine.OpenSession(env.ModelPath, []string{outputName})
	if err != nil {
		return nil, err
	}
	m, err := New(sess, qsl.Sample, env.Batch)
	if err != nil {
		sess.Close()
		return nil, err
	}
	return &spec.Instance{
		Model:    m,
		QSL:      qsl,
		Describe: fmt.Sprintf("unet3d: %s, %d cases from %s, %d window(s) per engine call", filepath.Base(env.ModelPath), len(cases), dir, m.WindowBatch()),
		After: func(ctx context.Context, res *loadgen.Result) error {
			s, p := m.Busy()
			if p > 0 {
				fmt.Fprintf(env.Stderr, "unet3d: engine busy %.1f%% of the harness's inference time (%.3fs of session runs in %.3fs)\n", 100*s.Seconds()/p.Seconds(), s.Seconds(), p.Seconds())
			}
			return nil
		},
		Close: sess.Close,
	}, nil
}

// Score implements spec.Driver: accuracy_kits.py on the log.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	stderr := req.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	dir, idx, err := resolveData(req.Data, req.CacheDir, stderr)
	if err != nil {
		return nil, err
	}
	dt := accuracy.Uint8
	if req.DType != "" {
		if dt, err = accuracy.ParseDType(req.DType); err != nil {
			return nil, fmt.Errorf("unet3d: --dtype: %w", err)
		}
	}
	cases := idx.FileList
	if req.Count > 0 && req.Count < len(cases) {
		cases = cases[:req.Count]
	}
	return scoreCases(req.Log, dt, dir, cases)
}

// scoreCases is accuracy_kits.py over the preprocessed grid: one log entry
// per case, each compared with nifti/<case>/segmentation.nii.gz.
func scoreCases(logPath string, dt accuracy.DType, dir string, cases []string) (*spec.Score, error) {
	r, err := dice.ScoreKiTS19Log(logPath, dt, cases, func(name string) ([]uint8, error) {
		return kits19.LoadTruth(dir, name)
	})
	if err != nil {
		return nil, err
	}
	return &spec.Score{Lines: []string{r.String()}}, nil
}
