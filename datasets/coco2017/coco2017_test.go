package coco2017

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/cocojson"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// FilterSafe writes byte for byte what create_safe_annotations.py writes
// (testdata/safe_instances_val2017.json, from gen_golden.py) for a source
// with every COCO licence, a licence id written 4.0, unknown and
// URL-less licences, a licence id redefined later (the later one wins),
// an upper-case URL, non-ASCII text, RLE and float segmentations and no
// info key; it names the safe images in file order.
func TestFilterSafeMatchesReference(t *testing.T) {
	src, err := os.ReadFile("testdata/source_instances_val2017.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/safe_instances_val2017.json")
	if err != nil {
		t.Fatal(err)
	}
	var wantFiles []string
	b, _ := os.ReadFile("testdata/safe_files.json")
	if err := json.Unmarshal(b, &wantFiles); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	r, err := FilterSafe(&got, src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("output differs from the reference's:\n got %.300s…\nwant %.300s…", got.String(), want)
	}
	if !slices.Equal(r.Safe, wantFiles) {
		t.Errorf("safe images %v, want %v", r.Safe, wantFiles)
	}
	if r.Images != 11 || r.Annotations != 7 || r.SafeAnnotations != 5 {
		t.Errorf("report %+v", r)
	}
}

// Sources the reference's script would stop on are errors naming what
// is wrong.
func TestFilterSafeRefuses(t *testing.T) {
	cases := map[string]string{
		`{"images": [], "annotations": []}`:                                                "licenses, images and annotations",
		`{"licenses": [], "annotations": []}`:                                              "licenses, images and annotations",
		`{"licenses": [{"url": "x"}], "images": [], "annotations": []}`:                    "licence 0: id",
		`{"licenses": [{"id": 1, "url": null}], "images": [], "annotations": []}`:          "not a string",
		`{"licenses": [], "images": [{"id": 1, "file_name": "a.jpg"}], "annotations": []}`: "image 0: license",
		`{"licenses": [{"id": 4, "url": "http://creativecommons.org/licenses/by/2.0/"}], "images": [{"license": 4, "file_name": "../a.jpg", "id": 1}], "annotations": []}`: "not a plain file name",
		`{"licenses": [], "images": [], "annotations": [{"id": 1}]}`: "annotation 0: image_id",
		`[1, 2]`:            "coco2017",
		`{"licenses": [], `: "coco2017",
	}
	for src, want := range cases {
		var b bytes.Buffer
		_, err := FilterSafe(&b, []byte(src))
		if !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want ErrSource mentioning %q", src, err, want)
		}
	}
}

// SafeLicense keeps COCO's licences 4–8 and drops the non-commercial
// ones 1–3.
func TestSafeLicense(t *testing.T) {
	for _, l := range licenses {
		if got, want := SafeLicense(l.URL), l.ID >= 4; got != want {
			t.Errorf("licence %d %s: safe %v, want %v", l.ID, l.URL, got, want)
		}
	}
}

// A synthetic data set goes through the real filter: Prepare writes the N
// safe images (the archive's bytes) and an annotation file listing just
// them, which Load reads in file order; the same seed gives the same
// files.
func TestSynthPrepareLoad(t *testing.T) {
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{N: 6, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 6 || ds.Listed != 6 || len(ds.Missing) != 0 || ds.UnknownCategory != 0 {
		t.Fatalf("loaded %d of %d images, missing %v, %d unknown categories", ds.Len(), ds.Listed, ds.Missing, ds.UnknownCategory)
	}
	if len(ds.GT.Categories) != 80 || len(ds.GT.Annotations) < 6 {
		t.Errorf("%d categories, %d annotations", len(ds.GT.Categories), len(ds.GT.Annotations))
	}
	for _, a := range ds.GT.Annotations {
		if !slices.ContainsFunc(ds.GT.Images, func(im cocojson.Image) bool { return im.ID == a.ImageID }) {
			t.Errorf("annotation %d of an image not in the subset", a.ID)
		}
	}
	ann1, _ := os.ReadFile(filepath.Join(dir, AnnotationsPath))
	again := t.TempDir()
	if err := Synth(again, SynthConfig{N: 6, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ann2, _ := os.ReadFile(filepath.Join(again, AnnotationsPath))
	if !bytes.Equal(ann1, ann2) {
		t.Error("same seed, different annotation files")
	}
	img1, _ := os.ReadFile(ds.ImagePath(5))
	img2, _ := os.ReadFile(filepath.Join(again, ImagesPath, ds.GT.Images[5].FileName))
	if len(img1) == 0 || !bytes.Equal(img1, img2) {
		t.Error("same seed, different images")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if err := Synth(t.TempDir(), SynthConfig{N: 0}); err == nil {
		t.Error("N 0: no error")
	}
}

// Prepare refuses archives that do not belong together (an image the
// annotations list is not in val2017.zip) and an annotation archive
// without instances_val2017.json.
func TestPrepareRefusesMismatchedArchives(t *testing.T) {
	src := t.TempDir()
	iz, az, err := SynthSource(src, SynthConfig{N: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	iz2, _, err := SynthSource(other, SynthConfig{N: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(context.Background(), PrepareConfig{ImagesZip: iz2, AnnotationsZip: az, Out: t.TempDir()})
	if !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "do not belong together") {
		t.Errorf("mismatched archives: %v", err)
	}
	_, err = Prepare(context.Background(), PrepareConfig{ImagesZip: iz, AnnotationsZip: iz, Out: t.TempDir()})
	if !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), SourceAnnotations) {
		t.Errorf("images zip given as annotations: %v", err)
	}
	notZip := filepath.Join(t.TempDir(), "x.zip")
	os.WriteFile(notZip, []byte("not a zip"), 0o644)
	if _, err := Prepare(context.Background(), PrepareConfig{ImagesZip: iz, AnnotationsZip: notZip, Out: t.TempDir()}); !errors.Is(err, ErrSource) {
		t.Errorf("not a zip: %v", err)
	}
}

// Load skips missing images as the reference does and says so, keeps the
// first Count images, reports annotations of unlisted categories, and
// refuses a folder without annotations or without any image.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{N: 5, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	full, err := Load(dir, Options{Warn: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(full.ImagePath(1)); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	ds, err := Load(dir, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 4 || len(ds.Missing) != 1 || ds.GT.Images[1].ID != full.GT.Images[2].ID || !strings.Contains(warn.String(), "1 of the 5 images") {
		t.Errorf("with one image missing: %d loaded, missing %v, warning %q", ds.Len(), ds.Missing, warn.String())
	}
	if ds, err := Load(dir, Options{Count: 2, Warn: &warn}); err != nil || ds.Len() != 2 || ds.GT.Images[1].ID != full.GT.Images[2].ID {
		t.Errorf("count 2: %v, %v", ds, err)
	}
	if _, err := Load(t.TempDir(), Options{}); !errors.Is(err, ErrNoAnnotations) {
		t.Errorf("empty folder: %v", err)
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "annotations"), 0o755)
	ann, _ := os.ReadFile(filepath.Join(dir, AnnotationsPath))
	os.WriteFile(filepath.Join(empty, AnnotationsPath), ann, 0o644)
	if _, err := Load(empty, Options{}); err == nil || !strings.Contains(err.Error(), "none of the 5 images") {
		t.Errorf("no images: %v", err)
	}
	// An annotation of a category the file does not list.
	bad := bytes.Replace(ann, []byte(`"category_id": `), []byte(`"category_id": 1000`), 1)
	os.WriteFile(filepath.Join(dir, AnnotationsPath), bad, 0o644)
	warn.Reset()
	if ds, err := Load(dir, Options{Warn: &warn}); err != nil || ds.UnknownCategory != 1 || !strings.Contains(warn.String(), "COCOeval ignores them") {
		t.Errorf("unknown category: %v, %v, %q", ds, err, warn.String())
	}
}

// Verify passes a good synthetic set and reports a missing image, an
// undecodable one, one of the wrong size, an EXIF-rotated one (as a note)
// and annotations of unlisted categories.
func TestVerify(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("JPEG decoding needs cgo")
	}
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{N: 5, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	r, err := Verify(dir, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK(5) || r.OK(Size) {
		t.Fatalf("good set: OK(5) %v, OK(%d) %v:\n%s", r.OK(5), Size, r.OK(Size), r)
	}
	ds, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ds.ImagePath(0))
	os.WriteFile(ds.ImagePath(1), []byte("\xff\xd8\xff garbage"), 0o644)
	// Image 2 replaced by a 259×194 photo stored with EXIF orientation 6
	// (decodes to 194×259); image 3 by the same photo unrotated, whose
	// size the annotation file does not give.
	exif6, err := os.ReadFile("../../preprocess/testdata/images/fish_exif6.jpg")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := os.ReadFile("../../preprocess/testdata/images/HappyFish.jpg")
	os.WriteFile(ds.ImagePath(2), exif6, 0o644)
	os.WriteFile(ds.ImagePath(3), plain, 0o644)
	ann, _ := os.ReadFile(filepath.Join(dir, AnnotationsPath))
	var doc map[string]any
	json.Unmarshal(ann, &doc)
	im := doc["images"].([]any)[2].(map[string]any)
	im["width"], im["height"] = 259, 194
	doc["annotations"].([]any)[0].(map[string]any)["category_id"] = 12
	b, _ := json.Marshal(doc)
	os.WriteFile(filepath.Join(dir, AnnotationsPath), b, 0o644)
	r, err = Verify(dir, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK(0) || len(r.Missing) != 1 || len(r.Undecodable) != 2 || len(r.Rotated) != 1 || r.UnknownCategory != 1 {
		t.Errorf("damaged set:\n%s", r)
	}
	for _, want := range []string{"missing: ", "decodes to 259x194", "rotated by its EXIF", "category the file does not list"} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, r)
		}
	}
	if _, err := Verify(t.TempDir(), "", 1); !errors.Is(err, ErrNoAnnotations) {
		t.Errorf("empty folder: %v", err)
	}
}
