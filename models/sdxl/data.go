package sdxl

// The synthetic COCO-2014 data set and cache folders built once.

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mlperf-go/inference/datasets/coco2014"
)

var synthMu sync.Mutex

// dataDir resolves --data: a folder, or the synthetic data set for latents
// of side latent and FID statistics of dim features, made once in cache.
func dataDir(data, cache string, latent, dim int64) (string, error) {
	if data != "synthetic" {
		return data, nil
	}
	dir := filepath.Join(cache, fmt.Sprintf("coco2014-synthetic-%d-%d", latent, dim))
	synthMu.Lock()
	defer synthMu.Unlock()
	if _, err := os.Stat(coco2014.StatsPath(dir)); err == nil {
		return dir, nil
	}
	err := buildOnce(dir, func(tmp string) error {
		return coco2014.Synth(tmp, coco2014.SynthConfig{N: synthSamples, LatentSize: int(latent), StatsDim: int(dim)})
	})
	return dir, err
}

// buildOnce writes a cache folder with build into a fresh temporary
// folder beside it and renames it into place; a folder another process
// put there first is kept.
func buildOnce(dir string, build func(tmp string) error) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("sdxl: cache folder: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+"-*")
	if err != nil {
		return fmt.Errorf("sdxl: cache folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
			return nil
		}
		return fmt.Errorf("sdxl: %w", err)
	}
	return nil
}
