package check

import (
	"fmt"
	"math/big"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Endpoints runs (mlcommons/endpoints): a scenario folder without LoadGen
// logs holds config.yaml, performance/result_summary.json,
// accuracy/accuracy_results.json and audit/audit_<test>.json. The checker
// reads them into LoadGen keys (mlcommons/inference
// tools/submission/submission_checker/parsers/endpoints_parser.py, the
// ENDPOINTS_* tables).

// readEndpoints is EndpointsParser(dir, log_type): the performance or the
// accuracy view of an endpoints run as a detail log.
func (c *checker) readEndpoints(dir string, acc bool) (*logFile, error) {
	l := newLogFile(dir)
	l.endpoints = true
	summary, results := value{k: kDict, dict: map[string]value{}}, value{k: kDict, dict: map[string]value{}}
	if acc {
		results = c.loadEndpointsJSON(pyJoin(dir, "accuracy", "accuracy_results.json"))
	} else {
		summary = c.loadEndpointsJSON(pyJoin(dir, "performance", "result_summary.json"))
	}
	conf := c.loadEndpointsYAML(dir)
	set := func(key string, v value) {
		l.add(key, value{k: kDict, keys: []string{"key", "value"}, dict: map[string]value{"key": vStr(key), "value": v}})
	}
	for _, m := range endpointsMappings {
		if v := resolveEndpoints(strings.TrimSpace(m.from), summary, results, conf); !v.isNone() {
			set(m.to, v)
		}
	}
	if acc {
		if !results.isDict() {
			return nil, &crash{dir, "AttributeError: accuracy_results.json is not an object", "accuracy/accuracy_results.json must be the JSON object mlcommons/endpoints writes"}
		}
		n, ok, err := endpointsAccuracyCount(results)
		if err != nil {
			return nil, &crash{pyJoin(dir, "accuracy", "accuracy_results.json"), err.Error(), "its accuracy_scores must be a list of objects with total_samples"}
		}
		if ok {
			delete(l.msgs, "effective_accuracy_sample_count") // replaced, not appended to
			set("effective_accuracy_sample_count", vInt(n))
			if !l.has("qsl_reported_total_count") {
				set("qsl_reported_total_count", vInt(n))
			}
		}
	}
	// ENDPOINTS_INFERRED_FIELDS: copies, which the parser's key set does
	// not show until its end (so the qps below does not see them).
	before := map[string]bool{}
	for _, k := range l.keys {
		before[k] = true
	}
	for _, f := range endpointsInferredFields {
		if v := l.get(f.to); !v.isNone() {
			set(f.from, v)
		}
	}
	known := func(k string) value {
		if !before[k] {
			return none
		}
		return l.get(k)
	}
	duration, count, scenario := known("generated_query_duration"), known("generated_query_count"), known("effective_scenario")
	if duration.truthy() && count.truthy() && scenario.truthy() {
		sc, err := strLower(scenario)
		if err != nil {
			return nil, &crash{dir, err.Error(), "config.yaml's type must be a string"}
		}
		key := "result_completed_samples_per_sec"
		if sc == "offline" {
			key = "result_samples_per_second"
		}
		if !l.has(key) {
			if !duration.isNumber() || !count.isNumber() {
				return nil, &crash{dir, "TypeError: unsupported operand type(s) for /", "n_samples_issued and duration_ns must be numbers"}
			}
			set(key, vFloat(count.float()/(duration.float()/1e9)))
		}
	}
	if scores := results.get("accuracy_scores"); scores.k == kList {
		for _, r := range scores.list {
			if !r.isDict() {
				return nil, &crash{pyJoin(dir, "accuracy", "accuracy_results.json"), "AttributeError: an accuracy_scores entry is not an object", "each accuracy_scores entry must be an object"}
			}
			if sc := r.get("score"); !sc.isNone() {
				set("accuracy_score", sc)
			}
		}
	}
	return l, nil
}

// loadEndpointsJSON is EndpointsParser._load_json: {} and an error line
// when the file is missing or not JSON.
func (c *checker) loadEndpointsJSON(path string) value {
	data, err := os.ReadFile(path)
	if err == nil {
		if v, err := decodeJSON(data); err == nil {
			return v
		}
	}
	c.rep.add("ERROR", "Could not load json file from %s", path)
	return value{k: kDict, dict: map[string]value{}}
}

// loadEndpointsYAML is EndpointsParser._load_yaml: config.yaml, else
// config.yml; {} and an error line when neither loads.
func (c *checker) loadEndpointsYAML(dir string) value {
	for _, name := range []string{"config.yaml", "config.yml"} {
		p := pyJoin(dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			continue
		}
		v, err := fromYAML(&doc)
		if err != nil {
			continue
		}
		if !v.truthy() {
			return value{k: kDict, dict: map[string]value{}}
		}
		return v
	}
	c.rep.add("ERROR", "Yaml file not found in directory %s", dir)
	return value{k: kDict, dict: map[string]value{}}
}

// fromYAML converts a YAML document to a value, keys in document order;
// keys that are not strings get a form no dotted path can name, as
// Python's dict keys of another type. (PyYAML reads YAML 1.1, where yes
// and on are booleans; this reads YAML 1.2, where they are strings.)
func fromYAML(n *yaml.Node) (value, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return none, nil
		}
		return fromYAML(n.Content[0])
	case yaml.AliasNode:
		return fromYAML(n.Alias)
	case yaml.SequenceNode:
		v := value{k: kList}
		for _, e := range n.Content {
			ev, err := fromYAML(e)
			if err != nil {
				return none, err
			}
			v.list = append(v.list, ev)
		}
		return v, nil
	case yaml.MappingNode:
		v := value{k: kDict, dict: map[string]value{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, e := n.Content[i], n.Content[i+1]
			key := k.Value
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				key = "\x00" + k.Value
			}
			ev, err := fromYAML(e)
			if err != nil {
				return none, err
			}
			if _, dup := v.dict[key]; !dup {
				v.keys = append(v.keys, key)
			}
			v.dict[key] = ev
		}
		return v, nil
	case yaml.ScalarNode:
		if quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0; n.ShortTag() == "!!int" || (!quoted && yamlInt.MatchString(n.Value)) {
			// Python's ints have no bound (a seed is 64 bits unsigned,
			// which YAML's resolver reads as a float).
			if i, ok := new(big.Int).SetString(strings.ReplaceAll(n.Value, "_", ""), 0); ok {
				return value{k: kInt, i: i}, nil
			}
		}
		var x any
		if err := n.Decode(&x); err != nil {
			return none, err
		}
		switch t := x.(type) {
		case nil:
			return none, nil
		case bool:
			return vBool(t), nil
		case int:
			return vInt(int64(t)), nil
		case int64:
			return vInt(t), nil
		case uint64:
			return value{k: kInt, i: newBigUint(t)}, nil
		case float64:
			return vFloat(t), nil
		case string:
			return vStr(t), nil
		}
		return vStr(n.Value), nil
	}
	return none, fmt.Errorf("unexpected YAML node")
}

var yamlInt = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// getNested is _get_nested: a dotted path, the longest key matching at
// each level (so "99.9" is one key); a trailing ".0" after a number is
// consumed; an empty dict or list is None.
func getNested(data value, dotted string) value {
	if !data.isDict() {
		return none
	}
	parts := strings.Split(dotted, ".")
	cur := data
	for i := 0; i < len(parts); {
		if !cur.isDict() {
			if len(parts)-i == 1 && parts[i] == "0" && cur.k != kList {
				return cur
			}
			return none
		}
		found := false
		for j := len(parts); j > i; j-- {
			if v, ok := cur.dict[strings.Join(parts[i:j], ".")]; ok {
				cur, i, found = v, j, true
				break
			}
		}
		if !found {
			return none
		}
	}
	if (cur.isDict() && len(cur.keys) == 0) || (cur.k == kList && len(cur.list) == 0) {
		return none
	}
	return cur
}

// resolveEndpoints is _resolve_value: result_summary.json, then
// accuracy_results.json (each with its alternative path), then
// config.yaml (its mapped path, then the key itself).
func resolveEndpoints(key string, summary, results, conf value) value {
	for _, data := range []value{summary, results} {
		v := getNested(data, key)
		if alt, ok := endpointsJSONAltPaths[key]; v.isNone() && ok {
			v = getNested(data, alt)
		}
		if !v.isNone() {
			return v
		}
	}
	if p, ok := endpointsYAMLFieldMap[key]; ok {
		if v := getNested(conf, p); !v.isNone() {
			return v
		}
	}
	return getNested(conf, key)
}

// endpointsAccuracyCount is _endpoint_accuracy_sample_count: the sum of
// the accuracy data sets' total_samples (or issued responses).
func endpointsAccuracyCount(results value) (int64, bool, error) {
	scores := results.get("accuracy_scores")
	if scores.isNone() {
		return 0, false, nil
	}
	if scores.k != kList {
		return 0, false, fmt.Errorf("TypeError: accuracy_scores is not a list")
	}
	var sum int64
	n := 0
	for _, r := range scores.list {
		if !r.isDict() {
			continue
		}
		if t := r.get("dataset_type"); !t.isNone() && !eq(t, vStr("accuracy")) {
			continue
		}
		v := r.get("total_samples")
		if v.isNone() {
			v = r.get("response_counts").get("issued")
		}
		if v.isNone() {
			continue
		}
		f, err := toFloat(v)
		if err != nil {
			return 0, false, err
		}
		sum += int64(f)
		n++
	}
	return sum, n > 0, nil
}

// endpointsAccuracy is accuracy_result_check for an endpoints run.
func (c *checker) endpointsAccuracy(s *submission) (bool, error) {
	score := s.acc.get("accuracy_score")
	if score.isNone() {
		c.rep.add("ERROR", "%s accuracy score not found", s.accPath)
		return false, nil
	}
	s.accuracyMetrics, s.accuracyMetricsSet = score, true
	if strings.ToLower(s.n.division) == "open" {
		return true, nil
	}
	if s.model != "qwen3-vl-235b-a22b" {
		return true, nil
	}
	target, err := c.accuracyValues(s.model, s.scenarioFixed)
	if err != nil {
		return false, err
	}
	n, ok := numericScore(score, target.Min[0].Metric)
	if !ok {
		c.rep.add("ERROR", "%s could not parse accuracy score %s", s.accPath, pyStr(score))
		return false, nil
	}
	if n < target.Min[0].Value {
		c.rep.add("WARNING", "%s accuracy not met: expected=%s, found=%s", s.accPath, formatF6(target.Min[0].Value), pyStr(vFloat(n)))
		return false, nil
	}
	return true, nil
}

// numericScore is AccuracyCheck._numeric_accuracy_score.
func numericScore(score value, metric string) (float64, bool) {
	switch score.k {
	case kBool, kInt, kFloat:
		return score.float(), true
	case kStr:
		f, err := pyParseFloat(score.s)
		return f, err == nil
	case kDict:
		parts := strings.Split(metric, "_")
		for _, k := range []string{metric, strings.ToLower(metric), strings.ToLower(parts[len(parts)-1]), "f1", "score", "accuracy"} {
			v := score.get(k)
			switch v.k {
			case kBool, kInt, kFloat:
				return v.float(), true
			case kStr:
				if f, err := pyParseFloat(v.s); err == nil {
					return f, true
				}
			}
		}
	}
	return 0, false
}

// complianceEndpoints is compliance_endpoints_check: the audit files of
// the tests the endpoints tool runs, and TEST09's output length bound.
func (c *checker) complianceEndpoints(s *submission) func() (bool, error) {
	return func() (bool, error) {
		dir := pyJoin(s.compliancePath, "audit")
		ok := true
		for _, test := range c.round.testList(s.model) {
			if name, mapped := endpointsComplianceMapping[test]; mapped {
				fname := pyJoin(dir, "audit_"+name+".json")
				if !exists(fname) {
					if test == "TEST04" && contains(endpointsAllowedModels, s.model) && contains(c.round.Tests["TEST04"], s.model) {
						c.rep.add("ERROR", "%s is missing in %s", fname, dir)
						ok = false
					}
					continue
				}
				data, err := os.ReadFile(fname)
				var v value
				if err == nil {
					v, err = decodeJSON(data)
				}
				switch {
				case err != nil || !v.isDict() || !v.has("test"):
					c.rep.add("ERROR", "%s compliance test can not be loaded in %s", fname, dir)
					ok = false
				case !eq(v.get("test"), vStr(name)):
					c.rep.add("ERROR", "%s compliance test is incorrect %s. Expected name=%sActual name=%s", fname, dir, name, pyStr(v.get("test")))
					ok = false
				case !v.has("passed"):
					c.rep.add("ERROR", "%s compliance test can not be loaded in %s", fname, dir)
					ok = false
				case !v.get("passed").truthy():
					c.rep.add("ERROR", "%s compliance test can not be loaded in %s", fname, dir)
					ok = false
				}
			}
			if test == "TEST09" {
				mean := s.perf.get("mean_output_tokens")
				hi, err := gt(mean, vFloat(test09High))
				if err != nil {
					return false, err
				}
				lo := false
				if !hi {
					if lo, err = lt(mean, vFloat(test09Low)); err != nil {
						return false, err
					}
				}
				if hi || lo {
					c.rep.add("ERROR", "TEST 09 (Verify Output Token Length in Performance Mode) failed for %s. Mean output tokens need to be in the range [%s, %s]. Found %s",
						s.compliancePath, pyStr(vFloat(test09Low)), pyStr(vFloat(test09High)), pyStr(mean))
					ok = false
				}
			}
		}
		return ok, nil
	}
}
