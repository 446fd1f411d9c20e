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
