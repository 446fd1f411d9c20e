package main

import (
	"testing"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
)

// No benchmark's mlperf.conf settings, in any of its scenarios and conf
// names, make an ordinary performance run long enough for the long-run
// note; a Server run at 0.0001 QPS gets it.
func TestNoLongRunNoteForDefaultSettings(t *testing.T) {
	n := 0
	for _, b := range benchmark.All() {
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
