package check

import (
	"strings"
)

// The performance checks (mlcommons/inference
// tools/submission/submission_checker/checks/performance_check.py), run
// on a scenario's performance log and, for TEST01 and TEST04, on the
// compliance run's.

// perfState is a PerformanceCheck's view of one log.
type perfState struct {
	s                  *submission
	log                *logFile
	path               string
	scenario           value  // effective_scenario, mapped for endpoints runs
	scenarioFixed      string // the folder's scenario
	compliance         bool   // a TEST01/TEST04 run (check_scenarios passes, compliance_skip)
	metric             value
	errs               func(format string, a ...any)
	warn               func(format string, a ...any)
	checkScenariosPass bool
}

// endpointsScenario is PerformanceCheck.map_endpoints_scenario; it fails
// where the checker calls .lower() on None.
func endpointsScenario(scenario value, fixed string) (value, error) {
	if strings.ToLower(fixed) == "singlestream" {
		return vStr("SingleStream"), nil
	}
	if strings.ToLower(fixed) == "interactive" || strings.ToLower(pyStr(scenario)) == "interactive" {
		return vStr("Interactive"), nil
	}
	if !scenario.isStr() {
		return none, pyErr("AttributeError: '%s' object has no attribute 'lower'", scenario.typeName())
	}
	if strings.ToLower(scenario.s) == "online" {
		return vStr("Server"), nil
	}
	return scenario, nil
}

// strLower is value.lower(): an error for anything but a string.
func strLower(v value) (string, error) {
	if !v.isStr() {
		return "", pyErr("AttributeError: '%s' object has no attribute 'lower'", v.typeName())
	}
	return strings.ToLower(v.s), nil
}

func usesEarlyStopping(scenario value) bool {
	return scenario.isStr() && (scenario.s == "Server" || scenario.s == "SingleStream" || scenario.s == "MultiStream")
}

// performanceChecks returns the checks of PerformanceCheck on log at
// path; compliance marks a TEST01/TEST04 run.
func (c *checker) performanceChecks(s *submission, log *logFile, path string, compliance bool) []check {
	p := &perfState{s: s, log: log, path: path, scenarioFixed: s.scenarioFixed, compliance: compliance,
		scenario: log.get("effective_scenario")}
	p.errs = func(format string, a ...any) { c.rep.add("ERROR", format, a...) }
	p.warn = func(format string, a ...any) { c.rep.add("WARNING", format, a...) }
	if s.endpoints {
		p.scenario, _ = endpointsScenario(p.scenario, p.scenarioFixed)
	}
	cls := "PerformanceCheck"
	checks := []check{
		{"missing_check", cls, func() (bool, error) { return true, nil }},
		{"scenarios_check", cls, c.scenariosCheck(p)},
		{"loadgen_errors_check", cls, c.perfLoadgenErrors(p)},
		{"equal_issue_check", cls, func() (bool, error) { return true, nil }}, // only for v4.1
	}
	if !s.endpoints {
		checks = append(checks, check{"performance_sample_count_check", cls, c.perfSampleCount(p)})
	}
	checks = append(checks, check{"seeds_check", cls, c.seedsCheck(p)}, check{"latency_check", cls, c.latencyCheck(p)})
	if !s.endpoints {
		checks = append(checks, check{"min_query_count_check", cls, c.minQueryCount(p)})
	}
	checks = append(checks,
		check{"min_duration_check", cls, c.minDuration(p)},
		check{"network_check", cls, c.perfNetwork(p)},
		check{"llm_check", cls, c.llmCheck(p)},
		check{"inferred_check", cls, c.inferredCheck(p)},
		check{"get_performance_metric_check", cls, c.metricCheck(p)},
	)
	if s.endpoints {
		checks = append(checks, check{"endpoints_model_check", cls, c.endpointsModel(p.path, s.model)})
	}
	return checks
}

func (c *checker) scenariosCheck(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		if p.compliance || p.s.scenarios.ok {
			return true, nil
		}
		if len(p.s.scenarios.missing) > 0 {
			p.errs("%s does not have all required scenarios, missing %s", p.path, pyList(p.s.scenarios.missing))
		}
		if len(p.s.scenarios.unknown) > 0 {
			p.errs("%s has all unknown scenarios for this benchmark %s", p.path, pyList(p.s.scenarios.unknown))
		}
		return false, nil
	}
}

// inValue is Python's `needle in v` for a LoadGen error's value.
func inValue(needle string, v value) (bool, error) {
	switch v.k {
	case kStr:
		return strings.Contains(v.s, needle), nil
	case kList:
		for _, e := range v.list {
			if e.isStr() && e.s == needle {
				return true, nil
			}
		}
		return false, nil
	case kDict:
		return v.has(needle), nil
	}
	return false, pyErr("TypeError: argument of type '%s' is not iterable", v.typeName())
}

func (c *checker) perfLoadgenErrors(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		n, err := p.log.numErrors()
		if err != nil {
			return false, err
		}
		if !n.truthy() {
			return true, nil
		}
		errs, err := p.log.errors()
		if err != nil {
			return false, err
		}
		critical := false
		if c.o.SubmissionExceptions {
			for _, e := range errs {
				uncommitted, err := inValue("Loadgen built with uncommitted changes!", e)
				if err != nil {
					return false, err
				}
				multiple, err := inValue("Multiple conf files are used", e)
				if err != nil {
					return false, err
				}
				if !uncommitted && !multiple {
					critical = true
				}
				if !p.compliance && multiple {
					critical = true
				}
			}
		}
		if critical {
			p.errs("%s contains errors:", p.path)
			for _, e := range errs {
				p.errs("%s", pyStr(e))
			}
			p.errs("%s has loadgen errors, number of errors: %s", p.path, pyStr(n))
			return false, nil
		}
		return true, nil
	}
}

// modelTable looks a model up in a per-model table as the checker's
// Config getters do (mapping the id again), raising ValueError when it
// is missing.
func modelTable[T any](c *checker, table map[string]T, model string) (T, error) {
	m := c.round.MLPerfModel(model, nil)
	v, ok := table[m]
	if !ok {
		var zero T
		return zero, pyErr("ValueError: model not known: %s", m)
	}
	return v, nil
}

func (c *checker) perfSampleCount(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		required, err := modelTable(c, c.round.PerformanceSampleCount, p.s.model)
		if err != nil {
			return false, err
		}
		found := p.log.get("effective_performance_sample_count")
		low, err := lt(found, vInt(required))
		if err != nil {
			return false, err
		}
		if low {
			c.logD(p, "%s performance_sample_count, found %d, needs to be >= %d", p.path, found, vInt(required))
			return false, nil
		}
		return true, nil
	}
}

// logD logs a message whose values are formatted with %d; where Python's
// logging fails to format one, the line is lost (logging prints its own
// traceback instead).
func (c *checker) logD(p *perfState, format string, path string, vals ...value) {
	args := []any{path}
	for _, v := range vals {
		s, ok := pyFormatD(v)
		if !ok {
			return
		}
		args = append(args, s)
	}
	p.errs(strings.ReplaceAll(format, "%d", "%s"), args...)
}

func (c *checker) seedsCheck(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		seeds := c.round.Seeds
		ok := true
		for _, sd := range []struct {
			name string
			want uint64
			skip bool
		}{{"qsl_rng_seed", seeds.QSL, p.s.endpoints}, {"sample_index_rng_seed", seeds.SampleIndex, false}, {"schedule_rng_seed", seeds.Schedule, false}} {
			if sd.skip {
				continue
			}
			found := p.log.get("effective_" + sd.name)
			want := value{k: kInt, i: newBigUint(sd.want)}
			if !eq(found, want) {
				p.errs("%s %s is wrong, expected=%d, found=%s", p.path, sd.name, sd.want, pyStr(found))
				ok = false
			}
		}
		return ok, nil
	}
}

func (c *checker) latencyCheck(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		if usesEarlyStopping(p.scenario) && !p.s.endpoints {
			if !p.log.get("early_stopping_met").truthy() {
				p.errs("Early stopping condition was not met, msg=%s", pyStr(p.log.get("early_stopping_result")))
				return false, nil
			}
			if target := c.round.LatencyConstraint[p.s.model][p.scenario.s]; target != 0 {
				found := p.log.get("effective_target_latency_ns")
				over, err := gt(found, vInt(target))
				if err != nil {
					return false, err
				}
				if over {
					p.errs("%s Latency constraint with early stopping not met, expected=%d, found=%s", p.path, target, pyStr(found))
					return false, nil
				}
			}
			return true, nil
		}
		if p.s.endpoints && isLLM(p.s.model) {
			return true, nil // enforced by llm_check through TTFT and TPOT
		}
		p99 := p.log.get("result_99.00_percentile_latency_ns")
		sc := p.scenarioFixed
		if sc == "" {
			sc = pyStr(p.scenario)
		}
		if m, ok := scenarioSpelling[strings.ToLower(sc)]; ok {
			sc = m
		}
		if target := c.round.LatencyConstraint[p.s.model][sc]; target != 0 {
			over, err := gt(p99, vInt(target))
			if err != nil {
				return false, err
			}
			if over {
				p.errs("%s Latency constraint not met, expected=%d, found=%s", p.path, target, pyStr(p99))
				return false, nil
			}
		}
		return true, nil
	}
}

// scenarioSpelling is SCENARIO_MAPPING: lower-case names to the
// checker's.
var scenarioSpelling = map[string]string{"singlestream": "SingleStream", "multistream": "MultiStream", "server": "Server",
	"offline": "Offline", "interactive": "Interactive"}

func (c *checker) minQueryCount(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		mqc := p.log.get("effective_min_query_count")
		spq := p.log.get("effective_samples_per_query")
		if !usesEarlyStopping(p.scenario) {
			table, err := modelTable(c, c.round.MinQueries, p.s.model)
			if err != nil {
				return false, err
			}
			if required := table[pyStr(p.scenario)]; required != 0 && p.scenario.isStr() {
				low, err := lt(mqc, vInt(required))
				if err != nil {
					return false, err
				}
				if low {
					p.errs("%s Required minimum Query Count not met by user config, Expected=%d, Found=%s", p.path, required, pyStr(mqc))
					return false, nil
				}
			}
		}
		sc, err := strLower(p.scenario)
		if err != nil {
			return false, err
		}
		if sc != "offline" {
			return true, nil
		}
		minSPQ, ok := offlineMinSPQ[p.s.model]
		if !ok {
			return false, pyErr("KeyError: %s", pyRepr(vStr(p.s.model)))
		}
		low, err := lt(spq, vInt(minSPQ))
		if err != nil {
			return false, err
		}
		if low && strings.ToLower(p.s.n.division) == "closed" {
			p.errs("%s Required minimum samples per query not met by user config, Expected=%d, Found=%s", p.path, minSPQ, pyStr(spq))
			return false, nil
		}
		return true, nil
	}
}

func (c *checker) minDuration(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		if p.s.model == "e2e-rag-qna" || p.s.model == "e2e-rag-db" {
			return true, nil
		}
		d := p.log.get("effective_min_duration_ms")
		low, err := lt(d, vInt(testDurationMs))
		if err != nil {
			return false, err
		}
		if low {
			p.errs("%s Test duration less than 600s in user config. expected=%d, found=%s", p.path, testDurationMs, pyStr(d))
			return false, nil
		}
		return true, nil
	}
}

// testDurationMs is TEST_DURATION_MS, the least min_duration.
const testDurationMs = 600000

// isNetworkSystem is the checker's reading of is_network: a string equal
// to "true" in any case; None is false; another type raises.
func isNetworkSystem(sys value) (bool, error) {
	v := sys.get("is_network")
	if v.isNone() {
		return false, nil
	}
	s, err := strLower(v)
	return s == "true", err
}

func (c *checker) perfNetwork(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		if !p.s.sys.isDict() {
			p.errs("%s system json file not found", p.path)
			return false, nil
		}
		network, err := isNetworkSystem(p.s.sys)
		if err != nil {
			return false, err
		}
		if want, ok := map[string]bool{"network": true, "closed": false}[p.s.n.division]; ok && want != network {
			p.errs("%s incorrect network mode(=%s) for division %s", p.path, pyStr(vBool(network)), p.s.n.division)
			return false, nil
		}
		sut := p.log.get("sut_name")
		if network {
			in, err := inValue("Network SUT", sut)
			if err != nil {
				return false, err
			}
			if !in {
				p.errs("%s invalid sut name for network mode.expecting the substring 'Network SUT' got '%s'", p.path, pyStr(sut))
				return false, nil
			}
		}
		return true, nil
	}
}

// llmLimit is an LLM's p99 TTFT and TPOT bound in ns (strictly below).
type llmLimit struct{ TTFT, TPOT int64 }

func (c *checker) llmCheck(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		if !isLLM(p.s.model) {
			return true, nil
		}
		if !p.s.endpoints && !p.log.get("requested_use_token_latencies").truthy() {
			p.errs("use_token_latencies flag needs to be enabled for LLM benchmark")
			return false, nil
		}
		sc := pyStr(p.scenario)
		if !p.scenario.isStr() || (sc != "Server" && sc != "Interactive") {
			return true, nil
		}
		lim, ok := llmLatencyLimits[p.s.model][sc]
		if !ok {
			p.errs("%s TTFT/TPOT latency limits missing for model=%s scenario=%s", p.path, p.s.model, sc)
			return false, nil
		}
		ttft := p.log.get("result_first_token_99.00_percentile_latency_ns")
		tpot := p.log.get("result_time_per_output_token_99.00_percentile_ns")
		if ttft.isNone() || tpot.isNone() {
			p.errs("%s TTFT or TPOT percentile data missing for LLM check", p.path)
			return false, nil
		}
		a, err := lt(ttft, vInt(lim.TTFT))
		if err != nil {
			return false, err
		}
		if a {
			b, err := lt(tpot, vInt(lim.TPOT))
			if err != nil {
				return false, err
			}
			if b {
				return true, nil
			}
		}
		t1, ok1 := pyFormatF(ttft, 4)
		t2, ok2 := pyFormatF(tpot, 4)
		if ok1 && ok2 {
			p.errs("Failed extra check for TTFT and TPOT. Obtained: TTFT 99-tile: %s, TPOT 99-tile: %s. Required: TTFT 99-tile: %.4f, TPOT 99-tile: %.4f",
				t1, t2, float64(lim.TTFT), float64(lim.TPOT))
		}
		return false, nil
	}
}

func (c *checker) inferredCheck(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		sc, err := strLower(p.scenario)
		if err != nil {
			return false, err
		}
		fixed := strings.ToLower(p.scenarioFixed)
		if sc == fixed || (sc == "server" && fixed == "interactive") {
			return true, nil
		}
		st := p.s.sys.get("system_type")
		if !p.s.sys.has("system_type") {
			return false, pyErr("KeyError: 'system_type'")
		}
		stl, err := strLower(st)
		if err != nil {
			return false, err
		}
		if !strings.Contains(stl, "edge") {
			p.errs("Result can not be inferred for %s suite for: %s. Scenario: %s, Scenario fixed: %s", pyStr(st), p.path, pyStr(p.scenario), p.scenarioFixed)
			return false, nil
		}
		switch [2]string{sc, fixed} {
		case [2]string{"singlestream", "multistream"}, [2]string{"multistream", "offline"}, [2]string{"singlestream", "offline"}:
			return true, nil
		}
		p.errs("Result for scenario %s can not be inferred from %s for: %s", p.scenarioFixed, pyStr(p.scenario), p.path)
		return false, nil
	}
}

// metricCheck is get_performance_metric_check: the result the checker
// records, inferred where the folder's scenario differs from the run's.
func (c *checker) metricCheck(p *perfState) func() (bool, error) {
	return func() (bool, error) {
		sc := p.scenario
		var key string
		if p.s.endpoints {
			l, err := strLower(sc)
			if err != nil {
				return false, err
			}
			k, ok := c.round.EndpointsResultField[l]
			if !ok {
				return false, pyErr("KeyError: %s", pyRepr(vStr(l)))
			}
			key = k
		} else {
			k, ok := c.round.ResultField[pyStr(sc)]
			if !ok || !sc.isStr() {
				return false, pyErr("KeyError: %s", pyRepr(sc))
			}
			key = k
		}
		res, err := toFloat(p.log.get(key))
		if err != nil {
			return false, err
		}
		if k, ok := c.round.ResultFieldOverwrite[p.s.model][pyStr(sc)]; ok && sc.isStr() {
			if res, err = toFloat(p.log.get(k)); err != nil {
				return false, err
			}
		}
		if sc.isStr() && (sc.s == "SingleStream" || sc.s == "MultiStream") {
			res /= 1e6
			if strings.ToLower(p.s.model) == "wan-2.2-t2v-a14b" {
				res /= 1000
			}
		}
		valid := true
		metric := vFloat(res)
		l, err := strLower(sc)
		if err != nil {
			return false, err
		}
		fixed := strings.ToLower(p.scenarioFixed)
		if l != fixed && !(l == "server" && fixed == "interactive") {
			if metric, valid, err = c.inferred(p, res); err != nil {
				return false, err
			}
		}
		p.metric = metric
		if !p.compliance {
			p.s.performanceMetric = metric
		}
		return valid, nil
	}
}

// inferred is get_inferred_result: a MultiStream or Offline result from a
// run of another scenario.
func (c *checker) inferred(p *perfState, res float64) (value, bool, error) {
	sc, fixed := pyStr(p.scenario), p.scenarioFixed
	if m, ok := scenarioSpelling[fixed]; ok { // SCENARIO_MAPPING keys are lower case
		fixed = m
	}
	latencyMean := p.log.get("result_mean_latency_ns")
	var p99 value
	if sc == "MultiStream" {
		p99 = p.log.get("result_99.00_percentile_per_query_latency_ns")
		latencyMean = p.log.get("result_mean_query_latency_ns")
	}
	spq := p.log.get("effective_samples_per_query")
	metric := vFloat(res)
	valid := true
	switch {
	case fixed == "Offline" && sc == "SingleStream":
		metric = p.log.get("result_qps_without_loadgen_overhead")
	case fixed == "Offline" && sc == "MultiStream":
		a, err := toFloat(spq)
		if err != nil || !spq.isNumber() {
			return none, false, pyErr("TypeError: unsupported operand")
		}
		b, err := toFloat(latencyMean)
		if err != nil || !latencyMean.isNumber() {
			return none, false, pyErr("TypeError: unsupported operand")
		}
		if b == 0 {
			return none, false, pyErr("ZeroDivisionError: float division by zero")
		}
		metric = vFloat(a * 1000 / (b / 1e6))
	case fixed == "MultiStream" && sc == "SingleStream":
		es := p.log.get("early_stopping_latency_ms")
		if usesEarlyStopping(p.scenario) {
			if eq(es, vInt(0)) {
				p.errs("Not enough samples were processed for early stopping to make an estimate")
				valid = false
			}
			f, err := toFloat(es)
			if err != nil || !es.isNumber() {
				return none, false, pyErr("TypeError: unsupported operand")
			}
			metric = vFloat(f * 8 / 1e6)
		} else {
			f, err := toFloat(p99)
			if err != nil || !p99.isNumber() {
				return none, false, pyErr("TypeError: unsupported operand")
			}
			metric = vFloat(f * 8 / 1e6)
		}
	}
	if fixed == "Interactive" && sc != "Server" {
		valid = false
	}
	return metric, valid, nil
}

func (c *checker) endpointsModel(path, model string) func() (bool, error) {
	return func() (bool, error) {
		if contains(endpointsAllowedModels, model) {
			return true, nil
		}
		c.rep.add("ERROR", "%s endpoints submission uses disallowed model '%s', must be one of: %s", path, model, pyList(endpointsAllowedModels))
		return false, nil
	}
}

// keyPair is one ordered mapping entry.
type keyPair struct{ from, to string }
