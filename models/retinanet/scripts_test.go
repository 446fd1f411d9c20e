package retinanet

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/internal/scripttest"
)

func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	body := []byte("not really an onnx file, but bytes with a known MD5")
	goodMD5 := scripttest.MD5Hex(body)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/record/6617879/files/resnext50_32x4d_fpn.onnx", "/record/6617981/files/resnext50_32x4d_fpn.pth":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name    string
		args    []string
		md5     string
		ok      bool
		file    string
		message string
	}{
		{"good checksum", nil, goodMD5, true, "resnext50_32x4d_fpn.onnx", "OK"},
		{"official checksum rejects other bytes", nil, "", false, "", "want 4544f4e56e0a4684215831cc937ea45c"},
		{"pytorch official checksum", []string{"-f", "pytorch"}, "", false, "", "want a55f6bec3464f605ce8d686da8ac1533"},
		{"unknown format", []string{"-f", "tf"}, "", false, "", "unknown format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "models")
			env := []string{"RETINANET_BASE_URL=" + srv.URL + "/", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
			if tc.md5 != "" {
				env = append(env, "RETINANET_MODEL_MD5="+tc.md5)
			}
			out, ok := scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if ok != tc.ok || !strings.Contains(out, tc.message) {
				t.Fatalf("ok=%v, want %v; output:\n%s", ok, tc.ok, out)
			}
			ents, _ := os.ReadDir(dir)
			if tc.file == "" {
				if len(ents) != 0 {
					t.Fatalf("failed download left %d files behind", len(ents))
				}
				return
			}
			if got, _ := os.ReadFile(filepath.Join(dir, tc.file)); len(ents) != 1 || !bytes.Equal(got, body) {
				t.Fatalf("%d files, content %q", len(ents), got)
			}
			before := hits.Load()
			out, ok = scripttest.Run(t, "download_model.sh", env, "-d", dir)
			if !ok || !strings.Contains(out, "already present") || hits.Load() != before {
				t.Fatalf("second run: ok=%v, hits %d→%d:\n%s", ok, before, hits.Load(), out)
			}
		})
	}
}

func TestVerifyDatasetScript(t *testing.T) {
	dir := t.TempDir()
	if err := openimages.Synth(dir, openimages.SynthConfig{N: 3, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	// A stand-in mlperf binary that records its arguments.
	stub := filepath.Join(t.TempDir(), "mlperf")
	args := filepath.Join(t.TempDir(), "args")
	os.WriteFile(stub, []byte("#!/bin/sh\necho \"$@\" > "+args+"\n"), 0o755)
	env := []string{"MLPERF_BIN=" + stub}
	out, ok := scripttest.Run(t, "verify_dataset.sh", env, "-d", dir, "-n", "3")
	if !ok || !strings.Contains(out, "3 images listed, 3 present, 0 missing") || !strings.HasSuffix(out, "OK\n") {
		t.Fatalf("clean set: ok=%v\n%s", ok, out)
	}
	if got, _ := os.ReadFile(args); string(got) != "dataset verify openimages --data "+dir+" --subset=true\n" {
		t.Errorf("mlperf called with %q", got)
	}
	if out, ok := scripttest.Run(t, "verify_dataset.sh", env, "-d", dir); ok || !strings.Contains(out, "the MLPerf subset has 24781") {
		t.Errorf("full count expected: ok=%v\n%s", ok, out)
	}
	ds, _ := openimages.Load(dir, openimages.Options{})
	os.Remove(ds.ImagePath(1))
	os.WriteFile(filepath.Join(dir, "annotations", openimages.ReleasedZip), []byte("x"), 0o644)
	out, ok = scripttest.Run(t, "verify_dataset.sh", env, "-d", dir, "-n", "3")
	if ok || !strings.Contains(out, "1 missing") || !strings.Contains(out, "want 817fd8da3aeeb0575f1e2d2926b15e68") {
		t.Errorf("damaged set: ok=%v\n%s", ok, out)
	}
	if out, ok := scripttest.Run(t, "verify_dataset.sh", env, "-d", t.TempDir()); ok || !strings.Contains(out, "not found") {
		t.Errorf("empty folder: ok=%v\n%s", ok, out)
	}
}

func TestRunAndTimeScript(t *testing.T) {
	stub := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(stub, []byte("#!/bin/sh\necho \"stub $@\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + stub}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "stub run retinanet --scenario Offline") || !strings.Contains(out, "exit status 3, wall-clock") {
		t.Errorf("ok=%v\n%s", ok, out)
	}
}
