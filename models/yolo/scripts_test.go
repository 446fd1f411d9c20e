package yolo

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2017"
	"github.com/mlperf-go/inference/internal/scripttest"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// download_model.sh fetches the R2-hosted checkpoint with its published
// MD5s, says how to export a .pt, points at an .onnx, and fails on a
// corrupted file or a bucket without a model.
func TestDownloadModelScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	files := map[string][]byte{"yolo11l.pt": []byte("pickled weights")}
	sums := map[string]string{}
	for p, b := range files {
		sums[p] = scripttest.MD5Hex(b)
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/metadata/YOLO-model.uri":
			fmt.Fprintf(w, "http://%s/bucket\n", r.Host)
			return
		case "/metadata/YOLO-model.md5":
			for p := range files {
				fmt.Fprintf(w, "%s  %s\n", sums[p], p)
			}
			return
		}
		if b, ok := files[strings.TrimPrefix(r.URL.Path, "/bucket/")]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	env := []string{"YOLO_METADATA_URL=" + srv.URL + "/metadata/YOLO-model.uri", "MLC_R2_NO_LOGIN=1"}
	dir := t.TempDir()
	out, ok := scripttest.Run(t, "download_model.sh", env, dir)
	if !ok || !strings.Contains(out, "yolo export model="+filepath.Join(dir, "yolo11l.pt")+" format=onnx imgsz=640") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "yolo11l.pt")); string(b) != "pickled weights" {
		t.Errorf("downloaded file holds %q", b)
	}

	mu.Lock()
	files["yolo11l.onnx"] = []byte("onnx")
	sums["yolo11l.onnx"] = scripttest.MD5Hex([]byte("onnx"))
	mu.Unlock()
	if out, ok := scripttest.Run(t, "download_model.sh", env, t.TempDir()); !ok || !strings.Contains(out, "mlperf run yolo --model") {
		t.Errorf("with an ONNX file: ok=%v:\n%s", ok, out)
	}

	mu.Lock()
	files["yolo11l.pt"] = []byte("tampered")
	mu.Unlock()
	bad := t.TempDir()
	if out, ok := scripttest.Run(t, "download_model.sh", env, bad); ok || !strings.Contains(out, "checksum mismatch") {
		t.Errorf("tampered file: ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(bad, "yolo11l.pt")); err == nil {
		t.Error("tampered file kept")
	}

	mu.Lock()
	files = map[string][]byte{"README": []byte("no model")}
	sums = map[string]string{"README": scripttest.MD5Hex(files["README"])}
	mu.Unlock()
	if out, ok := scripttest.Run(t, "download_model.sh", env, t.TempDir()); ok || !strings.Contains(out, "no .pt or .onnx") {
		t.Errorf("no model: ok=%v:\n%s", ok, out)
	}
}

// TestMain lets the test binary stand in for `mlperf dataset preprocess
// coco2017` and `mlperf dataset verify coco2017` (the data set's real
// command bodies) when the scripts tests run it (YOLO_AS_MLPERF=1).
//
// Otherwise the tests that run the framework share one cache folder
// (testCache), so that the synthetic data set and tiny model are made
// once per test binary.
func TestMain(m *testing.M) {
	if os.Getenv("YOLO_AS_MLPERF") == "1" {
		os.Exit(asMLPerf(os.Args))
	}
	dir, err := os.MkdirTemp("", "yolo-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testCache is the MLPERF_CACHE_DIR of the tests that run the framework.
var testCache string

// asMLPerf runs `dataset preprocess|verify coco2017 [--data D] [-o O]
// [-n N]` from the arguments after "--".
func asMLPerf(args []string) int {
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	if len(args) < 3 || args[0] != "dataset" || args[2] != "coco2017" {
		fmt.Fprintf(os.Stderr, "stand-in mlperf: unexpected arguments %q\n", args)
		return 2
	}
	req := &spec.DatasetRequest{Stdout: os.Stdout, Stderr: os.Stderr, Workers: 1}
	for i := 3; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--data":
			req.Data = args[i+1]
		case "-o":
			req.Out = args[i+1]
		case "-n":
			fmt.Sscan(args[i+1], &req.N)
			req.NSet = true
		}
	}
	var err error
	switch args[1] {
	case "preprocess":
		err = dataset.Preprocess(req)
	case "verify":
		err = dataset.Verify(req)
	default:
		err = fmt.Errorf("stand-in mlperf: no dataset command %q", args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// standInMLPerf writes a script that runs the test binary as mlperf.
func standInMLPerf(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mlperf")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nYOLO_AS_MLPERF=1 exec '"+exe+"' -- \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// download_dataset.sh against a local server holding COCO-style archives
// (SynthSource: 5 safe images among 8): it checks both MD5s, filters the
// safe subset with `mlperf dataset preprocess coco2017`, verifies it and
// keeps or cleans the archives; a corrupted archive fails and is not
// kept; verify_dataset.sh passes the result and fails once an image is
// gone.
func TestDownloadAndVerifyDatasetScripts(t *testing.T) {
	scripttest.NeedDownloader(t)
	if !libjpeg.Available() {
		t.Skip("verifying the images needs JPEG decoding (cgo)")
	}
	src := t.TempDir()
	iz, az, err := coco2017.SynthSource(src, coco2017.SynthConfig{N: 5, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	imgs, _ := os.ReadFile(iz)
	anns, _ := os.ReadFile(az)
	files := map[string][]byte{"/zips/val2017.zip": imgs, "/annotations/annotations_trainval2017.zip": anns}
	var mu sync.Mutex
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
	mlperf := standInMLPerf(t)
	env := []string{"COCO_BASE_URL=" + srv.URL, "COCO2017_MD5_IMAGES=" + scripttest.MD5Hex(imgs),
		"COCO2017_MD5_ANNOTATIONS=" + scripttest.MD5Hex(anns), "COCO2017_EXPECT=5", "MLPERF=" + mlperf}
	dir := filepath.Join(t.TempDir(), "coco")
	out, ok := scripttest.Run(t, "download_dataset.sh", env, "-d", dir)
	if !ok || !strings.Contains(out, "Safe images: 5") || !strings.Contains(out, "OK") || !strings.Contains(out, dir+" ready") {
		t.Fatalf("download:\n%s", out)
	}
	ds, err := coco2017.Load(dir, coco2017.Options{})
	if err != nil || ds.Len() != 5 {
		t.Fatalf("downloaded set: %v, %v", ds, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "download_aux", "val2017.zip")); err != nil {
		t.Errorf("archives not kept without -c: %v", err)
	}
	// Again with -c: the checked archives are reused, then removed.
	out, ok = scripttest.Run(t, "download_dataset.sh", env, "-d", dir, "-c")
	if !ok || !strings.Contains(out, "already present") {
		t.Errorf("second run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "download_aux")); !os.IsNotExist(err) {
		t.Errorf("-c left download_aux: %v", err)
	}

	vout, ok := scripttest.Run(t, "verify_dataset.sh", []string{"MLPERF_BIN=" + mlperf}, "-d", dir, "-n", "5")
	if !ok || !strings.Contains(vout, "5 images listed, 5 present, 0 missing") || !strings.Contains(vout, "OK") {
		t.Errorf("verify_dataset.sh:\n%s", vout)
	}
	if vout, ok := scripttest.Run(t, "verify_dataset.sh", []string{"MLPERF_BIN=" + mlperf}, "-d", dir); ok || !strings.Contains(vout, "the safe subset has 1525") {
		t.Errorf("verify_dataset.sh without -n on 5 images:\n%s", vout)
	}
	os.Remove(ds.ImagePath(2))
	if vout, ok := scripttest.Run(t, "verify_dataset.sh", []string{"MLPERF_BIN=" + mlperf}, "-d", dir, "-n", "5"); ok || !strings.Contains(vout, "1 missing") {
		t.Errorf("verify_dataset.sh with an image gone:\n%s", vout)
	}

	mu.Lock()
	bad := append([]byte(nil), imgs...)
	bad[len(bad)/2] ^= 0xff
	files["/zips/val2017.zip"] = bad
	mu.Unlock()
	dir2 := filepath.Join(t.TempDir(), "coco")
	if out, ok := scripttest.Run(t, "download_dataset.sh", env, "-d", dir2); ok || !strings.Contains(out, "checksum mismatch") {
		t.Errorf("corrupted archive:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir2, "download_aux", "val2017.zip")); err == nil {
		t.Error("corrupted archive kept")
	}
}

// run_and_time.sh runs `mlperf run yolo` with its arguments, passes on
// its exit status and reports the wall-clock time.
func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run yolo --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
