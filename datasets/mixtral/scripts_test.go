package mixtral

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

// TestScriptsCarryTheOfficialFacts: the scripts' URLs, names and MD5s are
// this package's.
func TestScriptsCarryTheOfficialFacts(t *testing.T) {
	for _, f := range []string{"download_dataset.sh", "verify_dataset.sh"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{FileName, MD5, CalibrationFileName, CalibrationMD5} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s does not carry %s", f, want)
			}
		}
	}
	const base = "https://inference.mlcommons-storage.org"
	if URL != base+"/mixtral_8x7b/"+FileName || CalibrationURL != base+"/mixtral_8x7b%2F"+CalibrationFileName {
		t.Fatalf("URLs %s, %s", URL, CalibrationURL)
	}
	b, _ := os.ReadFile("download_dataset.sh")
	for _, want := range []string{base, `"$BASE/mixtral_8x7b/$VALIDATION"`, `"$BASE/mixtral_8x7b%2F$CALIBRATION"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("download_dataset.sh does not build its URLs from %s", want)
		}
	}
}

func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	val, cal := []byte("validation pickle bytes"), []byte("calibration pickle bytes")
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.EscapedPath() {
		case "/mixtral_8x7b/" + FileName:
			w.Write(val)
		case "/mixtral_8x7b%2F" + CalibrationFileName:
			w.Write(cal)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	base := []string{"MIXTRAL_BASE_URL=" + srv.URL, "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
	sums := []string{"MIXTRAL_MD5=" + scripttest.MD5Hex(val), "MIXTRAL_CALIBRATION_MD5=" + scripttest.MD5Hex(cal)}
	for _, tc := range []struct {
		name  string
		env   []string
		ok    bool
		msg   string
		files []string
	}{
		{"both, right sums", sums, true, "run it with --data", []string{FileName, CalibrationFileName}},
		{"validation only", append(sums, "MIXTRAL_SKIP_CALIBRATION=1"), true, "OK", []string{FileName}},
		// The served bytes are not the official files: the official MD5 fails.
		{"official sums", nil, false, "checksum mismatch", nil},
		{"wrong calibration sum", []string{sums[0], "MIXTRAL_CALIBRATION_MD5=00000000000000000000000000000000"}, false, "checksum mismatch", []string{FileName}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			env := append(append([]string{"MIXTRAL_MD5=", "MIXTRAL_CALIBRATION_MD5=", "MIXTRAL_SKIP_CALIBRATION="}, base...), tc.env...)
			if tc.env == nil {
				env = append([]string{"MIXTRAL_SKIP_CALIBRATION="}, base...)
				env = append(env, "MIXTRAL_MD5=ded6c711288c9bbca02929855557b8c1")
			}
			out, ok := scripttest.Run(t, "download_dataset.sh", env, dir)
			if ok != tc.ok || !strings.Contains(out, tc.msg) {
				t.Fatalf("ok=%v, want %v with %q:\n%s", ok, tc.ok, tc.msg, out)
			}
			ents, _ := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if strings.Join(names, ",") != strings.Join(tc.files, ",") {
				t.Fatalf("files %v, want %v (nothing partial)", names, tc.files)
			}
			if tc.ok {
				n := hits.Load()
				if out, ok := scripttest.Run(t, "download_dataset.sh", env, dir); !ok || !strings.Contains(out, "already present") || hits.Load() != n {
					t.Fatalf("second run downloaded again or failed:\n%s", out)
				}
			}
		})
	}
	// A 404 fails and leaves nothing.
	dir := filepath.Join(t.TempDir(), "data")
	out, ok := scripttest.Run(t, "download_dataset.sh", append([]string{"MIXTRAL_BASE_URL=" + srv.URL + "/nothing", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}, sums...), dir)
	if ok || !strings.Contains(out, "download of") {
		t.Fatalf("404: ok=%v\n%s", ok, out)
	}
}

func TestVerifyDatasetScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	dir := t.TempDir()
	val := filepath.Join(dir, FileName)
	os.WriteFile(val, []byte("v"), 0o644)
	other := filepath.Join(dir, "copy.pkl")
	os.WriteFile(other, []byte("c"), 0o644)
	sums := []string{"MIXTRAL_MD5=" + scripttest.MD5Hex([]byte("v")), "MIXTRAL_CALIBRATION_MD5=" + scripttest.MD5Hex([]byte("c"))}
	for _, tc := range []struct {
		env  []string
		file string
		ok   bool
		msg  string
	}{
		{sums, val, true, "official validation file"},
		{sums, other, true, "official calibration file"},
		{nil, val, false, "want ded6c711288c9bbca02929855557b8c1"},
		{nil, other, false, "neither the validation file's"},
		{sums, filepath.Join(dir, "none.pkl"), false, "download_dataset.sh"},
	} {
		env := append([]string{"MIXTRAL_MD5=", "MIXTRAL_CALIBRATION_MD5="}, tc.env...)
		out, ok := scripttest.Run(t, "verify_dataset.sh", env, tc.file)
		if ok != tc.ok || !strings.Contains(out, tc.msg) {
			t.Errorf("%s: ok=%v, want %v with %q:\n%s", filepath.Base(tc.file), ok, tc.ok, tc.msg, out)
		}
	}
}
