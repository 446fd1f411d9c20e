package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBindCacheRefusesStaleAndMisnamedCaches(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	img := filepath.Join(src, "a.JPEG")
	os.WriteFile(img, []byte("one image"), 0o644)
	idx := filepath.Join(src, "val_map.txt")
	os.WriteFile(idx, []byte("a.JPEG 1\n"), 0o644)
	sfp, err := SourceFingerprint(idx, []string{img})
	if err != nil {
		t.Fatal(err)
	}
	fp := Fingerprint("resnet50 v1 224x224 NCHW", sfp)
	cache := filepath.Join(dir, "cache")
	if err := BindCache(cache, fp); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cache, "a.JPEG.npy"), []byte("x"), 0o644)
	if err := BindCache(cache, fp); err != nil {
		t.Fatalf("same inputs: %v", err)
	}
	// Another data set with the same file names.
	os.WriteFile(img, []byte("another image, other size"), 0o644)
	sfp2, _ := SourceFingerprint(idx, []string{img})
	if err := BindCache(cache, Fingerprint("resnet50 v1 224x224 NCHW", sfp2)); !errors.Is(err, ErrStaleCache) {
		t.Fatalf("other data set: %v", err)
	}
	// Other preprocessing.
	if err := BindCache(cache, Fingerprint("resnet50 v2", sfp)); !errors.Is(err, ErrStaleCache) {
		t.Fatalf("other preprocessing: %v", err)
	}
	// A file, and an unstamped non-empty folder.
	if err := BindCache(img, fp); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("file: %v", err)
	}
	if err := BindCache(src, fp); !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("unstamped: %v", err)
	}
}
