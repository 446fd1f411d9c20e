package main

import (
	"context"
	"errors"
	"flag"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzBenchFlags drives the CLI flag layer of `mlperf run` and `mlperf
// perf`: any argument vector (one argument a line) is parsed into
// Options and validated, as before a run starts. It must give valid
// Options or a clear error (non-empty, no formatting residue), never
// panic; durations that parse are whole milliseconds and not negative.
func FuzzBenchFlags(f *testing.F) {
	for _, s := range []string{
		"run\nresnet50\n--model\nsynthetic:tiny\n--duration\n5",
		"run\nretinanet\n--model\nsynthetic:tiny\n--duration\n1ns\n--qps\n1e12",
		"run\nbert\n--scenario\nServer\n--duration\n10s\n--completion-timeout\n30m",
		"perf\nresnet50\n--duration\n-1s\n--batch\n100000",
		"perf\nunet3d\n--duration\n0s",
		"run\nllama2-70b\n--user-conf\n/nonexistent/user.conf\n--audit-conf\n",
		"run\ndlrm-v2\n--scenario\nfoo\n--mode\nacc\n--count\n-1",
		"run\nsdxl\n--threads=-3\n--workers\n9999999999999999999",
		"run\ngptj\n--cache\n/etc/passwd\n--tokenizer\n",
		"run\n--model",
		"run\nnosuch",
		"perf\nresnet50\n-h",
		"run\nresnet50\n--duration=1.5ms\n--completion-timeout\n0.5s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, argv string) {
		args := strings.Split(argv, "\n")
		if len(args) > 40 {
			return
		}
		cmd := args[0]
		if cmd != "run" && cmd != "perf" {
			cmd = "run"
		}
		b, o, d, err := parseBenchFlags(cmd, args[1:], io.Discard, io.Discard)
		if err == nil {
			err = o.Validate(b)
		}
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return
			}
			msg := err.Error()
			// "%!" is fmt's residue of a bad format, unless the
			// arguments (quoted in the message) hold it.
			if msg == "" || (strings.Contains(msg, "%!") && !strings.Contains(argv, "%!")) {
				t.Fatalf("unclear error %q for %q", msg, args)
			}
			return
		}
		if o.Duration < 0 || o.Duration%time.Millisecond != 0 || o.CompletionTimeout < 0 || d <= 0 {
			t.Fatalf("durations %v, %v, perf %v accepted from %q", o.Duration, o.CompletionTimeout, d, args)
		}
		if o.Batch < 1 || o.Workers < 1 || o.Threads < 0 || o.Count < 0 || o.QPS < 0 {
			t.Fatalf("options %+v accepted from %q", o, args)
		}
		if _, ok := spec.Lookup(b.Name); !ok {
			t.Fatalf("benchmark %q not registered", b.Name)
		}
	})
}

// `model build -o` naming an existing folder names the real problem (the
// flag wants the file to write) instead of a rename error.
func TestModelBuildOutIsAFolder(t *testing.T) {
	dir := t.TempDir()
	err := modelBuildCmd(context.Background(), []string{"resnet50", "-o", dir}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "is a folder") || !strings.Contains(err.Error(), filepath.Join(dir, "model.onnx")) {
		t.Fatalf("err = %v", err)
	}
}
