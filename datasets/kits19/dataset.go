package kits19

import (
	"crypto/md5"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/preprocess"
)

// The reference's case lists and checksums (mlcommons/inference
// vision/medical_imaging/3d-unet-kits19/meta/*.json).
var (
	//go:embed meta/inference_cases.json
	inferenceJSON []byte
	//go:embed meta/calibration_cases.json
	calibrationJSON []byte
	//go:embed meta/checksum_inference.json
	checksumInferenceJSON []byte
	//go:embed meta/checksum_calibration.json
	checksumCalibrationJSON []byte
)

// InferenceCases are the 43 cases of the inference set in QSL order; the
// last, case_00400, is a copy of case_00185 (the reference's Makefile
// duplicates it after download).
func InferenceCases() []string { return mustList(inferenceJSON) }

// CalibrationCases are the 20 cases of the calibration set.
func CalibrationCases() []string { return mustList(calibrationJSON) }

// PickleChecksums are the MD5s of the reference's preprocessed
// case_XXXXX.pkl files, by file name (inference and calibration sets).
func PickleChecksums() map[string]string {
	m := map[string]string{}
	for _, b := range [][]byte{checksumInferenceJSON, checksumCalibrationJSON} {
		var x map[string]string
		if err := json.Unmarshal(b, &x); err != nil {
			panic("kits19: embedded checksums: " + err.Error())
		}
		for k, v := range x {
			m[k] = v
		}
	}
	return m
}

func mustList(b []byte) []string {
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		panic("kits19: embedded case list: " + err.Error())
	}
	return l
}

// DuplicateCase and DuplicateOf: the reference copies case_00185 to
// case_00400 (Makefile target duplicate_kits19_case_00185).
const (
	DuplicateCase = "case_00400"
	DuplicateOf   = "case_00185"
)

// Index is preprocessed_files.json, the role of the reference's
// preprocessed_files.pkl: the cases in QSL order and each case's Aux.
type Index struct {
	FileList []string       `json:"file_list"`
	Cases    map[string]Aux `json:"cases"`
}

// PreprocessOptions configure PreprocessDir.
type PreprocessOptions struct {
	// Cases are the cases to preprocess, in QSL order (nil: the inference
	// set).
	Cases []string
	// NoNifti skips the nifti/ ground truth (the reference writes it for
	// the inference set only).
	NoNifti bool
	// NoImageNifti skips nifti/<case>/imaging.nii.gz, which scoring does
	// not read (the segmentation is still written unless NoNifti).
	NoImageNifti bool
	// Workers bounds parallel cases (< 1: GOMAXPROCS).
	Workers int
	// Log receives one line per case; may be nil.
	Log io.Writer
}

// PreprocessDir preprocesses the raw cases of rawDir (case_XXXXX/ folders)
// into outDir as preprocess.py --mode preprocess does, and writes the
// index. Every listed case must be present.
func PreprocessDir(rawDir, outDir string, o PreprocessOptions) (*Index, error) {
	cases := o.Cases
	if cases == nil {
		cases = InferenceCases()
	}
	var missing []string
	for _, c := range cases {
		if _, err := os.Stat(filepath.Join(rawDir, c, ImageFile)); err != nil {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("kits19: %s lacks %d of the %d cases (%s); download them with models/unet3d/download_dataset.sh", rawDir, len(missing), len(cases), strings.Join(missing[:min(5, len(missing))], ", "))
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("kits19: %w", err)
	}
	idx := &Index{FileList: slices.Clone(cases), Cases: map[string]Aux{}}
	w := o.Workers
	if w < 1 {
		w = runtime.GOMAXPROCS(0)
	}
	// Cases in sorted order, as collect_cases returns them.
	todo := slices.Clone(cases)
	sort.Strings(todo)
	todo = slices.Compact(todo)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		next     int
	)
	for range min(w, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(todo) || firstErr != nil {
					mu.Unlock()
					return
				}
				name := todo[next]
				next++
				mu.Unlock()
				aux, nan, err := preprocessOne(rawDir, outDir, name, !o.NoNifti, !o.NoImageNifti)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
				} else {
					idx.Cases[name] = aux
					if o.Log != nil {
						fmt.Fprintf(o.Log, "kits19: %s: shape %v, zoom %.4f\n", name, aux.ImageShape, aux.ZoomFactor)
					}
					if nan > 0 && o.Log != nil {
						fmt.Fprintf(o.Log, "kits19: %s: note: %d voxels of %s are NaN; the reference keeps them (its resampling, clipping and normalising carry NaN through), so the model's input is NaN there and that case's score is not meaningful: check the file\n",
							name, nan, filepath.Join(rawDir, name, ImageFile))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := idx.Write(outDir); err != nil {
		return nil, err
	}
	return idx, nil
}

// preprocessOne preprocesses one case and returns its Aux and the number
// of NaN voxels of its raw image.
func preprocessOne(rawDir, outDir, name string, nifti, image bool) (Aux, int, error) {
	img, lbl, sp, aff, err := LoadRaw(filepath.Join(rawDir, name))
	if err != nil {
		return Aux{}, 0, err
	}
	nan := countNaN(img.Data)
	c, err := Preprocess(name, img, lbl, sp, aff)
	if err != nil {
		return Aux{}, 0, err
	}
	if err := c.Save(outDir, nifti, image); err != nil {
		return Aux{}, 0, err
	}
	return c.Aux, nan, nil
}

// Write writes the index to dir/preprocessed_files.json.
func (x *Index) Write(dir string) error {
	b, err := json.MarshalIndent(x, "", " ")
	if err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	return nil
}

// ErrNotPreprocessed is wrapped when a folder holds no preprocessed data
// set.
var ErrNotPreprocessed = errors.New("kits19: not a preprocessed KiTS19 folder")

// Open reads the index of a preprocessed folder (preprocessed_files.json,
// or the reference's preprocessed_files.pkl) and checks that every listed
// case has its image (<case>.npy, or the reference's <case>.pkl).
func Open(dir string) (*Index, error) {
	var x Index
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, perr := os.Stat(filepath.Join(dir, "preprocessed_files.pkl")); perr != nil {
			return nil, fmt.Errorf("%w: %s has no %s; make one with `mlperf dataset preprocess kits19 --data RAW -o %s`", ErrNotPreprocessed, dir, IndexFile, dir)
		}
		// Preprocessed by the reference's preprocess.py.
		px, err := LoadPickleIndex(dir)
		if err != nil {
			return nil, err
		}
		x = *px
	case err != nil:
		return nil, fmt.Errorf("kits19: %w", err)
	default:
		if err := json.Unmarshal(b, &x); err != nil {
			return nil, fmt.Errorf("kits19: %s is damaged or not the index `mlperf dataset preprocess kits19` writes (%v); preprocess the raw cases again: mlperf dataset preprocess kits19 --data RAW -o %s", filepath.Join(dir, IndexFile), err, dir)
		}
	}
	if len(x.FileList) == 0 {
		return nil, fmt.Errorf("kits19: %s lists no cases", filepath.Join(dir, IndexFile))
	}
	for _, c := range x.FileList {
		a, ok := x.Cases[c]
		if !ok {
			return nil, fmt.Errorf("kits19: %s: case %s of file_list has no entry in cases", filepath.Join(dir, IndexFile), c)
		}
		if err := checkShape(a.ImageShape); err != nil {
			return nil, fmt.Errorf("kits19: %s: case %s: %w", filepath.Join(dir, IndexFile), c, err)
		}
		if _, err := os.Stat(ImagePath(dir, c)); err != nil {
			if _, perr := os.Stat(PicklePath(dir, c)); perr != nil {
				return nil, fmt.Errorf("kits19: %s: case %s listed but %s is missing", dir, c, ImagePath(dir, c))
			}
		}
	}
	return &x, nil
}

// checkShape checks an image shape (1, D, H, W) the sliding window can
// tile: every axis at least ROI and a multiple of Stride.
func checkShape(s [4]int) error {
	if s[0] != 1 {
		return fmt.Errorf("image shape %v: want (1, D, H, W)", s)
	}
	for _, d := range s[1:] {
		if d < ROI || d%Stride != 0 || d > 4096 {
			return fmt.Errorf("image shape %v: each of D, H, W must be a multiple of %d and at least %d", s, Stride, ROI)
		}
	}
	return nil
}

// PicklePath is the reference's preprocessed case file: <case>.pkl.
func PicklePath(dir, name string) string { return filepath.Join(dir, name+".pkl") }

// LoadImage reads a case's preprocessed image, <case>.npy or else the
// reference's <case>.pkl, and checks its shape against the index.
func LoadImage(dir string, a Aux) (Volume[float32], error) {
	if _, err := os.Stat(ImagePath(dir, a.Case)); errors.Is(err, os.ErrNotExist) {
		if _, perr := os.Stat(PicklePath(dir, a.Case)); perr == nil {
			img, _, err := LoadPickleCase(PicklePath(dir, a.Case))
			if err != nil {
				return img, err
			}
			if [4]int{1, img.Shape[0], img.Shape[1], img.Shape[2]} != a.ImageShape {
				return Volume[float32]{}, fmt.Errorf("kits19: %s has shape %v, the index says %v", PicklePath(dir, a.Case), img.Shape, a.ImageShape)
			}
			return img, nil
		}
	}
	shape, data, err := preprocess.LoadNpy(ImagePath(dir, a.Case))
	if err != nil {
		return Volume[float32]{}, fmt.Errorf("kits19: %w; preprocess the raw cases again (mlperf dataset preprocess kits19 --data RAW -o %s)", err, dir)
	}
	if len(shape) != 4 || [4]int(shape) != a.ImageShape {
		return Volume[float32]{}, fmt.Errorf("kits19: %s has shape %v, the index says %v; preprocess again", ImagePath(dir, a.Case), shape, a.ImageShape)
	}
	return Volume[float32]{Shape: [3]int(shape[1:]), Data: data}, nil
}

// LoadTruth reads a case's resampled ground truth
// (nifti/<case>/segmentation.nii.gz) as labels in C order.
func LoadTruth(dir, name string) ([]uint8, error) {
	img, err := preprocess.LoadNifti(TruthPath(dir, name))
	if err != nil {
		return nil, fmt.Errorf("kits19: %w", err)
	}
	l, err := Labels(img.Data)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, TruthPath(dir, name))
	}
	return l, nil
}

// FileMD5 is the hex MD5 of a file.
func FileMD5(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
