package check

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
	"unicode/utf16"
)

// The summary CSV (mlcommons/inference
// tools/submission/submission_checker/results.py, ResultExporter): one
// row per valid scenario, written with --csv.

var csvHead = []string{"Organization", "Availability", "Division", "SystemType", "SystemName", "Platform", "Model",
	"MlperfModel", "Scenario", "Result", "Accuracy", "number_of_nodes", "host_processor_model_name",
	"host_processors_per_node", "host_processor_core_count", "accelerator_model_name", "accelerators_per_node",
	"total_accelerators", "Location", "framework", "operating_system", "notes", "compliance", "errors", "version",
	"inferred", "has_power", "Units", "weight_data_types", "design_power_watts", "PrivateID"}

// addRow is ResultExporter.add_result; where it raises, the checker
// crashes after its checks passed.
func (c *checker) addRow(s *submission) error {
	sys := s.sys
	row := map[string]string{}
	field := func(k string) value { return sys.get(k) }
	nodes, err := pyInt(field("number_of_nodes"))
	if err != nil {
		return &crash{s.systemPath, "ValueError: int(number_of_nodes) in results.py", "the system description's number_of_nodes must be a whole number (it is " + pyRepr(field("number_of_nodes")) + ")"}
	}
	accels, err := pyInt(field("accelerators_per_node"))
	if err != nil {
		return &crash{s.systemPath, "ValueError: int(accelerators_per_node) in results.py", "the system description's accelerators_per_node must be a whole number, 0 for a CPU-only system (it is " + pyRepr(field("accelerators_per_node")) + ")"}
	}
	row["Organization"] = s.n.submitter
	row["Availability"] = pyStr(field("status"))
	row["Division"] = s.n.division
	row["SystemType"] = pyStr(field("system_type"))
	row["SystemName"] = pyStr(field("system_name"))
	row["Platform"] = s.n.system
	row["Model"] = s.n.benchmark
	row["MlperfModel"] = c.round.MLPerfModel(s.n.benchmark, s.mapping)
	row["Scenario"] = s.scenarioFixed
	row["Result"] = pyStr(s.performanceMetric)
	acc := strings.NewReplacer(",", " ", `"`, "", "{", "", "}", "").Replace(pyJSONDumps(s.accuracyMetrics))
	row["Accuracy"] = strings.TrimFunc(acc, isPySpace)
	for _, k := range []string{"number_of_nodes", "host_processor_model_name", "host_processors_per_node", "host_processor_core_count",
		"accelerator_model_name", "accelerators_per_node", "framework", "operating_system"} {
		row[k] = pyStr(field(k))
	}
	row["total_accelerators"] = new(big.Int).Mul(nodes, accels).String()
	row["Location"] = pyDirname(s.perfPath)
	notes := ""
	if hw := field("hw_notes"); hw.truthy() {
		notes = pyStr(hw)
	}
	if sw := field("sw_notes"); sw.truthy() {
		if notes != "" {
			notes += ". "
		}
		notes += pyStr(sw)
	}
	row["notes"] = notes
	row["compliance"] = s.n.division
	row["errors"] = "0"
	row["version"] = c.round.Name
	eff := s.perf.get("effective_scenario")
	row["inferred"] = "0"
	if !eq(vStr(s.scenarioFixed), eff) && !(eq(eff, vStr("server")) && s.scenarioFixed == "interactive") {
		row["inferred"] = "1"
	}
	power := exists(s.powerDirPath)
	row["has_power"] = pyStr(vBool(power))
	sc, ok := scenarioSpelling[strings.ToLower(s.scenarioFixed)]
	fallback, ok2 := units[s.scenarioFixed]
	if !ok || !ok2 {
		return &crash{s.perfPath, "KeyError: the scenario's unit in results.py", "name the scenario folder SingleStream, MultiStream, Offline, Server or Interactive"}
	}
	table := units
	if special, ok := specialUnits[row["MlperfModel"]]; ok {
		table = special
	}
	unit, ok := table[sc]
	if !ok {
		unit = fallback
	}
	row["Units"] = unit
	row["weight_data_types"] = pyStr(s.measurements.get("weight_data_types"))
	row["design_power_watts"] = ""
	if c.round.Layout.NameplatePower != "" {
		row["design_power_watts"] = "None"
	}
	row["PrivateID"] = ""
	line := make([]string, len(csvHead))
	for i, k := range csvHead {
		line[i] = `"` + row[k] + `"`
	}
	c.rep.rows = append(c.rep.rows, line)
	return nil
}

func (c *checker) writeCSV(path string) error {
	var b strings.Builder
	b.WriteString(strings.Join(csvHead, ",") + "\n")
	for _, r := range c.rep.rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("check: --csv: %w", err)
	}
	return nil
}

// pyInt is Python's int(v).
func pyInt(v value) (*big.Int, error) {
	switch v.k {
	case kBool, kInt:
		return v.bigInt(), nil
	case kFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return nil, pyErr("ValueError")
		}
		n, _ := big.NewFloat(v.f).Int(nil)
		return n, nil
	case kStr:
		t := strings.TrimFunc(v.s, isPySpace)
		digits := strings.TrimLeft(t, "+-")
		if len(t)-len(digits) > 1 || digits == "" || strings.HasPrefix(digits, "_") || strings.HasSuffix(digits, "_") || strings.Contains(digits, "__") {
			return nil, pyErr("ValueError")
		}
		for _, r := range digits {
			if (r < '0' || r > '9') && r != '_' {
				return nil, pyErr("ValueError")
			}
		}
		n, ok := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), 10)
		if !ok {
			return nil, pyErr("ValueError")
		}
		return n, nil
	}
	return nil, pyErr("TypeError")
}

// pyJSONDumps is json.dumps(v) with its defaults (", " and ": ", ASCII
// only).
func pyJSONDumps(v value) string {
	switch v.k {
	case kNone:
		return "null"
	case kBool:
		if v.b {
			return "true"
		}
		return "false"
	case kInt:
		return v.i.String()
	case kFloat:
		switch {
		case math.IsNaN(v.f):
			return "NaN"
		case math.IsInf(v.f, 1):
			return "Infinity"
		case math.IsInf(v.f, -1):
			return "-Infinity"
		}
		return pyStr(v)
	case kStr:
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range v.s {
			switch {
			case r == '"':
				b.WriteString(`\"`)
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\b':
				b.WriteString(`\b`)
			case r == '\f':
				b.WriteString(`\f`)
			case r < 0x20 || r > 0x7e:
				if r > 0xffff {
					r1, r2 := utf16.EncodeRune(r)
					fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
				} else {
					fmt.Fprintf(&b, `\u%04x`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		return b.String()
	case kList:
		parts := make([]string, len(v.list))
		for i, e := range v.list {
			parts[i] = pyJSONDumps(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case kDict:
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			parts[i] = pyJSONDumps(vStr(k)) + ": " + pyJSONDumps(v.dict[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}
