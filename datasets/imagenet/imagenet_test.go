package imagenet

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

func synth(t *testing.T, n int, seed uint64) string {
	t.Helper()
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{N: n, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSynthLoadsInListOrder(t *testing.T) {
	dir := synth(t, 12, 1)
	var warn bytes.Buffer
	ds, err := Load(dir, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 12 || len(ds.Missing) != 0 || warn.Len() != 0 {
		t.Fatalf("Len %d, missing %v, warnings %q", ds.Len(), ds.Missing, warn.String())
	}
	list, err := os.ReadFile(filepath.Join(dir, ValMapName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(list)), "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if ds.Samples[i].Path != f[0] || ds.Samples[i].Path != SynthName(i) {
			t.Errorf("sample %d is %q, line says %q", i, ds.Samples[i].Path, f[0])
		}
		if ds.Label(i) < 0 || ds.Label(i) > 999 {
			t.Errorf("label %d out of range", ds.Label(i))
		}
	}
	if ds.ImagePath(3) != filepath.Join(dir, SynthName(3)) {
		t.Errorf("ImagePath(3) = %s", ds.ImagePath(3))
	}
}

func TestSynthIsDeterministic(t *testing.T) {
	digest := func(dir string) [32]byte {
		h := sha256.New()
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := os.ReadFile(p)
			h.Write([]byte(d.Name()))
			h.Write(b)
			return nil
		})
		var s [32]byte
		copy(s[:], h.Sum(nil))
		return s
	}
	a, b, c := digest(synth(t, 4, 7)), digest(synth(t, 4, 7)), digest(synth(t, 4, 8))
	if a != b {
		t.Error("same seed, different bytes")
	}
	if a == c {
		t.Error("different seeds, same bytes")
	}
}

func TestSynthImagesDecode(t *testing.T) {
	if !libjpeg.Available() {
		t.Skip("built without cgo")
	}
	dir := synth(t, len(synthSizes), 3)
	for i, sz := range synthSizes {
		img, err := preprocess.ReadFile(filepath.Join(dir, SynthName(i)), preprocess.BGR)
		if err != nil {
			t.Fatal(err)
		}
		if img.Width != sz[0] || img.Height != sz[1] {
			t.Errorf("image %d is %dx%d, want %dx%d", i, img.Width, img.Height, sz[0], sz[1])
		}
	}
}

func TestMissingImagesAreSkippedWithWarning(t *testing.T) {
	dir := synth(t, 6, 2)
	for _, i := range []int{1, 4} {
		if err := os.Remove(filepath.Join(dir, SynthName(i))); err != nil {
			t.Fatal(err)
		}
	}
	var warn bytes.Buffer
	ds, err := Load(dir, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{SynthName(0), SynthName(2), SynthName(3), SynthName(5)}
	if ds.Len() != len(want) {
		t.Fatalf("Len %d, want %d", ds.Len(), len(want))
	}
	for i, w := range want {
		if ds.Samples[i].Path != w {
			t.Errorf("QSL index %d is %s, want %s (later samples shift down)", i, ds.Samples[i].Path, w)
		}
	}
	if strings.Join(ds.Missing, ",") != SynthName(1)+","+SynthName(4) {
		t.Errorf("Missing = %v", ds.Missing)
	}
	for _, s := range []string{SynthName(1), SynthName(4), "2 of 6 images not found"} {
		if !strings.Contains(warn.String(), s) {
			t.Errorf("warnings %q do not mention %q", warn.String(), s)
		}
	}
}

func TestLoadCountAndListFile(t *testing.T) {
	dir := synth(t, 5, 4)
	ds, err := Load(dir, Options{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 {
		t.Errorf("Count 3 gave %d samples", ds.Len())
	}
	other := filepath.Join(t.TempDir(), "list.txt")
	if err := os.WriteFile(other, []byte(SynthName(4)+" 7\n\n  "+SynthName(0)+"\t 12  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err = Load(dir, Options{ListFile: other})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.Samples[0] != (Sample{SynthName(4), 7}) || ds.Samples[1] != (Sample{SynthName(0), 12}) {
		t.Errorf("samples %v", ds.Samples)
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	_, err := Load(empty, Options{})
	if !errors.Is(err, ErrNoValMap) || !strings.Contains(err.Error(), filepath.Join(empty, ValMapName)) {
		t.Errorf("no val_map.txt: %v", err)
	}
	for _, tc := range []struct {
		name, list string
		want       error
		mention    string
	}{
		{"one field", "a.JPEG 1\nb.JPEG\n", ErrBadValMap, "line 2"},
		{"three fields", "a b.JPEG 1\n", ErrBadValMap, "line 1"},
		{"bad label", "a.JPEG x1\n", ErrBadValMap, "x1"},
		{"all missing", "a.JPEG 1\nb.JPEG 2\n", ErrEmpty, "none exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ValMapName), []byte(tc.list), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir, Options{Warn: &bytes.Buffer{}})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("got %v, want %v mentioning %q", err, tc.want, tc.mention)
			}
		})
	}
	if err := Synth(t.TempDir(), SynthConfig{N: 0}); err == nil {
		t.Error("Synth with N=0 accepted")
	}
}

func TestCalibrationLists(t *testing.T) {
	for _, opt := range []int{1, 2} {
		names, err := CalibrationList(opt)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, n := range names {
			if !strings.HasPrefix(n, "ILSVRC2012_val_") || !strings.HasSuffix(n, ".JPEG") || seen[n] {
				t.Errorf("option %d: bad or repeated name %q", opt, n)
			}
			seen[n] = true
		}
		if len(names) != 500 {
			t.Errorf("option %d has %d names, want 500", opt, len(names))
		}
	}
	if _, err := CalibrationList(3); err == nil {
		t.Error("option 3 accepted")
	}
}

func TestVerifyWithoutManifest(t *testing.T) {
	dir := synth(t, 4, 5)
	rep, err := Verify(dir)
	if err != nil || !rep.OK(4) || rep.Checked != 0 || !strings.Contains(rep.String(), "presence checked only") {
		t.Fatalf("%v %+v", err, rep)
	}
	os.Remove(filepath.Join(dir, SynthName(1)))
	rep, err = Verify(dir)
	if err != nil || rep.OK(0) || len(rep.Missing) != 1 || rep.Missing[0] != SynthName(1) {
		t.Fatalf("%v %+v", err, rep)
	}
	if err := os.WriteFile(filepath.Join(dir, ChecksumFile), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(dir); err == nil || !strings.Contains(err.Error(), ChecksumFile) {
		t.Errorf("malformed manifest: %v", err)
	}
}

func TestValMapLabelOutsideImageNetIsRefused(t *testing.T) {
	for _, l := range []string{"5000", "1000", "-1"} {
		_, err := ParseValMap(strings.NewReader("a.JPEG 3\nb.JPEG "+l+"\n"), 0)
		if !errors.Is(err, ErrBadValMap) || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "0 to 999") {
			t.Errorf("label %s: err = %v", l, err)
		}
	}
	if s, err := ParseValMap(strings.NewReader("a.JPEG 999\nb.JPEG 0\n"), 0); err != nil || len(s) != 2 {
		t.Fatalf("valid labels: %v %v", s, err)
	}
}

func FuzzParseValMap(f *testing.F) {
	f.Add("ILSVRC2012_val_00000001.JPEG 65\nILSVRC2012_val_00000002.JPEG 970\n", 0)
	f.Add("a 1\n\n b\t2 \n", 1)
	f.Add("a 5000\n", 0)
	f.Fuzz(func(t *testing.T, text string, count int) {
		s, err := ParseValMap(strings.NewReader(text), count)
		if err != nil {
			if !errors.Is(err, ErrBadValMap) {
				t.Fatalf("error without ErrBadValMap: %v", err)
			}
			return
		}
		for _, x := range s {
			if x.Label < 0 || x.Label >= NumClasses || x.Path == "" {
				t.Fatalf("accepted %+v", x)
			}
		}
	})
}
