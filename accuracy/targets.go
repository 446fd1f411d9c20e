package accuracy

import (
	"bufio"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/pynum"
)

// Limit is one metric's bound in the submission checker's tables
// (mlcommons/inference tools/submission/submission_checker/constants.py):
// Metric is the checker's ACC_PATTERN key (acc, mAP, F1, AUC, DICE,
// ROUGE1, ...).
type Limit struct {
	Metric string
	Value  float64
}

// Target is what a checker model id requires of accuracy.txt: every Min
// metric must be found and reach its value ("accuracy-target"), and no
// Max metric may exceed its value ("accuracy-upper-limit"), each list in
// the checker's order.
type Target struct {
	Min, Max []Limit
}

// Bound is one metric's requirement, a Min and a Max limit of the same
// metric merged: Value ≥ Min when HasMin, Value ≤ Max when HasMax.
type Bound struct {
	Metric         string
	Min, Max       float64
	HasMin, HasMax bool
}

// mul and sub compute at run time, in float64: the checker's targets are
// Python float expressions (76.46 * 0.99 rounded once from two rounded
// operands), which Go constant arithmetic, being exact, would not
// reproduce (75.695400000000006 against Python's 75.695399999999992).
func mul(a, b float64) float64 { return a * b }
func sub(a, b float64) float64 { return a - b }

func mins(l ...Limit) []Limit { return l }

// Targets maps each checker model id of rounds v5.0–v6.1 to its accuracy
// target; the rounds agree on every id they share (the one exception,
// qwen3-vl-235b-a22b's per-scenario targets of v6.1, is ScenarioTarget).
// This is the one table of accuracy targets: the scorers, mlperf check and
// mlperf submission read it.
var Targets = map[string]Target{
	"resnet":       {Min: mins(Limit{"acc", mul(76.46, 0.99)})},
	"retinanet":    {Min: mins(Limit{"mAP", mul(37.55, 0.99)})},
	"bert-99":      {Min: mins(Limit{"F1", mul(90.874, 0.99)})},
	"bert-99.9":    {Min: mins(Limit{"F1", mul(90.874, 0.999)})},
	"dlrm-v2-99":   {Min: mins(Limit{"AUC", mul(80.31, 0.99)})},
	"dlrm-v2-99.9": {Min: mins(Limit{"AUC", mul(80.31, 0.999)})},
	"3d-unet-99":   {Min: mins(Limit{"DICE", mul(0.86170, 0.99)})},
	"3d-unet-99.9": {Min: mins(Limit{"DICE", mul(0.86170, 0.999)})},
	"gptj-99": {Min: mins(Limit{"ROUGE1", mul(42.9865, 0.99)}, Limit{"ROUGE2", mul(20.1235, 0.99)},
		Limit{"ROUGEL", mul(29.9881, 0.99)}, Limit{"GEN_LEN", mul(4016878, 0.9)})},
	"gptj-99.9": {Min: mins(Limit{"ROUGE1", mul(42.9865, 0.999)}, Limit{"ROUGE2", mul(20.1235, 0.999)},
		Limit{"ROUGEL", mul(29.9881, 0.999)}, Limit{"GEN_LEN", mul(4016878, 0.9)})},
	"llama2-70b-99":               llama2(0.99),
	"llama2-70b-99.9":             llama2(0.999),
	"llama2-70b-interactive-99":   llama2(0.99),
	"llama2-70b-interactive-99.9": llama2(0.999),
	"stable-diffusion-xl": {
		Min: mins(Limit{"CLIP_SCORE", 31.68631873}, Limit{"FID_SCORE", 23.01085758}),
		Max: mins(Limit{"CLIP_SCORE", 31.81331801}, Limit{"FID_SCORE", 23.95007626}),
	},
	"mixtral-8x7b": {
		Min: mins(Limit{"ROUGE1", mul(45.5989, 0.99)}, Limit{"ROUGE2", mul(23.3526, 0.99)}, Limit{"ROUGEL", mul(30.4608, 0.99)},
			Limit{"TOKENS_PER_SAMPLE", mul(144.84, 0.9)}, Limit{"gsm8k_accuracy", mul(73.66, 0.99)}, Limit{"mbxp_accuracy", mul(60.16, 0.99)}),
		Max: mins(Limit{"TOKENS_PER_SAMPLE", mul(145.9, 1.1)}),
	},
	"llama3.1-405b": {
		Min: mins(Limit{"ROUGEL", mul(21.6666, 0.99)}, Limit{"exact_match", mul(90.1335, 0.99)}, Limit{"TOKENS_PER_SAMPLE", mul(684.68, 0.9)}),
		Max: mins(Limit{"TOKENS_PER_SAMPLE", mul(684.68, 1.1)}),
	},
	"llama3.1-8b": {
		Min: mins(Limit{"ROUGE1", mul(38.7792, 0.99)}, Limit{"ROUGE2", mul(15.9075, 0.99)}, Limit{"ROUGEL", mul(24.4957, 0.99)},
			Limit{"ROUGELSUM", mul(35.793, 0.99)}, Limit{"GEN_LEN", mul(8167644, 0.9)}),
		Max: mins(Limit{"GEN_LEN", mul(8167644, 1.1)}),
	},
	"llama3.1-8b-edge": {
		Min: mins(Limit{"ROUGE1", mul(39.06, 0.99)}, Limit{"ROUGE2", mul(16.1147, 0.99)}, Limit{"ROUGEL", mul(24.6375, 0.99)},
			Limit{"ROUGELSUM", mul(36.124, 0.99)}, Limit{"GEN_LEN", mul(3051113, 0.9)}),
		Max: mins(Limit{"GEN_LEN", mul(3051113, 1.1)}),
	},
	"rgat":          {Min: mins(Limit{"acc", mul(0.7286, 0.99)})},
	"pointpainting": {Min: mins(Limit{"mAP", mul(0.5425, 0.999)})},
	"deepseek-r1": {
		Min: mins(Limit{"exact_match", mul(0.99, 81.3582)}, Limit{"TOKENS_PER_SAMPLE", mul(0.9, 3886.2274)}),
		Max: mins(Limit{"TOKENS_PER_SAMPLE", mul(1.1, 3886.2274)}),
	},
	"whisper": {Min: mins(Limit{"ACCURACY", mul(sub(100.0, 2.0671), 0.99)})},
	"gpt-oss-120b": {
		Min: mins(Limit{"exact_match", mul(83.13, 0.99)}),
		Max: mins(Limit{"TOKENS_PER_SAMPLE", mul(1.1, 9999)}),
	},
	"qwen3-vl-235b-a22b": {Min: mins(Limit{"F1_HIERARCHICAL", mul(0.7903, 0.99)})},
	"dlrm-v3": {Min: mins(Limit{"DLRM_NE", mul(0.86687, 0.999)}, Limit{"DLRM_ACC", mul(0.69651, 0.999)},
		Limit{"DLRM_AUC", mul(0.78663, 0.999)})},
	"yolo-95":          {Min: mins(Limit{"mAP", mul(53.4, 0.95)})},
	"yolo-99":          {Min: mins(Limit{"mAP", mul(53.4, 0.99)})},
	"wan-2.2-t2v-a14b": {Min: mins(Limit{"vbench_score", mul(70.48, 0.99)})},
	"e2e-rag-qna":      {Min: mins(Limit{"E2E_ACCURACY", 33.95})},
	"e2e-rag-db":       {Min: mins(Limit{"E2E_ACCURACY", 98})},
	"qwen3.6-27b":      {Min: mins(Limit{"mAP", mul(86.23, 0.99)})},
}

func llama2(f float64) Target {
	return Target{
		Min: mins(Limit{"ROUGE1", mul(44.4312, f)}, Limit{"ROUGE2", mul(22.0352, f)}, Limit{"ROUGEL", mul(28.6162, f)},
			Limit{"TOKENS_PER_SAMPLE", mul(294.45, 0.9)}),
		Max: mins(Limit{"TOKENS_PER_SAMPLE", mul(294.45, 1.1)}),
	}
}

// scenarioTargets are the targets that differ per scenario folder in the
// rounds that say so (v6.1: qwen3-vl-235b-a22b's Interactive scenario
// uses an 8000-sample subset).
var scenarioTargets = map[string]map[string]Target{
	"qwen3-vl-235b-a22b": {
		"Offline":     {Min: mins(Limit{"F1_HIERARCHICAL", mul(0.7903, 0.99)})},
		"Server":      {Min: mins(Limit{"F1_HIERARCHICAL", mul(0.7903, 0.99)})},
		"Interactive": {Min: mins(Limit{"F1_HIERARCHICAL", mul(0.7878, 0.99)})},
	},
}

// ScenarioTarget returns a model's per-scenario target table entry for a
// scenario folder, as Config.get_accuracy_target picks it: the scenario
// in the checker's spelling, else as given, else Offline's, else
// Server's. ok is false for a model without per-scenario targets.
func ScenarioTarget(model, scenario string) (Target, bool) {
	byScenario, ok := scenarioTargets[model]
	if !ok {
		return Target{}, false
	}
	spelled := map[string]string{"singlestream": "SingleStream", "multistream": "MultiStream", "server": "Server",
		"offline": "Offline", "interactive": "Interactive"}[strings.ToLower(scenario)]
	for _, s := range []string{spelled, scenario, "Offline", "Server"} {
		if t, ok := byScenario[s]; ok {
			return t, true
		}
	}
	return Target{}, false
}

// MinTarget returns the least value of one metric a model must reach
// (0 and false when the model has no such target).
func MinTarget(model, metric string) (float64, bool) {
	for _, l := range Targets[model].Min {
		if l.Metric == metric {
			return l.Value, true
		}
	}
	return 0, false
}

// Bounds merges a target's Min and Max limits by metric, in the order the
// metrics first appear (Min limits first).
func (t Target) Bounds() []Bound {
	var out []Bound
	index := map[string]int{}
	for _, l := range t.Min {
		index[l.Metric] = len(out)
		out = append(out, Bound{Metric: l.Metric, Min: l.Value, HasMin: true})
	}
	for _, l := range t.Max {
		i, ok := index[l.Metric]
		if !ok {
			i = len(out)
			index[l.Metric] = i
			out = append(out, Bound{Metric: l.Metric})
		}
		out[i].Max, out[i].HasMax = l.Value, true
	}
	return out
}

// benchmarkAliases are the names this project's commands use.
var benchmarkAliases = map[string]string{
	"resnet50": "resnet",
	"sdxl":     "stable-diffusion-xl",
	"dlrm-v2":  "dlrm-v2-99",
	"3d-unet":  "3d-unet-99",
	"bert":     "bert-99",
	"gptj":     "gptj-99",
	"llama2":   "llama2-70b-99",
}

// Benchmarks lists the names Targets knows, sorted.
func Benchmarks() []string {
	var n []string
	for k := range Targets {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// TargetsFor returns the bounds of a benchmark by the checker's name or an
// alias (resnet50, sdxl, and the bare names meaning the 99% variant).
func TargetsFor(benchmark string) (string, []Bound, error) {
	name := strings.ToLower(benchmark)
	if a, ok := benchmarkAliases[name]; ok {
		name = a
	}
	t, ok := Targets[name]
	if !ok {
		return "", nil, fmt.Errorf("accuracy: no accuracy target for benchmark %q (known: %s)", benchmark, strings.Join(Benchmarks(), ", "))
	}
	return name, t.Bounds(), nil
}

// AccPatterns are the checker's ACC_PATTERN regular expressions, applied
// as Python's re.match (anchored at the start of a line). Python's \d,
// \w and \s also match non-ASCII digits, letters and spaces; these match
// ASCII only, which the scripts' lines are.
var AccPatterns = map[string]*regexp.Regexp{
	"acc":               regexp.MustCompile(`^(?:\{"accuracy|accuracy)[": ]*=?\s*([\d\.]+).*`),
	"meanAcc":           regexp.MustCompile(`^.*'mean-accuracy':\s+'?([\d.]+)'?.*`),
	"AUC":               regexp.MustCompile(`^AUC=([\d\.]+).*`),
	"DLRM_NE":           regexp.MustCompile(`^.*metric/lifetime_ne/rating:\s*([\d\.]+).*`),
	"DLRM_ACC":          regexp.MustCompile(`^.*metric/lifetime_accuracy/rating:\s*([\d\.]+).*`),
	"DLRM_AUC":          regexp.MustCompile(`^.*metric/lifetime_gauc/rating:\s*([\d\.]+).*`),
	"mAP":               regexp.MustCompile(`^.*(?:mAP=|'Total':)\s*([\d.]+)`),
	"bleu":              regexp.MustCompile(`^BLEU:\s*([\d\.]+).*`),
	"F1":                regexp.MustCompile(`^\{["']exact_match["']:\s*[\d\.]+,\s*["']f1["']:\s*([\d\.]+)\}`),
	"ACCURACY":          regexp.MustCompile(`^Word Error Rate:.*, accuracy=([0-9\.]+)%`),
	"DICE":              regexp.MustCompile(`^Accuracy:\s*mean\s*=\s*([\d\.]+).*`),
	"ROUGE1":            regexp.MustCompile(`^.*'rouge1':\s+'?([\d.]+)'?.*`),
	"ROUGE2":            regexp.MustCompile(`^.*'rouge2':\s+'?([\d.]+)'?.*`),
	"ROUGEL":            regexp.MustCompile(`^.*'rougeL':\s+'?([\d.]+)'?.*`),
	"ROUGELSUM":         regexp.MustCompile(`^.*'rougeLsum':\s+'?([\d.]+)'?.*`),
	"GEN_LEN":           regexp.MustCompile(`^.*'gen_len':\s([\d.]+).*`),
	"TOKENS_PER_SAMPLE": regexp.MustCompile(`^.*'tokens_per_sample':\s([\d.]+).*`),
	"CLIP_SCORE":        regexp.MustCompile(`^.*'CLIP_SCORE':\s+'?([\d.]+).*`),
	"FID_SCORE":         regexp.MustCompile(`^.*'FID_SCORE':\s+'?([\d.]+).*`),
	"gsm8k_accuracy":    regexp.MustCompile(`^.*'gsm8k':\s([\d.]+).*`),
	"mbxp_accuracy":     regexp.MustCompile(`^.*'mbxp':\s([\d.]+).*`),
	"exact_match":       regexp.MustCompile(`^.*'exact_match':\s([\d.]+).*`),
	"vbench_score":      regexp.MustCompile(`^.*'vbench_score':\s([\d.]+).*`),
	"F1_HIERARCHICAL":   regexp.MustCompile(`^\{.*"f1":\s*([\d\.]+).*\}`),
	"E2E_ACCURACY":      regexp.MustCompile(`^Accuracy:\s*([\d\.]+)`),
}

// Verdict is one metric's outcome.
type Verdict struct {
	Bound
	Value string // as printed (what the checker parses); "" when not found
	Found bool
	Pass  bool
}

// String reads like "AUC 80.313 >= 79.5069: PASS".
func (v Verdict) String() string {
	verdict := "FAIL"
	if v.Pass {
		verdict = "PASS"
	}
	if !v.Found {
		return fmt.Sprintf("%s: not found: %s", v.Metric, verdict)
	}
	if !v.HasMin {
		return fmt.Sprintf("%s %s <= %s: %s", v.Metric, v.Value, pynum.FloatRepr(v.Max), verdict)
	}
	if v.HasMax {
		return fmt.Sprintf("%s %s in [%s, %s]: %s", v.Metric, v.Value, pynum.FloatRepr(v.Min), pynum.FloatRepr(v.Max), verdict)
	}
	return fmt.Sprintf("%s %s >= %s: %s", v.Metric, v.Value, pynum.FloatRepr(v.Min), verdict)
}

// ParseAccuracyText applies the checker's pattern of metric to each line
// of text and returns the last value found (the checker judges every
// match; a benchmark's scripts print each metric once).
func ParseAccuracyText(metric, text string) (string, bool) {
	re, ok := AccPatterns[metric]
	if !ok {
		return "", false
	}
	val, found := "", false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			val, found = m[1], true
		}
	}
	return val, found
}

// CheckText judges accuracy.txt content as the submission checker does:
// for each bound of the benchmark, every line its pattern matches must
// hold a value ≥ Min (and ≤ Max where there is an upper limit), and at
// least one line must match. It reports one verdict per bound and whether
// all passed. (The checker also wants a "hash=..." line, which
// truncate_accuracy_log.py appends; that is not judged here.)
func CheckText(benchmark, text string) ([]Verdict, bool, error) {
	_, bounds, err := TargetsFor(benchmark)
	if err != nil {
		return nil, false, err
	}
	all := true
	var out []Verdict
	for _, b := range bounds {
		v := Verdict{Bound: b, Pass: true}
		sc := bufio.NewScanner(strings.NewReader(text))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			m := AccPatterns[b.Metric].FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			v.Found, v.Value = true, m[1]
			f, err := strconv.ParseFloat(m[1], 64)
			if err != nil || (b.HasMin && f < b.Min) || (b.HasMax && f > b.Max) {
				v.Pass = false
			}
		}
		if !v.Found && b.HasMin {
			v.Pass = false
		}
		all = all && v.Pass
		out = append(out, v)
	}
	return out, all, nil
}
