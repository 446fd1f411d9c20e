package criteo

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

// r2 serves an R2-style bucket for the data set: /metadata/NAME.uri holds
// the files' base URL, /metadata/NAME.md5 their MD5 list, /bucket/PATH
// the files.
func r2(t *testing.T, name string, files map[string][]byte) string {
	files = maps.Clone(files) // the handler reads its own copy
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metadata/" + name + ".uri":
			fmt.Fprintf(w, "http://%s/bucket\n", r.Host)
			return
		case "/metadata/" + name + ".md5":
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
	t.Cleanup(srv.Close)
	return srv.URL + "/metadata/" + name + ".uri"
}

func TestDownloadAndVerifyScripts(t *testing.T) {
	scripttest.NeedDownloader(t)
	src := synth(t, 21)
	files := map[string][]byte{}
	for _, f := range []string{DenseFile, LabelsFile, SparseFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		files["dataset/"+f] = b
	}
	url := r2(t, "dlrm-v2-preprocessed-dataset", files)
	dir := t.TempDir()
	env := []string{"CRITEO_METADATA_URL=" + url, "MLC_R2_NO_LOGIN=1"}
	out, ok := scripttest.Run(t, "download_dataset.sh", env, dir)
	want := filepath.Join(dir, "dataset")
	if !ok || !strings.Contains(out, "data set in "+want) {
		t.Fatalf("download: ok=%v:\n%s", ok, out)
	}
	if b, _ := os.ReadFile(filepath.Join(want, SparseFile)); string(b) != string(files["dataset/"+SparseFile]) {
		t.Error("the npz differs from the served one")
	}
	// The published MD5s are not those of a synthetic set.
	if out, ok := scripttest.Run(t, "verify_dataset.sh", nil, want); ok || !strings.Contains(out, "do not match the published MD5s") {
		t.Errorf("verify of a synthetic set: ok=%v:\n%s", ok, out)
	}
	list := filepath.Join(t.TempDir(), "md5")
	var sb strings.Builder
	for _, f := range []string{DenseFile, LabelsFile, SparseFile} {
		fmt.Fprintf(&sb, "%s  %s\n", scripttest.MD5Hex(files["dataset/"+f]), f)
	}
	os.WriteFile(list, []byte(sb.String()), 0o644)
	if out, ok := scripttest.Run(t, "verify_dataset.sh", []string{"CRITEO_MD5_LIST=" + list}, want); !ok || !strings.Contains(out, "matches the published MD5s") {
		t.Errorf("verify against the right list: ok=%v:\n%s", ok, out)
	}
	os.Remove(filepath.Join(want, LabelsFile))
	if out, ok := scripttest.Run(t, "verify_dataset.sh", nil, want); ok || !strings.Contains(out, "download_dataset.sh") {
		t.Errorf("verify without labels: ok=%v:\n%s", ok, out)
	}
	// A bucket without the npz fails clearly.
	delete(files, "dataset/"+SparseFile)
	url = r2(t, "dlrm-v2-preprocessed-dataset", files)
	out, ok = scripttest.Run(t, "download_dataset.sh", []string{"CRITEO_METADATA_URL=" + url, "MLC_R2_NO_LOGIN=1"}, t.TempDir())
	if ok || !strings.Contains(out, SparseFile+" is not among the downloaded files") {
		t.Errorf("download without the npz: ok=%v:\n%s", ok, out)
	}
}
