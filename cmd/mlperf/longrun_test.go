package main

import (
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// No benchmark's mlperf.conf settings, in any of its scenarios and conf
// names, make an ordinary performance run long enough for the long-run
// note; a Server run at 0.0001 QPS gets it.
func TestNoLongRunNoteForDefaultSettings(t *testing.T) {
	n := 0
	for _, b := range spec.All() {
		for _, name := range b.ConfNames {
			for _, sc := range b.Scenarios {
				o := &benchmark.Options{ModelName: name, Scenario: sc, Mode: loadgen.PerformanceOnly}
				s, err := benchmark.Settings(o)
				if err != nil {
					t.Fatalf("%s %s: %v", name, sc, err)
				}
				if note := loadgen.LongRunNote(s, 24576, 1024, 0); note != "" {
					t.Errorf("%s %s with mlperf.conf's settings: %s", name, sc, note)
				}
				if sc == loadgen.Server {
					o.QPS = 0.0001
					s, _ = benchmark.Settings(o)
					if note := loadgen.LongRunNote(s, 24576, 1024, 0); note == "" {
						t.Errorf("%s Server at 0.0001 QPS: no note", name)
					}
				}
				n++
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d benchmark scenarios checked", n)
	}
}

// Paths and counts of the wrong kind on the commands changed last are
// refused before any work, with the flag and what it wants.
func TestOddArgumentsAreRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"dataset", "synth", "imagenet", "-o", file, "-n", "2"}, 1, "-o " + file + " is a file; the data set is a folder"},
		{[]string{"dataset", "verify", "imagenet", "--data", file}, 1, "--data " + file + " is a file; want the ImageNet validation folder"},
		{[]string{"dataset", "verify", "cnndm", "--data", filepath.Join(dir, "none.json")}, 1, "does not exist; want the CNN-DailyMail cnn_eval.json file or the folder holding it; download it with datasets/cnndm/download_dataset.sh"},
		{[]string{"loadgen", "--sut", "delay", "--batch", "0"}, 2, "batches of at least one sample"},
		{[]string{"loadgen", "--sut", "delay", "--workers", "-1"}, 2, "at least one worker"},
		{[]string{"report", file}, 1, file + " is a file, not a folder"},
		{[]string{"serve", "resnet50", "--slots", "0"}, 2, "--slots 0: want at least 1"},
		{[]string{"serve", "resnet50", "--listen", "http://127.0.0.1:8000"}, 2, "without the http:// scheme"},
		{[]string{"serve", "resnet50", "--drain", "5"}, 2, "needs a unit"},
	} {
		code, out := runMlperf(t, nil, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s", c.args, code, c.code, c.want, out)
		}
	}
	if code, out := runMlperf(t, nil, "serve", "-h"); code != 0 || !strings.Contains(out, "benchmarks: ") {
		t.Errorf("serve -h: exit %d:\n%s", code, out)
	}
}
