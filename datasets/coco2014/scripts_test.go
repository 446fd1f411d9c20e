package coco2014

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

func gitBlob(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// download_dataset.sh against a local server holding a synthetic data
// set's files at the reference's paths.
func TestDownloadScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	src := t.TempDir()
	if err := Synth(src, SynthConfig{N: 6, LatentSize: 8, StatsDim: 4}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for path, name := range map[string]string{"/coco2014/captions/captions_source.tsv": SourceFile, "/tools/latents.npy": LatentsFile, "/tools/val2014.npz": StatsFile} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		files[path] = b
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if b, ok := files[r.URL.Path]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	env := []string{"COCO2014_BASE_URL=" + srv.URL,
		"COCO2014_MD5_SOURCE=" + scripttest.MD5Hex(files["/coco2014/captions/captions_source.tsv"]),
		"COCO2014_MD5_LATENTS=" + scripttest.MD5Hex(files["/tools/latents.npy"]),
		"COCO2014_BLOB_STATS=" + gitBlob(files["/tools/val2014.npz"])}
	dir := filepath.Join(t.TempDir(), "coco2014")
	out, ok := scripttest.Run(t, "download_dataset.sh", env, "-d", dir, "-m", "3")
	if !ok {
		t.Fatalf("download failed:\n%s", out)
	}
	ds, err := Load(dir, 0)
	if err != nil || ds.Len() != 3 {
		t.Fatalf("captions.tsv after -m 3: %v, %v", ds, err)
	}
	if _, _, err := LoadLatents(dir); err != nil {
		t.Error(err)
	}
	if _, err := LoadStats(StatsPath(dir)); err != nil {
		t.Error(err)
	}
	// A second run keeps the checked files; a corrupted server file fails
	// and is not kept.
	if out, ok := scripttest.Run(t, "download_dataset.sh", env, "-d", dir); !ok || !strings.Contains(out, "present and checked") {
		t.Errorf("second run:\n%s", out)
	}
	os.Remove(filepath.Join(dir, LatentsFile))
	mu.Lock()
	files["/tools/latents.npy"] = bytes.Repeat([]byte{1}, 100)
	mu.Unlock()
	out, ok = scripttest.Run(t, "download_dataset.sh", env, "-d", dir)
	if ok || !strings.Contains(out, "file deleted") {
		t.Errorf("corrupted latents accepted:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, LatentsFile)); err == nil {
		t.Error("a corrupted latents.npy was kept")
	}
	// verify_dataset.sh names what is not the reference's.
	out, ok = scripttest.Run(t, "verify_dataset.sh", nil, dir)
	if ok || !strings.Contains(out, "FAIL  "+filepath.Join(dir, LatentsFile)+" missing") || !strings.Contains(out, "captions.tsv: 6 captions, want 5000") {
		t.Errorf("verify of a synthetic set:\n%s", out)
	}
	if out, ok := scripttest.Run(t, "download_dataset.sh", env, "-m", "x"); ok || !strings.Contains(out, "want a number") {
		t.Errorf("-m x:\n%s", out)
	}
}
