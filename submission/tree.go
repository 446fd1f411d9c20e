// Package submission writes an MLPerf Inference results tree in the layout
// of a submission round as the MLCommons submission checker reads it
// (v6.x: <division>/<submitter>/results/<system>/<benchmark>/<Scenario>/
// with measurements.json and the compliance tests inside, src/; v5.x:
// measurements/ and compliance/ beside results/, code/), from run folders
// of this suite or of mlcommons/endpoints: the accuracy and performance
// runs, the compliance tests verified as run_verification.py does, the
// accuracy logs hashed and truncated as
// tools/submission/truncate_accuracy_log.py does, measurements.json,
// user.conf and a README.md with the command line that reproduces each
// scenario. It works in three steps a library caller can reuse: NewPlan
// checks what is asked against the round's tables, Plan.Run runs (or
// collects) the runs, Plan.Write writes the tree.
package submission

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/internal/detaillog"
	"github.com/mlperf-go/inference/loadgen"
)

// viewable is how much of an accuracy log's start and end truncation keeps
// (truncate_accuracy_log.py VIEWABLE_SIZE).
const viewable = 4096

var hashRe = regexp.MustCompile(`(?m)^hash=([\w\d]+)$`)

// TruncateAccuracy does what truncate_accuracy_log.py does to one
// accuracy folder: unless accuracy.txt already has a hash= line and the
// log is under 10 KiB, it appends "\nhash=<sha256 of the log>\n" to
// accuracy.txt (creating it if missing) and truncates
// mlperf_log_accuracy.json to its first and last 4096 bytes around
// "\n\n...\n\n" (logs under 4096 bytes stay whole).
func TruncateAccuracy(dir string) error {
	logPath := filepath.Join(dir, "mlperf_log_accuracy.json")
	txtPath := filepath.Join(dir, "accuracy.txt")
	data, err := os.ReadFile(logPath)
	if err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	txt, _ := os.ReadFile(txtPath)
	if hashRe.Match(txt) && len(data) < 10240 {
		return nil
	}
	sum := sha256.Sum256(data)
	f, err := os.OpenFile(txtPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	fmt.Fprintf(f, "\nhash=%s\n", hex.EncodeToString(sum[:]))
	if err := f.Close(); err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	if len(data) < viewable {
		return nil
	}
	out := make([]byte, 0, 2*viewable+7)
	out = append(out, data[:viewable]...)
	out = append(out, "\n\n...\n\n"...)
	out = append(out, data[len(data)-viewable:]...)
	return os.WriteFile(logPath, out, 0o644)
}

// Version is this program's version for README.md: the module version or
// VCS revision of the build, and the LoadGen version its logs reproduce.
func Version() string { return versionOf(debug.ReadBuildInfo()) }

// versionOf is Version for the build information bi (ok false: none).
func versionOf(bi *debug.BuildInfo, ok bool) string {
	v := "devel"
	if ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return "mlperf-go " + v + ", LoadGen " + loadgen.Version
}

// Measurements is measurements.json: what the checker requires of the
// model's provenance.
type Measurements struct {
	StartingWeightsFilename string `json:"starting_weights_filename"`
	Retraining              string `json:"retraining"`
	InputDataTypes          string `json:"input_data_types"`
	WeightDataTypes         string `json:"weight_data_types"`
	WeightTransformations   string `json:"weight_transformations"`
}

// DefaultMeasurements are the measurements.json values of a model run as
// published: fp32 weights and inputs, not retrained, not transformed.
var DefaultMeasurements = Measurements{Retraining: "no", InputDataTypes: "fp32", WeightDataTypes: "fp32", WeightTransformations: "none"}

// Scenario is one scenario's run folders to assemble.
type Scenario struct {
	Name string // folder name: SingleStream, MultiStream, Offline, Server or Interactive
	// Performance and Accuracy are LoadGen log folders; Accuracy also
	// holds accuracy.txt.
	Performance, Accuracy string
	// Endpoints, when set, is an endpoints run's folder (mlcommons/endpoints:
	// config.yaml, performance/result_summary.json,
	// accuracy/accuracy_results.json, audit/), packaged instead of
	// LoadGen logs.
	Endpoints string
	// Compliance maps a test (TEST01, ...) to its run's log folder, or to
	// a folder already verified (holding verify_*.txt).
	Compliance map[string]string
	// UserConf is the user.conf of the runs ("": one is written that
	// records the effective settings of the performance run).
	UserConf string
	// Command is the command line that reproduces the scenario, for
	// README.md.
	Command string
}

// Tree describes the results tree to write.
type Tree struct {
	Out, Division, Submitter, System string
	// Round decides the layout (v5.x: measurements/ and compliance/
	// beside results/, code/; v6.x: all under results/, src/); nil is the
	// newest round.
	Round *check.Round
	// SystemJSON is the system description (its division and submitter
	// are set from the fields above).
	SystemJSON map[string]any
	// Benchmark is the checker's model id (e.g. resnet, llama2-70b-99.9).
	Benchmark    string
	Measurements Measurements
	Scenarios    []Scenario
	// TEST01DType is the response element type TEST01 compares (byte
	// when empty).
	TEST01DType string
	// TEST06DType is the element type TEST06 reads responses as (int32
	// when empty) and EOS the end-of-sequence id it counts (2, the
	// script's default, when 0): run_verification.py's -d and -e.
	TEST06DType string
	EOS         int64
	// Log receives run_verification.py's console lines.
	Log io.Writer
	// Score, when set, scores accuracy logs for TEST01's Part III (the
	// baseline and compliance scores) when its accuracy check fails.
	Score compliance.Scorer
	// Work is a folder for verifying compliance runs ("": a temporary
	// one).
	Work string

	w *dirWriter
}

// names are the layout's names of one scenario.
func (t *Tree) format(template, scenario string) string {
	return strings.NewReplacer("{division}", t.Division, "{submitter}", t.Submitter, "{system}", t.System,
		"{benchmark}", t.Benchmark, "{scenario}", scenario).Replace(template)
}

// Write writes the tree and returns the scenario folders it made. Every
// name must be one clean path component, and nothing is written outside
// Out.
func (t *Tree) Write() ([]string, error) {
	if t.Log == nil {
		t.Log = io.Discard
	}
	if t.Round == nil {
		r, err := check.LookupRound("")
		if err != nil {
			return nil, err
		}
		t.Round = r
	}
	for _, n := range []struct{ what, name string }{{"division", t.Division}, {"submitter", t.Submitter}, {"system name", t.System}, {"benchmark", t.Benchmark}} {
		if err := checkName(n.what, n.name); err != nil {
			return nil, err
		}
	}
	for _, sc := range t.Scenarios {
		if err := checkName("scenario", sc.Name); err != nil {
			return nil, err
		}
	}
	w, err := newDirWriter(t.Out)
	if err != nil {
		return nil, err
	}
	t.w = w
	l := t.Round.Layout
	sys := map[string]any{}
	for k, v := range t.SystemJSON {
		sys[k] = v
	}
	sys["division"], sys["submitter"] = t.Division, t.Submitter
	if t.Division == "network" {
		// The checker requires a Network-division system to say so
		// (system_desc is_network).
		sys["is_network"] = "True"
	}
	if err := t.writeJSON(t.format(l.System, ""), sys); err != nil {
		return nil, err
	}
	if _, err := w.mkdir(filepath.Join(t.Division, t.Submitter, "documentation")); err != nil {
		return nil, err
	}
	src := "# Source\n\nThe results were produced with " + Version() + ",\nhttps://github.com/mlperf-go/inference (one Go binary, `mlperf`).\nEach scenario's README.md gives the command line that reproduces it.\n"
	if err := w.writeFile(filepath.Join(t.format(l.Src, ""), "README.md"), []byte(src)); err != nil {
		return nil, err
	}
	var dirs []string
	for _, sc := range t.Scenarios {
		if err := t.writeScenario(sc); err != nil {
			return dirs, err
		}
		dirs = append(dirs, filepath.Join(t.Out, t.format(l.EndpointsScenarioDir, sc.Name)))
	}
	return dirs, nil
}

func (t *Tree) writeJSON(rel string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	return t.w.writeFile(rel, append(b, '\n'))
}

// logFolder returns dir, or dir/run_1 when the logs are there.
func logFolder(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "mlperf_log_detail.txt")); err != nil {
		if _, err := os.Stat(filepath.Join(dir, "run_1", "mlperf_log_detail.txt")); err == nil {
			return filepath.Join(dir, "run_1")
		}
	}
	return dir
}

// measurementsFile is where the round's layout wants measurements.json:
// beside user.conf in the scenario folder (v6.x), or as
// <system>_<scenario>.json in measurements/<system>/<benchmark>/<scenario>/
// (v5.x).
func (t *Tree) measurementsFile(scenario string) string {
	p := t.format(t.Round.Layout.Measurements, scenario)
	if strings.HasSuffix(p, "{file}") {
		p = strings.TrimSuffix(p, "{file}") + t.System + "_" + scenario + ".json"
	}
	return p
}

func (t *Tree) writeScenario(sc Scenario) error {
	l := t.Round.Layout
	dir := strings.TrimSuffix(t.format(l.EndpointsScenarioDir, sc.Name), "/")
	meas := t.measurementsFile(sc.Name)
	measDir := filepath.Dir(meas)
	if err := t.writeJSON(meas, t.Measurements); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s %s\n\nProduced with %s.\n\nTo reproduce:\n\n```sh\n%s\n```\n", t.Benchmark, sc.Name, Version(), sc.Command)
	if err := t.w.writeFile(filepath.Join(measDir, "README.md"), []byte(readme)); err != nil {
		return err
	}
	if sc.Endpoints != "" {
		return t.writeEndpoints(dir, sc)
	}
	perf, acc := logFolder(sc.Performance), logFolder(sc.Accuracy)
	perfRel, accRel := filepath.Dir(t.format(l.PerformanceLog, sc.Name)), filepath.Dir(t.format(l.AccuracyLog, sc.Name))
	if err := t.w.copyFiles(perf, perfRel, "mlperf_log_detail.txt", "mlperf_log_summary.txt"); err != nil {
		return err
	}
	if err := t.w.copyFiles(acc, accRel, "mlperf_log_detail.txt", "mlperf_log_summary.txt", "mlperf_log_accuracy.json", "accuracy.txt"); err != nil {
		return fmt.Errorf("%w (the accuracy folder needs the accuracy run's logs and accuracy.txt)", err)
	}
	// The review files some rounds want beside the accuracy logs
	// (REQUIRED_ACC_BENCHMARK: sdxl's images/, wan's videos/), as the
	// accuracy run saved them.
	for _, extra := range []string{"images", "videos"} {
		if st, err := os.Stat(filepath.Join(sc.Accuracy, extra)); err == nil && st.IsDir() {
			if err := t.w.copyTree(filepath.Join(sc.Accuracy, extra), filepath.Join(accRel, extra)); err != nil {
				return err
			}
		}
	}
	conf := []byte{}
	if sc.UserConf != "" {
		b, err := os.ReadFile(sc.UserConf)
		if err != nil {
			return fmt.Errorf("submission: user.conf: %w", err)
		}
		conf = b
	}
	if len(strings.TrimSpace(string(conf))) == 0 {
		conf = []byte("# No user.conf was given to the runs: the settings were mlperf.conf's with these effective values\n" + effectiveConf(filepath.Join(perf, "mlperf_log_detail.txt"), t.Benchmark, sc.Name))
	}
	if err := t.w.writeFile(filepath.Join(measDir, "user.conf"), conf); err != nil {
		return err
	}
	comp := strings.TrimSuffix(t.format(l.Compliance, sc.Name), "/")
	for _, test := range compliance.Tests {
		src, ok := sc.Compliance[test]
		if !ok {
			continue
		}
		if err := t.writeCompliance(dir, comp, test, src, sc.Name); err != nil {
			return err
		}
	}
	// Last, as truncate_accuracy_log.py runs after run_verification.py:
	// TEST01 reads the whole accuracy log.
	return TruncateAccuracy(filepath.Join(t.Out, accRel))
}

// writeEndpoints packages an endpoints run's files: config.yaml,
// performance/result_summary.json, accuracy/accuracy_results.json and
// the audit/ files of its compliance tests (user.conf is not required of
// endpoints runs).
func (t *Tree) writeEndpoints(dir string, sc Scenario) error {
	src := sc.Endpoints
	conf := "config.yaml"
	if _, err := os.Stat(filepath.Join(src, conf)); err != nil {
		conf = "config.yml"
	}
	for _, f := range []string{conf, "performance/result_summary.json", "accuracy/accuracy_results.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return fmt.Errorf("submission: endpoints run %s: %w (an endpoints run folder holds config.yaml, performance/result_summary.json and accuracy/accuracy_results.json)", src, err)
		}
		if err := t.w.writeFile(filepath.Join(dir, f), b); err != nil {
			return err
		}
	}
	for _, f := range []string{"performance/report.txt", "accuracy/report.txt"} {
		if b, err := os.ReadFile(filepath.Join(src, f)); err == nil {
			if err := t.w.writeFile(filepath.Join(dir, f), b); err != nil {
				return err
			}
		}
	}
	if st, err := os.Stat(filepath.Join(src, "audit")); err == nil && st.IsDir() {
		return t.w.copyTree(filepath.Join(src, "audit"), filepath.Join(dir, "audit"))
	}
	return nil
}

// writeCompliance verifies a raw compliance run against the scenario's
// results (dir) into a staging folder and copies TEST0X into the
// compliance folder (comp), or copies an already verified folder.
func (t *Tree) writeCompliance(dir, comp, test, src, scenario string) error {
	verified := false
	for _, f := range []string{"verify_accuracy.txt", "verify_performance.txt", "verify_output_len.txt"} {
		if _, err := os.Stat(filepath.Join(src, f)); err == nil {
			verified = true
		}
	}
	target := filepath.Join(comp, test)
	if verified {
		if err := t.w.copyTree(src, target); err != nil {
			return err
		}
	} else {
		stage, err := os.MkdirTemp(t.Work, "verify-")
		if err != nil {
			return fmt.Errorf("submission: %w", err)
		}
		defer os.RemoveAll(stage)
		results := filepath.Join(t.Out, dir)
		dtype, eos := t.TEST01DType, compliance.TEST06DefaultEOS
		if test == "TEST06" {
			dtype = t.TEST06DType
			if t.EOS != 0 {
				eos = t.EOS
			}
		}
		res, err := compliance.Verify(t.Log, test, results, logFolder(src), stage, dtype, scenario, eos)
		if err != nil {
			return err
		}
		if test == "TEST01" && !res.AccuracyPass && t.Score != nil {
			if err := compliance.Fallback(filepath.Join(stage, test), filepath.Join(results, "accuracy", "mlperf_log_accuracy.json"), t.Score); err != nil {
				return err
			}
		}
		if err := t.w.copyTree(filepath.Join(stage, test), target); err != nil {
			return err
		}
	}
	if test == "TEST01" || test == "TEST07" || test == "TEST09" {
		// truncate_accuracy_log.py hashes and truncates TEST01's log too, and
		// TEST07's and TEST09's, writing them an accuracy.txt of the hash.
		acc := filepath.Join(t.Out, target, "accuracy")
		if _, err := os.Stat(filepath.Join(acc, "mlperf_log_accuracy.json")); err == nil {
			if test != "TEST01" {
				return truncateTestLog(acc)
			}
			return TruncateAccuracy(acc)
		}
	}
	return nil
}

// truncateTestLog is truncate_accuracy_log.py on a TEST07 or TEST09
// accuracy folder: accuracy.txt written anew as the log's hash, the log
// truncated as TruncateAccuracy truncates it.
func truncateTestLog(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "accuracy.txt"), nil, 0o644); err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	if err := TruncateAccuracy(dir); err != nil {
		return err
	}
	// TruncateAccuracy appends "\nhash=..."; the script writes "hash=...\n"
	txt := filepath.Join(dir, "accuracy.txt")
	b, err := os.ReadFile(txt)
	if err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	return os.WriteFile(txt, []byte(strings.TrimPrefix(string(b), "\n")), 0o644)
}

// effectiveConf writes user.conf lines that record a performance run's
// effective settings (for runs made without a user.conf).
func effectiveConf(detail, model, scenario string) string {
	l, err := readValues(detail)
	if err != nil {
		return ""
	}
	var b strings.Builder
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(&b, "*.%s.%s = %s\n", scenario, key, value)
		}
	}
	ms := func(k string) string {
		v, ok := l[k]
		if !ok {
			return ""
		}
		var f float64
		if json.Unmarshal(v, &f) != nil {
			return ""
		}
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", f/1e6), "0"), ".")
	}
	raw := func(k string) string { return string(l[k]) }
	switch scenario {
	case "SingleStream", "MultiStream":
		line("target_latency", ms("requested_"+map[string]string{"SingleStream": "single", "MultiStream": "multi"}[scenario]+"_stream_expected_latency_ns"))
	case "Server", "Interactive":
		line("target_qps", raw("effective_target_qps"))
	case "Offline":
		line("target_qps", raw("effective_target_qps"))
	}
	return b.String()
}

func readValues(path string) (map[string]json.RawMessage, error) {
	l, err := detaillog.ReadFile(path, false)
	if err != nil {
		return nil, err
	}
	return l.Values, nil
}
