package imagenet

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "tar", "gzip", "md5sum", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

// tarOf returns a tar (gzipped if gz) holding the given files.
func tarOf(t *testing.T, files map[string][]byte, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for _, name := range sortedKeys(files) {
		data := files[name]
		if err := w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if gz {
		zw.Close()
	}
	return buf.Bytes()
}

func sortedKeys(m map[string][]byte) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

func runScript(t *testing.T, env []string, script string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestDownloadAndVerifyScripts runs download_dataset.sh on a miniature
// validation tar and Caffe label archive served over HTTP, then
// verify_dataset.sh on the result, then on damaged copies.
func TestDownloadAndVerifyScripts(t *testing.T) {
	needTools(t)
	src := synth(t, 3, 9)
	files := map[string][]byte{}
	for i := 0; i < 3; i++ {
		b, err := os.ReadFile(filepath.Join(src, SynthName(i)))
		if err != nil {
			t.Fatal(err)
		}
		files[SynthName(i)] = b
	}
	valTar := tarOf(t, files, false)
	valMap, _ := os.ReadFile(filepath.Join(src, ValMapName))
	caffe := tarOf(t, map[string][]byte{"val.txt": valMap, "synset_words.txt": []byte("n01440764 tench\n")}, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(caffe) }))
	defer srv.Close()

	work := t.TempDir()
	tarPath := filepath.Join(work, "ILSVRC2012_img_val.tar")
	if err := os.WriteFile(tarPath, valTar, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"CAFFE_ILSVRC12_URL=" + srv.URL + "/caffe_ilsvrc12.tar.gz", "CAFFE_ILSVRC12_MD5=" + md5hex(caffe),
		"IMAGENET_VAL_MD5=" + md5hex(valTar)}

	t.Run("no tar explains the manual download", func(t *testing.T) {
		out, err := runScript(t, env, "download_dataset.sh", "-d", filepath.Join(work, "none"), "-t", filepath.Join(work, "absent.tar"))
		if err == nil || !strings.Contains(out, "image-net.org") || !strings.Contains(out, "manual download") {
			t.Errorf("err %v, output:\n%s", err, out)
		}
	})
	t.Run("wrong tar checksum", func(t *testing.T) {
		data := filepath.Join(work, "bad-tar")
		out, err := runScript(t, env[:2], "download_dataset.sh", "-d", data, "-t", tarPath)
		if err == nil || !strings.Contains(out, "29b22e2961454d5413ddabcf34fc5622") {
			t.Errorf("err %v, output:\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(data, ValMapName)); err == nil {
			t.Error("val_map.txt written despite the bad checksum")
		}
	})
	t.Run("wrong label archive checksum", func(t *testing.T) {
		data := filepath.Join(work, "bad-caffe")
		bad := append([]string{}, env...)
		bad[1] = "CAFFE_ILSVRC12_MD5=00000000000000000000000000000000"
		out, err := runScript(t, bad, "download_dataset.sh", "-d", data, "-t", tarPath)
		if err == nil || !strings.Contains(out, "checksum mismatch for caffe_ilsvrc12.tar.gz") {
			t.Errorf("err %v, output:\n%s", err, out)
		}
		left, _ := os.ReadDir(data)
		if len(left) != 0 {
			t.Errorf("files left behind: %v", left)
		}
	})

	data := filepath.Join(work, "imagenet")
	out, err := runScript(t, env, "download_dataset.sh", "-d", data, "-t", tarPath)
	if err != nil {
		t.Fatalf("download_dataset.sh: %v\n%s", err, out)
	}
	ds, err := Load(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 {
		t.Fatalf("%d samples", ds.Len())
	}
	out, err = runScript(t, nil, "verify_dataset.sh", "-d", data, "-n", "3")
	if err != nil || !strings.Contains(out, "3 files match") || !strings.Contains(out, "OK") {
		t.Fatalf("verify_dataset.sh on a good set: %v\n%s", err, out)
	}
	rep, err := Verify(data)
	if err != nil || !rep.OK(3) || rep.Checked != 3 || rep.OK(Size) {
		t.Fatalf("Verify on a good set: %v %+v", err, rep)
	}
	out, err = runScript(t, nil, "verify_dataset.sh", "-d", data)
	if err == nil || !strings.Contains(out, "full validation set has 50000") {
		t.Errorf("verify_dataset.sh accepted 3 of 50000: %v\n%s", err, out)
	}
	// Damage one image, remove another.
	if err := os.WriteFile(filepath.Join(data, SynthName(0)), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(data, SynthName(2))); err != nil {
		t.Fatal(err)
	}
	out, err = runScript(t, nil, "verify_dataset.sh", "-d", data, "-n", "3")
	if err == nil || !strings.Contains(out, "1 missing") || !strings.Contains(out, "2 of 3 files differ") {
		t.Errorf("verify_dataset.sh on a damaged set: %v\n%s", err, out)
	}
	rep, err = Verify(data)
	if err != nil || rep.OK(3) || len(rep.Missing) != 1 || len(rep.Mismatched) != 2 ||
		!strings.Contains(rep.String(), "2 of 3 files differ") {
		t.Errorf("Verify on a damaged set: %v %+v", err, rep)
	}
	if _, err := Verify(filepath.Join(work, "none")); !errors.Is(err, ErrNoValMap) {
		t.Errorf("Verify without val_map.txt: %v", err)
	}
	out, err = runScript(t, nil, "verify_dataset.sh", "-d", filepath.Join(work, "none"))
	if err == nil || !strings.Contains(out, "val_map.txt not found") {
		t.Errorf("verify_dataset.sh without val_map.txt: %v\n%s", err, out)
	}
}
