package librispeech

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

// tgz packs files (name → content) as a .tar.gz.
func tgz(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// fakeMLPerf logs its arguments; preprocess writes the manifest into its
// -o folder after checking the unpacked tree, verify succeeds.
func fakeMLPerf(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(p, []byte(`#!/usr/bin/env bash
echo "args: $*"
if [ "$2" = preprocess ]; then
  [ -f "$5/dev-clean/1/2/1-2.trans.txt" ] && [ -f "$5/dev-other/3/4/3-4.trans.txt" ] || { echo "tree missing" >&2; exit 1; }
  echo '[]' > "$7/dev-all-repack.json"
fi
`), 0o755)
	return p
}

// TestDownloadDatasetScript serves the two archives from a local server:
// both are fetched and MD5-checked, unpacked, preprocessed and verified;
// a second run only verifies; a wrong MD5 deletes the download and fails.
func TestDownloadDatasetScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	clean := tgz(t, map[string]string{"LibriSpeech/dev-clean/1/2/1-2.trans.txt": "1-2-0000 HELLO\n"})
	other := tgz(t, map[string]string{"LibriSpeech/dev-other/3/4/3-4.trans.txt": "3-4-0000 WORLD\n"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/res/dev-clean.tar.gz":
			w.Write(clean)
		case "/res/dev-other.tar.gz":
			w.Write(other)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	mlperf := fakeMLPerf(t)
	env := []string{"MLPERF=" + mlperf, "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1", "LIBRISPEECH_URL=" + srv.URL + "/res",
		"LIBRISPEECH_DEV_CLEAN_MD5=" + scripttest.MD5Hex(clean), "LIBRISPEECH_DEV_OTHER_MD5=" + scripttest.MD5Hex(other)}
	dir := filepath.Join(t.TempDir(), "data")
	out, ok := scripttest.Run(t, "download_dataset.sh", env, dir)
	if !ok || !strings.Contains(out, "args: dataset preprocess librispeech --data "+dir+"/LibriSpeech -o "+dir) ||
		!strings.Contains(out, "args: dataset verify librispeech --data "+dir) {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	out, ok = scripttest.Run(t, "download_dataset.sh", env, dir)
	if !ok || !strings.Contains(out, "already there") || strings.Contains(out, "preprocess") {
		t.Fatalf("second run: ok=%v:\n%s", ok, out)
	}

	dir = filepath.Join(t.TempDir(), "data")
	bad := append(env, "LIBRISPEECH_DEV_OTHER_MD5=00000000000000000000000000000000")
	out, ok = scripttest.Run(t, "download_dataset.sh", bad, dir)
	if ok || !strings.Contains(out, "checksum mismatch") {
		t.Fatalf("wrong md5: ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "dev-other.tar.gz")); !os.IsNotExist(err) {
		t.Errorf("the bad download was kept: %v", err)
	}
	out, ok = scripttest.Run(t, "download_dataset.sh", append(env, "LIBRISPEECH_URL="+srv.URL+"/none"), filepath.Join(t.TempDir(), "d"))
	if ok || !strings.Contains(out, "download of") {
		t.Fatalf("not found: ok=%v:\n%s", ok, out)
	}
}

// TestScriptsCarryReferenceChecksums: the default URL and MD5s are those
// of the reference's utils/inference_librispeech.csv.
func TestScriptsCarryReferenceChecksums(t *testing.T) {
	b, err := os.ReadFile("download_dataset.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"http://www.openslr.org/resources/12", "42e2234ba48799c1f50f24a7926300a1", "c8d0bcc9cca99d4f8b62fcc847357931"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("download_dataset.sh lacks %s", want)
		}
	}
}

func TestVerifyDatasetScript(t *testing.T) {
	dir := t.TempDir()
	env := []string{"MLPERF=" + fakeMLPerf(t)}
	out, ok := scripttest.Run(t, "verify_dataset.sh", env, dir)
	if ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("no manifest: ok=%v:\n%s", ok, out)
	}
	os.WriteFile(filepath.Join(dir, ManifestName), []byte("[]"), 0o644)
	out, ok = scripttest.Run(t, "verify_dataset.sh", append(env, "LIBRISPEECH_REQUIRE_OFFICIAL=1"), dir)
	if !ok || !strings.Contains(out, "args: dataset verify librispeech --data "+dir+"\n") {
		t.Fatalf("official: ok=%v:\n%s", ok, out)
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", env, dir)
	if !ok || !strings.Contains(out, "args: dataset verify librispeech --data "+dir+" -n 0") {
		t.Fatalf("any count: ok=%v:\n%s", ok, out)
	}
}
