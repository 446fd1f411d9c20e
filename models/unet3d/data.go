package unet3d

// A run's cases: the preprocessed KiTS19 folder, or the synthetic one
// built once in the cache.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/kits19"
)

// syntheticDataArg is the --data value that selects the generated data set.
const syntheticDataArg = "synthetic"

// resolveData returns the preprocessed folder and index a --data value
// names: "synthetic" builds (once) a small synthetic data set in the
// cache, preprocessed; a folder must be preprocessed.
func resolveData(data, cacheDir string, stderr io.Writer) (string, *kits19.Index, error) {
	if data == syntheticDataArg {
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
	names, err := kits19.Synth(filepath.Join(tmp, "raw"), kits19.SynthDefault, archSeed)
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
