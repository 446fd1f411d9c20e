package check

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
)

// A test tree is written from a compact description: a round, a division
// and its systems, each with benchmark folders and scenarios. Every file
// the round's layout wants is written with values that pass the round's
// checks (the seeds, sample counts and bounds of its tables, accuracy
// just above each target), so that one edit makes one fault.

type benchSpec struct {
	folder    string   // the benchmark folder's name
	model     string   // the checker's model id it maps to
	scenarios []string // scenario folders
	endpoints bool     // an endpoints run's files instead of LoadGen logs
}

type sysSpec struct {
	name, typ string
	benches   []benchSpec
}

type treeSpec struct {
	round     string
	division  string
	submitter string
	systems   []sysSpec
}

// tree is a written tree: its root and the round's layout.
type tree struct {
	t     testing.TB
	root  string
	spec  treeSpec
	round *Round
}

func (tr *tree) abs(rel string) string { return filepath.Join(tr.root, rel) }

func (tr *tree) write(rel, content string) {
	tr.t.Helper()
	p := tr.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) writeJSON(rel string, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	tr.write(rel, string(b)+"\n")
}

func (tr *tree) names(system, bench, scenario string) names {
	return names{division: tr.spec.division, submitter: tr.spec.submitter, system: system, benchmark: bench, scenario: scenario}
}

// scen is a scenario folder under results/; meas the folder of its
// measurements, user.conf and README.md; comp the folder of its
// compliance tests (all relative to the root).
func (tr *tree) scen(system, bench, scenario string) string {
	return strings.TrimSuffix(tr.names(system, bench, scenario).format(tr.round.Layout.EndpointsScenarioDir), "/")
}

func (tr *tree) meas(system, bench, scenario string) string {
	return filepath.Dir(tr.names(system, bench, scenario).format(tr.round.Layout.Measurements))
}

func (tr *tree) comp(system, bench, scenario string) string {
	return strings.TrimSuffix(tr.names(system, bench, scenario).format(tr.round.Layout.Compliance), "/")
}

func (tr *tree) src() string {
	return tr.names("", "", "").format(tr.round.Layout.Src)
}

// mlLog renders detail-log entries as LoadGen writes them.
func mlLog(entries [][2]any) string {
	var b strings.Builder
	for i, e := range entries {
		v, _ := json.Marshal(e[1])
		if f, ok := e[1].(float64); ok {
			v = []byte(strconv.FormatFloat(f, 'f', -1, 64))
			if !strings.ContainsAny(string(v), ".e") {
				v = append(v, ".0"...)
			}
		}
		isErr := strings.HasPrefix(e[0].(string), "error")
		fmt.Fprintf(&b, ":::MLLOG {\"key\": %q, \"value\": %s, \"time_ms\": %d.000000, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": %t, \"is_warning\": false, \"file\": \"logs.go\", \"line_no\": %d, \"pid\": 7, \"tid\": 7}}\n",
			e[0], v, i, isErr, 100+i)
	}
	return b.String()
}

// perfEntries are a passing performance log's entries for a model in a
// scenario folder (Interactive runs are LoadGen Server runs).
func (tr *tree) perfEntries(model, folder string) [][2]any {
	r := tr.round
	sc := folder
	if sc == "Interactive" {
		sc = "Server"
	}
	spq := 1
	switch sc {
	case "Offline":
		spq = int(offlineMinSPQ[model])
	case "MultiStream":
		spq = 8
	}
	minQ := int64(1)
	if q := r.MinQueries[model][sc]; q > 0 {
		minQ = q
	}
	target := int64(100_000_000)
	if lc := r.LatencyConstraint[model][sc]; lc > 0 {
		target = lc
	}
	e := [][2]any{
		{"loadgen_version", "6.0.17 @ mlperf-go"},
		{"test_datetime", "2026-11-27T10:00:00Z"},
		{"sut_name", "GoTest SUT"},
		{"effective_scenario", sc},
		{"effective_test_mode", "PerformanceOnly"},
		{"requested_qsl_rng_seed", r.Seeds.QSL},
		{"effective_qsl_rng_seed", r.Seeds.QSL},
		{"effective_sample_index_rng_seed", r.Seeds.SampleIndex},
		{"effective_schedule_rng_seed", r.Seeds.Schedule},
		{"effective_performance_sample_count", r.PerformanceSampleCount[model]},
		{"effective_min_duration_ms", 600000},
		{"effective_min_query_count", minQ},
		{"effective_samples_per_query", spq},
		{"effective_target_latency_ns", target},
		{"effective_sample_concatenate_permutation", false},
		{"requested_use_token_latencies", isLLM(model)},
		{"early_stopping_met", sc != "Offline"},
		{"early_stopping_result", " * Processed at least 64 queries (4096).\n * Would discard 23 highest latency queries.\n * Early stopping 90.0th percentile estimate: 1535126\n * Not enough queries processed for 99.0th percentile\n"},
		{"result_validity", "VALID"},
		{"result_samples_per_second", 1234.5},
		{"result_tokens_per_second", 2345.25},
		{"result_inferred_tokens_per_second", 2222.5},
		{"result_completed_samples_per_sec", 99.75},
		{"result_completed_tokens_per_second", 3010.5},
		{"result_inferred_completed_tokens_per_second", 3000.5},
		{"result_scheduled_samples_per_sec", 100.0},
		{"early_stopping_latency_ss", 1535126},
		{"early_stopping_latency_ms", 12400000},
		{"result_90.00_percentile_latency_ns", 1500000},
		{"result_99.00_percentile_latency_ns", 2000000},
		{"result_mean_latency_ns", 1400000},
		{"result_mean_query_latency_ns", 11000000},
		{"result_99.00_percentile_per_query_latency_ns", 13000000},
		{"result_qps_without_loadgen_overhead", 712.5},
		{"result_first_token_99.00_percentile_latency_ns", 120000000},
		{"result_time_per_output_token_99.00_percentile_ns", 9000000},
	}
	return e
}

func (tr *tree) accEntries(model, folder string) [][2]any {
	sc := folder
	if sc == "Interactive" {
		sc = "Server"
	}
	n := tr.round.DatasetSize[model]
	if a, ok := tr.round.AccuracySampleCount[model]; ok {
		n = a.All
		if a.ByScenario != nil {
			n = a.ByScenario[folder]
		}
	}
	return [][2]any{
		{"loadgen_version", "6.0.17 @ mlperf-go"},
		{"effective_scenario", sc},
		{"effective_test_mode", "AccuracyOnly"},
		{"qsl_reported_total_count", n},
		{"effective_accuracy_sample_count", n},
	}
}

// accuracyLines prints each target metric as its script does, just above
// the target (and within an upper limit).
func accuracyLines(t accuracy.Target) string {
	var b strings.Builder
	for _, bd := range t.Bounds() {
		v := bd.Min + math.Max(math.Abs(bd.Min)*0.001, 0.001)
		if bd.HasMax && (!bd.HasMin || v > bd.Max) {
			v = bd.Max
			if bd.HasMin {
				v = (bd.Min + bd.Max) / 2
			}
		}
		s := strconv.FormatFloat(v, 'f', 4, 64)
		b.WriteString(metricLine(bd.Metric, s) + "\n")
	}
	return b.String()
}

// metricLine is a line the checker's pattern of metric reads value from.
func metricLine(metric, v string) string {
	switch metric {
	case "acc":
		return "accuracy=" + v + "%, good=1, total=1"
	case "mAP":
		return "mAP=" + v + "%"
	case "F1":
		return `{"exact_match": 80.0, "f1": ` + v + `}`
	case "AUC":
		return "AUC=" + v + "%"
	case "DICE":
		return "Accuracy: mean = " + v + ", kidney = 0.9, tumor = 0.8"
	case "ACCURACY":
		return "Word Error Rate: 2.0%, accuracy=" + v + "%"
	case "F1_HIERARCHICAL":
		return `{"f1": ` + v + `}`
	case "E2E_ACCURACY":
		return "Accuracy: " + v
	case "DLRM_NE":
		return "metric/lifetime_ne/rating: " + v
	case "DLRM_ACC":
		return "metric/lifetime_accuracy/rating: " + v
	case "DLRM_AUC":
		return "metric/lifetime_gauc/rating: " + v
	}
	key := map[string]string{"ROUGE1": "rouge1", "ROUGE2": "rouge2", "ROUGEL": "rougeL", "ROUGELSUM": "rougeLsum",
		"GEN_LEN": "gen_len", "TOKENS_PER_SAMPLE": "tokens_per_sample", "CLIP_SCORE": "CLIP_SCORE", "FID_SCORE": "FID_SCORE",
		"gsm8k_accuracy": "gsm8k", "mbxp_accuracy": "mbxp", "exact_match": "exact_match", "vbench_score": "vbench_score"}[metric]
	return "{'" + key + "': " + v + "}"
}

const testHash = "hash=0c7cdca23b2eaad05f07c63161c741609a847b8a87a32accee995ec9cf546856\n"

// writeTree writes spec under root.
func writeTree(t testing.TB, root string, spec treeSpec) *tree {
	t.Helper()
	if spec.submitter == "" {
		spec.submitter = "GoTest"
	}
	if spec.division == "" {
		spec.division = "closed"
	}
	r, err := LookupRound(spec.round)
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{t: t, root: root, spec: spec, round: r}
	tr.write(filepath.Join(tr.src(), "README.md"), "# sources\n")
	for _, sys := range spec.systems {
		desc := map[string]any{}
		for _, k := range systemRequired {
			desc[k] = "x"
		}
		for k, v := range map[string]any{"division": spec.division, "submitter": spec.submitter, "status": "available",
			"system_name": sys.name + " box", "system_type": sys.typ, "number_of_nodes": "1", "accelerators_per_node": "0",
			"host_processors_per_node": "1", "host_processor_core_count": "2", "hw_notes": "", "sw_notes": ""} {
			desc[k] = v
		}
		if spec.division == "network" {
			desc["is_network"] = "true"
			for _, k := range systemNetwork[1:] {
				desc[k] = "x"
			}
		}
		tr.writeJSON(tr.names(sys.name, "", "").format(r.Layout.System), desc)
		for _, b := range sys.benches {
			for _, sc := range b.scenarios {
				tr.writeScenario(sys.name, b, sc)
			}
		}
	}
	return tr
}

func (tr *tree) writeScenario(system string, b benchSpec, sc string) {
	r := tr.round
	dir := tr.scen(system, b.folder, sc)
	meas := tr.meas(system, b.folder, sc)
	measJSON := filepath.Join(meas, "measurements.json")
	if strings.Contains(r.Layout.Compliance, "/compliance/") { // the v5.x layout
		measJSON = filepath.Join(meas, system+"_"+sc+".json")
	}
	tr.writeJSON(measJSON, map[string]string{"input_data_types": "fp32", "retraining": "no", "starting_weights_filename": "model.onnx",
		"weight_data_types": "fp32", "weight_transformations": "none"})
	tr.write(filepath.Join(meas, "README.md"), "# "+b.folder+" "+sc+"\n")
	if b.endpoints {
		tr.writeEndpoints(dir, b.model, sc)
		return
	}
	tr.write(filepath.Join(meas, "user.conf"), "*."+sc+".target_qps = 100\n")
	perf := mlLog(tr.perfEntries(b.model, sc))
	tr.write(filepath.Join(dir, "performance/run_1/mlperf_log_detail.txt"), perf)
	tr.write(filepath.Join(dir, "performance/run_1/mlperf_log_summary.txt"), "Result is : VALID\n")
	tr.write(filepath.Join(dir, "accuracy/mlperf_log_detail.txt"), mlLog(tr.accEntries(b.model, sc)))
	tr.write(filepath.Join(dir, "accuracy/mlperf_log_summary.txt"), "\n")
	tr.write(filepath.Join(dir, "accuracy/mlperf_log_accuracy.json"), "[\n]\n")
	target, _ := r.Targets(b.model, sc)
	tr.write(filepath.Join(dir, "accuracy/accuracy.txt"), accuracyLines(target)+"\n"+testHash)
	for folder, stems := range r.ExtraAccuracyFiles[b.model] {
		for _, s := range stems {
			ext := ".png"
			if folder == "videos" {
				ext = ".mp4"
			}
			tr.write(filepath.Join(dir, "accuracy", folder, s+ext), "x")
		}
		tr.write(filepath.Join(dir, "accuracy", folder, "captions.txt"), "a caption\n")
	}
	comp := tr.comp(system, b.folder, sc)
	for _, test := range r.Compliance(b.model) {
		d := filepath.Join(comp, test)
		switch test {
		case "TEST01", "TEST04":
			if test == "TEST01" {
				tr.write(filepath.Join(d, "verify_accuracy.txt"), "num_perf_log_data_mismatch = 0\nnum_missing_qsl_idxs = 0\nTEST PASS\n\n")
				tr.write(filepath.Join(d, "accuracy/mlperf_log_accuracy.json"), "[\n]\n")
			}
			tr.write(filepath.Join(d, "verify_performance.txt"), "Verifying performance.\nreference score = 1234.5\ntest score = 1230.0\nTEST PASS\n")
			tr.write(filepath.Join(d, "performance/run_1/mlperf_log_detail.txt"), perf)
			tr.write(filepath.Join(d, "performance/run_1/mlperf_log_summary.txt"), "Result is : VALID\n")
		case "TEST06":
			tr.write(filepath.Join(d, "verify_accuracy.txt"), "First token check pass: True\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n")
		case "TEST07", "TEST08":
			tr.write(filepath.Join(d, "verify_accuracy.txt"), "TEST PASS\n")
		case "TEST09":
			tr.write(filepath.Join(d, "verify_output_len.txt"), "TEST PASS\n")
		}
	}
}

// writeEndpoints writes an endpoints run's files (mlcommons/endpoints:
// config.yaml, performance/result_summary.json,
// accuracy/accuracy_results.json, audit/).
func (tr *tree) writeEndpoints(dir, model, sc string) {
	r := tr.round
	typ := "offline"
	if sc == "Server" || sc == "Interactive" {
		typ = "online"
	}
	tr.write(filepath.Join(dir, "config.yaml"), fmt.Sprintf(`name: "%s-%s"
version: "1.0"
type: "%s"
model_params:
  streaming: true
settings:
  runtime:
    min_duration_ms: 600000
    max_duration_ms: 3600000
    scheduler_random_seed: %d
    dataloader_random_seed: %d
    n_samples_to_issue: 13368
  load_pattern:
    type: "%s"
    target_qps: 10.0
`, model, sc, typ, r.Seeds.Schedule, r.Seeds.SampleIndex, map[string]string{"offline": "max_throughput", "online": "poisson"}[typ]))
	es := func(p99 int) map[string]any {
		return map[string]any{"min": 1000, "max": p99 * 2, "avg": p99 / 2, "early_stopping_percentiles": map[string]any{"50.0": p99 / 3, "90.0": p99 / 2, "99.0": p99, "99.9": p99 + 1}}
	}
	tr.writeJSON(filepath.Join(dir, "performance/result_summary.json"), map[string]any{
		"version": "0.1.0", "git_sha": "ea332753", "test_started_at": 0, "n_samples_issued": 13368, "n_samples_completed": 13368,
		"n_samples_failed": 0, "duration_ns": 700000000000, "state": "complete", "complete": true,
		"ttft": es(150000000), "tpot": es(9000000), "latency": es(2000000000),
		"output_sequence_lengths": map[string]any{"avg": 1200.5, "min": 3, "max": 2048},
		"qps":                     19.097, "tps": 22926.3,
	})
	tr.writeJSON(filepath.Join(dir, "accuracy/accuracy_results.json"), map[string]any{
		"accuracy_scores": []any{map[string]any{"dataset_type": "accuracy", "dataset": "cnn_dailymail", "total_samples": r.DatasetSize[model], "score": map[string]any{"rouge1": 39.5}}},
	})
	for _, test := range r.Compliance(model) {
		if name, ok := endpointsComplianceMapping[test]; ok {
			tr.writeJSON(filepath.Join(dir, "audit", "audit_"+name+".json"), map[string]any{"test": name, "passed": true})
		}
	}
}

// Edits of a written tree, each one fault.

// setKey sets the first value of a detail log's key (adding the key
// when it is not there).
func (tr *tree) setKey(rel, key string, value any) {
	tr.t.Helper()
	data, err := os.ReadFile(tr.abs(rel))
	if err != nil {
		tr.t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	prefix := fmt.Sprintf(":::MLLOG {\"key\": %q, \"value\": ", key)
	v, _ := json.Marshal(value)
	if s, ok := value.(string); ok && strings.HasPrefix(s, "raw:") {
		v = []byte(strings.TrimPrefix(s, "raw:"))
	}
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			rest := l[len(prefix):]
			end := strings.Index(rest, ", \"time_ms\"")
			lines[i] = prefix + string(v) + rest[end:]
			tr.write(rel, strings.Join(lines, "\n"))
			return
		}
	}
	tr.write(rel, string(data)+mlLog([][2]any{{key, json.RawMessage(v)}}))
}

// delKey removes a detail log's key.
func (tr *tree) delKey(rel, key string) {
	tr.t.Helper()
	data, err := os.ReadFile(tr.abs(rel))
	if err != nil {
		tr.t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, fmt.Sprintf(":::MLLOG {\"key\": %q,", key)) {
			out = append(out, l)
		}
	}
	tr.write(rel, strings.Join(out, "\n"))
}

func (tr *tree) rm(rel string) {
	tr.t.Helper()
	if err := os.RemoveAll(tr.abs(rel)); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) mv(from, to string) {
	tr.t.Helper()
	os.MkdirAll(filepath.Dir(tr.abs(to)), 0o755)
	if err := os.Rename(tr.abs(from), tr.abs(to)); err != nil {
		tr.t.Fatal(err)
	}
}

// editJSON sets a top-level field of a JSON object file (nil deletes it).
func (tr *tree) editJSON(rel, key string, value any) {
	tr.t.Helper()
	data, err := os.ReadFile(tr.abs(rel))
	if err != nil {
		tr.t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		tr.t.Fatal(err)
	}
	if value == nil {
		delete(m, key)
	} else {
		m[key] = value
	}
	tr.writeJSON(rel, m)
}

// replace substitutes old with new in a file, which must hold old.
func (tr *tree) replace(rel, old, new string) {
	tr.t.Helper()
	data, err := os.ReadFile(tr.abs(rel))
	if err != nil {
		tr.t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		tr.t.Fatalf("%s lacks %q", rel, old)
	}
	tr.write(rel, strings.ReplaceAll(string(data), old, new))
}

// systemFile is a system's description, relative to the root.
func (tr *tree) systemFile(system string) string {
	return tr.names(system, "", "").format(tr.round.Layout.System)
}
