package openimages

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
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
	// not decode as OpenCV would read them, or whose size differs from
	// the width and height in the annotation file (each with the cause).
	Missing, Undecodable []string
	// Problems are faults of the annotation file itself: repeated image
	// ids or files, categories outside the MLPerf set, annotations
	// of unknown images or categories, no annotation of an MLPerf class.
	// pycocotools keeps the last of repeated ids and scores -1 (printed
	// as mAP=-100.000%) where no ground truth matches.
	Problems []string
	// ZipMD5 is the MD5 of the released annotation archive when it lies
	// beside the annotation file ("" otherwise).
	ZipMD5 string
}

// OK reports whether every listed image is present and decodable,
// exactly expect images are listed (any count when expect ≤ 0), and a
// released archive beside the file, if any, has its published MD5.
func (r *VerifyReport) OK(expect int) bool {
	return len(r.Missing) == 0 && len(r.Undecodable) == 0 && len(r.Problems) == 0 && (expect <= 0 || r.Listed == expect) && (r.ZipMD5 == "" || r.ZipMD5 == ReleasedZipMD5)
}

// String summarises the report.
func (r *VerifyReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d images listed (the MLPerf subset has %d), %d present, %d missing, %d not decodable\n",
		r.Annotations, r.Listed, Size, r.Listed-len(r.Missing), len(r.Missing), len(r.Undecodable))
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
	for i, p := range r.Problems {
		if i == 10 {
			fmt.Fprintf(&b, "  ... and %d more problems of the annotation file\n", len(r.Problems)-10)
			break
		}
		fmt.Fprintf(&b, "  annotation file: %s\n", p)
	}
	switch {
	case r.ZipMD5 == "":
		fmt.Fprintf(&b, "annotations: no %s beside the file; MD5 not checked\n", ReleasedZip)
	case r.ZipMD5 == ReleasedZipMD5:
		fmt.Fprintf(&b, "annotations: %s MD5 %s matches the release\n", ReleasedZip, r.ZipMD5)
	default:
		fmt.Fprintf(&b, "annotations: %s MD5 %s, want %s (download it again)\n", ReleasedZip, r.ZipMD5, ReleasedZipMD5)
	}
	return b.String()
}

// Verify checks the data set folder dir: the annotation file (annotations
// overrides its place) must parse, every listed image must exist and
// decode with the width and height the file gives, and a released
// annotation archive beside the file must have its published MD5.
// workers images are decoded at once (< 1: all cores). A missing or
// malformed annotation file is an error; image problems are findings.
func Verify(dir, annotations string, workers int) (*VerifyReport, error) {
	ann := AnnotationFile(dir, annotations)
	if _, err := os.Stat(ann); err != nil {
		return nil, fmt.Errorf("%w: %s (download the data set with models/retinanet/download_dataset.sh or write one with `mlperf dataset synth openimages`)", ErrNoAnnotations, ann)
	}
	gt, err := cocojson.ReadGroundTruth(ann)
	if err != nil {
		return nil, fmt.Errorf("openimages: annotation file %s is not a valid COCO annotation file (%w); download it again", ann, err)
	}
	r := &VerifyReport{Annotations: ann, Listed: len(gt.Images), Problems: CheckAnnotations(gt)}
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
				p := filepath.Join(dir, filepath.FromSlash(ImagesPath), filepath.FromSlash(im.FileName))
				if _, err := os.Stat(p); err != nil {
					mu.Lock()
					r.Missing = append(r.Missing, im.FileName)
					mu.Unlock()
					continue
				}
				m, err := preprocess.ReadFile(p, preprocess.BGR)
				var bad string
				switch {
				case err != nil:
					bad = fmt.Sprintf("%s (%v)", im.FileName, err)
				case float64(m.Width) != im.Width || float64(m.Height) != im.Height:
					bad = fmt.Sprintf("%s (decodes to %dx%d, the annotation file says %gx%g)", im.FileName, m.Width, m.Height, im.Width, im.Height)
				}
				if bad != "" {
					mu.Lock()
					r.Undecodable = append(r.Undecodable, bad)
					mu.Unlock()
				}
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
	zip := filepath.Join(filepath.Dir(ann), ReleasedZip)
	if f, err := os.Open(zip); err == nil {
		h := md5.New()
		_, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("openimages: %s: %w", zip, err)
		}
		r.ZipMD5 = hex.EncodeToString(h.Sum(nil))
	}
	return r, nil
}

// CheckAnnotations lists the faults of an annotation file that would make
// its score wrong or undefined without an error from pycocotools: repeated
// image or file ids (COCO's index keeps the last), categories
// that are not the MLPerf class of their id (ClassNames; the model's
// labels would score against the wrong class), annotations of images or
// categories the file does not list, and no annotation of any MLPerf
// class at all (every AP is then -1, printed as mAP=-100.000%).
func CheckAnnotations(gt *cocojson.GroundTruth) []string {
	var probs []string
	images := make(map[int64]string, len(gt.Images))
	files := make(map[string]int64, len(gt.Images))
	for _, im := range gt.Images {
		if f, ok := images[im.ID]; ok {
			probs = append(probs, fmt.Sprintf("image id %d is given to both %s and %s (pycocotools keeps only the last)", im.ID, f, im.FileName))
		} else {
			images[im.ID] = im.FileName
		}
		if id, ok := files[im.FileName]; ok && id != im.ID {
			probs = append(probs, fmt.Sprintf("file %s is listed twice, as images %d and %d", im.FileName, id, im.ID))
		}
		files[im.FileName] = im.ID
	}
	cats := make(map[int64]bool, len(gt.Categories))
	for _, c := range gt.Categories {
		switch {
		case cats[c.ID]:
			probs = append(probs, fmt.Sprintf("category id %d is listed twice", c.ID))
		case c.ID < 0 || c.ID >= NumClasses:
			probs = append(probs, fmt.Sprintf("category %d (%q) is outside the %d MLPerf OpenImages classes (ids 0 to %d)", c.ID, c.Name, NumClasses, NumClasses-1))
		case c.Name != ClassNames[c.ID]:
			probs = append(probs, fmt.Sprintf("category %d is %q; in the MLPerf set it is %q (the model's label %d would be scored against another class)", c.ID, c.Name, ClassNames[c.ID], c.ID))
		}
		cats[c.ID] = true
	}
	// (Repeated annotation ids are refused by coco.ReadGroundTruth.)
	mlperf := 0
	var unknownImage, unknownCat int
	for _, a := range gt.Annotations {
		if _, ok := images[a.ImageID]; !ok {
			unknownImage++
		}
		if !cats[a.CategoryID] {
			unknownCat++
		} else if a.CategoryID >= 0 && a.CategoryID < NumClasses {
			mlperf++
		}
	}
	if unknownImage > 0 {
		probs = append(probs, fmt.Sprintf("%d annotations belong to no listed image", unknownImage))
	}
	if unknownCat > 0 {
		probs = append(probs, fmt.Sprintf("%d annotations have a category the file does not list", unknownCat))
	}
	if len(gt.Annotations) > 0 && mlperf == 0 {
		probs = append(probs, "no annotation is of an MLPerf OpenImages class: nothing can be scored (pycocotools gives -1, printed as mAP=-100.000%)")
	}
	return probs
}
