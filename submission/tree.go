// Package submission writes an MLPerf Inference results tree in the v6.x
// layout the MLCommons submission checker reads
// (<division>/<submitter>/results/<system>/<benchmark>/<Scenario>/...,
// systems/<system>.json, src/), from run folders of this suite: the
// accuracy and performance runs, the compliance tests verified as
// run_verification.py does, the accuracy logs hashed and truncated as
// tools/submission/truncate_accuracy_log.py does, measurements.json,
// user.conf and a README.md with the command line that reproduces each
// scenario.
package submission

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/mlperf-go/inference/internal/detaillog"

	"github.com/mlperf-go/inference/compliance"
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
func Version() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
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

// Scenario is one scenario's run folders to assemble.
type Scenario struct {
	Name string // folder name: SingleStream, MultiStream, Offline, Server or Interactive
	// Performance and Accuracy are LoadGen log folders; Accuracy also
	// holds accuracy.txt.
	Performance, Accuracy string
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
	// Log receives run_verification.py's console lines.
	Log io.Writer
	// Score, when set, scores accuracy logs for TEST01's Part III (the
	// baseline and compliance scores) when its accuracy check fails.
	Score compliance.Scorer
}

// Write writes the tree and returns the scenario folders it made.
func (t *Tree) Write() ([]string, error) {
	if t.Log == nil {
		t.Log = io.Discard
	}
	root := filepath.Join(t.Out, t.Division, t.Submitter)
	for _, d := range []string{"systems", "src", "documentation"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return nil, fmt.Errorf("submission: %w", err)
		}
	}
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
	if err := writeJSON(filepath.Join(root, "systems", t.System+".json"), sys); err != nil {
		return nil, err
	}
	src := "# Source\n\nThe results were produced with " + Version() + ",\nhttps://github.com/mlperf-go/inference (one Go binary, `mlperf`).\nEach scenario's README.md gives the command line that reproduces it.\n"
	if err := os.WriteFile(filepath.Join(root, "src", "README.md"), []byte(src), 0o644); err != nil {
		return nil, fmt.Errorf("submission: %w", err)
	}
	var dirs []string
	for _, sc := range t.Scenarios {
		dir := filepath.Join(root, "results", t.System, t.Benchmark, sc.Name)
		if err := t.writeScenario(dir, sc); err != nil {
			return dirs, err
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
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

func copyFiles(src, dst string, names ...string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return fmt.Errorf("submission: %s: %w", src, err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			return fmt.Errorf("submission: %w", err)
		}
	}
	return nil
}

func (t *Tree) writeScenario(dir string, sc Scenario) error {
	perf, acc := logFolder(sc.Performance), logFolder(sc.Accuracy)
	if err := copyFiles(perf, filepath.Join(dir, "performance", "run_1"), "mlperf_log_detail.txt", "mlperf_log_summary.txt"); err != nil {
		return err
	}
	if err := copyFiles(acc, filepath.Join(dir, "accuracy"), "mlperf_log_detail.txt", "mlperf_log_summary.txt", "mlperf_log_accuracy.json", "accuracy.txt"); err != nil {
		return fmt.Errorf("%w (the accuracy folder needs the accuracy run's logs and accuracy.txt)", err)
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
	if err := os.WriteFile(filepath.Join(dir, "user.conf"), conf, 0o644); err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, "measurements.json"), t.Measurements); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s %s\n\nProduced with %s.\n\nTo reproduce:\n\n```sh\n%s\n```\n", t.Benchmark, sc.Name, Version(), sc.Command)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return fmt.Errorf("submission: %w", err)
	}
	for _, test := range compliance.Tests {
		src, ok := sc.Compliance[test]
		if !ok {
			continue
		}
		if err := t.writeCompliance(dir, test, src, sc.Name); err != nil {
			return err
		}
	}
	// Last, as truncate_accuracy_log.py runs after run_verification.py:
	// TEST01 reads the whole accuracy log.
	return TruncateAccuracy(filepath.Join(dir, "accuracy"))
}

// writeCompliance verifies a raw compliance run into dir/TEST0X, or copies
// an already verified folder.
func (t *Tree) writeCompliance(dir, test, src, scenario string) error {
	verified := false
	for _, f := range []string{"verify_accuracy.txt", "verify_performance.txt"} {
		if _, err := os.Stat(filepath.Join(src, f)); err == nil {
			verified = true
		}
	}
	if verified {
		if err := copyTree(src, filepath.Join(dir, test)); err != nil {
			return err
		}
	} else {
		res, err := compliance.Verify(t.Log, test, dir, logFolder(src), dir, t.TEST01DType, scenario, 2)
		if err != nil {
			return err
		}
		if test == "TEST01" && !res.AccuracyPass && t.Score != nil {
			if err := compliance.Fallback(filepath.Join(dir, test), filepath.Join(dir, "accuracy", "mlperf_log_accuracy.json"), t.Score); err != nil {
				return err
			}
		}
	}
	if test == "TEST01" {
		// truncate_accuracy_log.py hashes and truncates TEST01's log too.
		if _, err := os.Stat(filepath.Join(dir, test, "accuracy", "mlperf_log_accuracy.json")); err == nil {
			return TruncateAccuracy(filepath.Join(dir, test, "accuracy"))
		}
	}
	return nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
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

// ErrNoRuns is returned when --from holds no run folders for a scenario.
var ErrNoRuns = errors.New("submission: no run folders")
