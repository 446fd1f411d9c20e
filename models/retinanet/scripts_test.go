package retinanet

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	if got, _ := os.ReadFile(args); string(got) != "dataset verify openimages --data "+dir+" -n 3\n" {
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

// serveDownload serves testdata/download as the OpenImages hosts would:
// the CSVs at the root, images under /validation/, and zip (if not nil)
// as the released annotation archive. Missing files are 404s.
func serveDownload(t *testing.T, zip []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var images atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/release/openimages-mlperf_annotations_2.1.json.zip" && zip != nil:
			http.ServeContent(w, r, "a.zip", time.Time{}, bytes.NewReader(zip))
		case strings.HasPrefix(r.URL.Path, "/img/validation/"), strings.HasPrefix(r.URL.Path, "/img/train/"):
			images.Add(1)
			http.ServeFile(w, r, filepath.Join("testdata", "download", "images", filepath.Base(r.URL.Path)))
		case r.URL.Path == "/train/oidv6-train-annotations-bbox.csv":
			// The fixture stands in for the train boxes.
			http.ServeFile(w, r, filepath.Join("testdata", "download", "validation-annotations-bbox.csv"))
		case strings.HasPrefix(r.URL.Path, "/csv/") && strings.HasSuffix(r.URL.Path, ".csv"):
			http.ServeFile(w, r, filepath.Join("testdata", "download", strings.TrimPrefix(r.URL.Path, "/csv/")))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &images
}

func downloadEnv(srv *httptest.Server) []string {
	return []string{"OPENIMAGES_ANNOTATIONS_URL=" + srv.URL + "/csv", "OPENIMAGES_IMAGES_URL=" + srv.URL + "/img",
		"OPENIMAGES_RELEASE_URL=" + srv.URL + "/release", "OPENIMAGES_TRAIN_ANNOTATIONS_URL=" + srv.URL + "/train", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
}

// TestDownloadDataset: download_dataset.sh against a local server writes
// the annotation file byte for byte as the reference's export_to_coco
// (testdata/download/make_golden.py ran it on the same fixtures), with
// and without -m, and resumes or repeats without harm.
func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, images := serveDownload(t, nil)
	env := downloadEnv(srv)
	for _, c := range []struct {
		args   []string
		golden string
		n      int
	}{{nil, "golden.json", 4}, {[]string{"-m", "3"}, "golden_m3.json", 3}} {
		dir := filepath.Join(t.TempDir(), "oi")
		if c.args == nil {
			// A partial image from an interrupted run is resumed.
			os.MkdirAll(filepath.Join(dir, "validation", "data"), 0o755)
			full, _ := os.ReadFile(filepath.Join("testdata", "download", "images", "0a1b2c3d4e5f6071.jpg"))
			os.WriteFile(filepath.Join(dir, "validation", "data", "0a1b2c3d4e5f6071.jpg.part"), full[:100], 0o644)
		}
		out, ok := scripttest.Run(t, "download_dataset.sh", env, append([]string{"-d", dir, "-j", "2"}, c.args...)...)
		if !ok {
			t.Fatalf("%v: %s", c.args, out)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "annotations", "openimages-mlperf.json"))
		want, _ := os.ReadFile(filepath.Join("testdata", "download", c.golden))
		if !bytes.Equal(got, want) {
			t.Errorf("%v: annotation file differs from the reference's:\n got %s\nwant %s", c.args, got, want)
		}
		ents, _ := os.ReadDir(filepath.Join(dir, "validation", "data"))
		if len(ents) != c.n {
			t.Errorf("%v: %d files in validation/data, want %d", c.args, len(ents), c.n)
		}
		for _, e := range ents {
			a, _ := os.ReadFile(filepath.Join(dir, "validation", "data", e.Name()))
			b, _ := os.ReadFile(filepath.Join("testdata", "download", "images", e.Name()))
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs from the served file", e.Name())
			}
		}
		ds, err := openimages.Load(dir, openimages.Options{})
		if err != nil || ds.Len() != c.n {
			t.Errorf("%v: Load: %v", c.args, err)
		}
		// A second run downloads no image again.
		before := images.Load()
		if out, ok := scripttest.Run(t, "download_dataset.sh", env, append([]string{"-d", dir}, c.args...)...); !ok || images.Load() != before {
			t.Errorf("second run: ok=%v, %d image requests:\n%s", ok, images.Load()-before, out)
		}
	}
}

// TestDownloadCalibration: -c downloads the listed train images into
// calibration/data and writes openimages-calibration-mlperf.json byte for
// byte as openimages_calibration.py's export_to_coco.
func TestDownloadCalibration(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, _ := serveDownload(t, nil)
	dir := t.TempDir()
	out, ok := scripttest.Run(t, "download_dataset.sh", downloadEnv(srv), "-d", dir, "-c", "-l", filepath.Join("testdata", "download", "cal_list.txt"))
	if !ok {
		t.Fatal(out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "annotations", "openimages-calibration-mlperf.json"))
	want, _ := os.ReadFile(filepath.Join("testdata", "download", "golden_calibration.json"))
	if !bytes.Equal(got, want) {
		t.Errorf("calibration annotations differ from the reference's:\n got %s\nwant %s", got, want)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "calibration", "data")); len(ents) != 4 {
		t.Errorf("%d calibration images, want 4", len(ents))
	}
	// The shipped list is the reference's: 500 train images.
	list, _ := os.ReadFile("openimages_cal_images_list.txt")
	if n := len(strings.Fields(string(list))); n != 500 {
		t.Errorf("openimages_cal_images_list.txt lists %d images, want 500", n)
	}
}

// TestDownloadDatasetChoice: -m draws as numpy's legacy
// np.random.seed(42); np.random.choice(n, size=m) (choice.json).
func TestDownloadDatasetChoice(t *testing.T) {
	var g struct {
		Cases []struct {
			N, M    int
			Indices []int
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "download", "choice.json"))
	if err != nil || json.Unmarshal(data, &g) != nil || len(g.Cases) == 0 {
		t.Fatalf("choice.json: %v", err)
	}
	for _, c := range g.Cases {
		out, ok := scripttest.Run(t, "download_dataset.sh", []string{fmt.Sprintf("OPENIMAGES_CHOICE=%d %d", c.N, c.M)})
		want := ""
		for _, i := range c.Indices {
			want += fmt.Sprintf("%d\n", i)
		}
		if !ok || out != want {
			t.Errorf("choice(%d, %d) = %q, numpy %q", c.N, c.M, out, want)
		}
	}
}

func TestDownloadDatasetFailures(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, _ := serveDownload(t, nil)
	env := downloadEnv(srv)
	for _, c := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"-m", "0"}, nil, "want a positive number"},
		{[]string{"-a", "-m", "3"}, nil, "do not go together"},
		{nil, []string{"OPENIMAGES_IMAGES_URL=" + srv.URL + "/nothing"}, "image downloads failed"},
		{nil, []string{"OPENIMAGES_ANNOTATIONS_URL=" + srv.URL + "/none"}, "validation-annotations-bbox.csv failed"},
		{[]string{"-a"}, nil, "download of the released annotations failed"},
	} {
		dir := t.TempDir()
		out, ok := scripttest.Run(t, "download_dataset.sh", append(env, c.env...), append([]string{"-d", dir}, c.args...)...)
		if ok || !strings.Contains(out, c.want) {
			t.Errorf("%v %v: ok=%v\n%s", c.args, c.env, ok, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "annotations", "openimages-mlperf.json")); err == nil {
			t.Errorf("%v: a failed run left an annotation file", c.args)
		}
	}
}

// TestDownloadDatasetReleased: -a fetches the released archive, checks
// its MD5 and downloads the images the file lists.
func TestDownloadDatasetReleased(t *testing.T) {
	scripttest.NeedDownloader(t)
	if _, err := exec.LookPath("unzip"); err != nil {
		t.Skip("unzip not installed")
	}
	golden, _ := os.ReadFile(filepath.Join("testdata", "download", "golden.json"))
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	f, _ := zw.Create("openimages-mlperf.json")
	f.Write(golden)
	zw.Close()
	srv, _ := serveDownload(t, zbuf.Bytes())
	dir := t.TempDir()
	out, ok := scripttest.Run(t, "download_dataset.sh", append(downloadEnv(srv), "OPENIMAGES_ZIP_MD5="+scripttest.MD5Hex(zbuf.Bytes())), "-d", dir, "-a")
	if !ok {
		t.Fatal(out)
	}
	ds, err := openimages.Load(dir, openimages.Options{})
	if err != nil || ds.Len() != 4 {
		t.Fatalf("Load: %v", err)
	}
	// The official MD5 rejects these bytes and deletes the archive.
	dir = t.TempDir()
	out, ok = scripttest.Run(t, "download_dataset.sh", downloadEnv(srv), "-d", dir, "-a")
	if ok || !strings.Contains(out, "want 817fd8da3aeeb0575f1e2d2926b15e68") {
		t.Errorf("official MD5: ok=%v\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "annotations", openimages.ReleasedZip)); err == nil {
		t.Error("rejected archive kept")
	}
}
