package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
)

// TestRemoteOnlyBenchmarksRefuseLocalBackends: deepseek-r1 and
// gpt-oss-120b refuse cpu, cuda and tensorrt in Options.Validate (before
// the data is looked at), saying why and what to use; over a remote
// decoder backend they validate; no other benchmark is remote-only.
func TestRemoteOnlyBenchmarksRefuseLocalBackends(t *testing.T) {
	remoteOnly := map[string]string{"deepseek-r1": "671B", "gpt-oss-120b": "117B"}
	for _, name := range spec.Names() {
		b, _ := spec.Lookup(name)
		why, ok := remoteOnly[name]
		if !ok {
			if b.RemoteOnly != "" {
				t.Errorf("%s is remote-only: %s", name, b.RemoteOnly)
			}
			continue
		}
		for _, be := range benchmark.Backends {
			o := benchmark.Options{Scenario: loadgen.Offline, Backend: be, Data: "/nonexistent/data", Extra: spec.Extra{}}
			err := o.Validate(b)
			if err == nil || !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "--endpoint") || strings.Contains(err.Error(), "nonexistent") {
				t.Errorf("%s --backend %s: %v; want a usage error naming the model's size and --endpoint, before the data", name, be, err)
			}
		}
		o := benchmark.Options{Scenario: loadgen.Server, Backend: "openai", Endpoints: []string{"127.0.0.1:8000"}, Data: "synthetic", Extra: spec.Extra{}}
		if err := o.Validate(b); err != nil {
			t.Errorf("%s --backend openai: %v", name, err)
		}
		o = benchmark.Options{Scenario: loadgen.Offline, Backend: "openai", Endpoints: []string{"127.0.0.1:8000"}, Data: "synthetic",
			ModelName: b.ConfNames[1], Extra: spec.Extra{}}
		if err := o.Validate(b); err == nil || !strings.Contains(err.Error(), "Server scenario only") {
			t.Errorf("%s --model-name %s --scenario Offline: %v", name, b.ConfNames[1], err)
		}
	}
}

// TestReasoningConfs: the model names of both benchmarks get mlperf.conf's
// settings: token latencies, the Server TTFT/TPOT bounds of the datacenter
// and interactive variants, the sample counts (gpt-oss: 6396 for
// performance, 4395 in accuracy mode), sample concatenation.
func TestReasoningConfs(t *testing.T) {
	ms := func(v int64) int64 { return v * 1_000_000 }
	for _, tc := range []struct {
		name              string
		ttft, tpot        int64
		perfCount, accCnt uint64
	}{
		{"deepseek-r1", ms(2000), ms(80), 4388, 0},
		{"deepseek-r1-interactive", ms(1500), ms(15), 4388, 0},
		{"gpt-oss-120b", ms(3000), ms(80), 6396, 4395},
		{"gpt-oss-120b-interactive", ms(2000), ms(15), 6396, 4395},
	} {
		s, err := benchmark.Settings(&benchmark.Options{ModelName: tc.name, Scenario: loadgen.Server, Mode: loadgen.PerformanceOnly})
		if err != nil {
			t.Fatal(err)
		}
		if !s.UseTokenLatencies || s.ServerTTFTLatencyNs != tc.ttft || s.ServerTPOTLatencyNs != tc.tpot ||
			s.PerformanceSampleCountOverride != tc.perfCount || s.AccuracySampleCountOverride != tc.accCnt || !s.SampleConcatenatePermutation {
			t.Errorf("%s: token latencies %v, TTFT %d, TPOT %d, performance samples %d, accuracy samples %d, concatenation %v",
				tc.name, s.UseTokenLatencies, s.ServerTTFTLatencyNs, s.ServerTPOTLatencyNs, s.PerformanceSampleCountOverride, s.AccuracySampleCountOverride, s.SampleConcatenatePermutation)
		}
	}
}

// TestRemoteOnlyRefusalComesFirst: mlperf run deepseek-r1 on the default
// local backend says the benchmark needs a serving engine (exit 2) even
// where its tokenizer is not installed, rather than asking for the
// tokenizer first.
func TestRemoteOnlyRefusalComesFirst(t *testing.T) {
	t.Setenv("MLPERF_DEPS", t.TempDir())
	for _, name := range []string{"deepseek-r1", "gpt-oss-120b"} {
		var stdout, stderr strings.Builder
		code := runMain([]string{"run", name}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--backend cpu is not available") || strings.Contains(stderr.String(), "tokenizer.json not found") {
			t.Errorf("%s: exit %d\n%s", name, code, stderr.String())
		}
	}
}
