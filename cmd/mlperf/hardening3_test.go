package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Conf files that are not small regular files are refused, naming the
// file and what it is, never read without end (/dev/zero) or waited on
// (a FIFO without a writer).
func TestConfFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "user.conf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(dir, "big.conf")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	checkBadRuns(t, env, []string{"loadgen", "--out", filepath.Join(dir, "out")}, []badRun{
		{"user.conf /dev/zero", []string{"--user-conf", "/dev/zero"}, 1, "user conf /dev/zero is a character device", false, nil},
		{"user.conf a FIFO", []string{"--user-conf", fifo}, 1, "user conf " + fifo + " is a named pipe (FIFO), not a regular file; give a file", false, nil},
		{"audit.config /dev/zero", []string{"--audit-conf", "/dev/zero"}, 1, "audit config /dev/zero is a character device", false, nil},
		{"user.conf of 2 MiB", []string{"--user-conf", big}, 1, "it is 2097152 bytes, and such a file is at most 1048576", false, nil},
	})
	checkBadRuns(t, env, []string{"run", "resnet50", "--model", "synthetic:tiny", "--data", "synthetic", "--out", filepath.Join(dir, "run")}, []badRun{
		{"run --audit-conf a FIFO", []string{"--audit-conf", fifo}, 2, "--audit-conf " + fifo + " is a named pipe (FIFO)", false, nil},
		{"run --user-conf /dev/zero", []string{"--user-conf", "/dev/zero"}, 2, "--user-conf /dev/zero is a character device", false, nil},
	})
}

// editJSON rewrites a JSON file through edit.
func editJSON(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// `dataset verify openimages` names the annotation-file faults
// pycocotools passes silently, and a score with nothing to score says so
// beside the reference's mAP=-100.000%.
func TestOpenImagesAnnotationFaults(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "oi")
	if code, out := runMlperf(t, nil, "dataset", "synth", "openimages", "-o", data, "-n", "2"); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	ann := filepath.Join(data, "annotations", "openimages-mlperf.json")
	good, _ := os.ReadFile(ann)
	editJSON(t, ann, func(m map[string]any) {
		m["images"].([]any)[1].(map[string]any)["id"] = 1.0
		m["categories"] = append(m["categories"].([]any), map[string]any{"id": 264.0, "name": "Spaceship"})
	})
	code, out := runMlperf(t, nil, "dataset", "verify", "openimages", "--data", data, "-n", "2")
	for _, want := range []string{"image id 1 is given to both", `category 264 ("Spaceship") is outside the 264 MLPerf OpenImages classes`, "does not verify"} {
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("verify: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	// No ground truth in the scored image: -1, said plainly.
	os.WriteFile(ann, good, 0o644)
	editJSON(t, ann, func(m map[string]any) { m["annotations"] = []any{} })
	rec := make([]byte, 0, 28)
	for _, v := range []float32{0, 0.1, 0.1, 0.5, 0.5, 0.9, 3} {
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(v))
	}
	log := filepath.Join(dir, "mlperf_log_accuracy.json")
	os.WriteFile(log, []byte(fmt.Sprintf("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 0, \"data\" : \"%X\" }\n]\n", rec)), 0o644)
	code, out = runMlperf(t, nil, "accuracy", "--metric", "coco", "--log", log, "--annotations", ann)
	if !strings.Contains(out, "mAP=-100.000%") || !strings.Contains(out, "warning: nothing could be scored: none of the 1 evaluated images has a ground-truth box") {
		t.Errorf("undefined mAP: exit %d\n%s", code, out)
	}
}
