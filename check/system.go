package check

import (
	"os"
	"strings"
)

// The system, measurements and power checks (mlcommons/inference
// tools/submission/submission_checker/checks/system_check.py,
// measurements_checks.py, power_check.py).

func (c *checker) systemChecks(s *submission) []check {
	cls := "SystemCheck"
	sys := s.sys
	path := s.systemPath
	str := func(key string) (string, error) {
		v := sys.get(key)
		if !v.isStr() {
			return "", pyErr("AttributeError: '%s' object has no attribute 'lower'", v.typeName())
		}
		return v.s, nil
	}
	return []check{
		{"missing_check", cls, func() (bool, error) { return true, nil }}, // a missing system description crashes the loader
		{"availability_check", cls, func() (bool, error) {
			st, err := str("status")
			if err != nil {
				return false, err
			}
			if !contains(validAvailabilities, strings.ToLower(st)) {
				c.rep.add("ERROR", "%s has invalid status (%s)", path, strings.ToLower(st))
				return false, nil
			}
			return true, nil
		}},
		{"system_type_check", cls, func() (bool, error) {
			t := sys.get("system_type")
			if !t.isStr() || !contains([]string{"datacenter", "edge", "datacenter,edge", "edge,datacenter"}, t.s) {
				c.rep.add("ERROR", "%s has invalid system type (%s)", path, pyStr(t))
				return false, nil
			}
			return true, nil
		}},
		{"network_check", cls, func() (bool, error) {
			network, err := isNetworkSystem(sys)
			if err != nil {
				return false, err
			}
			if want, ok := map[string]bool{"network": true, "closed": false}[s.n.division]; ok && want != network {
				c.rep.add("ERROR", "%s incorrect network mode(=%s)for division '%s'", path, pyStr(vBool(network)), s.n.division)
				return false, nil
			}
			return true, nil
		}},
		{"required_fields_check", cls, func() (bool, error) {
			fields := append([]string(nil), systemRequired...)
			if sys.get("is_network").truthy() {
				fields = append(fields, systemNetwork...)
			}
			ok := true
			for _, k := range fields {
				switch {
				case !sys.has(k):
					ok = false
					c.rep.add("ERROR", "%s, field %s is missing", path, k)
				case !c.o.SkipMeaningfulFieldsEmptinessCheck && contains(systemMeaningful, k) && !sys.get(k).truthy():
					ok = false
					c.rep.add("ERROR", "%s, field %s requires a meaningful response but is empty", path, k)
				}
			}
			return ok, nil
		}},
		{"submitter_check", cls, func() (bool, error) {
			sub, err := str("submitter")
			if err != nil {
				return false, err
			}
			if strings.ToLower(sub) != strings.ToLower(s.n.submitter) {
				c.rep.add("ERROR", "%s has submitter %s, directory has %s", path, sub, s.n.submitter)
				return false, nil
			}
			return true, nil
		}},
		{"division_check", cls, func() (bool, error) {
			div, err := str("division")
			if err != nil {
				return false, err
			}
			if strings.ToLower(div) != strings.ToLower(s.n.division) {
				c.rep.add("ERROR", "%s has division %s, directory has %s", path, div, s.n.division)
				return false, nil
			}
			return true, nil
		}},
		// nameplate_power_check reads the power YAML of power submissions
		// only; see powerChecks.
		{"nameplate_power_check", cls, func() (bool, error) { return true, nil }},
	}
}

func (c *checker) measurementsChecks(s *submission) []check {
	cls := "MeasurementsCheck"
	return []check{
		{"missing_check", cls, func() (bool, error) {
			if s.measurements.isNone() {
				c.rep.add("ERROR", "%s measurements json file not found", s.measurementsPath)
				return false, nil
			}
			return true, nil
		}},
		{"directory_exist_check", cls, func() (bool, error) {
			if !exists(s.srcPath) {
				c.rep.add("ERROR", "%s src directory does not exist", s.srcPath)
				return false, nil
			}
			return true, nil
		}},
		{"required_files_check", cls, func() (bool, error) {
			files, err := listFiles(s.measurementsDir)
			if err != nil {
				return false, pyErr("FileNotFoundError")
			}
			ok := true
			for _, f := range measureFiles {
				if f == "user.conf" && s.endpoints {
					continue
				}
				if !contains(files, f) {
					c.rep.add("ERROR", "%s is missing %s", s.measurementsDir, f)
					ok = false
					continue
				}
				if st, err := os.Stat(pyJoin(s.measurementsDir, f)); !c.o.SkipEmptyFilesCheck && err == nil && st.Size() == 0 {
					c.rep.add("ERROR", "%s is having empty %s", s.measurementsDir, f)
					ok = false
				}
			}
			return ok, nil
		}},
		{"required_fields_check", cls, func() (bool, error) {
			m := s.measurements
			if m.k != kDict && m.k != kList && m.k != kStr {
				return false, pyErr("TypeError: argument of type '%s' is not iterable", m.typeName())
			}
			ok := true
			for _, k := range measurementsRequired {
				if !m.has(k) {
					ok = false
					c.rep.add("ERROR", "%s, field %s is missing", s.measurementsPath, k)
				} else if !c.o.SkipMeaningfulFieldsEmptinessCheck && !m.get(k).truthy() {
					ok = false
					c.rep.add("ERROR", "%s, field %s is missing meaningful value", s.measurementsPath, k)
				}
			}
			return ok, nil
		}},
	}
}

// powerChecks: a scenario with performance/power/ is a power submission,
// which the checker validates with the Power WG's power_checker.py; this
// package does not, and says so.
func (c *checker) powerChecks(s *submission) []check {
	return []check{{"required_files_check", "PowerCheck", func() (bool, error) {
		if !exists(s.powerDirPath) {
			return true, nil
		}
		c.rep.add("ERROR", "%s: power measurements are not checked by mlperf check (the MLCommons checker runs the Power WG's power_checker.py on them); check this tree with the MLCommons checker", s.powerDirPath)
		return false, nil
	}}}
}
