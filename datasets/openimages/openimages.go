// Package openimages reads the OpenImages v6 MLPerf validation subset in
// the layout of the reference's downloader
// (vision/classification_and_detection/tools/openimages_mlperf.sh of
// mlcommons/inference): images under validation/data/, a COCO-format
// annotation file annotations/openimages-mlperf.json written by
// export_to_coco. It also writes small synthetic data sets in that layout
// and verifies real ones.
package openimages

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/datasets/cocojson"
)

// Data set facts.
const (
	// Size is the number of images of the MLPerf subset (the submission
	// checker's dataset-size for retinanet).
	Size = 24781
	// NumClasses is the number of MLPerf classes (category ids 0..263).
	NumClasses = 264
	// AnnotationsPath is where the annotation file lies in a data set
	// folder (the reference loader's default --dataset-list).
	AnnotationsPath = "annotations/openimages-mlperf.json"
	// ImagesPath is the image folder of a data set folder.
	ImagesPath = "validation/data"
	// ReleasedZip is the name of the prebuilt annotation file's archive
	// (mlcommons/inference release v2.1), and ReleasedZipMD5 its MD5.
	ReleasedZip    = "openimages-mlperf_annotations_2.1.json.zip"
	ReleasedZipMD5 = "817fd8da3aeeb0575f1e2d2926b15e68"
)

// ErrNoAnnotations is wrapped by the error for a data set folder without
// its annotation file.
var ErrNoAnnotations = errors.New("openimages: no annotation file")

// Options tune Load.
type Options struct {
	// Annotations overrides dir/AnnotationsPath (the reference's
	// --dataset-list).
	Annotations string
	// Count, if positive, keeps only the first Count images found.
	Count int
	// Warn receives the note about missing images (nil: os.Stderr).
	Warn io.Writer
}

// Dataset is a loaded data set: the annotation file restricted to the
// images on disk, in file order. Sample i of the QSL is GT.Images[i]. It
// is read-only after Load and safe for concurrent use.
type Dataset struct {
	// Dir is the data set folder; Annotations the annotation file read.
	Dir, Annotations string
	// GT holds the images present on disk (first Count of them when
	// Options.Count is set), their annotations and all categories.
	GT *cocojson.GroundTruth
	// Listed is the number of images in the annotation file; Missing
	// the file names of those not on disk, which the reference's loader
	// skips (so that the QSL indices of later images shift).
	Listed  int
	Missing []string
}

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.GT.Images) }

// ImagePath is the file of sample i.
func (d *Dataset) ImagePath(i int) string {
	return filepath.Join(d.Dir, filepath.FromSlash(ImagesPath), filepath.FromSlash(d.GT.Images[i].FileName))
}

// AnnotationFile returns the annotation file of dir: override if set,
// else dir/AnnotationsPath.
func AnnotationFile(dir, override string) string {
	if override != "" {
		return override
	}
	return filepath.Join(dir, filepath.FromSlash(AnnotationsPath))
}

// Load reads the annotation file of dir and keeps the images found under
// dir/validation/data, as the reference's OpenImages loader
// (python/openimages.py) does: images not on disk are skipped and
// counted, and one line on o.Warn reports them. A data set with no image
// on disk, or a missing or malformed annotation file, is an error.
func Load(dir string, o Options) (*Dataset, error) {
	ann := AnnotationFile(dir, o.Annotations)
	if _, err := os.Stat(ann); err != nil {
		return nil, fmt.Errorf("%w: %s (download the data set with models/retinanet/download_dataset.sh, or use --data synthetic)", ErrNoAnnotations, ann)
	}
	gt, err := cocojson.ReadGroundTruth(ann)
	if err != nil {
		return nil, fmt.Errorf("openimages: annotation file %s is not a valid COCO annotation file (%w); download it again", ann, err)
	}
	if len(gt.Images) == 0 {
		return nil, fmt.Errorf("openimages: annotation file %s lists no images", ann)
	}
	d := &Dataset{Dir: dir, Annotations: ann, Listed: len(gt.Images)}
	var keep []cocojson.Image
	for _, im := range gt.Images {
		if o.Count > 0 && len(keep) >= o.Count {
			break
		}
		p := filepath.Join(dir, filepath.FromSlash(ImagesPath), filepath.FromSlash(im.FileName))
		if _, err := os.Stat(p); err != nil {
			d.Missing = append(d.Missing, im.FileName)
			continue
		}
		keep = append(keep, im)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("openimages: none of the %d images of %s is under %s; give the data set folder that holds %s and %s",
			len(gt.Images), ann, filepath.Join(dir, filepath.FromSlash(ImagesPath)), ImagesPath, AnnotationsPath)
	}
	if len(d.Missing) > 0 {
		w := o.Warn
		if w == nil {
			w = os.Stderr
		}
		fmt.Fprintf(w, "openimages: %d of the %d images of %s are missing and skipped as the reference does (first: %s); QSL indices follow the images present, so score with this tool, not accuracy-openimages.py\n",
			len(d.Missing), len(gt.Images), ann, d.Missing[0])
	}
	d.GT = restrict(gt, keep)
	return d, nil
}

// restrict returns gt with only the images keep and their annotations.
func restrict(gt *cocojson.GroundTruth, keep []cocojson.Image) *cocojson.GroundTruth {
	if len(keep) == len(gt.Images) {
		return gt
	}
	ids := make(map[int64]bool, len(keep))
	for _, im := range keep {
		ids[im.ID] = true
	}
	out := &cocojson.GroundTruth{Images: keep, Categories: gt.Categories}
	for _, a := range gt.Annotations {
		if ids[a.ImageID] {
			out.Annotations = append(out.Annotations, a)
		}
	}
	return out
}
