// Package kits19 is the KiTS19 kidney-tumour data set as the MLPerf 3D-UNet
// reference uses it (mlcommons/inference
// vision/medical_imaging/3d-unet-kits19): the raw layout
// case_XXXXX/imaging.nii.gz and segmentation.nii.gz, the inference and
// calibration case lists, the reference's preprocess.py without Python
// (resampling equal to scipy.ndimage.zoom, normalisation, padding and
// cropping for the sliding window), a synthetic data set in the raw
// format, and its verification.
package kits19

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/preprocess"
)

// The reference's preprocessing constants (global_vars.py).
const (
	MeanVal      = 101.0
	StddevVal    = 76.9
	MinClipVal   = -79.0
	MaxClipVal   = 304.0
	PaddingVal   = -2.2
	ROI          = 128 // sliding-window edge, voxels
	Stride       = 64  // ROI × (1 − SLIDE_OVERLAP_FACTOR 0.5)
	ImageFile    = "imaging.nii.gz"
	LabelFile    = "segmentation.nii.gz"
	IndexFile    = "preprocessed_files.json"
	NiftiDir     = "nifti"
	ImageNpySufx = ".npy"
)

// TargetSpacing is the common voxel spacing in mm, in array axis order
// (slices, rows, columns).
var TargetSpacing = [3]float64{1.6, 1.2, 1.2}

// ErrSpacing is wrapped by errors about a volume whose header spacing
// cannot be resampled (zero, negative or not finite).
var ErrSpacing = errors.New("kits19: bad voxel spacing")

// Aux is what the reference keeps per case in preprocessed_files.pkl.
type Aux struct {
	Case           string        `json:"case"`
	OriginalAffine [4][4]float64 `json:"original_affine"`
	ReshapedAffine [4][4]float64 `json:"reshaped_affine"`
	ZoomFactor     [3]float64    `json:"zoom_factor"`
	// ImageShape is the preprocessed image's shape (1, D, H, W).
	ImageShape [4]int `json:"image_shape"`
}

// Case is one preprocessed case: Image is float32 (1, D, H, W) as the
// model reads it, Label the resampled ground truth on the same grid.
type Case struct {
	Aux
	Image Volume[float32]
	Label Volume[uint8]
}

// LoadRaw reads a raw case folder (imaging.nii.gz and segmentation.nii.gz)
// as the reference does: the image as float32 (get_fdata), the label cast
// to uint8, the spacing from the image header's pixdim[1:4] and the
// affine nibabel would give.
func LoadRaw(dir string) (img Volume[float32], lbl Volume[uint8], spacing [3]float64, affine [4][4]float64, err error) {
	ih, img, err := readVolume(filepath.Join(dir, ImageFile), toFloat32)
	if err != nil {
		return img, lbl, spacing, affine, err
	}
	_, lbl, err = readVolume(filepath.Join(dir, LabelFile), toLabel)
	if err != nil {
		return img, lbl, spacing, affine, err
	}
	if img.Shape != lbl.Shape {
		return img, lbl, spacing, affine, fmt.Errorf("kits19: %s: image shape %v differs from label shape %v", dir, img.Shape, lbl.Shape)
	}
	for i := range 3 {
		spacing[i] = ih.Pixdim[i+1]
		if !(spacing[i] > 0) || math.IsInf(spacing[i], 0) {
			return img, lbl, spacing, affine, fmt.Errorf("%w: %s: pixdim[%d] = %v; the header must give a positive spacing in mm for each axis", ErrSpacing, filepath.Join(dir, ImageFile), i+1, spacing[i])
		}
	}
	return img, lbl, spacing, ih.Affine(), nil
}

// ReshapedAffine is the reference's affine of the resampled grid: in each
// of the first three rows, the one non-zero entry of the 3×3 part becomes
// ± the target spacing of its column, keeping its sign.
func ReshapedAffine(a [4][4]float64) ([4][4]float64, error) {
	r := a
	for i := range 3 {
		col := -1
		for j := range 3 {
			if a[i][j] != 0 {
				if col >= 0 {
					return r, fmt.Errorf("kits19: affine row %d has several non-zero entries %v; the reference needs an axis-aligned affine", i, a[i][:3])
				}
				col = j
			}
		}
		if col < 0 {
			continue
		}
		s := 1.0
		if a[i][col] < 0 {
			s = -1
		}
		r[i][col] = TargetSpacing[col] * s
	}
	return r, nil
}

// Preprocess turns a raw case into the model's input as preprocess.py's
// preprocess_case does: resample to TargetSpacing (ZoomLinear for the
// image with cval its minimum, ZoomNearest for the label with cval its
// minimum), clip to [MinClipVal, MaxClipVal] and normalise in float32,
// edge-pad each axis to at least ROI, then crop or constant-pad each axis
// to a multiple of Stride (image with PaddingVal, label with 0).
func Preprocess(name string, img Volume[float32], lbl Volume[uint8], spacing [3]float64, affine [4][4]float64) (*Case, error) {
	c := &Case{Aux: Aux{Case: name, OriginalAffine: affine}}
	var err error
	if c.ReshapedAffine, err = ReshapedAffine(affine); err != nil {
		return nil, fmt.Errorf("%w (case %s)", err, name)
	}
	for i := range 3 {
		if !(spacing[i] > 0) || math.IsInf(spacing[i], 0) {
			return nil, fmt.Errorf("%w: case %s: spacing %v; want positive values in mm", ErrSpacing, name, spacing)
		}
		c.ZoomFactor[i] = spacing[i] / TargetSpacing[i]
	}
	out := ZoomShape(img.Shape, c.ZoomFactor)
	if err := checkResampled(name, spacing, img.Shape, out); err != nil {
		return nil, err
	}
	// The reference resamples whenever the spacing differs from the target
	// as Python floats, which a float32 pixdim always does; an identity
	// zoom is exact anyway.
	imin, lmin := float32(math.Inf(1)), uint8(255)
	for _, v := range img.Data {
		imin = min(imin, v)
	}
	for _, v := range lbl.Data {
		lmin = min(lmin, v)
	}
	if c.Image, err = ZoomLinear(img, out, float64(imin)); err != nil {
		return nil, err
	}
	if c.Label, err = ZoomNearest(lbl, out, lmin); err != nil {
		return nil, err
	}
	for i, v := range c.Image.Data {
		v = min(max(v, MinClipVal), MaxClipVal)
		c.Image.Data[i] = (v - MeanVal) / float32(StddevVal)
	}
	c.Image, c.Label = padEdge(c.Image), padEdge(c.Label)
	c.Image = cropPad(c.Image, float32(PaddingVal))
	c.Label = cropPad(c.Label, 0)
	c.ImageShape = [4]int{1, c.Image.Shape[0], c.Image.Shape[1], c.Image.Shape[2]}
	return c, nil
}

// checkResampled refuses a spacing that resamples a case's shape in to
// out with an axis over 4096 voxels or more than maxResampled voxels in
// all: a header whose pixdim is wrong, which would exhaust memory.
func checkResampled(name string, spacing [3]float64, in, out [3]int) error {
	if out[0] > 4096 || out[1] > 4096 || out[2] > 4096 {
		return fmt.Errorf("%w: case %s: spacing %v resamples %v to %v", ErrSpacing, name, spacing, in, out)
	}
	if v := out[0] * out[1] * out[2]; v > maxResampled {
		return fmt.Errorf("%w: case %s: spacing %v mm resamples %v to %v = %d voxels (%.1f GiB as float32), more than the %d allowed; the header's pixdim is probably wrong: re-download the case",
			ErrSpacing, name, spacing, in, out, v, float64(v)*4/(1<<30), maxResampled)
	}
	return nil
}

// maxResampled bounds the voxels of a resampled case (1 GiB as float32),
// far above what a KiTS19 case at TargetSpacing holds.
const maxResampled = 1 << 28

// padEdge is np.pad(mode="edge") up to ROI on each shorter axis, the
// smaller half before.
func padEdge[T float32 | uint8](v Volume[T]) Volume[T] {
	var before, shape [3]int
	for i := range 3 {
		p := max(0, ROI-v.Shape[i])
		before[i], shape[i] = p/2, v.Shape[i]+p
	}
	if shape == v.Shape {
		return v
	}
	r := Volume[T]{Shape: shape, Data: make([]T, shape[0]*shape[1]*shape[2])}
	o := 0
	for i := range shape[0] {
		si := min(max(i-before[0], 0), v.Shape[0]-1)
		for j := range shape[1] {
			sj := min(max(j-before[1], 0), v.Shape[1]-1)
			row := v.Data[(si*v.Shape[1]+sj)*v.Shape[2]:][:v.Shape[2]]
			for k := range shape[2] {
				r.Data[o] = row[min(max(k-before[2], 0), v.Shape[2]-1)]
				o++
			}
		}
	}
	return r
}

// cropPad is adjust_shape_for_sliding_window for one volume: an axis whose
// size mod Stride is below Stride/2 loses that remainder (the smaller half
// before); then each axis is padded with fill to a multiple of Stride,
// one Stride more if it would stay below ROI, the smaller half before.
func cropPad[T float32 | uint8](v Volume[T], fill T) Volume[T] {
	var lo, n, before, shape [3]int
	for i := range 3 {
		b := v.Shape[i] % Stride
		if b >= Stride/2 {
			b = 0
		}
		lo[i], n[i] = b/2, v.Shape[i]-b
		p := (Stride - n[i]%Stride) % Stride
		if n[i]+p < ROI {
			p += Stride
		}
		before[i], shape[i] = p/2, n[i]+p
	}
	r := Volume[T]{Shape: shape, Data: make([]T, shape[0]*shape[1]*shape[2])}
	for i := range r.Data {
		r.Data[i] = fill
	}
	for i := range n[0] {
		for j := range n[1] {
			src := v.Data[((lo[0]+i)*v.Shape[1]+lo[1]+j)*v.Shape[2]+lo[2]:][:n[2]]
			dst := r.Data[((before[0]+i)*shape[1]+before[1]+j)*shape[2]+before[2]:][:n[2]]
			copy(dst, src)
		}
	}
	return r
}

// ImagePath is where a preprocessed case's image lives in a preprocessed
// folder: <case>.npy, float32 (1, D, H, W).
func ImagePath(dir, name string) string { return filepath.Join(dir, name+ImageNpySufx) }

// TruthPath is the resampled ground truth a run is scored against:
// nifti/<case>/segmentation.nii.gz, as the reference writes it.
func TruthPath(dir, name string) string { return filepath.Join(dir, NiftiDir, name, LabelFile) }

// Save writes c into the preprocessed folder dir: the image as
// <case>.npy and, when nifti is set, nifti/<case>/segmentation.nii.gz and
// (when image is set too) imaging.nii.gz with the reshaped affine.
func (c *Case) Save(dir string, nifti, image bool) error {
	shape := []int{1, c.Image.Shape[0], c.Image.Shape[1], c.Image.Shape[2]}
	if err := preprocess.SaveNpy(ImagePath(dir, c.Case), shape, c.Image.Data); err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	if !nifti {
		return nil
	}
	nd := filepath.Join(dir, NiftiDir, c.Case)
	if err := os.MkdirAll(nd, 0o755); err != nil {
		return fmt.Errorf("kits19: %w", err)
	}
	if image {
		if err := WriteNifti(filepath.Join(nd, ImageFile), c.Image.Shape, c.Image.Data, c.ReshapedAffine); err != nil {
			return err
		}
	}
	return WriteNifti(filepath.Join(nd, LabelFile), c.Label.Shape, c.Label.Data, c.ReshapedAffine)
}
