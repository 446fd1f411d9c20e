package check

import "regexp"

// Target is one accuracy metric a benchmark must reach: the value parsed
// from accuracy.txt with the metric's pattern must be at least Min and, when
// Max is positive, at most Max.
type Target struct {
	Metric   string
	Min, Max float64
}

// Limit is an LLM's p99 TTFT and TPOT bound in ns (strictly below).
type Limit struct{ TTFT, TPOT int64 }

// Model is what a round requires of one checker model id (the benchmark
// folder name, e.g. "resnet" or "llama2-70b-99.9").
type Model struct {
	// RequiredEdge, RequiredDatacenter and OptionalDatacenter are scenario
	// folder names; with both "Interactive" and "Server" optional, one of
	// them is required (mlcommons/inference tools/submission/submission_checker/loader.py).
	RequiredEdge, RequiredDatacenter, OptionalDatacenter []string
	// Compliance are the compliance tests the closed division requires.
	Compliance []string
	// PerfSampleCount is the minimum effective_performance_sample_count.
	PerfSampleCount int64
	// DatasetSize is the accuracy run's required sample count.
	DatasetSize int64
	// OfflineMinSPQ is the minimum Offline samples per query (closed).
	OfflineMinSPQ int64
	// LatencyNs is the Server (or other) latency constraint per scenario.
	LatencyNs map[string]int64
	// LLM holds TTFT/TPOT limits per scenario; non-nil marks an LLM.
	LLM map[string]Limit
	// Accuracy are the targets.
	Accuracy []Target
}

// Round is one submission round's tables (mlcommons/inference
// tools/submission/submission_checker/constants.py).
type Round struct {
	Name   string
	Models map[string]Model
}

// Seeds the checker requires (mlperf.conf of the round).
const (
	QSLSeed         = 2085463073848966840
	SampleIndexSeed = 2747215439041700203
	ScheduleSeed    = 16159082839903944936
	// MinDurationMs is the minimum effective_min_duration_ms (600 s).
	MinDurationMs = 600000
	// MaxAccuracyLogBytes is the size a truncated accuracy log stays under.
	MaxAccuracyLogBytes = 10240
)

// Patterns are the checker's ACC_PATTERN regexes; group 1 is the value.
var Patterns = map[string]*regexp.Regexp{
	"acc":               regexp.MustCompile(`^(?:\{"accuracy|accuracy)[": ]*=?\s*([\d\.]+).*`),
	"mAP":               regexp.MustCompile(`.*(?:mAP=|'Total':)\s*([\d.]+)`),
	"F1":                regexp.MustCompile(`^{["']exact_match["']:\s*[\d\.]+,\s*["']f1["']:\s*([\d\.]+)}`),
	"AUC":               regexp.MustCompile(`^AUC=([\d\.]+).*`),
	"DICE":              regexp.MustCompile(`Accuracy\:\s*mean\s*=\s*([\d\.]+).*`),
	"ROUGE1":            regexp.MustCompile(`.*'rouge1':\s+'?([\d.]+)'?.*`),
	"ROUGE2":            regexp.MustCompile(`.*'rouge2':\s+'?([\d.]+)'?.*`),
	"ROUGEL":            regexp.MustCompile(`.*'rougeL':\s+'?([\d.]+)'?.*`),
	"GEN_LEN":           regexp.MustCompile(`.*'gen_len':\s([\d.]+).*`),
	"TOKENS_PER_SAMPLE": regexp.MustCompile(`.*'tokens_per_sample':\s([\d.]+).*`),
	"CLIP_SCORE":        regexp.MustCompile(`.*'CLIP_SCORE':\s+'?([\d.]+).*`),
	"FID_SCORE":         regexp.MustCompile(`.*'FID_SCORE':\s+'?([\d.]+).*`),
}

var hashLine = regexp.MustCompile(`^hash=([\w\d]+)$`)

func ms(v int64) int64 { return v * 1_000_000 }

var (
	edgeSSMSO = []string{"SingleStream", "MultiStream", "Offline"}
	edgeSSO   = []string{"SingleStream", "Offline"}
	off       = []string{"Offline"}
	servOff   = []string{"Server", "Offline"}
)

func resnet() Model {
	return Model{RequiredEdge: edgeSSMSO, Compliance: []string{"TEST01", "TEST04"}, PerfSampleCount: 1024, DatasetSize: 50000,
		OfflineMinSPQ: 24576, LatencyNs: map[string]int64{"Server": ms(15)}, Accuracy: []Target{{"acc", 76.46 * 0.99, 0}}}
}

func bert(f float64) Model {
	return Model{RequiredEdge: edgeSSO, Compliance: []string{"TEST01"}, PerfSampleCount: 10833, DatasetSize: 10833,
		OfflineMinSPQ: 10833, LatencyNs: map[string]int64{"Server": ms(130)}, Accuracy: []Target{{"F1", 90.874 * f, 0}}}
}

func unet(f float64) Model {
	return Model{RequiredEdge: edgeSSO, RequiredDatacenter: off, Compliance: []string{"TEST01"}, PerfSampleCount: 43, DatasetSize: 43,
		OfflineMinSPQ: 43, Accuracy: []Target{{"DICE", 0.86170 * f, 0}}}
}

func llama2() Model {
	return Model{RequiredDatacenter: off, OptionalDatacenter: []string{"Interactive", "Server"}, Compliance: []string{"TEST06"},
		PerfSampleCount: 24576, DatasetSize: 24576, OfflineMinSPQ: 24576, LatencyNs: map[string]int64{"Server": ms(20000)},
		LLM: map[string]Limit{"Server": {ms(2000), ms(200)}, "Interactive": {ms(450), ms(40)}},
		Accuracy: []Target{{"ROUGE1", 44.4312 * 0.999, 0}, {"ROUGE2", 22.0352 * 0.999, 0}, {"ROUGEL", 28.6162 * 0.999, 0},
			{"TOKENS_PER_SAMPLE", 294.45 * 0.9, 294.45 * 1.1}}}
}

func sdxl(required []string) Model {
	return Model{RequiredEdge: edgeSSO, RequiredDatacenter: required, Compliance: []string{"TEST01", "TEST04"}, PerfSampleCount: 5000,
		DatasetSize: 5000, OfflineMinSPQ: 5000, LatencyNs: map[string]int64{"Server": ms(20000)},
		Accuracy: []Target{{"CLIP_SCORE", 31.68631873, 31.81331801}, {"FID_SCORE", 23.01085758, 23.95007626}}}
}

func retinanet() Model {
	return Model{RequiredEdge: edgeSSMSO, RequiredDatacenter: servOff, Compliance: []string{"TEST01", "TEST04"}, PerfSampleCount: 64,
		DatasetSize: 24781, OfflineMinSPQ: 24576, LatencyNs: map[string]int64{"Server": ms(100)}, Accuracy: []Target{{"mAP", 37.55 * 0.99, 0}}}
}

func dlrm(f float64) Model {
	return Model{RequiredDatacenter: servOff, Compliance: []string{"TEST01"}, PerfSampleCount: 204800, DatasetSize: 330067,
		OfflineMinSPQ: 24576, LatencyNs: map[string]int64{"Server": ms(60)}, Accuracy: []Target{{"AUC", 80.31 * f, 0}}}
}

func gptj(f float64) Model {
	return Model{RequiredEdge: edgeSSO, RequiredDatacenter: servOff, PerfSampleCount: 13368, DatasetSize: 13368, OfflineMinSPQ: 13368,
		LatencyNs: map[string]int64{"Server": ms(20000)},
		Accuracy:  []Target{{"ROUGE1", 42.9865 * f, 0}, {"ROUGE2", 20.1235 * f, 0}, {"ROUGEL", 29.9881 * f, 0}, {"GEN_LEN", 4016878 * 0.9, 0}}}
}

// Rounds are the rounds this checker knows, by --round name. The retired
// benchmarks of this suite validate only with the rounds that still list
// them: retinanet up to v6.0, dlrm-v2 up to v5.1, gptj up to v5.0.
var Rounds = map[string]Round{
	"v6.1": {Name: "v6.1", Models: map[string]Model{
		"resnet": resnet(), "bert-99": bert(0.99), "bert-99.9": bert(0.999),
		"3d-unet-99": unet(0.99), "3d-unet-99.9": unet(0.999),
		"llama2-70b-99.9": llama2(), "stable-diffusion-xl": sdxl(nil),
	}},
	"v6.0": {Name: "v6.0", Models: map[string]Model{
		"resnet": resnet(), "retinanet": retinanet(), "bert-99": bert(0.99), "bert-99.9": bert(0.999),
		"3d-unet-99": unet(0.99), "3d-unet-99.9": unet(0.999),
		"llama2-70b-99.9": llama2(), "stable-diffusion-xl": sdxl(nil),
	}},
	"v5.1": {Name: "v5.1", Models: map[string]Model{
		"resnet": resnet(), "retinanet": retinanet(), "bert-99": bert(0.99), "bert-99.9": bert(0.999),
		"3d-unet-99": unet(0.99), "3d-unet-99.9": unet(0.999), "dlrm-v2-99": dlrm(0.99), "dlrm-v2-99.9": dlrm(0.999),
		"llama2-70b-99.9": llama2(), "stable-diffusion-xl": sdxl(servOff),
	}},
	"v5.0": {Name: "v5.0", Models: map[string]Model{
		"resnet": resnet(), "retinanet": retinanet(), "bert-99": bert(0.99), "bert-99.9": bert(0.999),
		"3d-unet-99": unet(0.99), "3d-unet-99.9": unet(0.999), "dlrm-v2-99": dlrm(0.99), "dlrm-v2-99.9": dlrm(0.999),
		"gptj-99": gptj(0.99), "gptj-99.9": gptj(0.999), "llama2-70b-99.9": llama2(), "stable-diffusion-xl": sdxl(servOff),
	}},
}
