package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/loadgen"
)

// Round is one submission round's tables, as the MLCommons submission
// checker's MODEL_CONFIG[round] holds them (mlcommons/inference
// tools/submission/submission_checker/constants.py). The tables are
// generated into rounds_table.go by testdata/rounds/make_tables.py;
// adding a round is adding its table there. The accuracy targets, shared
// by every round, live in package accuracy (accuracy.Targets), computed
// as the checker's Python computes them.
//
// Where the checker crashes on a table's gaps, check reports an error
// instead (see crash):
//   - a benchmark folder whose model is not in the required scenarios of
//     the system's type (get_required returns None and lower_list(None)
//     raises TypeError): e.g. resnet on a datacenter system since v5.1,
//     retinanet on an edge or datacenter system in v6.0, or an unknown
//     model;
//   - a system_type other than datacenter, edge, datacenter,edge and
//     edge,datacenter (set_type raises ValueError);
//   - a missing system description (loader.py calls .get on None);
//   - a scenario folder with an accuracy log but no performance log, or
//     the other way round (the checks' constructors index a None log);
//   - in the v5.x layout, a missing measurements/<system>/<benchmark>/
//     <scenario> folder (list_files raises FileNotFoundError);
//   - a submitter folder without results/;
//   - a detail log whose first line is not a LoadGen entry, or with a
//     line that is not JSON, and a system or measurements file that is
//     not JSON;
//   - a valid result whose system description's number_of_nodes or
//     accelerators_per_node is not a whole number (results.py calls int()
//     on them; "N/A" crashes it).
//
// Where the checker's verdict comes from a quirk of its code, check keeps
// the verdict, so that the two agree:
//   - v5.0 lists gptj-99 and gptj-99.9 but OFFLINE_MIN_SPQ_SINCE_V4 has
//     no gptj key: every gptj Offline result fails with "Execution
//     occurred ... min_query_count_check" (a KeyError);
//   - LoadGen errors in a performance log fail it only with
//     --submission-exceptions;
//   - an accuracy below its target is logged as a WARNING, the failure as
//     "Some accuracy checks Checks failed";
//   - a missing sdxl captions.txt is named but does not fail;
//   - TEST01's baseline comparison keeps the verdict of the last metric;
//   - an Interactive folder holding a LoadGen Server run is held to the
//     Server TTFT/TPOT limits (its effective scenario);
//   - a result of 0 is neither a result nor a NoResults, but the summary
//     says the submission has errors.
type Round struct {
	Name string
	// Models are the checker's model ids of the round (its "models").
	Models []string
	// Required and Optional are the scenario folders each model needs
	// and may have, per system type.
	Required, Optional map[SystemType]map[string][]string
	// PerformanceSampleCount is the minimum
	// effective_performance_sample_count per model.
	PerformanceSampleCount map[string]int64
	// AccuracySampleCount overrides DatasetSize as the accuracy run's
	// required sample count; ByScenario where it differs per scenario.
	AccuracySampleCount map[string]SampleCount
	// DatasetSize is the accuracy run's required sample count.
	DatasetSize map[string]int64
	// ModelMapping maps folder names to model ids (resnet50 → resnet).
	ModelMapping map[string]string
	// Seeds are the round's mlperf.conf seeds the performance logs must
	// carry; `mlperf run --round` runs with them.
	Seeds loadgen.Seeds
	// IgnoreErrors are LoadGen error substrings the round ignores.
	IgnoreErrors []string
	// LatencyConstraint is the latency bound in ns per model and scenario.
	LatencyConstraint map[string]map[string]int64
	// MinQueries is the minimum query count per model and scenario.
	MinQueries map[string]map[string]int64
	// Tests lists, per compliance test (TEST01 ...), the models that need
	// it (models_TEST01 ...).
	Tests map[string][]string
	// AccuracyDeltaPerc is TEST01's allowed accuracy difference in
	// percent per model and metric (default 1, or 0.1 for 99.9 models).
	AccuracyDeltaPerc map[string]map[string]float64
	// ScenarioTargets marks a round whose accuracy targets differ per
	// scenario for the models accuracy.ScenarioTargets lists.
	ScenarioTargets bool
	// ResultField is the detail-log key of the result per scenario
	// (RESULT_FIELD_NEW); ResultFieldOverwrite per model
	// (RESULT_FIELD_BENCHMARK_OVERWRITE); EndpointsResultField for
	// endpoints runs per lower-case scenario (nil: the round has none).
	ResultField          map[string]string
	ResultFieldOverwrite map[string]map[string]string
	EndpointsResultField map[string]string
	// ExtraAccuracyFiles are the files the accuracy folder must hold
	// besides the logs, per model: folder → file stems
	// (REQUIRED_ACC_BENCHMARK: the sdxl images, the wan videos).
	ExtraAccuracyFiles map[string]map[string][]string
	// Layout is where the round's files are.
	Layout Layout
}

// SampleCount is an accuracy sample count, for all scenarios or per
// scenario.
type SampleCount struct {
	All        int64
	ByScenario map[string]int64
}

// SystemType is a system description's system_type.
type SystemType string

// The system types the checker knows.
const (
	Datacenter     SystemType = "datacenter"
	Edge           SystemType = "edge"
	DatacenterEdge SystemType = "datacenter,edge"
)

// ParseSystemType maps a system_type value to its table, as Config.set_type
// does: "edge,datacenter" is "datacenter,edge"; anything else is an
// error (the checker raises ValueError).
func ParseSystemType(s string) (SystemType, bool) {
	switch s {
	case "datacenter":
		return Datacenter, true
	case "edge":
		return Edge, true
	case "datacenter,edge", "edge,datacenter":
		return DatacenterEdge, true
	}
	return "", false
}

// Layout holds a round's path templates ({division}, {submitter},
// {system}, {benchmark}, {scenario}), relative to the tree's root.
type Layout struct {
	PerformanceLog, AccuracyLog, AccuracyResult, AccuracyJSON string
	EndpointsScenarioDir, PowerDir, System, Src, PrivateID    string
	// Measurements is the measurements.json path; in the v5.x layout it
	// ends in {file}, the first .json file of the folder named for the
	// system (and scenario).
	Measurements string
	// Compliance is the folder holding TEST01/ ...; TestFiles the files
	// read per test (TEST01_PERF_PATH ...).
	Compliance string
	TestFiles  map[string]string
	// NameplatePower is the system's power YAML ("" before v6.1).
	NameplatePower string
}

// Rounds are the rounds this checker knows, by name.
var Rounds = roundTables

// Newest is the newest round, the default of check, run and submission.
var Newest = func() string {
	names := RoundNames()
	return names[len(names)-1]
}()

// RoundNames lists the known rounds, oldest first.
func RoundNames() []string {
	var names []string
	for n := range Rounds {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return versionLess(names[i], names[j]) })
	return names
}

func versionLess(a, b string) bool {
	var a1, a2, b1, b2 int
	fmt.Sscanf(a, "v%d.%d", &a1, &a2)
	fmt.Sscanf(b, "v%d.%d", &b1, &b2)
	if a1 != b1 {
		return a1 < b1
	}
	return a2 < b2
}

// LookupRound returns a round's tables, or an error naming the rounds
// there are.
func LookupRound(name string) (*Round, error) {
	if name == "" {
		name = Newest
	}
	r, ok := Rounds[name]
	if !ok {
		return nil, fmt.Errorf("check: unknown round %q (want one of %s)", name, strings.Join(RoundNames(), ", "))
	}
	return r, nil
}

// HasModel reports whether the round lists a model id.
func (r *Round) HasModel(id string) bool {
	for _, m := range r.Models {
		if m == id {
			return true
		}
	}
	return false
}

// MLPerfModel is Config.get_mlperf_model: the model id of a benchmark
// folder name, through the round's mapping, the submitter's
// model_mapping.json (open division), and the checker's guesses.
func (r *Round) MLPerfModel(name string, extra map[string]string) string {
	if r.HasModel(name) {
		return name
	}
	if m := r.ModelMapping[name]; m != "" {
		return m
	}
	if m := extra[name]; m != "" {
		return m
	}
	switch {
	case strings.Contains(name, "mobilenet") || strings.Contains(name, "efficientnet") || strings.Contains(name, "resnet50"):
		name = "resnet"
	case strings.Contains(name, "bert-99.9"):
		name = "bert-99.9"
	case strings.Contains(name, "bert-99"):
		name = "bert-99"
	case strings.Contains(name, "llama3_1-405b"):
		name = "llama3.1-405b"
	}
	if m := r.ModelMapping[name]; m != "" {
		return m
	}
	return name
}

// Compliance lists the compliance tests the round requires of a model,
// in the checker's order (ComplianceCheck.get_test_list, which lists
// TEST07 and TEST09 twice; check runs each once, as the second run
// repeats the first's messages).
func (r *Round) Compliance(model string) []string {
	var out []string
	for _, t := range []string{"TEST01", "TEST04", "TEST06", "TEST07", "TEST09", "TEST08"} {
		for _, m := range r.Tests[t] {
			if m == model {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// Targets returns the accuracy targets of a model in a scenario folder.
func (r *Round) Targets(model, scenario string) (accuracy.Target, bool) {
	if r.ScenarioTargets {
		if t, ok := accuracy.ScenarioTarget(model, scenario); ok {
			return t, true
		}
	}
	t, ok := accuracy.Targets[model]
	return t, ok
}

// llmModels are the models the checker treats as LLMs
// (Config.get_llm_models): token latencies required, TTFT/TPOT bounds.
var llmModels = []string{"llama2-70b-99", "llama2-70b-99.9", "llama2-70b-interactive-99", "llama2-70b-interactive-99.9",
	"mixtral-8x7b", "llama3.1-405b", "llama3.1-8b", "llama3.1-8b-edge", "deepseek-r1", "gpt-oss-120b"}

func isLLM(model string) bool {
	for _, m := range llmModels {
		if m == model {
			return true
		}
	}
	return false
}
