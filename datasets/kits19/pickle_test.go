package kits19

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPickleCase reads case pickles numpy wrote (testdata/make_pickles.py)
// at protocols 4 and 2.
func TestPickleCase(t *testing.T) {
	for _, f := range []string{"testdata/pickles/case_00007.pkl", "testdata/pickles/case_00007_p2.pkl"} {
		img, lbl, err := LoadPickleCase(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if img.Shape != [3]int{4, 5, 6} || len(img.Data) != 120 || len(lbl.Data) != 120 {
			t.Fatalf("%s: shape %v, %d and %d values", f, img.Shape, len(img.Data), len(lbl.Data))
		}
		for i := range 120 {
			want := (float32(i) - 50) / float32(7.5)
			if math.Float32bits(img.Data[i]) != math.Float32bits(want) || lbl.Data[i] != uint8(i%3) {
				t.Fatalf("%s: voxel %d = %v, %d; want %v, %d", f, i, img.Data[i], lbl.Data[i], want, i%3)
			}
		}
	}
}

func TestPickleIndex(t *testing.T) {
	x, err := LoadPickleIndex("testdata/pickles")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(x.FileList, ",") != "case_00007,case_00400" || len(x.Cases) != 2 {
		t.Fatalf("index %+v", x)
	}
	a := x.Cases["case_00400"]
	if a.ImageShape != [4]int{1, 256, 192, 384} || a.OriginalAffine[2][0] != -3 || a.ReshapedAffine[0][2] != -1.2 || a.ZoomFactor[0] != 3.0/1.6 {
		t.Errorf("case_00400 aux %+v", a)
	}
}

// TestPickleRejects: truncated pickles, and pickles that call anything but
// numpy's array reconstruction, are errors, never code.
func TestPickleRejects(t *testing.T) {
	b, err := os.ReadFile("testdata/pickles/case_00007.pkl")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 20, len(b) / 2, len(b) - 1} {
		if _, err := unpickle(b[:n]); !errors.Is(err, ErrPickle) {
			t.Errorf("pickle cut at %d bytes: %v", n, err)
		}
	}
	evil := []byte("cos\nsystem\n(S'true'\ntR.")
	if _, err := unpickle(evil); !errors.Is(err, ErrPickle) {
		t.Errorf("os.system pickle: %v", err)
	}
	evil2 := []byte("\x80\x04\x8c\x02os\x94\x8c\x06system\x94\x93\x8c\x04true\x85R.")
	if _, err := unpickle(evil2); err == nil || !strings.Contains(err.Error(), "os.system") {
		t.Errorf("STACK_GLOBAL os.system pickle: %v", err)
	}
}

func FuzzUnpickle(f *testing.F) {
	for _, p := range []string{"testdata/pickles/case_00007.pkl", "testdata/pickles/case_00007_p2.pkl", "testdata/pickles/preprocessed_files.pkl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		unpickle(b) // must not panic or hang
	})
}

// TestOpenReferenceFolder: a folder the reference preprocessed (no
// preprocessed_files.json) is opened through its pickles.
func TestOpenReferenceFolder(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/pickles/preprocessed_files.pkl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/preprocessed_files.pkl", b, 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "case_00007") {
		t.Fatalf("Open without the case pickles: %v", err)
	}
	for _, c := range []string{"case_00007", "case_00400"} {
		os.WriteFile(PicklePath(dir, c), []byte("not read by Open"), 0o644)
	}
	x, err := Open(dir)
	if err != nil || len(x.FileList) != 2 {
		t.Fatalf("Open: %+v, %v", x, err)
	}
	if _, err := LoadImage(dir, x.Cases["case_00007"]); !errors.Is(err, ErrPickle) {
		t.Errorf("LoadImage of a broken pickle: %v", err)
	}
}

// TestLoadPickleCaseFaults: a missing file, a damaged pickle and a pickle
// of something else are errors naming the file.
func TestLoadPickleCaseFaults(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/pickles/case_00007.pkl")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pkl")
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	other := filepath.Join(dir, "other.pkl")
	os.WriteFile(other, []byte("\x80\x04K\x07."), 0o644) // the int 7
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "none.pkl"), "none.pkl"},
		{cut, "cut.pkl"},
		{other, "other.pkl holds int64, want [image, label]"},
	} {
		if _, _, err := LoadPickleCase(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadPickleCase(%s): %v, want %q", filepath.Base(c.path), err, c.want)
		}
	}
}
