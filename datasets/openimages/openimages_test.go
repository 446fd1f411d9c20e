package openimages

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/cocojson"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

func synth(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{N: n, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSynthLoads(t *testing.T) {
	dir := synth(t, 5)
	ds, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 5 || ds.Listed != 5 || len(ds.Missing) != 0 || len(ds.GT.Categories) != NumClasses {
		t.Fatalf("len %d listed %d missing %v categories %d", ds.Len(), ds.Listed, ds.Missing, len(ds.GT.Categories))
	}
	for i, c := range ds.GT.Categories {
		if c.ID != int64(i) || c.Name != ClassNames[i] {
			t.Fatalf("category %d = %+v", i, c)
		}
	}
	for i := 1; i < ds.Len(); i++ {
		if ds.GT.Images[i-1].FileName >= ds.GT.Images[i].FileName || ds.GT.Images[i].ID != int64(i+1) {
			t.Fatalf("images not sorted by ImageID with ids 1..N: %+v", ds.GT.Images)
		}
	}
	if len(ds.GT.Annotations) < 5 {
		t.Errorf("%d annotations", len(ds.GT.Annotations))
	}
	// Same seed, same bytes.
	again := synth(t, 5)
	a, _ := os.ReadFile(filepath.Join(dir, AnnotationsPath))
	b, _ := os.ReadFile(filepath.Join(again, AnnotationsPath))
	if !bytes.Equal(a, b) {
		t.Error("two syntheses with the same seed differ")
	}
}

func TestLoadSkipsMissingImagesAndReports(t *testing.T) {
	dir := synth(t, 4)
	ds, _ := Load(dir, Options{})
	gone := ds.GT.Images[1].FileName
	if err := os.Remove(filepath.Join(dir, ImagesPath, gone)); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	ds, err := Load(dir, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 || len(ds.Missing) != 1 || ds.Missing[0] != gone {
		t.Fatalf("len %d missing %v", ds.Len(), ds.Missing)
	}
	for _, im := range ds.GT.Images {
		if im.FileName == gone {
			t.Error("missing image kept")
		}
	}
	for _, a := range ds.GT.Annotations {
		if a.ImageID == 2 {
			t.Error("annotation of the missing image kept")
		}
	}
	if !strings.Contains(warn.String(), "1 of the 4 images") || !strings.Contains(warn.String(), gone) {
		t.Errorf("warning: %q", warn.String())
	}
	// Count keeps the first images present.
	ds, err = Load(dir, Options{Count: 2, Warn: &warn})
	if err != nil || ds.Len() != 2 || ds.GT.Images[1].ID != 3 {
		t.Errorf("count 2: %v %+v", err, ds)
	}
	// No image at all is an error naming the folder.
	os.RemoveAll(filepath.Join(dir, ImagesPath))
	if _, err := Load(dir, Options{Warn: &warn}); err == nil || !strings.Contains(err.Error(), "none of the 4 images") {
		t.Errorf("no images: %v", err)
	}
}

func TestLoadBadAnnotations(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, Options{}); !errors.Is(err, ErrNoAnnotations) {
		t.Errorf("no file: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "annotations"), 0o755)
	for name, js := range map[string]string{
		"truncated":   `{"images": [{"id": 1, "file_name": "a.jpg", "width": 10, "height": 10}`,
		"not json":    `<html>`,
		"bad bbox":    `{"images": [{"id": 1, "file_name": "a.jpg", "width": 10, "height": 10}], "categories": [{"id": 0}], "annotations": [{"id": 1, "image_id": 1, "category_id": 0, "bbox": [1], "area": 1}]}`,
		"no images":   `{"images": [], "categories": [], "annotations": []}`,
		"wrong types": `{"images": [{"id": "x"}]}`,
	} {
		os.WriteFile(filepath.Join(dir, AnnotationsPath), []byte(js), 0o644)
		_, err := Load(dir, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "openimages: annotation file ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestVerify(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	dir := synth(t, 4)
	r, err := Verify(dir, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK(0) || !r.OK(4) || r.OK(Size) || r.Listed != 4 {
		t.Fatalf("clean synthetic set: %s", r)
	}
	ds, _ := Load(dir, Options{})
	// A missing, a truncated, and an image of another size.
	os.Remove(ds.ImagePath(0))
	data, _ := os.ReadFile(ds.ImagePath(1))
	os.WriteFile(ds.ImagePath(1), data[:len(data)/3], 0o644)
	data3, _ := os.ReadFile(ds.ImagePath(3))
	os.WriteFile(ds.ImagePath(2), data3, 0o644)
	// A released archive with the wrong bytes.
	os.WriteFile(filepath.Join(dir, "annotations", ReleasedZip), []byte("not it"), 0o644)
	r, err = Verify(dir, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	s := r.String()
	if r.OK(0) || len(r.Missing) != 1 || len(r.Undecodable) != 2 || r.ZipMD5 == "" || !strings.Contains(s, "download it again") || !strings.Contains(s, "decodes to") {
		t.Errorf("damaged set: %s", s)
	}
}

// The annotation-file faults pycocotools passes silently are named.
func TestCheckAnnotationsNamesFaults(t *testing.T) {
	gt := &cocojson.GroundTruth{
		Images: []cocojson.Image{{ID: 1, FileName: "a.jpg"}, {ID: 1, FileName: "b.jpg"}, {ID: 2, FileName: "a.jpg"}},
		Categories: []cocojson.Category{{ID: 0, Name: ClassNames[0]}, {ID: 5, Name: "Zebra"}, {ID: 300, Name: "Spaceship"},
			{ID: 0, Name: ClassNames[0]}},
		Annotations: []cocojson.Annotation{{ID: 1, ImageID: 1, CategoryID: 0}, {ID: 2, ImageID: 9, CategoryID: 0}, {ID: 3, ImageID: 2, CategoryID: 77}},
	}
	got := strings.Join(CheckAnnotations(gt), "\n")
	for _, want := range []string{
		"image id 1 is given to both a.jpg and b.jpg",
		"file a.jpg is listed twice, as images 1 and 2",
		`category 5 is "Zebra"; in the MLPerf set it is "Banana"`,
		`category 300 ("Spaceship") is outside the 264 MLPerf OpenImages classes`,
		"category id 0 is listed twice",
		"1 annotations belong to no listed image",
		"1 annotations have a category the file does not list",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	none := &cocojson.GroundTruth{Images: []cocojson.Image{{ID: 1, FileName: "a.jpg"}}, Categories: []cocojson.Category{{ID: 300, Name: "x"}},
		Annotations: []cocojson.Annotation{{ID: 1, ImageID: 1, CategoryID: 300}}}
	if got := strings.Join(CheckAnnotations(none), "\n"); !strings.Contains(got, "no annotation is of an MLPerf OpenImages class: nothing can be scored") {
		t.Errorf("no MLPerf class: %s", got)
	}
	good := &cocojson.GroundTruth{Images: []cocojson.Image{{ID: 1, FileName: "a.jpg"}}, Categories: []cocojson.Category{{ID: 3, Name: ClassNames[3]}},
		Annotations: []cocojson.Annotation{{ID: 1, ImageID: 1, CategoryID: 3}}}
	if p := CheckAnnotations(good); len(p) != 0 {
		t.Errorf("a good file: %v", p)
	}
}
