package unet3d

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/dice"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/kits19"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(Descriptor)
	spec.RegisterDataset(Dataset)
}

// Descriptor is the 3D-UNet benchmark descriptor: mlperf.conf model 3d-unet,
// checker variants 3d-unet-99 and 3d-unet-99.9, SingleStream and Offline
// (the reference's run.py accepts only these).
var Descriptor = &spec.Benchmark{
	Name:       "unet3d",
	Summary:    "3D-UNet kidney-tumour segmentation on KiTS19 (sliding window, mean DICE)",
	ConfNames:  []string{"3d-unet"},
	CheckerIDs: []string{"3d-unet-99", "3d-unet-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Offline},
	Dataset:    "kits19",
	Model: spec.Models{
		Default: "synthetic",
		Sizes: []spec.Size{
			{Name: SizeFull, Summary: "channels 32-64-128-256-320-320, 31.2M parameters"},
			{Name: SizeTiny, Summary: "channels 2-4-8-8-8-8, for tests"},
		},
		Seed: ArchSeed,
	},
	// The round's checker runs TEST01 for 3d-unet-99 and -99.9 only.
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the unet3d benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return BuildModel(path, size, seed) }

// Dataset is the kits19 data set's commands.
var Dataset = &spec.Dataset{
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

// SyntheticData is the --data value that selects the generated data set.
const SyntheticData = "synthetic"

// resolveData returns the preprocessed folder and index a --data value
// names: "synthetic" builds (once) a small synthetic data set in the
// cache, preprocessed; a folder must be preprocessed.
func resolveData(data, cacheDir string, stderr io.Writer) (string, *kits19.Index, error) {
	if data == SyntheticData {
		return syntheticData(cacheDir, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "case_00000", kits19.ImageFile)); err == nil {
		return "", nil, fmt.Errorf("unet3d: --data %s holds raw KiTS19 cases; preprocess them first with `mlperf dataset preprocess kits19 --data %s -o PREPROCESSED` and pass that folder", data, data)
	}
	idx, err := kits19.Open(data)
	if err != nil {
		return "", nil, err
	}
	return data, idx, nil
}

// syntheticData builds the synthetic raw cases and their preprocessed form
// under cacheDir/kits19-synthetic once, through a temporary folder.
func syntheticData(cacheDir string, stderr io.Writer) (string, *kits19.Index, error) {
	dir := filepath.Join(cacheDir, fmt.Sprintf("kits19-synthetic-%d", kits19.SynthDefault))
	pre := filepath.Join(dir, "preprocessed")
	if idx, err := kits19.Open(pre); err == nil {
		return pre, idx, nil
	}
	fmt.Fprintf(stderr, "unet3d: generating %d synthetic KiTS19 cases into %s\n", kits19.SynthDefault, dir)
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", nil, fmt.Errorf("unet3d: cache folder: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".kits19-synthetic-*")
	if err != nil {
		return "", nil, fmt.Errorf("unet3d: cache folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	names, err := kits19.Synth(filepath.Join(tmp, "raw"), kits19.SynthDefault, ArchSeed)
	if err != nil {
		return "", nil, err
	}
	if _, err := kits19.PreprocessDir(filepath.Join(tmp, "raw"), filepath.Join(tmp, "preprocessed"), kits19.PreprocessOptions{Cases: names, NoImageNifti: true}); err != nil {
		return "", nil, err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		if idx, oerr := kits19.Open(pre); oerr == nil { // built by another run meanwhile
			return pre, idx, nil
		}
		return "", nil, fmt.Errorf("unet3d: %w", err)
	}
	idx, err := kits19.Open(pre)
	return pre, idx, err
}

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
	sess, err := env.Engine.OpenSession(env.ModelPath, []string{OutputName})
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
