package dlrm

import (
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

// TestDownloadModelScript serves an R2-style bucket holding a snapshot
// and checks that download_model.sh fetches it and points at it.
func TestDownloadModelScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	files := map[string][]byte{
		"dlrm_snapshot/" + snapshotMetadataFile: []byte(`{"version": "0.1.0", "world_size": 1, "manifest": {}}`),
		"dlrm_snapshot/0/model/x":               []byte("weights"),
	}
	var mu sync.Mutex // guards files against the handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/metadata/dlrm-v2-model-weights.uri":
			fmt.Fprintf(w, "http://%s/bucket\n", r.Host)
			return
		case "/metadata/dlrm-v2-model-weights.md5":
			for p, b := range files {
				fmt.Fprintf(w, "%s  %s\n", scripttest.MD5Hex(b), p)
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
	dir := t.TempDir()
	env := []string{"DLRM_METADATA_URL=" + srv.URL + "/metadata/dlrm-v2-model-weights.uri", "MLC_R2_NO_LOGIN=1"}
	out, ok := scripttest.Run(t, "download_model.sh", env, dir)
	if !ok || !strings.Contains(out, "snapshot in "+filepath.Join(dir, "dlrm_snapshot")) || !strings.Contains(out, "mlperf model convert dlrm") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "dlrm_snapshot", "0", "model", "x")); string(b) != "weights" {
		t.Errorf("downloaded file holds %q", b)
	}
	mu.Lock()
	delete(files, "dlrm_snapshot/"+snapshotMetadataFile)
	mu.Unlock()
	if out, ok := scripttest.Run(t, "download_model.sh", env, t.TempDir()); ok || !strings.Contains(out, "no torchsnapshot") {
		t.Errorf("no metadata: ok=%v:\n%s", ok, out)
	}
}

// verify_dataset.sh reaches datasets/criteo's: three files matching the
// MD5 list pass; a missing one is named with the script that fetches it.
func TestVerifyDatasetScript(t *testing.T) {
	dir := t.TempDir()
	var list strings.Builder
	for _, f := range []string{"day_23_dense.npy", "day_23_labels.npy", "day_23_sparse_multi_hot.npz"} {
		b := []byte("fixture " + f)
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
		fmt.Fprintf(&list, "%s  %s\n", scripttest.MD5Hex(b), f)
	}
	sums := filepath.Join(t.TempDir(), "md5")
	os.WriteFile(sums, []byte(list.String()), 0o644)
	if out, ok := scripttest.Run(t, "verify_dataset.sh", []string{"CRITEO_MD5_LIST=" + sums}, dir); !ok || !strings.Contains(out, "matches the published MD5s") {
		t.Fatalf("matching files: ok=%v:\n%s", ok, out)
	}
	os.Remove(filepath.Join(dir, "day_23_labels.npy"))
	if out, ok := scripttest.Run(t, "verify_dataset.sh", []string{"CRITEO_MD5_LIST=" + sums}, dir); ok || !strings.Contains(out, "day_23_labels.npy not found") || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("a missing file: ok=%v:\n%s", ok, out)
	}
}

// run_and_time.sh runs `mlperf run dlrm` with its arguments, passes on its
// exit status and reports the wall-clock time.
func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run dlrm --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
