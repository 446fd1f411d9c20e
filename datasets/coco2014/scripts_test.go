package coco2014

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
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

// TestMain lets the test binary stand in for `mlperf dataset preprocess
// coco2014` when the scripts test runs it (COCO2014_AS_MLPERF=1).
func TestMain(m *testing.M) {
	if os.Getenv("COCO2014_AS_MLPERF") == "1" {
		helperMLPERF()
	}
	os.Exit(m.Run())
}

// helperMLPERF does what `mlperf dataset preprocess coco2014 --data D -o O
// --count N` does, then exits.
func helperMLPERF() {
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	var data, out string
	count := 0
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--data":
			data = args[i+1]
		case "-o":
			out = args[i+1]
		case "--count":
			fmt.Sscan(args[i+1], &count)
		}
	}
	if _, err := SelectFile(data, out, count, SelectSeed); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// download_dataset.sh -a regenerates captions.tsv from an annotations zip
// and compares it with captions_source.tsv.
func TestDownloadScriptFromAnnotations(t *testing.T) {
	scripttest.NeedDownloader(t)
	ann, err := os.ReadFile("testdata/annotations.json")
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := os.ReadFile("testdata/selection.tsv")
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create(AnnotationsMember)
	w.Write(ann)
	zw.Close()
	src := t.TempDir()
	Synth(src, SynthConfig{N: 3, LatentSize: 8, StatsDim: 4})
	lat, _ := os.ReadFile(filepath.Join(src, LatentsFile))
	stats, _ := os.ReadFile(filepath.Join(src, StatsFile))
	files := map[string][]byte{"/coco2014/captions/captions_source.tsv": sel, "/tools/latents.npy": lat,
		"/tools/val2014.npz": stats, "/annotations_trainval2014.zip": zb.Bytes()}
	var mu sync.Mutex // files changes between the two script runs
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b, ok := files[r.URL.Path]
		mu.Unlock()
		if ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	exe, _ := os.Executable()
	wrapper := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nCOCO2014_AS_MLPERF=1 exec '"+exe+"' -- \"$@\"\n"), 0o755)
	sha := sha256.Sum256(zb.Bytes())
	env := []string{"COCO2014_BASE_URL=" + srv.URL, "COCO2014_ANNOTATIONS_URL=" + srv.URL + "/annotations_trainval2014.zip",
		"COCO2014_SHA256_ANNOTATIONS=" + hex.EncodeToString(sha[:]), "MLPERF=" + wrapper,
		"COCO2014_MD5_SOURCE=" + scripttest.MD5Hex(sel), "COCO2014_MD5_LATENTS=" + scripttest.MD5Hex(lat),
		"COCO2014_BLOB_STATS=" + gitBlob(stats)}
	dir := filepath.Join(t.TempDir(), "coco")
	out, ok := scripttest.Run(t, "download_dataset.sh", env, "-a", "-d", dir, "-m", "25")
	if !ok || !strings.Contains(out, "equals the reference's captions_source.tsv") {
		t.Fatalf("download -a:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, CaptionsFile)); !bytes.Equal(b, sel) {
		t.Error("regenerated captions.tsv differs from the selection")
	}
	// A source that is not what the annotations give is reported.
	other := append([]byte(nil), sel...)
	other[len(other)-2] ^= 1
	mu.Lock()
	files["/coco2014/captions/captions_source.tsv"] = other
	mu.Unlock()
	env[len(env)-3] = "COCO2014_MD5_SOURCE=" + scripttest.MD5Hex(other)
	out, ok = scripttest.Run(t, "download_dataset.sh", env, "-a", "-d", filepath.Join(t.TempDir(), "c2"), "-m", "25")
	if ok || !strings.Contains(out, "differs from the reference's captions_source.tsv") {
		t.Errorf("mismatching source accepted:\n%s", out)
	}
}
