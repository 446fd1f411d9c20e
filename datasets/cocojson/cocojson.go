// Package cocojson reads COCO-format annotation files (images,
// annotations, categories), the format the OpenImages MLPerf subset is
// exported in (openimages-mlperf.json) and that COCO-style detection
// scoring reads.
package cocojson

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// ErrMalformed marks a malformed COCO annotation file or detection.
var ErrMalformed = errors.New("malformed COCO data")

// Image is one entry of a COCO file's images array.
type Image struct {
	ID            int64
	Width, Height float64 // pixels, as written in the file
	FileName      string
}

// Annotation is one ground-truth box of a COCO file.
type Annotation struct {
	ID, ImageID, CategoryID int64
	BBox                    [4]float64 // x, y, width, height in pixels
	Area                    float64    // the file's area field: what the area ranges test
	// IsCrowd is the file's iscrowd (true is 1). A nonzero value makes the
	// box an ignore region; a nonzero integer part makes its IoU
	// intersection over detection area (pycocotools' int(iscrowd)).
	IsCrowd float64
}

// Category is one entry of a COCO file's categories array.
type Category struct {
	ID   int64
	Name string
}

// GroundTruth is the part of a COCO-format annotation file that bbox
// evaluation reads, in file order. It is read-only once built and safe
// for concurrent use.
type GroundTruth struct {
	Images      []Image
	Annotations []Annotation
	Categories  []Category
}

// ReadGroundTruth reads a COCO-format annotation file such as
// openimages-mlperf.json. The top-level arrays are decoded one element at a
// time; keys other than images, annotations and categories are skipped.
func ReadGroundTruth(path string) (*GroundTruth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cocojson: %w", err)
	}
	defer f.Close()
	return DecodeGroundTruth(bufio.NewReaderSize(f, 1<<20), path)
}

type jsonImage struct {
	ID       json.Number `json:"id"`
	Width    *float64    `json:"width"`
	Height   *float64    `json:"height"`
	FileName string      `json:"file_name"`
}

type jsonAnnotation struct {
	ID         json.Number `json:"id"`
	ImageID    json.Number `json:"image_id"`
	CategoryID json.Number `json:"category_id"`
	BBox       []float64   `json:"bbox"`
	Area       *float64    `json:"area"`
	IsCrowd    jsonTruth   `json:"iscrowd"`
}

type jsonCategory struct {
	ID   json.Number `json:"id"`
	Name string      `json:"name"`
}

// jsonTruth is a JSON number, boolean or null read as a number.
type jsonTruth float64

func (t *jsonTruth) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "true":
		*t = 1
	case "false", "null":
		*t = 0
	default:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("iscrowd %s is not a number or boolean", s)
		}
		*t = jsonTruth(v)
	}
	return nil
}

// DecodeGroundTruth reads a COCO-format annotation file from r; name is
// used in errors.
func DecodeGroundTruth(r io.Reader, name string) (*GroundTruth, error) {
	dec := json.NewDecoder(r)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("cocojson: %s: %w: "+format, append([]any{name, ErrMalformed}, a...)...)
	}
	if tok, err := dec.Token(); err != nil {
		return nil, fail("%v", err)
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail("it is not a JSON object")
	}
	gt := &GroundTruth{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail("%v", err)
		}
		key, _ := tok.(string)
		switch key {
		case "images", "annotations", "categories":
			if seen[key] {
				return nil, fail("%q appears twice", key)
			}
			seen[key] = true
			if err := decodeArray(dec, func(i int) error { return gt.decodeElem(dec, key, i) }); err != nil {
				return nil, fail("%s: %v", key, err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fail("%q: %v", key, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail("%v", err)
	}
	for _, k := range []string{"images", "annotations", "categories"} {
		if !seen[k] {
			return nil, fail("no %q array", k)
		}
	}
	if err := gt.check(); err != nil {
		return nil, fail("%v", err)
	}
	return gt, nil
}

// decodeArray walks a JSON array, calling elem for each element index.
func decodeArray(dec *json.Decoder, elem func(i int) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return errors.New("not an array")
	}
	for i := 0; dec.More(); i++ {
		if err := elem(i); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

func (gt *GroundTruth) decodeElem(dec *json.Decoder, key string, i int) error {
	switch key {
	case "images":
		var j jsonImage
		if err := dec.Decode(&j); err != nil {
			return fmt.Errorf("entry %d: %v", i, err)
		}
		id, err := jsonInt(j.ID, "id")
		if err != nil {
			return fmt.Errorf("entry %d: %v", i, err)
		}
		if j.Width == nil || j.Height == nil {
			return fmt.Errorf("entry %d (id %d): no width or height", i, id)
		}
		gt.Images = append(gt.Images, Image{ID: id, Width: *j.Width, Height: *j.Height, FileName: j.FileName})
	case "annotations":
		var j jsonAnnotation
		if err := dec.Decode(&j); err != nil {
			return fmt.Errorf("entry %d: %v", i, err)
		}
		var a Annotation
		var err error
		if a.ID, err = jsonInt(j.ID, "id"); err != nil {
			return fmt.Errorf("entry %d: %v", i, err)
		}
		if a.ImageID, err = jsonInt(j.ImageID, "image_id"); err != nil {
			return fmt.Errorf("entry %d (id %d): %v", i, a.ID, err)
		}
		if a.CategoryID, err = jsonInt(j.CategoryID, "category_id"); err != nil {
			return fmt.Errorf("entry %d (id %d): %v", i, a.ID, err)
		}
		if len(j.BBox) != 4 {
			return fmt.Errorf("entry %d (id %d): bbox has %d values, want 4 (x, y, width, height)", i, a.ID, len(j.BBox))
		}
		if j.Area == nil {
			return fmt.Errorf("entry %d (id %d): no area", i, a.ID)
		}
		copy(a.BBox[:], j.BBox)
		a.Area, a.IsCrowd = *j.Area, float64(j.IsCrowd)
		gt.Annotations = append(gt.Annotations, a)
	case "categories":
		var j jsonCategory
		if err := dec.Decode(&j); err != nil {
			return fmt.Errorf("entry %d: %v", i, err)
		}
		id, err := jsonInt(j.ID, "id")
		if err != nil {
			return fmt.Errorf("entry %d: %v", i, err)
		}
		gt.Categories = append(gt.Categories, Category{ID: id, Name: j.Name})
	}
	return nil
}

// jsonInt reads an integral JSON number (1 and 1.0 alike, as Python
// hashes them).
func jsonInt(n json.Number, field string) (int64, error) {
	if n == "" {
		return 0, fmt.Errorf("no %s", field)
	}
	if v, err := n.Int64(); err == nil {
		return v, nil
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, fmt.Errorf("%s %s is not an integer", field, n)
	}
	return int64(f), nil
}

// check rejects what pycocotools would mis-handle silently: annotation ids
// must be unique (COCO.loadAnns looks annotations up by id).
func (gt *GroundTruth) check() error {
	ids := make(map[int64]int, len(gt.Annotations))
	for i, a := range gt.Annotations {
		if j, dup := ids[a.ID]; dup {
			return fmt.Errorf("annotations %d and %d share id %d", j, i, a.ID)
		}
		ids[a.ID] = i
	}
	return nil
}
