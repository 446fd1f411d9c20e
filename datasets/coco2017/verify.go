package coco2017

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/datasets/cocojson"
	"github.com/mlperf-go/inference/preprocess"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Annotations string // the annotation file checked
	Listed      int    // images it lists
	// Missing are listed images not on disk; Undecodable those that do
	// not decode as OpenCV would read them, or whose size differs from the
	// width and height in the annotation file (each with the cause).
	Missing, Undecodable []string
	// Rotated are images whose EXIF orientation swaps their sides: they
	// decode (as OpenCV and the reference read them) to the annotation
	// file's height × width. Reported, not a failure: the reference sees
	// the same.
	Rotated []string
	// UnknownCategory counts annotations whose category is not listed.
	UnknownCategory int
}

// OK reports whether every listed image is present and decodable, no
// annotation has an unlisted category, and exactly expect images are
// listed (any count when expect ≤ 0).
func (r *VerifyReport) OK(expect int) bool {
	return len(r.Missing) == 0 && len(r.Undecodable) == 0 && r.UnknownCategory == 0 && (expect <= 0 || r.Listed == expect)
}

// String summarises the report.
func (r *VerifyReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d images listed (the safe subset has %d), %d present, %d missing, %d not decodable, %d rotated by EXIF\n",
		r.Annotations, r.Listed, Size, r.Listed-len(r.Missing), len(r.Missing), len(r.Undecodable), len(r.Rotated))
	for i, m := range r.Missing {
		if i == 5 {
			fmt.Fprintf(&b, "  ... and %d more missing\n", len(r.Missing)-5)
			break
		}
		fmt.Fprintf(&b, "  missing: %s\n", m)
	}
	for _, u := range r.Undecodable {
		fmt.Fprintf(&b, "  bad image: %s\n", u)
	}
	for _, u := range r.Rotated {
		fmt.Fprintf(&b, "  rotated by its EXIF orientation (the reference reads it so too): %s\n", u)
	}
	if r.UnknownCategory > 0 {
		fmt.Fprintf(&b, "  %d annotations have a category the file does not list (COCOeval would ignore them): not an MLPerf annotation file\n", r.UnknownCategory)
	}
	return b.String()
}

// Verify checks the data set folder dir: the annotation file (annotations
// overrides its place) must parse, every listed image must have a plain
// file name, exist and decode with the width and height the file gives,
// and every annotation's category must be listed. workers images are
// decoded at once (< 1: all cores). A missing or malformed annotation
// file, or an image name that would leave the image folder, is an error;
// image problems are findings.
func Verify(dir, annotations string, workers int) (*VerifyReport, error) {
	ann := AnnotationFile(dir, annotations)
	if _, err := os.Stat(ann); err != nil {
		return nil, fmt.Errorf("%w: %s (download the data set with models/yolo/download_dataset.sh or write one with `mlperf dataset synth yolo`)", ErrNoAnnotations, ann)
	}
	gt, err := cocojson.ReadGroundTruth(ann)
	if err != nil {
		return nil, fmt.Errorf("coco2017: annotation file %s is not a valid COCO annotation file (%w); download it again", ann, err)
	}
	for _, im := range gt.Images {
		if err := checkName(im.FileName); err != nil {
			return nil, fmt.Errorf("coco2017: %s: image %d: %w", ann, im.ID, err)
		}
	}
	r := &VerifyReport{Annotations: ann, Listed: len(gt.Images), UnknownCategory: unknownCategories(gt)}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				im := gt.Images[i]
				p := filepath.Join(dir, ImagesPath, im.FileName)
				var missing, bad, rotated string
				if _, err := os.Stat(p); err != nil {
					missing = im.FileName
				} else if m, err := preprocess.ReadFile(p, preprocess.BGR); err != nil {
					bad = fmt.Sprintf("%s (%v)", im.FileName, err)
				} else if w, h := float64(m.Width), float64(m.Height); w != im.Width || h != im.Height {
					if w == im.Height && h == im.Width {
						rotated = im.FileName
					} else {
						bad = fmt.Sprintf("%s (decodes to %dx%d, the annotation file says %gx%g)", im.FileName, m.Width, m.Height, im.Width, im.Height)
					}
				}
				mu.Lock()
				switch {
				case missing != "":
					r.Missing = append(r.Missing, missing)
				case bad != "":
					r.Undecodable = append(r.Undecodable, bad)
				case rotated != "":
					r.Rotated = append(r.Rotated, rotated)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range gt.Images {
		next <- i
	}
	close(next)
	wg.Wait()
	slices.Sort(r.Missing)
	slices.Sort(r.Undecodable)
	slices.Sort(r.Rotated)
	return r, nil
}
