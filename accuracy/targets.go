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

// Bound is one metric's accuracy requirement of the submission checker
// (tools/submission/submission_checker/constants.py, "accuracy-target"
// and "accuracy-upper-limit"): Value ≥ Min, and Value ≤ Max when HasMax.
type Bound struct {
	Metric string // the checker's ACC_PATTERN key: acc, mAP, F1, AUC, DICE, ROUGE1, ...
	Min    float64
	Max    float64
	HasMax bool
}

// prod multiplies at run time: the checker's targets are Python float
// products (76.46 * 0.99 rounded once from two rounded operands), which Go
// constant arithmetic, being exact, would not reproduce.
func prod(a, b float64) float64 { return a * b }

// Targets maps each benchmark of the checker's tables (v5.0–v6.1 agree on
// these) to its bounds, in the checker's order.
var Targets = map[string][]Bound{
	"resnet":       {{Metric: "acc", Min: prod(76.46, 0.99)}},
	"retinanet":    {{Metric: "mAP", Min: prod(37.55, 0.99)}},
	"bert-99":      {{Metric: "F1", Min: prod(90.874, 0.99)}},
	"bert-99.9":    {{Metric: "F1", Min: prod(90.874, 0.999)}},
	"dlrm-v2-99":   {{Metric: "AUC", Min: prod(80.31, 0.99)}},
	"dlrm-v2-99.9": {{Metric: "AUC", Min: prod(80.31, 0.999)}},
	"3d-unet-99":   {{Metric: "DICE", Min: prod(0.86170, 0.99)}},
	"3d-unet-99.9": {{Metric: "DICE", Min: prod(0.86170, 0.999)}},
	"gptj-99": {
		{Metric: "ROUGE1", Min: prod(42.9865, 0.99)}, {Metric: "ROUGE2", Min: prod(20.1235, 0.99)},
		{Metric: "ROUGEL", Min: prod(29.9881, 0.99)}, {Metric: "GEN_LEN", Min: prod(4016878, 0.9)},
	},
	"gptj-99.9": {
		{Metric: "ROUGE1", Min: prod(42.9865, 0.999)}, {Metric: "ROUGE2", Min: prod(20.1235, 0.999)},
		{Metric: "ROUGEL", Min: prod(29.9881, 0.999)}, {Metric: "GEN_LEN", Min: prod(4016878, 0.9)},
	},
	"llama2-70b-99": {
		{Metric: "ROUGE1", Min: prod(44.4312, 0.99)}, {Metric: "ROUGE2", Min: prod(22.0352, 0.99)},
		{Metric: "ROUGEL", Min: prod(28.6162, 0.99)},
		{Metric: "TOKENS_PER_SAMPLE", Min: prod(294.45, 0.9), Max: prod(294.45, 1.1), HasMax: true},
	},
	"llama2-70b-99.9": {
		{Metric: "ROUGE1", Min: prod(44.4312, 0.999)}, {Metric: "ROUGE2", Min: prod(22.0352, 0.999)},
		{Metric: "ROUGEL", Min: prod(28.6162, 0.999)},
		{Metric: "TOKENS_PER_SAMPLE", Min: prod(294.45, 0.9), Max: prod(294.45, 1.1), HasMax: true},
	},
	"stable-diffusion-xl": {
		{Metric: "CLIP_SCORE", Min: 31.68631873, Max: 31.81331801, HasMax: true},
		{Metric: "FID_SCORE", Min: 23.01085758, Max: 23.95007626, HasMax: true},
	},
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
	b, ok := Targets[name]
	if !ok {
		return "", nil, fmt.Errorf("accuracy: no accuracy target for benchmark %q (known: %s)", benchmark, strings.Join(Benchmarks(), ", "))
	}
	return name, b, nil
}

// AccPatterns are the checker's ACC_PATTERN regular expressions for the
// metrics of Targets, applied as Python's re.match (anchored at the start
// of a line).
var AccPatterns = map[string]*regexp.Regexp{
	"acc":               regexp.MustCompile(`^(?:\{"accuracy|accuracy)[": ]*=?\s*([\d\.]+).*`),
	"AUC":               regexp.MustCompile(`^AUC=([\d\.]+).*`),
	"mAP":               regexp.MustCompile(`^.*(?:mAP=|'Total':)\s*([\d.]+)`),
	"F1":                regexp.MustCompile(`^\{["']exact_match["']:\s*[\d\.]+,\s*["']f1["']:\s*([\d\.]+)\}`),
	"DICE":              regexp.MustCompile(`^Accuracy:\s*mean\s*=\s*([\d\.]+).*`),
	"ROUGE1":            regexp.MustCompile(`^.*'rouge1':\s+'?([\d.]+)'?.*`),
	"ROUGE2":            regexp.MustCompile(`^.*'rouge2':\s+'?([\d.]+)'?.*`),
	"ROUGEL":            regexp.MustCompile(`^.*'rougeL':\s+'?([\d.]+)'?.*`),
	"ROUGELSUM":         regexp.MustCompile(`^.*'rougeLsum':\s+'?([\d.]+)'?.*`),
	"GEN_LEN":           regexp.MustCompile(`^.*'gen_len':\s([\d.]+).*`),
	"TOKENS_PER_SAMPLE": regexp.MustCompile(`^.*'tokens_per_sample':\s([\d.]+).*`),
	"CLIP_SCORE":        regexp.MustCompile(`^.*'CLIP_SCORE':\s+'?([\d.]+).*`),
	"FID_SCORE":         regexp.MustCompile(`^.*'FID_SCORE':\s+'?([\d.]+).*`),
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
	if !v.Found {
		return fmt.Sprintf("%s: not found: FAIL", v.Metric)
	}
	verdict := "FAIL"
	if v.Pass {
		verdict = "PASS"
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
			if err != nil || f < b.Min || (b.HasMax && f > b.Max) {
				v.Pass = false
			}
		}
		if !v.Found {
			v.Pass = false
		}
		all = all && v.Pass
		out = append(out, v)
	}
	return out, all, nil
}
