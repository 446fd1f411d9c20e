package coco2017

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/pyjson"
)

// SafeLicenseKeywords are the licence URL parts that make an image safe
// (safe_keywords of filter_coco_safe_images.py and
// create_safe_annotations.py): CC BY, CC BY-SA, CC BY-ND, Flickr Commons
// and US Government works. COCO's other licences (the NonCommercial ones)
// are left out.
var SafeLicenseKeywords = []string{
	"creativecommons.org/licenses/by/",
	"creativecommons.org/licenses/by-sa/",
	"creativecommons.org/licenses/by-nd",
	"flickr.com/commons/usage",
	"www.usa.gov",
}

// SafeLicense reports whether a licence URL is safe: its lower-cased form
// contains one of SafeLicenseKeywords.
func SafeLicense(url string) bool {
	u := strings.ToLower(url)
	for _, k := range SafeLicenseKeywords {
		if strings.Contains(u, k) {
			return true
		}
	}
	return false
}

// ErrSource is wrapped by errors about a COCO annotation file or archive
// the filter cannot use.
var ErrSource = errors.New("coco2017: not a usable COCO val2017 source")

// FilterReport is what FilterSafe found.
type FilterReport struct {
	Images, Annotations int // in the source
	// Safe lists the safe images' file names, in file order.
	Safe            []string
	SafeAnnotations int
}

// FilterSafe reads a COCO annotation file (instances_val2017.json) and
// writes the safe subset to w byte for byte as create_safe_annotations.py
// writes it: json.dump of {"info", "licenses", "images", "annotations",
// "categories"}, where images are those whose licence URL is safe (an
// image whose licence id is not listed is not safe), annotations those of
// safe images, both in file order, and info, licenses and categories are
// copied (info defaulting to {} and categories to []). Where the script
// would stop with a KeyError or AttributeError (no licenses, images or
// annotations, an image without license or id, a licence without id, a URL
// that is not a string), this is an error wrapping ErrSource.
func FilterSafe(w pyjson.Writer, src []byte) (*FilterReport, error) {
	var top struct {
		Info        json.RawMessage   `json:"info"`
		Licenses    *json.RawMessage  `json:"licenses"`
		Images      []json.RawMessage `json:"images"`
		Annotations []json.RawMessage `json:"annotations"`
		Categories  json.RawMessage   `json:"categories"`
	}
	if err := json.Unmarshal(src, &top); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSource, err)
	}
	if top.Licenses == nil || top.Images == nil || top.Annotations == nil {
		return nil, fmt.Errorf("%w: the file needs licenses, images and annotations arrays", ErrSource)
	}
	var lics []map[string]json.RawMessage
	if err := json.Unmarshal(*top.Licenses, &lics); err != nil {
		return nil, fmt.Errorf("%w: licenses: %v", ErrSource, err)
	}
	safeLic := map[string]bool{} // by id key; a later licence of the same id wins
	for i, l := range lics {
		id, err := idKey(l["id"])
		if err != nil {
			return nil, fmt.Errorf("%w: licence %d: id: %v", ErrSource, i, err)
		}
		url := ""
		if raw, ok := l["url"]; ok {
			if err := json.Unmarshal(raw, &url); err != nil || string(raw) == "null" {
				return nil, fmt.Errorf("%w: licence %d: url %s is not a string", ErrSource, i, raw)
			}
		}
		safeLic[id] = SafeLicense(url)
	}
	r := &FilterReport{Images: len(top.Images), Annotations: len(top.Annotations)}
	var safe []json.RawMessage
	safeIDs := map[string]bool{}
	for i, raw := range top.Images {
		var im map[string]json.RawMessage
		if err := json.Unmarshal(raw, &im); err != nil {
			return nil, fmt.Errorf("%w: image %d: %v", ErrSource, i, err)
		}
		lic, err := idKey(im["license"])
		if err != nil {
			return nil, fmt.Errorf("%w: image %d: license: %v", ErrSource, i, err)
		}
		if !safeLic[lic] {
			continue
		}
		id, err := idKey(im["id"])
		if err != nil {
			return nil, fmt.Errorf("%w: image %d: id: %v", ErrSource, i, err)
		}
		var name string
		if err := json.Unmarshal(im["file_name"], &name); err != nil {
			return nil, fmt.Errorf("%w: image %d: file_name is not a string", ErrSource, i)
		}
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("%w: image %d: %v", ErrSource, i, err)
		}
		safe = append(safe, raw)
		safeIDs[id] = true
		r.Safe = append(r.Safe, name)
	}
	var anns []json.RawMessage
	for i, raw := range top.Annotations {
		var a struct {
			ImageID json.RawMessage `json:"image_id"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%w: annotation %d: %v", ErrSource, i, err)
		}
		id, err := idKey(a.ImageID)
		if err != nil {
			return nil, fmt.Errorf("%w: annotation %d: image_id: %v", ErrSource, i, err)
		}
		if safeIDs[id] {
			anns = append(anns, raw)
		}
	}
	r.SafeAnnotations = len(anns)

	w.WriteString(`{"info": `)
	if err := reencodeOr(w, top.Info, "{}"); err != nil {
		return nil, err
	}
	w.WriteString(`, "licenses": `)
	if err := pyjson.Reencode(w, *top.Licenses); err != nil {
		return nil, err
	}
	for _, part := range []struct {
		key   string
		items []json.RawMessage
	}{{"images", safe}, {"annotations", anns}} {
		w.WriteString(`, "` + part.key + `": [`)
		for i, raw := range part.items {
			if i > 0 {
				w.WriteString(", ")
			}
			if err := pyjson.Reencode(w, raw); err != nil {
				return nil, err
			}
		}
		w.WriteString("]")
	}
	w.WriteString(`, "categories": `)
	if err := reencodeOr(w, top.Categories, "[]"); err != nil {
		return nil, err
	}
	w.WriteString("}")
	return r, nil
}

func reencodeOr(w pyjson.Writer, raw json.RawMessage, missing string) error {
	if raw == nil {
		w.WriteString(missing)
		return nil
	}
	return pyjson.Reencode(w, raw)
}

// idKey turns a JSON id into a key equal for ids Python finds equal: a
// number by its value (4 and 4.0 alike), a boolean as 1 or 0, a string by
// its text, null as itself. Objects and arrays (unhashable in Python) are
// errors.
func idKey(raw json.RawMessage) (string, error) {
	if raw == nil {
		return "", errors.New("missing")
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case nil:
		return "null", nil
	case bool: // Python's True == 1, False == 0
		if x {
			return "n1", nil
		}
		return "n0", nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return "", err
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64), nil
	case string:
		return "s" + x, nil
	}
	return "", fmt.Errorf("%s is not a number or a string", raw)
}

// Archive members of COCO's public zips.
const (
	// SourceAnnotations is the val2017 annotation file inside
	// annotations_trainval2017.zip.
	SourceAnnotations = "annotations/instances_val2017.json"
	// SourceImages is the image folder inside val2017.zip.
	SourceImages = "val2017/"
)

// Read limits: the largest annotation file and image taken from an
// archive (instances_val2017.json is 25 MB, COCO images under 1 MB).
const (
	maxAnnotationBytes = 1 << 30
	maxImageBytes      = 64 << 20
)

// PrepareConfig says where Prepare reads and writes.
type PrepareConfig struct {
	// ImagesZip is COCO's val2017.zip; AnnotationsZip its
	// annotations_trainval2017.zip.
	ImagesZip, AnnotationsZip string
	// Out is the data set folder to write (created if needed).
	Out string
	// Progress, if set, is called after each image written.
	Progress func(done, total int)
}

// Prepare makes the data set folder from COCO's archives as the
// reference's scripts do: the safe annotation file (FilterSafe) as
// Out/annotations/instances_val2017.json, and each safe image copied from
// val2017.zip to Out/val2017_safe. Files are written through temporary
// names; a safe image missing from the archive is an error (the scripts
// skip it, which would shift every later QSL index).
func Prepare(ctx context.Context, c PrepareConfig) (*FilterReport, error) {
	src, err := readMember(c.AnnotationsZip, SourceAnnotations, maxAnnotationBytes)
	if err != nil {
		return nil, err
	}
	annPath := filepath.Join(c.Out, filepath.FromSlash(AnnotationsPath))
	imgDir := filepath.Join(c.Out, ImagesPath)
	for _, d := range []string{filepath.Dir(annPath), imgDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("coco2017: %w", err)
		}
	}
	var r *FilterReport
	if err := writeAtomic(annPath, func(w *bufio.Writer) error {
		var err error
		r, err = FilterSafe(w, src)
		return err
	}); err != nil {
		return nil, fmt.Errorf("coco2017: %s in %s: %w", SourceAnnotations, c.AnnotationsZip, err)
	}
	zr, err := zip.OpenReader(c.ImagesZip)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSource, c.ImagesZip, err)
	}
	defer zr.Close()
	members := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		members[f.Name] = f
	}
	for i, name := range r.Safe {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := members[SourceImages+name]
		if f == nil {
			return nil, fmt.Errorf("%w: %s has no %s%s, which the annotations list: the archives do not belong together", ErrSource, c.ImagesZip, SourceImages, name)
		}
		if f.UncompressedSize64 > maxImageBytes {
			return nil, fmt.Errorf("%w: %s: %s is %d bytes, more than an image can be", ErrSource, c.ImagesZip, f.Name, f.UncompressedSize64)
		}
		if err := writeAtomic(filepath.Join(imgDir, name), func(w *bufio.Writer) error {
			rc, err := f.Open()
			if err != nil {
				return err
			}
			defer rc.Close()
			n, err := io.Copy(w, io.LimitReader(rc, maxImageBytes+1))
			if err == nil && n > maxImageBytes {
				err = fmt.Errorf("more than %d bytes", maxImageBytes)
			}
			return err
		}); err != nil {
			return nil, fmt.Errorf("coco2017: %s from %s: %w", name, c.ImagesZip, err)
		}
		if c.Progress != nil {
			c.Progress(i+1, len(r.Safe))
		}
	}
	return r, nil
}

// readMember reads one archive member of at most limit bytes.
func readMember(zipPath, name string, limit int64) ([]byte, error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSource, zipPath, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		if f.UncompressedSize64 > uint64(limit) {
			return nil, fmt.Errorf("%w: %s: %s is %d bytes, more than %d", ErrSource, zipPath, name, f.UncompressedSize64, limit)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", ErrSource, zipPath, name, err)
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, limit+1))
		if err != nil || int64(len(b)) > limit {
			return nil, fmt.Errorf("%w: %s: %s: read failed or longer than declared (%v)", ErrSource, zipPath, name, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%w: %s has no %s (give COCO's annotations_trainval2017.zip)", ErrSource, zipPath, name)
}

// writeAtomic writes path through a temporary file in its folder.
func writeAtomic(path string, fill func(w *bufio.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err = fill(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
