package cocojson

import (
	"errors"
	"strings"
	"testing"
)

// A malformed annotation file is refused with ErrMalformed, naming the
// file and what is wrong.
func TestCOCOGroundTruthBadInputs(t *testing.T) {
	for name, c := range map[string]struct{ json, want string }{
		"not json":      {`{"images": [`, "bad.json"},
		"not an object": {`[1, 2]`, "not a JSON object"},
		"no images":     {`{"annotations": [], "categories": []}`, `no "images"`},
		"images twice":  {`{"images": [], "images": [], "annotations": [], "categories": []}`, "twice"},
		"short bbox": {`{"images": [], "categories": [], "annotations": [
			{"id": 1, "image_id": 1, "category_id": 1, "area": 3, "bbox": [1, 2, 3]}]}`, "annotations: entry 0 (id 1): bbox has 3 values"},
		"no area": {`{"images": [], "categories": [], "annotations": [
			{"id": 1, "image_id": 1, "category_id": 1, "area": 2, "bbox": [1, 2, 3, 4]}, {"id": 7, "image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4]}]}`, "entry 1 (id 7): no area"},
		"fractional id": {`{"images": [{"id": 1.5, "width": 1, "height": 1}], "categories": [], "annotations": []}`, "images: entry 0: id 1.5 is not an integer"},
		"no width":      {`{"images": [{"id": 1, "height": 1}], "categories": [], "annotations": []}`, "no width"},
		"string bbox": {`{"images": [], "categories": [], "annotations": [
			{"id": 1, "image_id": 1, "category_id": 1, "area": 3, "bbox": "x"}]}`, "annotations: entry 0"},
		"bad iscrowd": {`{"images": [], "categories": [], "annotations": [
			{"id": 1, "image_id": 1, "category_id": 1, "area": 3, "bbox": [1, 2, 3, 4], "iscrowd": "yes"}]}`, "iscrowd"},
		"duplicate ids": {`{"images": [], "categories": [], "annotations": [
			{"id": 4, "image_id": 1, "category_id": 1, "area": 3, "bbox": [1, 2, 3, 4]},
			{"id": 4, "image_id": 1, "category_id": 1, "area": 3, "bbox": [1, 2, 3, 4]}]}`, "annotations 0 and 1 share id 4"},
	} {
		_, err := DecodeGroundTruth(strings.NewReader(c.json), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "cocojson: bad.json: ") || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed naming bad.json and %q", name, err, c.want)
		}
	}
}
