package compliance

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/detaillog"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/llm/llmbench"
)

// Result is the outcome of one verification, as run_verification.py
// prints it at the end.
type Result struct {
	Test             string
	AccuracyPass     bool // TEST01, TEST06
	PerformancePass  bool // TEST01, TEST04
	AccuracyChecked  bool
	PerformanceCheck bool
}

// Pass reports whether every check of the test passed.
func (r Result) Pass() bool {
	return (!r.AccuracyChecked || r.AccuracyPass) && (!r.PerformanceCheck || r.PerformancePass)
}

// accEntry is one accuracy-log entry as verify_accuracy.py reads it.
type accEntry struct {
	QSLIdx uint64 `json:"qsl_idx"`
	Data   string `json:"data"`
}

func readAccLog(path string) ([]accEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []accEntry
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("compliance: %s: %w", path, err)
	}
	return out, nil
}

// first decodes the first element of a hex response as dtype (byte is
// numpy's int8); ok is false for an empty response. Partial elements are
// an error, as np.frombuffer raises.
func first(hexData, dtype string) (v float64, ok bool, err error) {
	b, err := hex.DecodeString(hexData)
	if err != nil {
		return 0, false, err
	}
	size := map[string]int{"byte": 1, "float32": 4, "int32": 4, "int64": 8}[dtype]
	if len(b)%size != 0 {
		return 0, false, fmt.Errorf("ValueError: buffer size must be a multiple of element size")
	}
	if len(b) == 0 {
		return 0, false, nil
	}
	switch dtype {
	case "byte":
		return float64(int8(b[0])), true, nil
	case "float32":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), true, nil
	case "int32":
		return float64(int32(binary.LittleEndian.Uint32(b))), true, nil
	default:
		return float64(int64(binary.LittleEndian.Uint64(b))), true, nil
	}
}

// VerifyAccuracyTEST01 is compliance/TEST01/verify_accuracy.py (JSON
// mode): it compares the first element (as dtype) of each response of the
// compliance run's accuracy log with the accuracy run's response for the
// same qsl_idx, writes the script's lines to w and reports TEST PASS.
func VerifyAccuracyTEST01(w io.Writer, accLog, perfLog, dtype string) (bool, error) {
	if dtype == "" {
		dtype = "byte"
	}
	if _, ok := map[string]bool{"byte": true, "float32": true, "int32": true, "int64": true}[dtype]; !ok {
		return false, fmt.Errorf("compliance: --dtype %q: want byte, float32, int32 or int64", dtype)
	}
	fmt.Fprintln(w, "Verifying accuracy. This might take a while...")
	acc, err := readAccLog(accLog)
	if err != nil {
		return false, err
	}
	perf, err := readAccLog(perfLog)
	if err != nil {
		return false, err
	}
	fmt.Fprintln(w, "Reading accuracy mode results...")
	results := map[uint64]string{}
	var dupKeys, accMismatch, qslMatch, perfMismatch, missing int
	for _, e := range acc {
		if d, ok := results[e.QSLIdx]; ok {
			dupKeys++
			if d != e.Data {
				accMismatch++
			}
		} else {
			results[e.QSLIdx] = e.Data
		}
	}
	fmt.Fprintln(w, "Reading performance mode results...")
	for _, e := range perf {
		pv, pok, err := first(e.Data, dtype)
		if err != nil {
			fmt.Fprintln(w, err)
			return false, nil
		}
		if ref, ok := results[e.QSLIdx]; ok {
			qslMatch++
			av, aok, err := first(ref, dtype)
			if err != nil {
				fmt.Fprintln(w, err)
				return false, nil
			}
			if !aok || !pok {
				if aok != pok {
					perfMismatch++
				}
			} else if av != pv || math.IsNaN(av) {
				perfMismatch++
			}
		} else {
			missing++
		}
		results[e.QSLIdx] = e.Data
	}
	fmt.Fprintf(w, "num_acc_log_entries = %d\n", len(acc))
	fmt.Fprintf(w, "num_acc_log_duplicate_keys = %d\n", dupKeys)
	fmt.Fprintf(w, "num_acc_log_data_mismatch = %d\n", accMismatch)
	fmt.Fprintf(w, "num_perf_log_entries = %d\n", len(perf))
	fmt.Fprintf(w, "num_perf_log_qsl_idx_match = %d\n", qslMatch)
	fmt.Fprintf(w, "num_perf_log_data_mismatch = %d\n", perfMismatch)
	fmt.Fprintf(w, "num_missing_qsl_idxs = %d\n", missing)
	pass := perfMismatch == 0 && qslMatch > 0
	if pass {
		fmt.Fprint(w, "TEST PASS\n\n")
	} else {
		fmt.Fprint(w, "TEST FAIL\n\n")
	}
	return pass, nil
}

// test01Fields are verify_performance.py's (TEST01) score keys.
var test01Fields = map[string]string{
	"Offline":      "result_samples_per_second",
	"SingleStream": "early_stopping_latency_ss",
	"MultiStream":  "early_stopping_latency_ms",
	"Server":       "result_completed_samples_per_sec",
}

// detailLog holds the first value of each key of a detail log, as
// tools/submission/log_parser.py reads it (invalid lines skipped).
type detailLog struct {
	values map[string]json.RawMessage
	errors int
}

func readDetail(path string) (*detailLog, error) {
	l, err := detaillog.ReadFile(path, false)
	if err != nil {
		return nil, err
	}
	return &detailLog{values: l.Values, errors: len(l.Errors)}, nil
}

func (d *detailLog) str(k string) string {
	var s string
	json.Unmarshal(d.values[k], &s)
	return s
}

// VerifyPerformanceTEST01 is compliance/TEST01/verify_performance.py over
// two detail logs: both VALID, same scenario (and Server target latency),
// and the compliance score within ±10% of the reference (±20% for
// SingleStream at or under 200 µs and MultiStream at or under 1.6 ms).
// Where the script crashes (an ERROR in either log makes it reference an
// undefined name) this writes the warning it means instead and goes on;
// the result differs from the script's (which never passes then).
func VerifyPerformanceTEST01(w io.Writer, refPath, testPath string) (bool, error) {
	fmt.Fprintln(w, "Verifying performance.")
	parse := func(path string) (sc string, score float64, target string, ok bool, err error) {
		d, err := readDetail(path)
		if err != nil {
			return "", 0, "", false, err
		}
		fmt.Fprintln(w, logParserLine(path))
		sc = d.str("effective_scenario")
		score, _ = strconv.ParseFloat(string(d.values[test01Fields[sc]]), 64)
		if d.str("result_validity") != "VALID" {
			fmt.Fprintf(w, "TEST FAIL: Invalid results in %s\n", path)
			return sc, score, "", false, nil
		}
		if d.errors > 0 {
			fmt.Fprintf(w, "WARNING: %d ERROR reported in %s\n", d.errors, path)
		}
		return sc, score, string(d.values["effective_target_latency_ns"]), true, nil
	}
	refSc, ref, refTarget, ok, err := parse(refPath)
	if err != nil || !ok {
		return false, err
	}
	testSc, test, testTarget, ok, err := parse(testPath)
	if err != nil || !ok {
		return false, err
	}
	if testSc != refSc {
		fmt.Fprintln(w, "TEST FAIL: Test and reference scenarios do not match!")
		return false, nil
	}
	if refSc == "Server" && testTarget != refTarget {
		fmt.Fprintln(w, "TEST FAIL: Server target latency mismatch")
		return false, nil
	}
	fmt.Fprintf(w, "Reference score = %s\n", pyFloat(ref))
	fmt.Fprintf(w, "Test score = %s\n", pyFloat(test))
	th := 0.10
	if (refSc == "SingleStream" && ref <= 200000) || (refSc == "MultiStream" && ref <= 1600000) {
		th = 0.20
	}
	if ref*(1-th) <= test && test <= ref*(1+th) {
		fmt.Fprintln(w, "TEST PASS")
		return true, nil
	}
	fmt.Fprintln(w, "TEST FAIL: Test score invalid")
	return false, nil
}

var (
	reSS  = regexp.MustCompile(`^.*Early stopping (90th|90.0th|99.9th) percentile estimate`)
	reMS  = regexp.MustCompile(`^.*Early stopping (99th|99.0th) percentile estimate`)
	reErr = regexp.MustCompile(`^\d+ ERROR`)
)

// VerifyPerformanceTEST04 is compliance/TEST04/verify_performance.py over
// two summary logs: the TEST04 score (the same sample repeated) may be at
// most 10% better than the reference (20% for SingleStream and MultiStream
// at or under the script's thresholds). Scores print as the script prints
// them: Server and Offline as the summary's text, SingleStream and
// MultiStream as 1e9/latency.
func VerifyPerformanceTEST04(w io.Writer, refPath, testPath string) (bool, error) {
	fmt.Fprintln(w, "Verifying performance.")
	type summary struct {
		mode, score string
		scoreF      float64
	}
	read := func(path, which string) (*summary, bool, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, err
		}
		defer f.Close()
		s := &summary{score: "0"}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			after := func() string { _, v, _ := strings.Cut(line, ": "); return strings.TrimSpace(v) }
			switch {
			case strings.HasPrefix(line, "Scenario"):
				s.mode = after()
				continue
			case s.mode == "SingleStream" && reSS.MatchString(line), s.mode == "MultiStream" && reMS.MatchString(line):
				lat, _ := strconv.ParseFloat(after(), 64)
				s.scoreF = 1e9 / lat
				s.score = pyFloat(s.scoreF)
				continue
			case s.mode == "Server" && strings.HasPrefix(line, "Completed samples per second"),
				s.mode == "Offline" && strings.HasPrefix(line, "Samples per second"):
				s.score = after()
				s.scoreF, _ = strconv.ParseFloat(s.score, 64)
				continue
			}
			if strings.HasPrefix(line, "Result is") && after() == "INVALID" {
				fmt.Fprintf(w, "TEST FAIL: %s results are invalid\n", which)
				return s, false, nil
			}
			if reErr.MatchString(line) {
				n, _, _ := strings.Cut(line, " ")
				fmt.Fprintf(w, "WARNING: %s ERROR reported in %s results\n", n, strings.ToLower(which))
			}
		}
		return s, true, sc.Err()
	}
	ref, ok, err := read(refPath, "Reference")
	if err != nil || !ok {
		return false, err
	}
	test, ok, err := read(testPath, "Test")
	if err != nil || !ok {
		return false, err
	}
	if test.mode != ref.mode {
		fmt.Fprintln(w, "Test and reference scenarios do not match!")
		return false, nil
	}
	fmt.Fprintf(w, "reference score = %s\n", ref.score)
	fmt.Fprintf(w, "test score = %s\n", test.score)
	th := 0.10
	if (ref.mode == "SingleStream" && ref.scoreF <= 200000) || (ref.mode == "MultiStream" && ref.scoreF <= 1600000) {
		th = 0.20
	}
	if test.scoreF < ref.scoreF*(1+th) {
		fmt.Fprintln(w, "TEST PASS")
		return true, nil
	}
	fmt.Fprintln(w, "TEST FAIL: Test score invalid")
	return false, nil
}

// Verify is run_verification.py of test: results is the submission's
// scenario folder (accuracy/ and performance/run_1/), complianceDir the
// compliance run's log folder, out the folder TEST0X/ is made in. It
// writes verify_accuracy.txt / verify_performance.txt and copies the logs
// as the script does, printing the script's console lines to w. dtype is
// TEST01's --dtype (byte when empty); scenario, eos and TEST06's dtype
// (int32 when empty) are TEST06's -s, -e and -d.
func Verify(w io.Writer, test, results, complianceDir, out, dtype, scenario string, eos int64) (Result, error) {
	test = strings.ToUpper(test)
	res := Result{Test: test}
	dir := filepath.Join(out, test)
	switch test {
	case "TEST01":
		res.AccuracyChecked, res.PerformanceCheck = true, true
		fmt.Fprintln(w, "Parsing arguments.")
		var acc, perf strings.Builder
		pass, err := VerifyAccuracyTEST01(&acc, filepath.Join(results, "accuracy", "mlperf_log_accuracy.json"), filepath.Join(complianceDir, "mlperf_log_accuracy.json"), dtype)
		if err != nil {
			return res, err
		}
		res.AccuracyPass = pass
		fmt.Fprint(w, acc.String())
		if _, err := VerifyPerformanceTEST01(&perf, filepath.Join(results, "performance", "run_1", "mlperf_log_detail.txt"), filepath.Join(complianceDir, "mlperf_log_detail.txt")); err != nil {
			return res, err
		}
		fmt.Fprint(w, perf.String())
		res.PerformancePass = strings.Contains(perf.String(), "TEST PASS")
		accDir, perfDir := filepath.Join(dir, "accuracy"), filepath.Join(dir, "performance", "run_1")
		for _, d := range []string{accDir, perfDir} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return res, fmt.Errorf("compliance: %w", err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "verify_accuracy.txt"), []byte(acc.String()), 0o644); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "verify_performance.txt"), []byte(perf.String()), 0o644); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		copyInto(w, filepath.Join(complianceDir, "mlperf_log_accuracy.json"), accDir)
		copyInto(w, filepath.Join(complianceDir, "mlperf_log_summary.txt"), perfDir)
		copyInto(w, filepath.Join(complianceDir, "mlperf_log_detail.txt"), perfDir)
		fmt.Fprintf(w, "Accuracy check pass: %s\n", pyBool(res.AccuracyPass))
		fmt.Fprintf(w, "Performance check pass: %s\n", pyBool(res.PerformancePass))
		fmt.Fprintln(w, "TEST01 verification complete")
	case "TEST04":
		res.PerformanceCheck = true
		fmt.Fprintln(w, "Parsing arguments.")
		var perf strings.Builder
		if _, err := VerifyPerformanceTEST04(&perf, filepath.Join(results, "performance", "run_1", "mlperf_log_summary.txt"), filepath.Join(complianceDir, "mlperf_log_summary.txt")); err != nil {
			return res, err
		}
		fmt.Fprint(w, perf.String())
		res.PerformancePass = strings.Contains(perf.String(), "TEST PASS")
		perfDir := filepath.Join(dir, "performance", "run_1")
		if err := os.MkdirAll(perfDir, 0o755); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "verify_performance.txt"), []byte(perf.String()), 0o644); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		copyInto(w, filepath.Join(complianceDir, "mlperf_log_summary.txt"), perfDir)
		copyInto(w, filepath.Join(complianceDir, "mlperf_log_detail.txt"), perfDir)
		fmt.Fprintf(w, "Performance check pass: %s\n", pyBool(res.PerformancePass))
		fmt.Fprintln(w, "TEST04 verification complete")
	case "TEST06":
		res.AccuracyChecked = true
		if dtype == "" {
			dtype = "int32"
		}
		dt, err := accuracy.ParseDType(dtype)
		if err != nil {
			return res, fmt.Errorf("compliance: TEST06 --dtype: %w", err)
		}
		if scenario == "" {
			return res, fmt.Errorf("compliance: TEST06 needs the scenario (--scenario Offline, Server, Interactive, SingleStream or MultiStream)")
		}
		log := filepath.Join(complianceDir, "mlperf_log_accuracy.json")
		r, err := llmbench.CheckTEST06(log, scenario, dt, eos)
		if err != nil {
			return res, err
		}
		res.AccuracyPass = r.Pass()
		accDir := filepath.Join(dir, "accuracy")
		if err := os.MkdirAll(accDir, 0o755); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "verify_accuracy.txt"), []byte(r.String()), 0o644); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		if err := copyFile(log, filepath.Join(accDir, "mlperf_log_accuracy.json")); err != nil {
			return res, fmt.Errorf("compliance: %w", err)
		}
		fmt.Fprint(w, r.String())
	default:
		return res, fmt.Errorf("compliance: unknown test %q (want TEST01, TEST04 or TEST06)", test)
	}
	return res, nil
}
