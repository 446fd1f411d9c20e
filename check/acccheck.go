package check

import (
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
)

// The accuracy checks (mlcommons/inference
// tools/submission/submission_checker/checks/accuracy_check.py).

var hashLine = regexp.MustCompile(`^hash=([\w\d]+)$`)

// maxAccuracyLogBytes is MAX_ACCURACY_LOG_SIZE: a truncated accuracy log
// is at most 10 KiB.
const maxAccuracyLogBytes = 10 * 1024

// pyMatch is re.match(pattern, line) on a line as readlines() gives it:
// anchored at the start; a $ matches before the line's newline too.
func pyMatch(re *regexp.Regexp, line string) []string {
	if m := re.FindStringSubmatch(line); m != nil {
		return m
	}
	if t := strings.TrimSuffix(line, "\n"); t != line {
		return re.FindStringSubmatch(t)
	}
	return nil
}

// accuracyValues is Config.get_accuracy_values: the target limits and
// upper limits of a model in a scenario folder, or the ValueError of a
// model without targets.
func (c *checker) accuracyValues(model, scenario string) (accuracy.Target, error) {
	t, ok := c.round.Targets(model, scenario)
	if !ok {
		return t, pyErr("ValueError: model not known: %s", model)
	}
	return t, nil
}

func (c *checker) accuracyChecks(s *submission) []check {
	cls := "AccuracyCheck"
	checks := []check{{"accuracy_result_check", cls, c.accuracyResult(s)}}
	if !s.endpoints {
		checks = append(checks, check{"accuracy_json_check", cls, c.accuracyJSON(s)})
	}
	checks = append(checks,
		check{"loadgen_errors_check", cls, c.accLoadgenErrors(s)},
		check{"dataset_check", cls, c.datasetCheck(s)},
		check{"extra_files_check", cls, c.extraFiles(s)})
	if s.endpoints {
		checks = append(checks, check{"endpoints_model_check", cls, c.endpointsModel(s.accPath, s.model)})
	}
	return checks
}

func (c *checker) accuracyResult(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if s.endpoints {
			return c.endpointsAccuracy(s)
		}
		target, err := c.accuracyValues(s.model, s.scenarioFixed)
		if err != nil {
			return false, err
		}
		if !s.accResultFound {
			return false, pyErr("TypeError: 'NoneType' object is not iterable")
		}
		seen := make([]bool, len(target.Min))
		allValid, limitOK := true, true
		hash := ""
		metrics := value{k: kDict, dict: map[string]value{}}
		all := func() bool {
			for _, b := range seen {
				if !b {
					return false
				}
			}
			return true
		}
		for _, line := range s.accResult {
			for i, lim := range target.Min {
				acc := ""
				found := false
				if m := pyMatch(accuracy.AccPatterns[lim.Metric], line); m != nil {
					acc, found = m[1], true
				}
				if m := pyMatch(hashLine, line); m != nil {
					hash = m[1]
				}
				if found {
					f, err := pyParseFloat(acc)
					if err != nil {
						return false, err
					}
					if f >= lim.Value {
						seen[i] = true
					} else {
						allValid = false
						c.rep.add("WARNING", "%s accuracy not met: expected=%s, found=%s", s.accPath, formatF6(lim.Value), acc)
					}
					if acc != "" {
						if !metrics.has(lim.Metric) {
							metrics.keys = append(metrics.keys, lim.Metric)
						}
						metrics.dict[lim.Metric] = vStr(acc)
					}
				}
			}
			for _, lim := range target.Max {
				if m := pyMatch(accuracy.AccPatterns[lim.Metric], line); m != nil {
					f, err := pyParseFloat(m[1])
					if err != nil {
						return false, err
					}
					if f > lim.Value {
						limitOK = false
						c.rep.add("WARNING", "%s accuracy not met: upper limit=%s, found=%s", s.accPath, formatF6(lim.Value), m[1])
					}
				}
				if m := pyMatch(hashLine, line); m != nil {
					hash = m[1]
				}
			}
			if all() && hash != "" {
				break
			}
		}
		valid := allValid && all() && limitOK
		if hash == "" {
			c.rep.add("ERROR", "%s not hash value for accuracy.txt", s.accPath)
			valid = false
		}
		s.accuracyMetrics, s.accuracyMetricsSet = metrics, true
		if strings.ToLower(s.n.division) == "open" {
			return true, nil
		}
		return valid, nil
	}
}

// formatF6 is Python's "%f".
func formatF6(f float64) string {
	s, _ := pyFormatF(vFloat(f), 6)
	return s
}

func (c *checker) accuracyJSON(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if s.accJSON == "" {
			return false, pyErr("TypeError: stat: path should be string, bytes, os.PathLike or integer, not NoneType")
		}
		st, err := os.Stat(s.accJSON)
		if err != nil {
			return false, pyErr("FileNotFoundError")
		}
		if st.Size() > maxAccuracyLogBytes {
			c.rep.add("ERROR", "%s is not truncated", s.accJSON)
			return false, nil
		}
		return true, nil
	}
}

func (c *checker) accLoadgenErrors(s *submission) func() (bool, error) {
	return func() (bool, error) {
		n, err := s.acc.numErrors()
		if err != nil {
			return false, err
		}
		if !n.truthy() {
			return true, nil
		}
		errs, err := s.acc.errors()
		if err != nil {
			return false, err
		}
		other := false
		if c.o.SubmissionExceptions {
			for _, e := range errs {
				in, err := inValue("Loadgen built with uncommitted changes!", e)
				if err != nil {
					return false, err
				}
				if !in {
					other = true
				}
			}
		}
		c.rep.add("ERROR", "%s contains errors:", s.accPath)
		for _, e := range errs {
			c.rep.add("ERROR", "%s", pyStr(e))
		}
		if !c.o.SubmissionExceptions || other {
			c.rep.add("ERROR", "%s has loadgen errors, number of errors: %s", s.accPath, pyStr(n))
			return false, nil
		}
		return true, nil
	}
}

// accuracySampleCount is Config.get_accuracy_sample_count.
func (c *checker) accuracySampleCount(model, scenario string) (value, error) {
	m := c.round.MLPerfModel(model, nil)
	sc, ok := c.round.AccuracySampleCount[m]
	if !ok {
		n, err := modelTable(c, c.round.DatasetSize, m)
		return vInt(n), err
	}
	if sc.ByScenario == nil {
		return vInt(sc.All), nil
	}
	if n, ok := sc.ByScenario[scenario]; ok {
		return vInt(n), nil
	}
	if n, ok := sc.ByScenario[strings.ToLower(scenario)]; ok {
		return vInt(n), nil
	}
	d := value{k: kDict, dict: map[string]value{}}
	for _, k := range []string{"Offline", "Interactive", "Server"} {
		if n, ok := sc.ByScenario[k]; ok {
			d.keys = append(d.keys, k)
			d.dict[k] = vInt(n)
		}
	}
	return d, nil
}

func (c *checker) datasetCheck(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if c.o.SkipDatasetSizeCheck {
			return true, nil
		}
		want, err := c.accuracySampleCount(s.model, s.scenarioFixed)
		if err != nil {
			return false, err
		}
		got := s.acc.get("qsl_reported_total_count")
		if s.acc.has("effective_accuracy_sample_count") {
			got = s.acc.get("effective_accuracy_sample_count")
		}
		if !eq(got, want) {
			c.rep.add("ERROR", "%s accurcy run does not cover all dataset, accuracy samples: %s, dataset size: %s", s.accPath, pyStr(got), pyStr(want))
			return false, nil
		}
		return true, nil
	}
}

func (c *checker) extraFiles(s *submission) func() (bool, error) {
	return func() (bool, error) {
		if c.o.SkipExtraAccuracyFilesCheck {
			return true, nil
		}
		targets, ok := c.round.ExtraAccuracyFiles[s.model]
		if !ok {
			return true, nil
		}
		accDir := pyDirname(s.accPath)
		folders, err := listDir(accDir)
		if err != nil {
			return false, pyErr("FileNotFoundError")
		}
		pass := true
		var missing []string
		for _, dir := range sortedKeys(targets) {
			if !contains(folders, dir) {
				pass = false
				missing = append(missing, pyJoin(accDir, dir))
				continue
			}
			files, err := listFiles(pyJoin(accDir, dir))
			if err != nil {
				return false, pyErr("OSError")
			}
			for i, f := range files {
				files[i], _, _ = strings.Cut(f, ".")
			}
			for _, want := range targets[dir] {
				if contains(files, want) {
					continue
				}
				pass = false
				if strings.Contains(dir, "images") {
					missing = append(missing, pyJoin(accDir, dir, want)+".png")
				}
				if strings.Contains(dir, "videos") {
					missing = append(missing, pyJoin(accDir, dir, want)+".mp4")
				}
			}
			if !contains(files, "captions") {
				missing = append(missing, pyJoin(accDir, dir, "captions.txt"))
			}
		}
		if !pass {
			c.rep.add("ERROR", "%s expected to have the following extra files (%s)", accDir, pyList(missing))
			return false, nil
		}
		return true, nil
	}
}

func sortedKeys[T any](m map[string]T) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
