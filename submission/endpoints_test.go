package submission

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/loadgen"
)

// writeEndpointsRun writes what mlperf/endpoints leaves of a run of
// llama3.1-8b in one scenario (config.yaml, performance/result_summary.json,
// accuracy/accuracy_results.json, audit/), with the round's seeds.
func writeEndpointsRun(t *testing.T, dir, typ string, seeds loadgen.Seeds) {
	t.Helper()
	files := map[string]string{
		"config.yaml": fmt.Sprintf("name: llama3.1-8b\nversion: \"1.0\"\ntype: %q\nmodel_params:\n  streaming: true\nsettings:\n  runtime:\n    min_duration_ms: 600000\n    scheduler_random_seed: %d\n    dataloader_random_seed: %d\n  load_pattern:\n    type: max_throughput\n", typ, seeds.Schedule, seeds.SampleIndex),
		"performance/result_summary.json": `{"version": "0.1.0", "n_samples_issued": 13368, "n_samples_completed": 13368, "n_samples_failed": 0,
 "duration_ns": 700000000000, "qps": 19.1, "tps": 22926.3,
 "ttft": {"early_stopping_percentiles": {"99.0": 150000000}}, "tpot": {"early_stopping_percentiles": {"99.0": 9000000}},
 "latency": {"early_stopping_percentiles": {"99.0": 2000000000}}, "output_sequence_lengths": {"avg": 120.5}}`,
		"accuracy/accuracy_results.json":           `{"accuracy_scores": [{"dataset_type": "accuracy", "total_samples": 13368, "score": {"rouge1": 39.5}}]}`,
		"audit/audit_consistency_output_test.json": `{"test": "consistency_output_test", "passed": true}`,
		"performance/report.txt":                   "Summary\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// --from packages an endpoints run's files (no LoadGen logs, no
// user.conf) into a tree that round v6.1's checker accepts.
func TestFromPackagesAnEndpointsRun(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	r := check.Rounds["v6.1"]
	writeEndpointsRun(t, filepath.Join(runs, "Offline"), "offline", r.Seeds)
	writeEndpointsRun(t, filepath.Join(runs, "Server"), "online", r.Seeds)
	b := fakeBench("llama3.1-8b", []string{"llama3.1-8b"}, loadgen.Offline, loadgen.Server)
	out := filepath.Join(dir, "tree")
	p := plan(t, Options{Benchmark: b, Out: out, From: runs, Round: "v6.1", Submitter: "Tester", SystemName: "box", Measurements: Measurements{StartingWeightsFilename: "Llama-3.1-8B-Instruct"}})
	var log bytes.Buffer
	runsFound, err := p.Run(context.Background(), &log)
	if err != nil {
		t.Fatal(err)
	}
	if runsFound[0].Endpoints == "" || runsFound[1].Endpoints == "" {
		t.Fatalf("not taken for endpoints runs: %+v", runsFound)
	}
	if _, err := p.Write(context.Background(), runsFound, &log); err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(out, "closed/Tester/results/box/llama3.1-8b/Server")
	for _, f := range []string{"config.yaml", "performance/result_summary.json", "performance/report.txt", "accuracy/accuracy_results.json",
		"audit/audit_consistency_output_test.json", "measurements.json", "README.md"} {
		if _, err := os.Stat(filepath.Join(sc, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(sc, "user.conf")); err == nil {
		t.Error("an endpoints scenario got a user.conf")
	}
	var report bytes.Buffer
	if err := check.Run(out, check.Options{Round: "v6.1"}, &report); err != nil {
		t.Fatalf("%v\n%s", err, report.String())
	}
}
