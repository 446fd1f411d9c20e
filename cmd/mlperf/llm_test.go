package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/models/gptj"
	"github.com/mlperf-go/inference/models/llama2"
)

func TestModelBuildLLM(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		model string
		spec  generate.Spec
	}{
		{"llama2", llama2.Configs[llama2.SizeTiny].Spec()},
		{"gptj", gptj.Configs[gptj.SizeTiny].Spec()},
	}
	for _, c := range cases {
		out := filepath.Join(dir, c.model+".onnx")
		// No --size: the LLMs' model build defaults to tiny (their full
		// sizes are tens to hundreds of gigabytes).
		code, msg := runMlperf(t, nil, "model", "build", c.model, "-o", out)
		if code != 0 || !strings.Contains(msg, "wrote the synthetic") {
			t.Fatalf("%s: exit %d: %s", c.model, code, msg)
		}
		if _, err := ort.Version(); err != nil {
			continue
		}
		s, err := ort.Open(out, ort.Options{IntraOpThreads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := generate.New(s, c.spec); err != nil {
			t.Errorf("%s: %v", c.model, err)
		}
		s.Close()
	}
	for _, args := range [][]string{
		{"model", "build", "llama2", "--size", "13b", "-o", filepath.Join(dir, "x.onnx")},
		{"model", "build", "gptj", "--size", "tiny"},
	} {
		if code, msg := runMlperf(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, msg)
		}
	}
}
