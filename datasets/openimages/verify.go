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
	// ZipMD5 is the MD5 of the released annotation archive when it lies
	// beside the annotation file ("" otherwise).
	ZipMD5 string
}

// OK reports whether every listed image is present and decodable,
// exactly expect images are listed (any count when expect ≤ 0), and a
// released archive beside the file, if any, has its published MD5.
func (r *VerifyReport) OK(expect int) bool {
	return len(r.Missing) == 0 && len(r.Undecodable) == 0 && (expect <= 0 || r.Listed == expect) && (r.ZipMD5 == "" || r.ZipMD5 == ReleasedZipMD5)
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
	r := &VerifyReport{Annotations: ann, Listed: len(gt.Images)}
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
