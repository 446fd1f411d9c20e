// Package coco2017 reads, prepares, synthesises and verifies the MLPerf
// YOLO data set: the 1,525 images of COCO val2017 whose licences the
// reference deems safe, in the layout of the MLCommons distribution
// (vision/classification_and_detection/yolo/README.md of
// mlcommons/inference):
//
//	<dir>/val2017_safe/*.jpg                    the safe images
//	<dir>/annotations/instances_val2017.json    their annotations (the
//	                                            output of
//	                                            create_safe_annotations.py)
//
// Prepare makes that folder from COCO's public archives as the
// reference's filter_coco_safe_images.py and create_safe_annotations.py
// do, without Python.
package coco2017

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
	// Size is the number of safe images (the submission checker's
	// dataset size for yolo-95 and yolo-99).
	Size = 1525
	// SourceSize is the number of images of COCO val2017.
	SourceSize = 5000
	// AnnotationsPath is where the annotation file lies in a data set
	// folder (accuracy-coco.py reads <coco-dir>/annotations/instances_val2017.json).
	AnnotationsPath = "annotations/instances_val2017.json"
	// ImagesPath is the image folder of a data set folder.
	ImagesPath = "val2017_safe"
)

// ErrNoAnnotations is wrapped by the error for a data set folder without
// its annotation file.
var ErrNoAnnotations = errors.New("coco2017: no annotation file")

// Options tune Load.
type Options struct {
	// Annotations overrides dir/AnnotationsPath (the reference's
	// --annotation-file).
	Annotations string
	// Count, if positive, keeps only the first Count images found (the
	// reference's --count).
	Count int
	// Warn receives notes about missing images and unknown categories
	// (nil: os.Stderr).
	Warn io.Writer
}

// Dataset is a loaded data set: the annotation file restricted to the
// images on disk, in file order. Sample i of the QSL is GT.Images[i]. It
// is read-only after Load and safe for concurrent use.
type Dataset struct {
	// Dir is the data set folder; Annotations the annotation file read.
	Dir, Annotations string
	// GT holds the images present on disk (the first Count of them when
	// Options.Count is set), their annotations and all categories.
	GT *cocojson.GroundTruth
	// Listed is the number of images in the annotation file; Missing the
	// file names of those not on disk, which the reference's loader skips
	// (so that the QSL indices of later images shift).
	Listed  int
	Missing []string
	// UnknownCategory counts annotations whose category is not among the
	// file's categories; COCOeval never looks at them.
	UnknownCategory int
}

// Len is the number of samples.
func (d *Dataset) Len() int { return len(d.GT.Images) }

// ImagePath is the file of sample i.
func (d *Dataset) ImagePath(i int) string {
	return filepath.Join(d.Dir, ImagesPath, filepath.FromSlash(d.GT.Images[i].FileName))
}

// AnnotationFile returns the annotation file of dir: override if set,
// else dir/AnnotationsPath.
func AnnotationFile(dir, override string) string {
	if override != "" {
		return override
	}
	return filepath.Join(dir, filepath.FromSlash(AnnotationsPath))
}

// checkName refuses an image file name that would leave the image folder
// (absolute, "..", a separator), which COCO's never do.
func checkName(name string) error {
	if name == "" || !filepath.IsLocal(name) || filepath.Base(name) != name {
		return fmt.Errorf("image file name %q is not a plain file name", name)
	}
	return nil
}

// Load reads the annotation file of dir and keeps the images found under
// dir/val2017_safe, in file order, as the reference's Coco loader
// (yolo_loadgen.py) does: images not on disk are skipped and counted, and
// one line on o.Warn reports them. Annotations of categories the file does
// not list are kept (COCOeval ignores them, as pycocotools does) and
// reported on o.Warn. A data set with no image on disk, a missing or
// malformed annotation file, or an image file name that is not a plain
// name is an error.
func Load(dir string, o Options) (*Dataset, error) {
	ann := AnnotationFile(dir, o.Annotations)
	if _, err := os.Stat(ann); err != nil {
		return nil, fmt.Errorf("%w: %s (download the data set with models/yolo/download_dataset.sh, or use --data synthetic)", ErrNoAnnotations, ann)
	}
	gt, err := cocojson.ReadGroundTruth(ann)
	if err != nil {
		return nil, fmt.Errorf("coco2017: annotation file %s is not a valid COCO annotation file (%w); download it again", ann, err)
	}
	if len(gt.Images) == 0 {
		return nil, fmt.Errorf("coco2017: annotation file %s lists no images", ann)
	}
	w := o.Warn
	if w == nil {
		w = os.Stderr
	}
	d := &Dataset{Dir: dir, Annotations: ann, Listed: len(gt.Images)}
	var keep []cocojson.Image
	for _, im := range gt.Images {
		if err := checkName(im.FileName); err != nil {
			return nil, fmt.Errorf("coco2017: %s: image %d: %w", ann, im.ID, err)
		}
		if o.Count > 0 && len(keep) >= o.Count {
			break
		}
		if _, err := os.Stat(filepath.Join(dir, ImagesPath, im.FileName)); err != nil {
			d.Missing = append(d.Missing, im.FileName)
			continue
		}
		keep = append(keep, im)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("coco2017: none of the %d images of %s is under %s; give the data set folder that holds %s and %s",
			len(gt.Images), ann, filepath.Join(dir, ImagesPath), ImagesPath, AnnotationsPath)
	}
	if len(d.Missing) > 0 {
		fmt.Fprintf(w, "coco2017: %d of the %d images of %s are missing and skipped as the reference does (first: %s); QSL indices follow the images present, so score with this tool, not accuracy-coco.py\n",
			len(d.Missing), len(gt.Images), ann, d.Missing[0])
	}
	d.GT = restrict(gt, keep)
	if d.UnknownCategory = unknownCategories(d.GT); d.UnknownCategory > 0 {
		fmt.Fprintf(w, "coco2017: %d annotations of %s have a category the file does not list; COCOeval ignores them, as pycocotools does\n", d.UnknownCategory, ann)
	}
	return d, nil
}

// unknownCategories counts the annotations whose category is not listed.
func unknownCategories(gt *cocojson.GroundTruth) int {
	cats := make(map[int64]bool, len(gt.Categories))
	for _, c := range gt.Categories {
		cats[c.ID] = true
	}
	n := 0
	for _, a := range gt.Annotations {
		if !cats[a.CategoryID] {
			n++
		}
	}
	return n
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
