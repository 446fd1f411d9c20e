package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const cocoFixtures = "../../accuracy/coco/testdata"

// cocoGoldenLines reads what pycocotools and accuracy-openimages.py print
// for the fixture log (accuracy/coco/testdata/make_golden.py).
func cocoGoldenLines(t *testing.T, mode string) (lines, mAP string) {
	t.Helper()
	var g struct {
		OpenImages map[string]struct {
			Summary string `json:"summary"`
			MAPLine string `json:"map_line"`
		} `json:"openimages"`
	}
	b, err := os.ReadFile(filepath.Join(cocoFixtures, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	want := g.OpenImages[mode]
	if want.MAPLine == "" {
		t.Fatalf("no golden for %s", mode)
	}
	return want.Summary + want.MAPLine + "\n", strings.TrimSuffix(strings.TrimPrefix(want.MAPLine, "mAP="), "%")
}

func TestMetricCOCO(t *testing.T) {
	logPath := filepath.Join(cocoFixtures, "openimages", "mlperf_log_accuracy.json")
	ann := filepath.Join(cocoFixtures, "openimages", "annotations.json")
	for _, mode := range []string{"numpy1", "numpy2"} {
		out := filepath.Join(t.TempDir(), "accuracy.txt")
		args := []string{"accuracy", "--metric", "coco", "--log", logPath, "--annotations", ann, "--out", out}
		if mode == "numpy1" {
			args = append(args, "--numpy1")
		}
		code, stdout := runMlperf(t, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", mode, code, stdout)
		}
		want, wantMAP := cocoGoldenLines(t, mode)
		if !strings.Contains(stdout, want) {
			t.Errorf("%s: output\n%s\nwant the lines\n%s", mode, stdout, want)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s: accuracy.txt\n%s\nwant\n%s", mode, got, want)
		}
		// The submission checker's ACC_PATTERN["mAP"], applied per line.
		re := regexp.MustCompile(`.*(?:mAP=|'Total':)\s*([\d.]+)`)
		var found []string
		for _, line := range strings.Split(string(got), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				found = append(found, m[1])
			}
		}
		if len(found) != 1 || found[0] != wantMAP {
			t.Errorf("%s: checker pattern finds %q in accuracy.txt, want [%s]", mode, found, wantMAP)
		}
	}
}

func TestMetricCOCOBadInput(t *testing.T) {
	dir := t.TempDir()
	ann := filepath.Join(cocoFixtures, "openimages", "annotations.json")
	short := filepath.Join(dir, "short.json")
	os.WriteFile(short, []byte("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 1, \"data\" : \"0000803F0000803F\" }\n]\n"), 0o644)
	badAnn := filepath.Join(dir, "ann.json")
	os.WriteFile(badAnn, []byte(`{"images": [}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--log", short}, 2, "--annotations FILE are required"},
		{[]string{"--log", short, "--annotations", ann}, 1, short + ": seq_id 0: malformed COCO data: qsl_idx 1: 8 bytes are not a whole number of 28-byte records"},
		{[]string{"--log", short, "--annotations", badAnn}, 1, badAnn},
		{[]string{"--log", filepath.Join(dir, "none.json"), "--annotations", ann}, 1, "none.json"},
	} {
		code, out := runMlperf(t, nil, append([]string{"accuracy", "--metric", "coco"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, output %q; want exit %d mentioning %q", c.args, code, out, c.code, c.want)
		}
	}
}
