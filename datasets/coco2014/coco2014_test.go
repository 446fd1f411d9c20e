package coco2014

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess"
)

// testdata/captions_head.tsv is the reference's captions_source.tsv: its
// header, first 40 rows and the 8 rows with quotes.
func TestTSVRoundTripIsByteExact(t *testing.T) {
	b, err := os.ReadFile("testdata/captions_head.tsv")
	if err != nil {
		t.Fatal(err)
	}
	caps, err := ReadTSV(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 48 || caps[0].ID != 70 || caps[0].ImageID != 227049 || caps[0].Text != "A city at night with people walking around." || caps[0].Height != 640 {
		t.Errorf("first row %+v of %d", caps[0], len(caps))
	}
	if got := caps[40].Text; got != `A man in glasses sitting next to a woman and holding up a red frisbee that says "Cheese Shop" on it.` {
		t.Errorf("quoted caption read as %q", got)
	}
	var out bytes.Buffer
	if err := WriteTSV(&out, caps); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), b) {
		t.Errorf("WriteTSV does not reproduce the reference's bytes")
	}
}

func TestSynthLoadAndVerify(t *testing.T) {
	dir := t.TempDir()
	if err := Synth(dir, SynthConfig{N: 5, LatentSize: 8, StatsDim: 32}); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(dir, 0)
	if err != nil || ds.Len() != 5 || !strings.Contains(ds.Captions[1].Text, `"stop"`) {
		t.Fatalf("Load: %v, %+v", err, ds)
	}
	if ds, _ := Load(dir, 2); ds.Len() != 2 {
		t.Errorf("count 2 kept %d", ds.Len())
	}
	lat, shape, err := LoadLatents(dir)
	if err != nil || len(lat) != 256 || shape[1] != 4 || shape[2] != 8 {
		t.Fatalf("latents %v %v", shape, err)
	}
	var mean, sq float64
	for _, v := range lat {
		mean += float64(v)
		sq += float64(v) * float64(v)
	}
	if mean /= 256; mean < -0.3 || mean > 0.3 || sq/256 < 0.6 || sq/256 > 1.5 {
		t.Errorf("latents are not standard normal: mean %v, mean square %v", mean, sq/256)
	}
	st, err := LoadStats(StatsPath(dir))
	if err != nil || len(st.Mu) != 32 || len(st.Sigma) != 32*32 || st.Sigma[1] != st.Sigma[32] {
		t.Fatalf("stats: %v", err)
	}
	// Same seed, same files.
	dir2 := t.TempDir()
	Synth(dir2, SynthConfig{N: 5, LatentSize: 8, StatsDim: 32})
	for _, f := range []string{CaptionsFile, LatentsFile, StatsFile} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two syntheses", f)
		}
	}
	r := Verify(dir)
	if r.OK || len(r.Lines) != 5 {
		t.Errorf("Verify of a synthetic set: %v", r)
	}
	if !strings.HasPrefix(r.Lines[2], "FAIL") || !strings.Contains(r.Lines[2], LatentsMD5) {
		t.Errorf("latents md5 line %q", r.Lines[2])
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, 0); err == nil || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("missing captions: %v", err)
	}
	for name, text := range map[string]string{
		"no caption column": "id\timage_id\n1\t2\n",
		"short row":         "id\timage_id\tcaption\n1\t2\n",
		"bad id":            "id\tcaption\nx\thello\n",
		"empty":             "id\tcaption\n",
	} {
		if _, err := ReadTSV(strings.NewReader(text)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := filepath.Join(dir, "l.npy")
	preprocess.SaveNpy(p, []int{4, 128, 128}, make([]float32, 4*128*128))
	if _, _, err := LoadLatents(p); err == nil || !strings.Contains(err.Error(), "(1, 4, 128, 128)") {
		t.Errorf("3-D latents: %v", err)
	}
	if _, err := LoadStats(p); err == nil {
		t.Error("an .npy read as statistics")
	}
}
