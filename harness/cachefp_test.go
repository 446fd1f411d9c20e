package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

var testStamp = CacheStamp{Preprocessing: "test v1 float32[4]", Source: "abc", SourceName: "val_map.txt"}

func TestBindCacheRefusesStaleAndMisnamedCaches(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	if st, err := BindCache(cache, testStamp); err != nil || st != CacheFresh {
		t.Fatalf("new folder: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(cache, CacheFingerprintFile)); err != nil {
		t.Fatalf("fresh cache not stamped: %v", err)
	}
	os.WriteFile(filepath.Join(cache, "a.JPEG.npy"), []byte("x"), 0o644)
	if st, err := BindCache(cache, testStamp); err != nil || st != CacheStamped {
		t.Fatalf("same inputs: %v %v", st, err)
	}
	other := testStamp
	other.Source = "def"
	if _, err := BindCache(cache, other); !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), "differs from this run's val_map.txt") || !strings.Contains(err.Error(), cache) {
		t.Fatalf("other data set: %v", err)
	}
	other = testStamp
	other.Preprocessing = "test v2 float32[4]"
	if _, err := BindCache(cache, other); !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), `"test v1 float32[4]"`) {
		t.Fatalf("other preprocessing: %v", err)
	}
	os.WriteFile(filepath.Join(cache, CacheFingerprintFile), []byte("garbage"), 0o644)
	if _, err := BindCache(cache, testStamp); !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged stamp: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := BindCache(file, testStamp); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("file: %v", err)
	}
	foreign := filepath.Join(dir, "foreign")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "x.npy"), nil, 0o644)
	if st, err := BindCache(foreign, testStamp); err != nil || st != CacheUnstamped {
		t.Fatalf("unstamped: %v %v", st, err)
	}
}

// cacheFixture is a 4-sample data set whose sample i is [i, i+1, i+2, i+3]
// (+ shift), with a counter of computed samples.
type cacheFixture struct {
	shift    float32
	computed int
}

func (f *cacheFixture) load(_ context.Context, i int) ([]float32, error) {
	f.computed++
	v := float32(10 * i)
	return []float32{v + f.shift, v + 1 + f.shift, v + 5 + f.shift, v + 9 + f.shift}, nil
}

func (f *cacheFixture) config(dir string, warn *bytes.Buffer) NpyCacheConfig {
	return NpyCacheConfig{Dir: dir, Name: func(i int) string { return []string{"a", "b", "c", "d"}[i] + ".jpg" },
		Stamp: testStamp, Total: 4, Shape: []int{4}, Load: f.load, Warn: warn}
}

func writeSample(t *testing.T, dir, name string, v []float32) {
	t.Helper()
	if err := preprocess.SaveNpy(filepath.Join(dir, name+".npy"), []int{len(v)}, v); err != nil {
		t.Fatal(err)
	}
}

func TestOpenNpyCacheFreshIsStampedAndFilled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	f := &cacheFixture{}
	var warn bytes.Buffer
	load, err := OpenNpyCache(context.Background(), f.config(dir, &warn))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, CacheFingerprintFile))
	if err != nil || !strings.Contains(string(b), "preprocessing: test v1 float32[4]") {
		t.Fatalf("stamp %q: %v", b, err)
	}
	if _, err := load(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.jpg.npy")); err != nil {
		t.Fatalf("sample not cached: %v", err)
	}
	// Reopened: stamped, the cached sample is checked against the data.
	f2 := &cacheFixture{}
	if _, err := OpenNpyCache(context.Background(), f2.config(dir, &warn)); err != nil {
		t.Fatal(err)
	}
	if f2.computed != 1 || warn.Len() != 0 {
		t.Fatalf("reopening computed %d samples (want 1 check), warned %q", f2.computed, warn.String())
	}
	// The same file names from another data set: refused.
	f3 := &cacheFixture{shift: 100}
	if _, err := OpenNpyCache(context.Background(), f3.config(dir, &warn)); !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), "c.jpg.npy differs") {
		t.Fatalf("stale: %v", err)
	}
}

func TestOpenNpyCacheForeignCacheIsCheckedNotStamped(t *testing.T) {
	dir := t.TempDir()
	// A reference-made cache: our layout, no stamp; values off by a
	// decoder's rounding.
	writeSample(t, dir, "a.jpg", []float32{0.01, 1, 5, 9})
	writeSample(t, dir, "d.jpg", []float32{30, 31, 35.02, 39})
	f := &cacheFixture{}
	var warn bytes.Buffer
	load, err := OpenNpyCache(context.Background(), f.config(dir, &warn))
	if err != nil {
		t.Fatal(err)
	}
	if f.computed != 2 || !strings.Contains(warn.String(), "2 cached samples match") {
		t.Fatalf("computed %d, warned %q", f.computed, warn.String())
	}
	if _, err := os.Stat(filepath.Join(dir, CacheFingerprintFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("foreign cache was stamped: %v", err)
	}
	v, err := load(context.Background(), 0)
	if err != nil || v[0] != 0.01 {
		t.Fatalf("cached sample not used: %v %v", v, err)
	}
	// A foreign cache of another data set: refused.
	stale := t.TempDir()
	writeSample(t, stale, "b.jpg", []float32{1, 2, 3, 4})
	if _, err := OpenNpyCache(context.Background(), f.config(stale, &warn)); !errors.Is(err, ErrStaleCache) {
		t.Fatalf("stale foreign cache: %v", err)
	}
	// Another shape: refused.
	shaped := t.TempDir()
	writeSample(t, shaped, "b.jpg", []float32{1, 2, 3})
	if _, err := OpenNpyCache(context.Background(), f.config(shaped, &warn)); !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("other shape: %v", err)
	}
	// A non-empty folder with none of our samples (the data set folder
	// itself): stamped as new.
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "a.jpg"), []byte("jpeg"), 0o644)
	if _, err := OpenNpyCache(context.Background(), f.config(data, &warn)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, CacheFingerprintFile)); err != nil {
		t.Fatalf("folder without samples not stamped: %v", err)
	}
}

// TestSpotCheckReadsEveryProbeAndNoMore: an unstamped folder holding one of
// the data set's samples is checked through every probe (the last probe is
// sample Total-1, never Total) and used with a note on standard error when
// Warn is nil.
func TestSpotCheckReadsEveryProbeAndNoMore(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir, "d.jpg", []float32{30, 31, 35, 39})
	f := &cacheFixture{}
	c := f.config(dir, nil)
	c.Warn = nil
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	_, err = OpenNpyCache(context.Background(), c)
	os.Stderr = stderr
	w.Close()
	note, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if f.computed != 1 || !strings.Contains(string(note), "1 cached samples match the data set") {
		t.Fatalf("computed %d samples, stderr %q; want 1 and the note", f.computed, note)
	}
}

// TestSpotCheckStopsAtCheck: three cached samples, Check 2: two are
// recomputed, no more.
func TestSpotCheckStopsAtCheck(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir, "a.jpg", []float32{0, 1, 5, 9})
	writeSample(t, dir, "b.jpg", []float32{10, 11, 15, 19})
	writeSample(t, dir, "d.jpg", []float32{30, 31, 35, 39})
	f := &cacheFixture{}
	var warn bytes.Buffer
	c := f.config(dir, &warn)
	c.Check = 2
	if _, err := OpenNpyCache(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if f.computed != 2 || !strings.Contains(warn.String(), "; 2 cached samples match") {
		t.Fatalf("computed %d, warned %q; want 2 and 2", f.computed, warn.String())
	}
}

// TestBindCacheCannotMakeTheFolder: a cache path behind a link to nothing
// is not there, and cannot be made.
func TestBindCacheCannotMakeTheFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "gone")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	if _, err := BindCache(filepath.Join(dir, "gone", "cache"), testStamp); err == nil || !strings.HasPrefix(err.Error(), "harness: creating the cache folder: ") {
		t.Errorf("BindCache behind a dangling link: %v", err)
	}
}

func TestSpotCheckRefusesAnUnreadableSample(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.jpg.npy"), []byte("not an npy file"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &cacheFixture{}
	var warn bytes.Buffer
	_, err := OpenNpyCache(context.Background(), f.config(dir, &warn))
	if !errors.Is(err, ErrStaleCache) || !strings.Contains(err.Error(), "b.jpg.npy cannot be read") {
		t.Fatalf("err %v, want ErrStaleCache naming b.jpg.npy", err)
	}
	if f.computed != 0 {
		t.Fatalf("computed %d samples for an unreadable cache", f.computed)
	}
}

func TestRelDiff(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{0, 2}, []float32{0, 4}, 0.25},   // mean |diff| 1 over range 4
		{[]float32{3, 3}, []float32{1, 1}, 2},      // constant sample: range taken as 1
		{[]float32{1, 2}, []float32{1}, inf},       // lengths differ
		{[]float32{}, []float32{}, inf},            // nothing to compare
		{[]float32{1, 2, 3}, []float32{1, 2}, inf}, // cached longer
	} {
		if got := relDiff(c.a, c.b); got != c.want {
			t.Errorf("relDiff(%v, %v) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}

// TestOpenNpyCacheFaults: a cache path that is a file, and a foreign folder
// that cannot be stamped, are errors.
func TestOpenNpyCacheFaults(t *testing.T) {
	f := &cacheFixture{}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenNpyCache(context.Background(), f.config(file, nil)); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("cache path that is a file: %v", err)
	}
	// A folder holding none of the samples is stamped as new; here the
	// stamp's temporary name is taken by a folder.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "other.txt"), nil, 0o644)
	os.Mkdir(fmt.Sprintf("%s.%d.tmp", filepath.Join(dir, CacheFingerprintFile), os.Getpid()), 0o755)
	if _, err := OpenNpyCache(context.Background(), f.config(dir, nil)); err == nil || !strings.HasPrefix(err.Error(), "harness: stamping the cache folder: ") {
		t.Errorf("unstampable folder: %v", err)
	}
}

// TestSourceFingerprint: the SHA-256 of the index file's bytes, then NUL,
// base name, NUL, size for each file (goldens: the same bytes through
// sha256sum); no index hashes the files alone; a missing index or file is
// an error.
func TestSourceFingerprint(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "idx.txt")
	os.WriteFile(index, []byte("idx\n"), 0o644)
	a, b := filepath.Join(dir, "a.jpg"), filepath.Join(dir, "b.jpg")
	os.WriteFile(a, []byte("abc"), 0o644)
	os.WriteFile(b, nil, 0o644)
	for _, c := range []struct {
		index string
		files []string
		want  string
	}{
		// (printf 'idx\n'; printf '\0a.jpg\0%s\0b.jpg\0%s' 3 0) | sha256sum
		{index, []string{a, b}, "0471605b6598217df2bd8447b470c9b8d7ba56f9fa515ba3327cc4f1644f140d"},
		// printf '\0a.jpg\0%s' 3 | sha256sum
		{"", []string{a}, "299e98fdcc083e01a97c82402fed83432831bdcbd0dbf3a971f2605b37999893"},
	} {
		got, err := SourceFingerprint(c.index, c.files)
		if err != nil || got != c.want {
			t.Errorf("SourceFingerprint(%q, %v) = %s, %v; want %s", c.index, c.files, got, err, c.want)
		}
	}
	for _, c := range []struct {
		index string
		files []string
	}{{filepath.Join(dir, "none.txt"), nil}, {"", []string{filepath.Join(dir, "none.jpg")}}, {dir, nil}} {
		if _, err := SourceFingerprint(c.index, c.files); err == nil || !strings.HasPrefix(err.Error(), "harness: fingerprinting the data set: ") {
			t.Errorf("SourceFingerprint(%q, %v): %v", c.index, c.files, err)
		}
	}
}

// TestParseStamp: lines without a colon and comments are skipped; a stamp
// needs a preprocessing line and a source.
func TestParseStamp(t *testing.T) {
	for _, c := range []struct {
		text string
		want CacheStamp
		ok   bool
	}{
		{"preprocessing: p v1\nsource: abc\nsource-file: val_map.txt\n", CacheStamp{Preprocessing: "p v1", Source: "abc", SourceName: "val_map.txt"}, true},
		{"preprocessing\nsource: abc\n", CacheStamp{Source: "abc"}, false},
		{"# preprocessing: p\nsource: abc\n", CacheStamp{Source: "abc"}, false},
		{"preprocessing: p\n", CacheStamp{Preprocessing: "p"}, false},
	} {
		got, ok := parseStamp([]byte(c.text))
		if got != c.want || ok != c.ok {
			t.Errorf("parseStamp(%q) = %+v, %v; want %+v, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

// TestSpotCheckOfOne: Check 1 recomputes one cached sample, not the
// default two.
func TestSpotCheckOfOne(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir, "a.jpg", []float32{0, 1, 5, 9})
	writeSample(t, dir, "b.jpg", []float32{10, 11, 15, 19})
	f := &cacheFixture{}
	var warn bytes.Buffer
	c := f.config(dir, &warn)
	c.Check = 1
	if _, err := OpenNpyCache(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if f.computed != 1 {
		t.Fatalf("Check 1 computed %d samples", f.computed)
	}
}
