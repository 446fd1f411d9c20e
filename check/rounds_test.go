package check

import (
	"encoding/json"
	"math"
	"math/big"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/loadgen"
)

// constants is testdata/rounds/constants.json, the checker's tables as
// testdata/rounds/make_constants.py dumped them (floats as hex, integers
// as decimal strings).
type constants struct {
	Rounds map[string]map[string]any `json:"rounds"`
	Global map[string]any            `json:"global"`
}

func loadConstants(t *testing.T) constants {
	t.Helper()
	data, err := os.ReadFile("testdata/rounds/constants.json")
	if err != nil {
		t.Fatal(err)
	}
	var c constants
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// plain turns a dumped value into Go values: {"hex": ...} into float64,
// decimal strings stay strings (the Go side is turned into the same
// shape by shape).
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if h, ok := x["hex"].(string); ok && len(x) == 1 {
			f, _ := strconv.ParseFloat(h, 64)
			return f
		}
		out := map[string]any{}
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// shape turns Go table values into the dump's shape: integers as decimal
// strings, maps as map[string]any, slices as []any.
func shape(v any) any {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Map:
		out := map[string]any{}
		for _, k := range rv.MapKeys() {
			out[k.String()] = shape(rv.MapIndex(k).Interface())
		}
		return out
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = shape(rv.Index(i).Interface())
		}
		return out
	}
	return v
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	g, w := shape(got), plain(want)
	if w == nil {
		w = map[string]any{}
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %v\n want %v", what, g, w)
	}
}

// TestRoundTablesMatchTheChecker: every round's table (rounds_table.go)
// and the tables shared by the rounds are the checker's constants.py
// values, and the accuracy targets each round reads are its values to
// the last bit.
func TestRoundTablesMatchTheChecker(t *testing.T) {
	c := loadConstants(t)
	if len(c.Rounds) != len(Rounds) {
		t.Fatalf("%d rounds here, the checker has %d", len(Rounds), len(c.Rounds))
	}
	for name, cfg := range c.Rounds {
		r, ok := Rounds[name]
		if !ok {
			t.Errorf("round %s missing", name)
			continue
		}
		same(t, name+" models", r.Models, cfg["models"])
		for typ, key := range map[SystemType]string{Datacenter: "datacenter", Edge: "edge", DatacenterEdge: "datacenter-edge"} {
			same(t, name+" required "+key, r.Required[typ], cfg["required-scenarios-"+key])
			same(t, name+" optional "+key, r.Optional[typ], cfg["optional-scenarios-"+key])
		}
		same(t, name+" performance-sample-count", r.PerformanceSampleCount, cfg["performance-sample-count"])
		acc := map[string]any{}
		for m, n := range r.AccuracySampleCount {
			if n.ByScenario != nil {
				acc[m] = n.ByScenario
			} else {
				acc[m] = n.All
			}
		}
		same(t, name+" accuracy-sample-count", acc, cfg["accuracy-sample-count"])
		same(t, name+" dataset-size", r.DatasetSize, cfg["dataset-size"])
		same(t, name+" model_mapping", r.ModelMapping, cfg["model_mapping"])
		same(t, name+" seeds", map[string]uint64{"qsl_rng_seed": r.Seeds.QSL, "sample_index_rng_seed": r.Seeds.SampleIndex,
			"schedule_rng_seed": r.Seeds.Schedule}, cfg["seeds"])
		same(t, name+" ignore_errors", r.IgnoreErrors, cfg["ignore_errors"])
		same(t, name+" latency-constraint", r.LatencyConstraint, cfg["latency-constraint"])
		same(t, name+" min-queries", r.MinQueries, cfg["min-queries"])
		for _, test := range []string{"TEST01", "TEST04", "TEST06", "TEST07", "TEST08", "TEST09"} {
			want := cfg["models_"+test]
			if want == nil {
				want = []any{}
			}
			got := r.Tests[test]
			if got == nil {
				got = []string{}
			}
			same(t, name+" models_"+test, got, want)
		}
		delta := map[string]any{}
		for m, d := range r.AccuracyDeltaPerc {
			dm := map[string]any{}
			for k, v := range d {
				dm[k] = strconv.Itoa(int(v))
			}
			delta[m] = dm
		}
		same(t, name+" accuracy-delta-perc", delta, cfg["accuracy-delta-perc"])
		checkTargets(t, r, cfg)
	}
	g := c.Global
	same(t, "OFFLINE_MIN_SPQ_SINCE_V4", offlineMinSPQ, g["OFFLINE_MIN_SPQ_SINCE_V4"])
	limits := map[string]map[string]map[string]int64{}
	for m, byScenario := range llmLatencyLimits {
		limits[m] = map[string]map[string]int64{}
		for sc, l := range byScenario {
			limits[m][sc] = map[string]int64{"ttft": l.TTFT, "tpot": l.TPOT}
		}
	}
	same(t, "LLM_LATENCY_LIMITS", limits, g["LLM_LATENCY_LIMITS"])
	for _, name := range RoundNames() {
		r := Rounds[name]
		same(t, name+" RESULT_FIELD_NEW", r.ResultField, g["RESULT_FIELD_NEW"].(map[string]any)[name])
		same(t, name+" RESULT_FIELD_BENCHMARK_OVERWRITE", r.ResultFieldOverwrite, g["RESULT_FIELD_BENCHMARK_OVERWRITE"].(map[string]any)[name])
		same(t, name+" RESULT_FIELD_ENDPOINTS", r.EndpointsResultField, g["RESULT_FIELD_ENDPOINTS"].(map[string]any)[name])
		extra := map[string]any{}
		for m, byRound := range g["REQUIRED_ACC_BENCHMARK"].(map[string]any) {
			if files, ok := byRound.(map[string]any)[name]; ok {
				extra[m] = files
			}
		}
		same(t, name+" REQUIRED_ACC_BENCHMARK", r.ExtraAccuracyFiles, extra)
		paths := g["paths"].(map[string]any)
		layout := map[string]string{"PERFORMANCE_LOG_PATH": r.Layout.PerformanceLog, "ACCURACY_LOG_PATH": r.Layout.AccuracyLog,
			"ACCURACY_RESULT_PATH": r.Layout.AccuracyResult, "ACCURACY_JSON_PATH": r.Layout.AccuracyJSON,
			"ENDPOINTS_SCENARIO_DIR": r.Layout.EndpointsScenarioDir, "POWER_DIR_PATH": r.Layout.PowerDir, "SYSTEM_PATH": r.Layout.System,
			"SRC_PATH": r.Layout.Src, "PRIVATE_ID_PATH": r.Layout.PrivateID, "MEASUREMENTS_PATH": r.Layout.Measurements,
			"COMPLIANCE_PATH": r.Layout.Compliance}
		for key, got := range layout {
			same(t, name+" "+key, got, paths[key].(map[string]any)[name])
		}
		for test, got := range r.Layout.TestFiles {
			key := test[:6] + "_" + map[string]string{"perf": "PERF", "acc": "ACC"}[test[7:]] + "_PATH"
			same(t, name+" "+key, got, paths[key].(map[string]any)[name])
		}
		np, _ := paths["NAMEPLATE_POWER_PATH"].(map[string]any)[name].(string)
		same(t, name+" NAMEPLATE_POWER_PATH", r.Layout.NameplatePower, np)
	}
	for name, got := range map[string]any{"SYSTEM_DESC_REQUIRED_FIELDS": systemRequired,
		"SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS": systemMeaningful, "SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE": systemNetwork,
		"SYSTEM_IMP_REQUIRED_FILES": measurementsRequired, "REQUIRED_MEASURE_FILES": measureFiles, "REQUIRED_COMP_PER_FILES": compliancePerfFiles,
		"REQUIRED_TEST01_ACC_FILES": test01AccFiles, "VALID_DIVISIONS": validDivisions, "VALID_AVAILABILITIES": validAvailabilities,
		"ENDPOINTS_ALLOWED_MODELS": endpointsAllowedModels, "ENDPOINTS_YAML_FIELD_MAP": endpointsYAMLFieldMap,
		"ENDPOINTS_JSON_ALT_PATHS": endpointsJSONAltPaths, "ENDPOINTS_COMPLIANCE_MAPPING": endpointsComplianceMapping,
		"SPECIAL_UNIT_DICT": specialUnits, "UNIT_DICT": units} {
		same(t, name, got, g[name])
	}
	pairs := func(l []keyPair) map[string]string {
		m := map[string]string{}
		for _, p := range l {
			m[p.from] = p.to
		}
		return m
	}
	same(t, "ENDPOINTS_MAPPINGS", pairs(endpointsMappings), g["ENDPOINTS_MAPPINGS"])
	same(t, "ENDPOINTS_INFERRED_FIELDS", pairs(endpointsInferredFields), g["ENDPOINTS_INFERRED_FIELDS"])
	same(t, "MAX_ACCURACY_LOG_SIZE", int64(maxAccuracyLogBytes), g["MAX_ACCURACY_LOG_SIZE"])
	same(t, "TEST_DURATION_MS", int64(testDurationMs), g["TEST_DURATION_MS"])
	same(t, "TEST09_LOW", test09Low, g["TEST09_LOW"])
	same(t, "TEST09_HIGH", test09High, g["TEST09_HIGH"])
}

// checkTargets compares the targets the round reads, per scenario, with
// the round's accuracy-target and accuracy-upper-limit, bit for bit.
func checkTargets(t *testing.T, r *Round, cfg map[string]any) {
	t.Helper()
	upper, _ := cfg["accuracy-upper-limit"].(map[string]any)
	for model, want := range cfg["accuracy-target"].(map[string]any) {
		for _, sc := range []string{"Offline", "Server", "Interactive", "SingleStream", "MultiStream"} {
			got, ok := r.Targets(model, sc)
			if !ok {
				t.Errorf("%s %s: no targets", r.Name, model)
				continue
			}
			w := want
			if byScenario, ok := want.(map[string]any); ok {
				if w, ok = byScenario[sc]; !ok {
					w = byScenario["Offline"]
				}
			}
			compareLimits(t, r.Name+" "+model+" "+sc+" target", got.Min, w.([]any))
			var u []any
			if upper[model] != nil {
				u = upper[model].([]any)
			}
			compareLimits(t, r.Name+" "+model+" "+sc+" upper limit", got.Max, u)
		}
	}
}

func compareLimits(t *testing.T, what string, got []accuracy.Limit, want []any) {
	t.Helper()
	if len(got)*2 != len(want) {
		t.Errorf("%s: %v, the checker's %v", what, got, want)
		return
	}
	for i, l := range got {
		metric := want[2*i].(string)
		var w float64
		switch v := want[2*i+1].(type) {
		case map[string]any:
			w, _ = strconv.ParseFloat(v["hex"].(string), 64)
		case string:
			n, _ := new(big.Int).SetString(v, 10)
			w, _ = new(big.Float).SetInt(n).Float64()
		}
		if l.Metric != metric || math.Float64bits(l.Value) != math.Float64bits(w) {
			t.Errorf("%s %d: %s %v, the checker's %s %v", what, i, l.Metric, l.Value, metric, w)
		}
	}
}

// Without --round, runs use the embedded mlperf.conf: its seeds must be
// the newest round's.
func TestEmbeddedMLPerfConfHasTheNewestRoundsSeeds(t *testing.T) {
	s, err := loadgen.LoadConfigs("resnet50", loadgen.Offline, loadgen.PerformanceOnly, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	got := loadgen.Seeds{QSL: s.QSLRNGSeed, SampleIndex: s.SampleIndexRNGSeed, Schedule: s.ScheduleRNGSeed}
	if got != Rounds[Newest].Seeds || Newest != "v6.1" {
		t.Fatalf("embedded mlperf.conf seeds %+v, round %s's %+v", got, Newest, Rounds[Newest].Seeds)
	}
	s.SetSeeds(Rounds["v5.0"].Seeds)
	if s.QSLRNGSeed != 6023615788873153749 || s.SampleIndexRNGSeed != 15036839855038426416 || s.ScheduleRNGSeed != 9933818062894767841 {
		t.Fatalf("SetSeeds: %d %d %d", s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed)
	}
}

// TestMLPerfModelOrder follows Config.get_mlperf_model (mlcommons/inference
// tools/submission/submission_checker/configuration/configuration.py): an
// official name wins over every mapping, the round's mapping over the
// submitter's, the submitter's over the guesses, and a guess is mapped
// again.
func TestMLPerfModelOrder(t *testing.T) {
	r := Rounds["v6.0"]
	extra := map[string]string{"resnet": "retinanet", "resnet50": "bert-99", "my-detector": "retinanet"}
	for name, want := range map[string]string{
		"resnet":            "resnet",    // official, though the submitter maps it
		"resnet50":          "resnet",    // the round's mapping before the submitter's
		"my-detector":       "retinanet", // the submitter's
		"my-mobilenet-v2":   "resnet",    // a guess
		"fast-bert-99.9-x":  "bert-99.9", // a guess, bert-99.9 before bert-99
		"fast-bert-99-x":    "bert-99",
		"ssd-resnet34":      "retinanet", // the round's mapping
		"something-unknown": "something-unknown",
	} {
		if got := r.MLPerfModel(name, extra); got != want {
			t.Errorf("v6.0 model of %q = %q, want %q", name, got, want)
		}
	}
}
