package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

func TestDatasetImagenetCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "imagenet")
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := runMain(args, &out, &errb)
		return code, errb.String()
	}
	if code, e := run("dataset", "synth", "imagenet", "-o", dir, "-n", "3"); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "verify", "imagenet", "--data", dir, "-n", "3"); code != 0 {
		t.Fatalf("verify: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "verify", "imagenet", "--data", dir); code != 1 || !strings.Contains(e, "want 50000") {
		t.Fatalf("verify with the default count: exit %d: %s", code, e)
	}
	os.Remove(filepath.Join(dir, "ILSVRC2012_val_00000002.JPEG"))
	if code, e := run("dataset", "verify", "imagenet", "--data", dir, "-n", "3"); code != 1 || !strings.Contains(e, "incomplete") {
		t.Fatalf("verify with a missing image: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "verify", "imagenet"); code != 2 || !strings.Contains(e, "--data") {
		t.Fatalf("verify without --data: exit %d: %s", code, e)
	}
	if code, e := run("dataset", "synth", "imagenet", "-o", dir, "-bogus"); code != 2 {
		t.Fatalf("bad flag: exit %d: %s", code, e)
	}
	if !libjpeg.Available() {
		return
	}
	cache := filepath.Join(t.TempDir(), "cache")
	if code, e := run("dataset", "preprocess", "imagenet", "--data", dir, "-o", cache); code != 0 {
		t.Fatalf("preprocess: exit %d: %s", code, e)
	}
	for _, n := range []string{"ILSVRC2012_val_00000001.JPEG.npy", "ILSVRC2012_val_00000003.JPEG.npy"} {
		if st, err := os.Stat(filepath.Join(cache, n)); err != nil || st.Size() != 3*224*224*4+128 {
			t.Fatalf("%s: %v", n, err)
		}
	}
}

func TestRunFlagsCheck(t *testing.T) {
	base := runFlags{Scenario: "Offline", Mode: "performance", Model: "synthetic", Data: "synthetic", Backend: "cpu", Batch: 1}
	for _, tc := range []struct {
		name   string
		change func(*runFlags)
		err    string
	}{
		{"defaults", func(*runFlags) {}, ""},
		{"lower-case scenario", func(f *runFlags) { f.Scenario = "single-stream" }, ""},
		{"unknown scenario", func(f *runFlags) { f.Scenario = "batch" }, "unknown scenario"},
		{"unknown mode", func(f *runFlags) { f.Mode = "fast" }, "unknown mode"},
		{"unknown backend", func(f *runFlags) { f.Backend = "rocm" }, `unknown backend "rocm"`},
		{"negative batch", func(f *runFlags) { f.Batch = -1 }, "--batch -1"},
		{"no model", func(f *runFlags) { f.Model = "" }, "--model is required"},
		{"missing user.conf", func(f *runFlags) { f.UserConf = "/nonexistent/user.conf" }, "file not found"},
	} {
		f := base
		tc.change(&f)
		err := f.check()
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		}
	}
	f := base
	f.Scenario = "singlestream"
	f.Backend = "CUDA"
	if err := f.check(); err != nil || f.Scenario != "SingleStream" || f.Backend != "cuda" || f.Workers != 2 {
		t.Fatalf("normalised %+v, %v", f, err)
	}
}
