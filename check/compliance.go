package check

import (
	"math"
	"os"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
)

// The compliance checks (mlcommons/inference
// tools/submission/submission_checker/checks/compliance_check.py).

// testList is ComplianceCheck.get_test_list: the tests the round requires
// of a model, in the checker's order, TEST07 and TEST09 listed twice as
// the checker lists them (so their messages repeat, as the checker's do).
func (r *Round) testList(model string) []string {
	var out []string
	for _, t := range []string{"TEST01", "TEST04", "TEST06", "TEST07", "TEST09", "TEST08", "TEST07", "TEST09"} {
		if contains(r.Tests[t], model) {
			out = append(out, t)
		}
	}
	return out
}

func (c *checker) complianceChecks(s *submission) []check {
	cls := "ComplianceCheck"
	if s.endpoints {
		return []check{{"compliance_endpoints_check", cls, c.complianceEndpoints(s)}}
	}
	return []check{
		{"dir_exists_check", cls, c.dirExists(s)},
		{"performance_check", cls, c.compliancePerformance(s)},
		{"accuracy_check", cls, c.complianceAccuracy(s)},
		{"compliance_performance_check", cls, c.complianceVerifyPerformance(s)},
	}
}

func (c *checker) dirExists(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if strings.ToLower(s.n.division) == "open" {
			return true, nil
		}
		ok := true
		for _, test := range c.round.testList(s.model) {
			dir := pyJoin(s.compliancePath, test)
			if !exists(dir) {
				c.rep.add("ERROR", "Missing %s in compliance dir %s", test, s.compliancePath)
				ok = false
			}
			if contains([]string{"TEST01", "TEST06", "TEST07", "TEST08"}, test) {
				if p := pyJoin(dir, "verify_accuracy.txt"); !exists(p) {
					c.rep.add("ERROR", "Missing accuracy file in compliance dir. Needs file %s", p)
					ok = false
				}
			}
			if test == "TEST01" || test == "TEST04" {
				if p := pyJoin(dir, "verify_performance.txt"); !exists(p) {
					c.rep.add("ERROR", "Missing performance file in compliance dir. Needs file %s", p)
					ok = false
				}
				if p := pyJoin(dir, "performance", "run_1", "mlperf_log_detail.txt"); !exists(p) {
					c.rep.add("ERROR", "Missing perfomance file in compliance dir. Needs file %s", p)
					ok = false
				}
			}
			if test == "TEST09" {
				if p := pyJoin(dir, "verify_output_len.txt"); !exists(p) {
					c.rep.add("ERROR", "Missing output length verification file in compliance dir. Needs file %s", p)
					ok = false
				}
			}
		}
		return ok, nil
	}
}

// compliancePerformance runs the performance checks on the TEST01 and
// TEST04 runs' logs.
func (c *checker) compliancePerformance(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if strings.ToLower(s.n.division) == "open" {
			return true, nil
		}
		ok := true
		for _, test := range c.round.testList(s.model) {
			if test != "TEST01" && test != "TEST04" {
				continue
			}
			log := s.testPerf[test]
			if log == nil {
				// PerformanceCheck's constructor indexes the missing log.
				return false, pyErr("TypeError: 'NoneType' object is not subscriptable")
			}
			path := pyJoin(s.compliancePath, test)
			ok = c.checkSet("performance checks", path, c.performanceChecks(s, log, path, true)) && ok
		}
		return ok, nil
	}
}

func strippedLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimFunc(l, isPySpace)
	}
	return out
}

func (c *checker) complianceAccuracy(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if strings.ToLower(s.n.division) == "open" {
			return true, nil
		}
		ok := true
		for _, test := range c.round.testList(s.model) {
			dir := pyJoin(s.compliancePath, test)
			switch test {
			case "TEST01":
				lines, found := s.testResult[test]
				if !found {
					return false, pyErr("TypeError: 'NoneType' object is not iterable")
				}
				if contains(strippedLines(lines), "TEST PASS") {
					continue
				}
				accDir := pyJoin(dir, "accuracy")
				if !exists(accDir) {
					c.rep.add("ERROR", "%s has no accuracy directory", dir)
					ok = false
					continue
				}
				files, err := listFiles(accDir)
				if err != nil {
					return false, pyErr("NotADirectoryError")
				}
				if diff := filesDiff(files, test01AccFiles, nil); len(diff) > 0 {
					c.rep.add("ERROR", "%s has file list mismatch (%s)", accDir, pySet(diff))
					ok = false
					continue
				}
				v, err := c.test01Baseline(s, dir, accDir)
				if err != nil {
					return false, err
				}
				ok = v
			case "TEST06":
				lines, found := s.testResult[test]
				if !found {
					return false, pyErr("TypeError: 'NoneType' object is not iterable")
				}
				st := strippedLines(lines)
				first := contains(st, "First token check pass: True") || contains(st, "First token check pass: Skipped")
				eos := contains(st, "EOS check pass: True")
				length := contains(st, "Sample length check pass: True")
				ok = ok && first && eos && length
				if !ok {
					c.rep.add("ERROR", "TEST06 accuracy check failed. first_token_check: %s eos_check: %s length_check: %s.",
						pyStr(vBool(first)), pyStr(vBool(eos)), pyStr(vBool(length)))
				}
			case "TEST07", "TEST09":
				name, what := "verify_accuracy.txt", "TEST07 accuracy check"
				if test == "TEST09" {
					name, what = "verify_output_len.txt", "TEST09 output length check"
				}
				data, err := os.ReadFile(pyJoin(dir, name))
				if err != nil {
					c.rep.add("ERROR", "%s %s missing in %s", test, name, dir)
					ok = false
					continue
				}
				if !strings.Contains(string(data), "TEST PASS") {
					c.rep.add("ERROR", "%s in %s failed", what, dir)
					ok = false
				}
			case "TEST08":
				lines, found := s.testResult[test]
				if !found {
					c.rep.add("ERROR", "TEST08 accuracy result file not found for %s", dir)
					ok = false
					continue
				}
				if !contains(strippedLines(lines), "TEST PASS") {
					c.rep.add("ERROR", "Compliance test TEST08 accuracy check in %s failed. Expected 'TEST PASS' in verify_accuracy.txt", dir)
					ok = false
				}
			}
		}
		return ok, nil
	}
}

// test01Baseline compares TEST01's baseline_accuracy.txt and
// compliance_accuracy.txt as the checker does when the deterministic
// check failed: the verdict of the last metric compared stands (a
// passing metric resets it), a metric missing or 0 in either fails
// silently.
func (c *checker) test01Baseline(s *submission, dir, accDir string) (bool, error) {
	target, err := c.accuracyValues(s.model, s.n.scenario)
	if err != nil {
		return false, err
	}
	read := func(name string) (map[string]float64, error) {
		out := map[string]float64{}
		lines, err := readLines(pyJoin(accDir, name))
		if err != nil {
			return nil, pyErr("UnicodeDecodeError")
		}
		for _, line := range lines {
			for _, lim := range target.Min {
				if m := pyMatch(accuracy.AccPatterns[lim.Metric], line); m != nil {
					f, err := pyParseFloat(m[1])
					if err != nil {
						return nil, err
					}
					out[lim.Metric] = f
				}
			}
		}
		return out, nil
	}
	base, err := read("baseline_accuracy.txt")
	if err != nil {
		return false, err
	}
	comp, err := read("compliance_accuracy.txt")
	if err != nil {
		return false, err
	}
	valid := true
	for _, lim := range target.Min {
		b, cm := base[lim.Metric], comp[lim.Metric]
		if b == 0 || cm == 0 {
			return false, nil
		}
		delta := math.Abs(1-b/cm) * 100
		if delta <= c.deltaPerc(s.model, lim.Metric) {
			valid = true
		} else {
			c.rep.add("ERROR", "Compliance test accuracy check (non-deterministic mode) in %s failed", dir)
			return false, nil
		}
	}
	return valid, nil
}

// deltaPerc is Config.get_delta_perc.
func (c *checker) deltaPerc(model, metric string) float64 {
	if d, ok := c.round.AccuracyDeltaPerc[model][metric]; ok {
		return d
	}
	if strings.Contains(model, "99.9") {
		return 0.1
	}
	return 1
}

// filesDiff is utils.files_diff: the names in one list and not the
// other, less the optional ones.
func filesDiff(have, want, optional []string) []string {
	optional = append(append([]string(nil), optional...), "mlperf_log_trace.json", "results.json", ".gitkeep")
	var out []string
	for _, f := range have {
		if !contains(want, f) && !contains(optional, f) && !contains(out, f) {
			out = append(out, f)
		}
	}
	for _, f := range want {
		if !contains(have, f) && !contains(optional, f) && !contains(out, f) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func (c *checker) complianceVerifyPerformance(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if strings.ToLower(s.n.division) == "open" {
			return true, nil
		}
		ok := true
		for _, test := range c.round.testList(s.model) {
			if test != "TEST01" && test != "TEST04" {
				continue
			}
			dir := pyJoin(s.compliancePath, test)
			fname := pyJoin(dir, "verify_performance.txt")
			if !exists(fname) {
				c.rep.add("ERROR", "%s is missing in %s", fname, dir)
				ok = false
				continue
			}
			lines, err := readLines(fname)
			if err != nil {
				return false, pyErr("UnicodeDecodeError")
			}
			pass := false
			for _, l := range lines {
				if strings.Contains(l, "TEST PASS") {
					pass = true
					break
				}
			}
			if !pass {
				c.rep.add("ERROR", "Compliance test performance check in %s failed", dir)
				ok = false
			}
			run := pyJoin(dir, "performance", "run_1")
			if !exists(run) {
				c.rep.add("ERROR", "%s has no performance/run_1 directory", dir)
				ok = false
				continue
			}
			files, err := listFiles(run)
			if err != nil {
				return false, pyErr("NotADirectoryError")
			}
			if diff := filesDiff(files, compliancePerfFiles, []string{"mlperf_log_accuracy.json"}); len(diff) > 0 {
				c.rep.add("ERROR", "%s has file list mismatch (%s)", run, pySet(diff))
				ok = false
			}
		}
		return ok, nil
	}
}
