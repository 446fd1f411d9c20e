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
