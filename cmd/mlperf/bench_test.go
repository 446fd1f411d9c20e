package main

import (
	"bytes"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark"
)

// `mlperf list` names every registered benchmark and data set; `run`
// without a benchmark, or with an unknown one, is a usage error that
// names them.
func TestListAndUnknownBenchmark(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	if len(spec.All()) < 4 {
		t.Fatalf("%d benchmarks registered, want at least resnet50, bert, gptj, llama2", len(spec.All()))
	}
	for _, b := range spec.All() {
		if !strings.Contains(out.String(), "\n  "+b.Name+" ") || !strings.Contains(out.String(), "data set "+b.Dataset) {
			t.Errorf("list lacks %s (data set %s):\n%s", b.Name, b.Dataset, out.String())
		}
	}
	for _, d := range spec.AllDatasets() {
		if !strings.Contains(out.String(), "\n  "+d.Name+" ") {
			t.Errorf("list lacks the data set %s", d.Name)
		}
	}
	for _, args := range [][]string{{"run"}, {"run", "resnet"}, {"perf", "--model", "x"}, {"accuracy", "nope"}, {"model", "build"}, {"dataset", "synth", "mnist"}} {
		out.Reset()
		errb.Reset()
		if code := runMain(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "resnet50") && !strings.Contains(errb.String(), "imagenet") {
			t.Errorf("%v: exit %d, want 2 with the registered names:\n%s", args, code, errb.String())
		}
	}
}

// `mlperf perf <benchmark>` on the tiny synthetic model alternates raw and
// harness measurements in rounds and ends with the ratio line that
// scripts read, for every benchmark; the LLMs' raw side is their own
// continuous batcher.
func TestPerfPrintsRoundsAndRatio(t *testing.T) {
	orttest.Need(t)
	needLlamaTokenizer(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"resnet50", []string{"--count", "16", "--batch", "2"}},
		{"bert", []string{"--count", "4"}},
		{"gptj", []string{"--count", "1"}},
		{"llama2", []string{"--count", "4", "--batch", "2", "--max-new-tokens", "8"}},
		{"llama3.1-8b", []string{"--count", "4", "--batch", "2", "--max-new-tokens", "8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "llama3.1-8b" {
				needLlama3Tokenizer(t)
			}
			args := append([]string{"perf", tc.name, "--model", "synthetic:tiny", "--threads", "1", "--duration", "1s", "--out", filepath.Join(dir, tc.name)}, tc.args...)
			code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, log)
			}
			// The LLMs' raw side is their continuous batcher, fed each
			// round's samples at once as loadgen's Offline query feeds it.
			if llm := strings.HasPrefix(tc.name, "llama"); llm != strings.Contains(log, "the SUT's batcher called directly with each round's samples, batch 2") {
				t.Errorf("raw side of %s (an LLM: %v) not as expected:\n%s", tc.name, llm, log)
			}
			if n := strings.Count(log, "perf: round "); n != benchmark.PerfRounds {
				t.Errorf("%d round lines, want %d:\n%s", n, benchmark.PerfRounds, log)
			}
			lines := strings.Split(strings.TrimSpace(log), "\n")
			var ratio float64
			if _, err := fmt.Sscanf(lines[len(lines)-1], "ratio=%g", &ratio); err != nil || ratio <= 0 {
				t.Fatalf("last line %q: want ratio=<positive>", lines[len(lines)-1])
			}
		})
	}
}
