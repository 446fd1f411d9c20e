package retinanet

import (
	"bytes"
	"errors"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// TestDatasetCommands runs `mlperf dataset synth|verify|preprocess
// openimages` through the registered Dataset: the preprocessed .npy files
// hold exactly what Preprocess computes, named <file_name>.npy.
func TestDatasetCommands(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	d, ok := spec.LookupDataset("openimages")
	if !ok || d != dataset {
		t.Fatal("openimages data set not registered")
	}
	if b, ok := spec.Lookup("retinanet"); !ok || b != descriptor {
		t.Fatal("retinanet not registered")
	}
	dir, out := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	req := func(n int, nset bool) *spec.DatasetRequest {
		return &spec.DatasetRequest{Data: dir, Out: dir, N: n, NSet: nset, Workers: 2, Stdout: &stdout, Stderr: &stderr}
	}
	if err := d.Synth(req(3, true)); err != nil {
		t.Fatal(err)
	}
	if err := d.Verify(req(0, false)); err == nil || !strings.Contains(err.Error(), "lists 3 images, want 24781") {
		t.Errorf("verify of a 3-image set without -n: %v\n%s", err, stdout.String())
	}
	for _, n := range []int{3, 0} {
		stdout.Reset()
		if err := d.Verify(req(n, true)); err != nil || !strings.HasSuffix(stdout.String(), "OK\n") {
			t.Errorf("verify -n %d: %v\n%s", n, err, stdout.String())
		}
	}
	r := req(0, false)
	r.Out = out
	if err := d.Preprocess(r); err != nil {
		t.Fatal(err)
	}
	ds, err := openimages.Load(dir, openimages.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Len() {
		shape, got, err := preprocess.LoadNpy(filepath.Join(out, ds.GT.Images[i].FileName+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := preprocessFile(ds.ImagePath(i))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(shape, sampleShape) || !slices.Equal(got, want) {
			t.Errorf("%s: cached sample differs (shape %v)", ds.GT.Images[i].FileName, shape)
		}
	}
	// The samples and the cache's fingerprint (harness.OpenNpyCache).
	if entries, _ := os.ReadDir(out); len(entries) != 4 {
		t.Errorf("%d files in the output, want 3 samples and the fingerprint", len(entries))
	}
	if _, err := os.Stat(filepath.Join(out, harness.CacheFingerprintFile)); err != nil {
		t.Errorf("preprocessed folder not stamped: %v", err)
	}
	// Run again: the stamp matches. Then as if another data set had made
	// it: refused, and NewQSL refuses it as --cache too.
	if err := d.Preprocess(r); err != nil {
		t.Fatalf("preprocess again: %v", err)
	}
	harness.WriteStamp(out, harness.CacheStamp{Preprocessing: cachePreprocessing, Source: "other", SourceName: "other.json"})
	if err := d.Preprocess(r); !errors.Is(err, harness.ErrStaleCache) {
		t.Fatalf("preprocess into a stale cache: %v", err)
	}
	if _, err := newQSL(ds, out, 1, io.Discard); !errors.Is(err, harness.ErrStaleCache) || !strings.Contains(err.Error(), "other.json") {
		t.Fatalf("stale --cache: %v", err)
	}
}
