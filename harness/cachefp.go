package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/preprocess"
)

// CacheFingerprintFile is the file in a sample cache folder that records
// what the cache was made from (see CacheStamp and BindCache).
const CacheFingerprintFile = ".mlperf-cache-fingerprint"

// ErrStaleCache marks a cache folder made from another data set or with
// another preprocessing than the run's.
var ErrStaleCache = errors.New("sample cache was made from other inputs")

// CacheStamp says what a sample cache's contents depend on. It is written
// into the cache folder as CacheFingerprintFile (a few "key: value"
// lines) and compared field by field, so that a refusal can say what
// differs.
type CacheStamp struct {
	// Preprocessing describes the preprocessing on one line: benchmark,
	// method, version, sample shape and dtype (e.g. "resnet50
	// pre_process_vgg v1 float32[3 224 224]").
	Preprocessing string
	// Source fingerprints the data set (SourceFingerprint of its index
	// file: val_map.txt, the annotation JSON).
	Source string
	// SourceName names the data set's index file in messages.
	SourceName string
}

// SourceFingerprint describes the source files of a data set cheaply: the
// full contents of the small index file (val_map.txt or similar; "" for
// none) and the name and size of every source file, in the given order.
// Two data sets with the same file names almost never agree on all the
// sizes; re-extracting the same data set keeps them.
func SourceFingerprint(index string, files []string) (string, error) {
	h := sha256.New()
	if index != "" {
		f, err := os.Open(index)
		if err != nil {
			return "", fmt.Errorf("harness: fingerprinting the data set: %w", err)
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("harness: fingerprinting the data set: %w", err)
		}
	}
	for _, p := range files {
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("harness: fingerprinting the data set: %w", err)
		}
		fmt.Fprintf(h, "\x00%s\x00%d", filepath.Base(p), st.Size())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// String is the stamp file's contents.
func (s CacheStamp) String() string {
	return fmt.Sprintf("# mlperf-go sample cache: what made the .npy files in this folder\npreprocessing: %s\nsource: %s\nsource-file: %s\n",
		oneLine(s.Preprocessing), s.Source, oneLine(s.SourceName))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseStamp reads a stamp file's contents; ok is false for text that is
// not a stamp.
func parseStamp(b []byte) (s CacheStamp, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), ":")
		if !found || strings.HasPrefix(k, "#") {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "preprocessing":
			s.Preprocessing, ok = v, true
		case "source":
			s.Source = v
		case "source-file":
			s.SourceName = v
		}
	}
	return s, ok && s.Source != ""
}

// CacheState is what BindCache found.
type CacheState int

const (
	// CacheFresh: the folder was missing or empty; it is now stamped.
	CacheFresh CacheState = iota
	// CacheStamped: the folder carries this run's stamp.
	CacheStamped
	// CacheUnstamped: the folder has files but no stamp (a cache made by
	// another tool, e.g. the reference's Python preprocessing, or a data
	// set folder that the cache shares). The caller checks it (see
	// OpenNpyCache) and may stamp it with WriteStamp.
	CacheUnstamped
)

// BindCache prepares dir as a sample cache for inputs described by want.
// A missing or empty folder is created and stamped (CacheFresh); a folder
// stamped with want is reused (CacheStamped); a non-empty folder without a
// stamp is left as it is (CacheUnstamped). It refuses, naming the folder,
// what differs and the fix: a dir that is a file, and a folder stamped
// with another preprocessing or data set (ErrStaleCache).
func BindCache(dir string, want CacheStamp) (CacheState, error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return 0, fmt.Errorf("harness: cache %s is a file; the cache is a folder of preprocessed samples (<sample>.npy): name a folder (it is created if missing)", dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, fmt.Errorf("harness: creating the cache folder: %w", err)
		}
	case err != nil:
		return 0, fmt.Errorf("harness: cache folder: %w", err)
	}
	old, err := os.ReadFile(filepath.Join(dir, CacheFingerprintFile))
	switch {
	case err == nil:
		got, ok := parseStamp(old)
		switch {
		case !ok:
			return 0, fmt.Errorf("harness: cache %s: %w: its %s is damaged; delete the folder (or that file) or pass another --cache", dir, ErrStaleCache, CacheFingerprintFile)
		case got.Preprocessing != oneLine(want.Preprocessing):
			return 0, fmt.Errorf("harness: cache %s: %w: it holds samples preprocessed as %q, this run preprocesses as %q; delete the folder or pass another --cache", dir, ErrStaleCache, got.Preprocessing, oneLine(want.Preprocessing))
		case got.Source != want.Source:
			return 0, fmt.Errorf("harness: cache %s: %w: it was made from a data set whose index file (%s) differs from this run's %s; delete the folder or pass another --cache", dir, ErrStaleCache, got.SourceName, want.SourceName)
		}
		return CacheStamped, nil
	case !errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("harness: cache folder: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("harness: cache folder: %w", err)
	}
	if len(ents) > 0 {
		return CacheUnstamped, nil
	}
	return CacheFresh, WriteStamp(dir, want)
}

// WriteStamp writes s into dir as CacheFingerprintFile (through a
// temporary file).
func WriteStamp(dir string, s CacheStamp) error {
	path := filepath.Join(dir, CacheFingerprintFile)
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(s.String()), 0o644); err != nil {
		return fmt.Errorf("harness: stamping the cache folder: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("harness: stamping the cache folder: %w", err)
	}
	return nil
}

// NpyCacheConfig describes a float32 .npy sample cache for OpenNpyCache.
type NpyCacheConfig struct {
	// Dir is the cache folder; sample i is Dir/<Name(i)>.npy.
	Dir  string
	Name func(i int) string
	// Stamp says what the samples are made from.
	Stamp CacheStamp
	// Total is the number of samples; Shape each sample's shape.
	Total int
	Shape []int
	// Load computes sample i from the data set.
	Load Loader[[]float32]
	// Check is how many cached samples are recomputed with Load and
	// compared (0: 2). It bounds the cost of the check.
	Check int
	// Warn receives the one note about a cache without a stamp (nil:
	// os.Stderr).
	Warn io.Writer
}

// checkTolerance bounds the mean absolute difference between a cached
// sample and the recomputed one, as a fraction of the recomputed
// sample's value range. JPEG decoders (libjpeg versions, OpenCV against
// Go) differ by a grey level or two on some pixels; another image
// differs by tens of percent.
const checkTolerance = 0.02

// OpenNpyCache binds c.Dir (BindCache) and returns c.Load wrapped in the
// cache (NpyCache). Before that it recomputes up to c.Check cached
// samples and compares them with the files, so that a cache made from
// another data set with the same file names, or with another
// preprocessing, is refused (ErrStaleCache) rather than used. A folder
// without a stamp whose cached samples pass the check is used as it is,
// with one note on c.Warn (it is not stamped: the tool that made it may
// still own it); one that holds none of this data set's samples is
// stamped as new.
func OpenNpyCache(ctx context.Context, c NpyCacheConfig) (Loader[[]float32], error) {
	state, err := BindCache(c.Dir, c.Stamp)
	if err != nil {
		return nil, err
	}
	if state != CacheFresh {
		checked, err := spotCheck(ctx, c)
		if err != nil {
			return nil, err
		}
		if state == CacheUnstamped {
			if checked == 0 {
				if err := WriteStamp(c.Dir, c.Stamp); err != nil {
					return nil, err
				}
			} else {
				w := c.Warn
				if w == nil {
					w = os.Stderr
				}
				fmt.Fprintf(w, "harness: cache %s has no %s (made by another tool, e.g. the reference's preprocessing); %d cached samples match the data set, so it is used\n", c.Dir, CacheFingerprintFile, checked)
			}
		}
	}
	return NpyCache(c.Dir, c.Name, c.Shape, c.Load), nil
}

// spotCheck recomputes up to c.Check of the cached samples found among
// up to 64 sample indices spread over the data set, and returns how many
// it compared.
func spotCheck(ctx context.Context, c NpyCacheConfig) (int, error) {
	want := c.Check
	if want <= 0 {
		want = 2
	}
	probes := min(c.Total, 64)
	checked := 0
	for k := 0; k < probes && checked < want; k++ {
		i := k * c.Total / probes
		path := filepath.Join(c.Dir, filepath.FromSlash(c.Name(i))+".npy")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		shape, cached, err := preprocess.LoadNpy(path)
		if err != nil {
			return checked, fmt.Errorf("harness: cache %s: %w: cached sample %s cannot be read (%v); delete the folder or pass another --cache", c.Dir, ErrStaleCache, path, err)
		}
		if !slices.Equal(shape, c.Shape) {
			return checked, fmt.Errorf("harness: cache %s: %w: cached sample %s has shape %v, this run's samples %v (another preprocessing); delete the folder or pass another --cache", c.Dir, ErrStaleCache, path, shape, c.Shape)
		}
		fresh, err := c.Load(ctx, i)
		if err != nil {
			return checked, err
		}
		if d := relDiff(cached, fresh); !(d <= checkTolerance) {
			return checked, fmt.Errorf("harness: cache %s: %w: cached sample %s differs from the one computed from the data set (mean difference %.1f%% of the value range): it was made from another data set with the same file names or with another preprocessing; delete the folder or pass another --cache", c.Dir, ErrStaleCache, path, 100*d)
		}
		checked++
	}
	return checked, nil
}

// relDiff is the mean absolute difference of a and b over the value range
// of b (NaN when a cached value is not finite).
func relDiff(a, b []float32) float64 {
	if len(a) != len(b) || len(b) == 0 {
		return math.Inf(1)
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for i, v := range b {
		lo, hi = min(lo, float64(v)), max(hi, float64(v))
		sum += math.Abs(float64(a[i]) - float64(v))
	}
	r := hi - lo
	if r == 0 {
		r = 1
	}
	return sum / float64(len(b)) / r
}
