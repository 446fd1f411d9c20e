package check

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The corpus: trees with one fault each (and the passing trees they come
// from), over rounds v5.0–v6.1 and the models each round lists. The
// MLCommons checker's output on each is in testdata/goldens/<case>.txt,
// recorded by testdata/make_goldens.py, which writes the trees with
// -corpus-dump. TestCorpusMatchesTheMLCommonsChecker compares verdicts and
// messages line by line.

var corpusDump = flag.String("corpus-dump", "", "write each corpus case's tree to DIR/<case>/tree (and its round to DIR/<case>/round) for testdata/make_goldens.py")

type corpusCase struct {
	name, round string
	build       func(t testing.TB, dir string)
}

// Base trees.
var (
	resnetEdge = func(round string) treeSpec {
		return treeSpec{round: round, systems: []sysSpec{{"edge_box", "edge", []benchSpec{{"resnet", "resnet", []string{"SingleStream", "MultiStream", "Offline"}, false}}}}}
	}
	one = func(round, typ, folder, model string, endpoints bool, scenarios ...string) treeSpec {
		return treeSpec{round: round, systems: []sysSpec{{"sut", typ, []benchSpec{{folder, model, scenarios, endpoints}}}}}
	}
)

// edit is a tree edit of a case.
type edit func(tr *tree)

func build(spec treeSpec, edits ...edit) func(t testing.TB, dir string) {
	return func(t testing.TB, dir string) {
		tr := writeTree(t, dir, spec)
		for _, e := range edits {
			e(tr)
		}
	}
}

// Path helpers for the edits: the one system of one() is "sut".
func perfLog(tr *tree, bench, sc string) string {
	return filepath.Join(tr.scen(tr.spec.systems[0].name, bench, sc), "performance/run_1/mlperf_log_detail.txt")
}
func accDir(tr *tree, bench, sc string) string {
	return filepath.Join(tr.scen(tr.spec.systems[0].name, bench, sc), "accuracy")
}

func generatedCases() []corpusCase {
	var cs []corpusCase
	add := func(name string, spec treeSpec, edits ...edit) {
		cs = append(cs, corpusCase{name, spec.round, build(spec, edits...)})
	}
	setPerf := func(bench, sc, key string, v any) edit {
		return func(tr *tree) { tr.setKey(perfLog(tr, bench, sc), key, v) }
	}
	setAcc := func(bench, sc, key string, v any) edit {
		return func(tr *tree) { tr.setKey(filepath.Join(accDir(tr, bench, sc), "mlperf_log_detail.txt"), key, v) }
	}
	accTxt := func(bench, sc, text string) edit {
		return func(tr *tree) { tr.write(filepath.Join(accDir(tr, bench, sc), "accuracy.txt"), text+"\n"+testHash) }
	}
	rmScen := func(bench, sc, rel string) edit {
		return func(tr *tree) { tr.rm(filepath.Join(tr.scen("sut", bench, sc), rel)) }
	}
	rmComp := func(bench, sc, rel string) edit {
		return func(tr *tree) { tr.rm(filepath.Join(tr.comp("sut", bench, sc), rel)) }
	}
	sysField := func(key string, v any) edit {
		return func(tr *tree) { tr.editJSON(tr.systemFile(tr.spec.systems[0].name), key, v) }
	}

	// Passing trees of every round, in its layout.
	for _, r := range []string{"v5.0", "v5.1", "v6.0", "v6.1"} {
		add("ok_"+r+"_resnet_edge", resnetEdge(r))
	}
	add("ok_v6.1_bert99_edge", one("v6.1", "edge", "bert-99", "bert-99", false, "SingleStream", "Offline"))
	add("ok_v6.1_unet999_dc", one("v6.1", "datacenter", "3d-unet-99.9", "3d-unet-99.9", false, "Offline"))
	add("ok_v6.1_llama2_dc", one("v6.1", "datacenter", "llama2-70b-99.9", "llama2-70b-99.9", false, "Offline", "Server"))
	add("ok_v6.1_sdxl_edge", one("v6.1", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"))
	add("ok_v6.1_resnet_dcedge", one("v6.1", "datacenter,edge", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"))
	add("ok_v6.1_llama31_8b_interactive", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", false, "Offline", "Interactive"))
	add("ok_v6.1_whisper_edge", one("v6.1", "edge", "whisper", "whisper", false, "Offline"))
	add("ok_v6.1_yolo99_edge", one("v6.1", "edge", "yolo-99", "yolo-99", false, "SingleStream", "MultiStream", "Offline"))
	add("ok_v6.1_deepseek_dc", one("v6.1", "datacenter", "deepseek-r1", "deepseek-r1", false, "Offline", "Server"))
	add("ok_v6.1_gptoss_dc", one("v6.1", "datacenter", "gpt-oss-120b", "gpt-oss-120b", false, "Offline", "Server"))
	add("ok_v6.1_endpoints_llama31_8b", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", true, "Offline", "Server"))
	add("ok_v6.0_retinanet_dcedge", one("v6.0", "datacenter,edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline", "Server"))
	add("ok_v6.0_llama2_99_dc", one("v6.0", "datacenter", "llama2-70b-99", "llama2-70b-99", false, "Offline", "Server", "Interactive"))
	add("ok_v6.0_mixtral_dc", one("v6.0", "datacenter", "mixtral-8x7b", "mixtral-8x7b", false, "Offline", "Server"))
	add("ok_v6.0_sdxl_edge", one("v6.0", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"))
	add("ok_v5.1_dlrm99_dc", one("v5.1", "datacenter", "dlrm-v2-99", "dlrm-v2-99", false, "Offline", "Server"))
	add("ok_v5.1_retinanet_edge", one("v5.1", "edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline"))
	add("ok_v5.1_sdxl_dc", one("v5.1", "datacenter", "stable-diffusion-xl", "stable-diffusion-xl", false, "Offline", "Server"))
	// The checker fails every gptj Offline result: OFFLINE_MIN_SPQ_SINCE_V4
	// has no gptj key (KeyError in min_query_count_check).
	add("checker_bug_v5.0_gptj_offline", one("v5.0", "edge", "gptj-99", "gptj-99", false, "SingleStream", "Offline"))
	add("ok_v5.0_llama2_interactive_dc", one("v5.0", "datacenter", "llama2-70b-interactive-99", "llama2-70b-interactive-99", false, "Offline", "Server"))
	add("ok_v5.0_sdxl_edge", one("v5.0", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"))

	// Model folders.
	add("model_resnet50_folder", one("v6.1", "edge", "resnet50", "resnet", false, "SingleStream", "MultiStream", "Offline"))
	add("model_llama3_1_8b_folder", one("v6.1", "datacenter", "llama3_1-8b", "llama3.1-8b", false, "Offline", "Server"))
	add("model_ssd_resnet34_folder_v6.0", one("v6.0", "datacenter,edge", "ssd-resnet34", "retinanet", false, "SingleStream", "MultiStream", "Offline", "Server"))
	add("model_unknown_folder", resnetEdge("v6.1"), func(tr *tree) { tr.mv(tr.scen("edge_box", "resnet", ""), tr.scen("edge_box", "resnet-fast", "")) })
	add("model_llama2_99_gone_in_v6.1", one("v6.1", "datacenter", "llama2-70b-99", "llama2-70b-99", false, "Offline", "Server"))
	add("model_llama2_interactive_in_v6.0", one("v6.0", "datacenter", "llama2-70b-interactive-99", "llama2-70b-99", false, "Offline", "Server"))
	add("model_gptj_in_v5.1", one("v5.1", "edge", "gptj-99", "gptj-99", false, "SingleStream", "Offline"))
	add("model_retinanet_in_v6.1", one("v6.1", "datacenter,edge", "retinanet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"))

	// Scenarios per system type.
	add("scen_resnet_dcedge_no_server", one("v6.1", "datacenter,edge", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline"))
	add("scen_resnet_edge_extra_server", one("v6.1", "edge", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"))
	add("scen_resnet_on_datacenter_v6.1", one("v6.1", "datacenter", "resnet", "resnet", false, "Offline", "Server"))
	add("scen_resnet_on_datacenter_v5.0", one("v5.0", "datacenter", "resnet", "resnet", false, "Offline", "Server"))
	add("scen_retinanet_edge_v6.0", one("v6.0", "edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline"))
	add("scen_llama2_interactive_only", one("v6.1", "datacenter", "llama2-70b-99.9", "llama2-70b-99.9", false, "Offline", "Interactive"))
	add("scen_llama2_offline_only", one("v6.1", "datacenter", "llama2-70b-99.9", "llama2-70b-99.9", false, "Offline"))
	add("scen_llama2_v5.0_no_server", one("v5.0", "datacenter", "llama2-70b-99.9", "llama2-70b-99.9", false, "Offline"))
	add("scen_sdxl_on_datacenter_v6.1", one("v6.1", "datacenter", "stable-diffusion-xl", "stable-diffusion-xl", false, "Offline", "Server"))
	add("scen_unet_dc_extra_singlestream", one("v6.1", "datacenter", "3d-unet-99", "3d-unet-99", false, "SingleStream", "Offline"))
	add("scen_whisper_missing_offline", one("v6.1", "edge", "whisper", "whisper", false, "SingleStream"))
	add("scen_system_type_cloud", resnetEdge("v6.1"), sysField("system_type", "cloud"))
	add("scen_system_type_capitalised", resnetEdge("v6.1"), sysField("system_type", "Edge"))
	add("scen_system_type_cloud_no_results", resnetEdge("v6.1"), sysField("system_type", "cloud"), func(tr *tree) { tr.rm(tr.scen("edge_box", "resnet", "")) })
	add("scen_system_type_spaced", one("v6.1", "datacenter,edge", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"), sysField("system_type", "datacenter, edge"))
	add("scen_system_type_edge_datacenter", one("v6.1", "edge,datacenter", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"))
	add("scen_dlrm_dcedge_v5.1_no_server", one("v5.1", "datacenter,edge", "dlrm-v2-99.9", "dlrm-v2-99.9", false, "Offline"))

	// Compliance tests.
	add("comp_resnet_missing_test04", resnetEdge("v6.1"), func(tr *tree) { tr.rm(filepath.Join(tr.comp("edge_box", "resnet", "Offline"), "TEST04")) })
	add("comp_retinanet_v6.0_extra_test04", one("v6.0", "datacenter,edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline", "Server"),
		func(tr *tree) {
			tr.write(filepath.Join(tr.comp("sut", "retinanet", "Offline"), "TEST04/verify_performance.txt"), "TEST PASS\n")
		})
	add("comp_gptj_v5.0_missing_test06", one("v5.0", "edge", "gptj-99", "gptj-99", false, "SingleStream", "Offline"), rmComp("gptj-99", "Offline", "TEST06"))
	add("comp_gptj_v5.0_test06_eos_fail", one("v5.0", "edge", "gptj-99", "gptj-99", false, "SingleStream", "Offline"), func(tr *tree) {
		tr.write(filepath.Join(tr.comp("sut", "gptj-99", "SingleStream"), "TEST06/verify_accuracy.txt"), "First token check pass: True\nEOS check pass: False\nSample length check pass: True\nTEST06 verification failed\n")
	})
	add("comp_v5.1_compliance_in_results", one("v5.1", "edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline"), func(tr *tree) {
		tr.mv(filepath.Join(tr.comp("sut", "retinanet", "Offline"), "TEST01"), filepath.Join(tr.scen("sut", "retinanet", "Offline"), "TEST01"))
	})
	add("comp_gptoss_test07_fail", one("v6.1", "datacenter", "gpt-oss-120b", "gpt-oss-120b", false, "Offline", "Server"), func(tr *tree) {
		tr.write(filepath.Join(tr.comp("sut", "gpt-oss-120b", "Server"), "TEST07/verify_accuracy.txt"), "TEST FAIL\n")
	})
	add("comp_gptoss_test09_missing", one("v6.1", "datacenter", "gpt-oss-120b", "gpt-oss-120b", false, "Offline", "Server"), rmComp("gpt-oss-120b", "Offline", "TEST09"))
	add("comp_test01_verify_performance_fail", resnetEdge("v6.1"), func(tr *tree) {
		tr.write(filepath.Join(tr.comp("edge_box", "resnet", "SingleStream"), "TEST01/verify_performance.txt"), "Verifying performance.\nTEST FAIL: Test score invalid\n")
	})
	add("comp_test04_extra_file", resnetEdge("v5.0"), func(tr *tree) {
		tr.write(filepath.Join(tr.comp("edge_box", "resnet", "MultiStream"), "TEST04/performance/run_1/console.txt"), "x\n")
	})
	add("comp_test01_no_perf_log", resnetEdge("v6.0"), func(tr *tree) {
		tr.rm(filepath.Join(tr.comp("edge_box", "resnet", "Offline"), "TEST01/performance"))
	})
	add("comp_test01_fail_no_accuracy_dir", resnetEdge("v6.1"), func(tr *tree) {
		d := filepath.Join(tr.comp("edge_box", "resnet", "Offline"), "TEST01")
		tr.write(filepath.Join(d, "verify_accuracy.txt"), "TEST FAIL\n")
		tr.rm(filepath.Join(d, "accuracy"))
	})
	add("division_open_test01_fail", treeSpec{round: "v6.1", division: "open", systems: resnetEdge("v6.1").systems}, func(tr *tree) {
		tr.write(filepath.Join(tr.comp("edge_box", "resnet", "Offline"), "TEST01/verify_accuracy.txt"), "TEST FAIL\n")
	})
	add("acc_log_without_is_error", resnetEdge("v6.1"), func(tr *tree) {
		tr.replace(filepath.Join(accDir(tr, "resnet", "Offline"), "mlperf_log_detail.txt"), `"is_error"`, `"was_error"`)
	})
	add("power_yaml_is_a_folder", resnetEdge("v6.1"), func(tr *tree) {
		if err := os.MkdirAll(tr.abs(tr.names("edge_box", "", "").format(tr.round.Layout.NameplatePower)), 0o755); err != nil {
			tr.t.Fatal(err)
		}
	})
	add("bound_e2e_rag_qna_duration_below", one("v6.1", "datacenter", "e2e-rag-qna", "e2e-rag-qna", false, "Offline"),
		setPerf("e2e-rag-qna", "Offline", "effective_min_duration_ms", 1000))
	add("comp_deepseek_test06_first_skipped", one("v6.1", "datacenter", "deepseek-r1", "deepseek-r1", false, "Offline", "Server"), func(tr *tree) {
		tr.write(filepath.Join(tr.comp("sut", "deepseek-r1", "Offline"), "TEST06/verify_accuracy.txt"), "First token check pass: Skipped\nEOS check pass: True\nSample length check pass: True\n")
	})
	add("comp_test01_fallback_delta", one("v6.1", "edge", "bert-99.9", "bert-99.9", false, "SingleStream", "Offline"), func(tr *tree) {
		d := filepath.Join(tr.comp("sut", "bert-99.9", "Offline"), "TEST01")
		tr.write(filepath.Join(d, "verify_accuracy.txt"), "TEST FAIL\n")
		tr.write(filepath.Join(d, "accuracy/accuracy.txt"), testHash)
		tr.write(filepath.Join(d, "accuracy/baseline_accuracy.txt"), `{"exact_match": 80.0, "f1": 90.9}`+"\n")
		tr.write(filepath.Join(d, "accuracy/compliance_accuracy.txt"), `{"exact_match": 80.0, "f1": 90.7}`+"\n")
	})

	// Seeds.
	add("seeds_v6.0_with_v6.1_seeds", resnetEdge("v6.0"), func(tr *tree) {
		tr.setKey(perfLog(tr, "resnet", "SingleStream"), "effective_qsl_rng_seed", Rounds["v6.1"].Seeds.QSL)
	})
	add("seeds_v5.1_with_v5.0_schedule", one("v5.1", "datacenter", "dlrm-v2-99", "dlrm-v2-99", false, "Offline", "Server"),
		setPerf("dlrm-v2-99", "Server", "effective_schedule_rng_seed", Rounds["v5.0"].Seeds.Schedule))
	add("seeds_v5.0_sample_index_off_by_one", one("v5.0", "edge", "gptj-99", "gptj-99", false, "SingleStream", "Offline"),
		setPerf("gptj-99", "Offline", "effective_sample_index_rng_seed", Rounds["v5.0"].Seeds.SampleIndex-1))
	add("seeds_endpoints_schedule", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", true, "Offline", "Server"), func(tr *tree) {
		tr.replace(filepath.Join(tr.scen("sut", "llama3.1-8b", "Offline"), "config.yaml"), "scheduler_random_seed: ", "scheduler_random_seed: 1")
	})
	add("seeds_compliance_log_v6.1", resnetEdge("v6.1"), func(tr *tree) {
		tr.setKey(filepath.Join(tr.comp("edge_box", "resnet", "MultiStream"), "TEST04/performance/run_1/mlperf_log_detail.txt"), "effective_qsl_rng_seed", 1)
	})

	// Layouts.
	add("layout_v6_tree_as_v5.1", resnetEdge("v6.1"))
	cs[len(cs)-1].round = "v5.1"
	add("layout_v5_tree_as_v6.0", resnetEdge("v5.0"))
	cs[len(cs)-1].round = "v6.0"
	add("layout_v5.1_no_code_folder", one("v5.1", "edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline"), func(tr *tree) { tr.rm(tr.src()) })
	add("layout_v5.0_measurements_unnamed", resnetEdge("v5.0"), func(tr *tree) {
		m := tr.meas("edge_box", "resnet", "Offline")
		tr.mv(filepath.Join(m, "edge_box_Offline.json"), filepath.Join(m, "measurements.json"))
	})
	add("layout_v5.0_measurements_for_system", resnetEdge("v5.0"), func(tr *tree) {
		m := tr.meas("edge_box", "resnet", "Offline")
		tr.mv(filepath.Join(m, "edge_box_Offline.json"), filepath.Join(m, "edge_box.json"))
	})
	add("layout_v5.1_no_measurements_folder", one("v5.1", "datacenter", "dlrm-v2-99", "dlrm-v2-99", false, "Offline", "Server"), func(tr *tree) {
		tr.rm(tr.meas("sut", "dlrm-v2-99", "Server"))
	})

	// Bounds, on both sides.
	add("bound_perf_samples_below", one("v6.1", "edge", "bert-99", "bert-99", false, "SingleStream", "Offline"),
		setPerf("bert-99", "SingleStream", "effective_performance_sample_count", 10832))
	add("bound_duration_below", resnetEdge("v5.1"), setPerf("resnet", "MultiStream", "effective_min_duration_ms", 599999))
	add("bound_offline_spq_below", one("v6.0", "datacenter", "mixtral-8x7b", "mixtral-8x7b", false, "Offline", "Server"),
		setPerf("mixtral-8x7b", "Offline", "effective_samples_per_query", 14999))
	add("bound_server_latency_above", one("v6.1", "datacenter,edge", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"),
		setPerf("resnet", "Server", "effective_target_latency_ns", 15000001))
	add("bound_ttft_at_limit", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", false, "Offline", "Server"),
		setPerf("llama3.1-8b", "Server", "result_first_token_99.00_percentile_latency_ns", 2000000000))
	add("bound_ttft_under_limit", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", false, "Offline", "Server"),
		setPerf("llama3.1-8b", "Server", "result_first_token_99.00_percentile_latency_ns", 1999999999))
	add("bound_tpot_at_limit_interactive", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", false, "Offline", "Interactive"),
		setPerf("llama3.1-8b", "Interactive", "result_time_per_output_token_99.00_percentile_ns", 100000000))
	add("bound_bert_f1_at_target", one("v6.1", "edge", "bert-99", "bert-99", false, "SingleStream", "Offline"),
		accTxt("bert-99", "Offline", `{"exact_match": 80.0, "f1": 89.96526}`))
	add("bound_bert_f1_below_target", one("v6.1", "edge", "bert-99", "bert-99", false, "SingleStream", "Offline"),
		accTxt("bert-99", "Offline", `{"exact_match": 80.0, "f1": 89.96525}`))
	add("bound_resnet_acc_printed_below", resnetEdge("v6.0"), accTxt("resnet", "SingleStream", "accuracy=75.695%, good=37847, total=50000"))
	add("bound_llama2_tps_at_upper", one("v6.1", "datacenter", "llama2-70b-99.9", "llama2-70b-99.9", false, "Offline", "Server"),
		accTxt("llama2-70b-99.9", "Offline", "{'rouge1': 44.5, 'rouge2': 22.1, 'rougeL': 28.7, 'tokens_per_sample': 323.895}"))
	add("bound_llama2_tps_above_upper", one("v6.1", "datacenter", "llama2-70b-99.9", "llama2-70b-99.9", false, "Offline", "Server"),
		accTxt("llama2-70b-99.9", "Offline", "{'rouge1': 44.5, 'rouge2': 22.1, 'rougeL': 28.7, 'tokens_per_sample': 323.896}"))
	add("bound_sdxl_clip_above_upper", one("v6.1", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"),
		accTxt("stable-diffusion-xl", "SingleStream", "{'FID_SCORE': 23.5, 'CLIP_SCORE': 31.81331802}"))
	add("bound_sdxl_fid_below", one("v5.0", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"),
		accTxt("stable-diffusion-xl", "Offline", "{'FID_SCORE': 23.01085757, 'CLIP_SCORE': 31.7}"))
	add("bound_gptoss_tps_above_upper", one("v6.1", "datacenter", "gpt-oss-120b", "gpt-oss-120b", false, "Offline", "Server"),
		accTxt("gpt-oss-120b", "Offline", "{'exact_match': 83.0, 'tokens_per_sample': 10999.0}"))
	add("bound_acc_log_at_10k", resnetEdge("v6.1"), func(tr *tree) {
		tr.write(filepath.Join(accDir(tr, "resnet", "Offline"), "mlperf_log_accuracy.json"), strings.Repeat(" ", 10240))
	})
	add("bound_acc_log_over_10k", resnetEdge("v6.1"), func(tr *tree) {
		tr.write(filepath.Join(accDir(tr, "resnet", "Offline"), "mlperf_log_accuracy.json"), strings.Repeat(" ", 10241))
	})
	add("bound_dataset_one_more", one("v6.1", "datacenter", "3d-unet-99.9", "3d-unet-99.9", false, "Offline"),
		setAcc("3d-unet-99.9", "Offline", "effective_accuracy_sample_count", 44))
	add("bound_gptoss_accuracy_samples", one("v6.0", "datacenter", "gpt-oss-120b", "gpt-oss-120b", false, "Offline", "Server"),
		setAcc("gpt-oss-120b", "Server", "effective_accuracy_sample_count", 6396))
	add("bound_whisper_accuracy_below", one("v5.1", "edge", "whisper", "whisper", false, "Offline"),
		accTxt("whisper", "Offline", "Word Error Rate: 2.1%, accuracy=96.8%"))

	// Results and scenario logs.
	add("metric_multistream_zero", resnetEdge("v6.1"), setPerf("resnet", "MultiStream", "early_stopping_latency_ms", 0))
	add("infer_offline_from_singlestream_edge", resnetEdge("v6.1"), func(tr *tree) {
		p := perfLog(tr, "resnet", "Offline")
		tr.setKey(p, "effective_scenario", "SingleStream")
		tr.setKey(p, "early_stopping_met", true)
	})
	add("infer_multistream_from_singlestream_edge", resnetEdge("v6.0"), setPerf("resnet", "MultiStream", "effective_scenario", "SingleStream"))
	add("infer_offline_from_server", one("v6.1", "datacenter,edge", "resnet", "resnet", false, "SingleStream", "MultiStream", "Offline", "Server"), func(tr *tree) {
		p := perfLog(tr, "resnet", "Offline")
		tr.setKey(p, "effective_scenario", "Server")
		tr.setKey(p, "early_stopping_met", true)
	})
	add("infer_datacenter_offline_from_singlestream", one("v6.1", "datacenter", "3d-unet-99", "3d-unet-99", false, "Offline"), func(tr *tree) {
		p := perfLog(tr, "3d-unet-99", "Offline")
		tr.setKey(p, "effective_scenario", "SingleStream")
		tr.setKey(p, "early_stopping_met", true)
	})
	add("ok_v6.1_infer_offline_from_multistream_edge", resnetEdge("v6.1"), func(tr *tree) {
		p := perfLog(tr, "resnet", "Offline")
		tr.setKey(p, "effective_scenario", "MultiStream")
		tr.setKey(p, "early_stopping_met", true)
		tr.setKey(p, "effective_samples_per_query", 8)
		tr.setKey(p, "result_mean_query_latency_ns", 4000000)
	})
	add("perf_samples_not_a_number", resnetEdge("v6.1"), setPerf("resnet", "Offline", "effective_performance_sample_count", "1024"))
	add("metric_gptj_v5.0_inferred_tokens", one("v5.0", "datacenter", "gptj-99.9", "gptj-99.9", false, "Offline", "Server"))
	add("metric_llama31_8b_edge_ss", one("v6.1", "edge", "llama3.1-8b-edge", "llama3.1-8b-edge", false, "SingleStream", "Offline"))
	add("early_stopping_unmet", one("v5.1", "edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline"),
		setPerf("retinanet", "SingleStream", "early_stopping_met", false))
	add("llm_no_token_latencies", one("v6.0", "datacenter", "llama2-70b-99", "llama2-70b-99", false, "Offline", "Server"),
		setPerf("llama2-70b-99", "Offline", "requested_use_token_latencies", false))
	add("llm_ttft_missing", one("v6.1", "datacenter", "deepseek-r1", "deepseek-r1", false, "Offline", "Server"), func(tr *tree) {
		tr.delKey(perfLog(tr, "deepseek-r1", "Server"), "result_first_token_99.00_percentile_latency_ns")
	})

	// Divisions, systems, files.
	add("division_unknown_folder", resnetEdge("v6.1"), func(tr *tree) { tr.write("closed-2025/GoTest/results/x/README.md", "x\n") })
	add("division_open_low_accuracy", treeSpec{round: "v6.1", division: "open", systems: resnetEdge("v6.1").systems},
		accTxt("resnet", "Offline", "accuracy=70.000%, good=35000, total=50000"))
	add("division_network_not_network_system", treeSpec{round: "v6.1", division: "network", systems: resnetEdge("v6.1").systems},
		func(tr *tree) { tr.editJSON(tr.systemFile("edge_box"), "is_network", nil) })
	add("missing_accuracy_log", resnetEdge("v6.1"), func(tr *tree) { tr.rm(filepath.Join(accDir(tr, "resnet", "Offline"), "mlperf_log_detail.txt")) })
	add("missing_performance_log", one("v6.0", "edge", "bert-99.9", "bert-99.9", false, "SingleStream", "Offline"), rmScen("bert-99.9", "Offline", "performance"))
	add("missing_system_json", resnetEdge("v5.1"), func(tr *tree) { tr.rm(tr.systemFile("edge_box")) })
	add("missing_results_folder", resnetEdge("v6.1"), func(tr *tree) { tr.write("closed/Other/systems/x.json", "{}\n") })
	add("missing_accuracy_txt", resnetEdge("v6.1"), func(tr *tree) { tr.rm(filepath.Join(accDir(tr, "resnet", "MultiStream"), "accuracy.txt")) })
	add("missing_accuracy_json", resnetEdge("v6.0"), func(tr *tree) { tr.rm(filepath.Join(accDir(tr, "resnet", "MultiStream"), "mlperf_log_accuracy.json")) })
	add("missing_sdxl_image_v5.1", one("v5.1", "datacenter", "stable-diffusion-xl", "stable-diffusion-xl", false, "Offline", "Server"), func(tr *tree) {
		tr.rm(filepath.Join(accDir(tr, "stable-diffusion-xl", "Server"), "images", Rounds["v5.1"].ExtraAccuracyFiles["stable-diffusion-xl"]["images"][3]+".png"))
	})
	add("empty_scenario_folder", resnetEdge("v6.1"), func(tr *tree) { tr.write(filepath.Join(tr.scen("edge_box", "resnet", "Server"), "README.md"), "x\n") })
	add("loadgen_error_in_accuracy_log", resnetEdge("v6.1"), setAcc("resnet", "Offline", "error_runtime", "sample 3 failed"))
	add("loadgen_error_in_performance_log", resnetEdge("v6.1"), setPerf("resnet", "Offline", "error_runtime", "sample 3 failed"))
	add("measurements_not_json", one("v6.1", "edge", "bert-99", "bert-99", false, "SingleStream", "Offline"), func(tr *tree) {
		tr.write(filepath.Join(tr.meas("sut", "bert-99", "Offline"), "measurements.json"), "{not json\n")
	})
	add("measurements_field_empty_v5.0", resnetEdge("v5.0"), func(tr *tree) {
		tr.editJSON(filepath.Join(tr.meas("edge_box", "resnet", "SingleStream"), "edge_box_SingleStream.json"), "weight_transformations", "")
	})
	add("system_status_unknown", resnetEdge("v6.0"), sysField("status", "coming soon"))
	add("system_field_missing", resnetEdge("v5.1"), sysField("cooling", nil))
	add("system_submitter_mismatch", resnetEdge("v6.1"), sysField("submitter", "Someone"))
	add("system_accelerators_not_a_number", resnetEdge("v6.1"), sysField("accelerators_per_node", "N/A"))
	add("readme_empty", resnetEdge("v5.1"), func(tr *tree) { tr.write(filepath.Join(tr.meas("edge_box", "resnet", "Offline"), "README.md"), "") })
	add("user_conf_missing", resnetEdge("v6.1"), func(tr *tree) { tr.rm(filepath.Join(tr.meas("edge_box", "resnet", "SingleStream"), "user.conf")) })
	add("detail_log_bad_first_line", resnetEdge("v6.1"), func(tr *tree) {
		tr.replace(perfLog(tr, "resnet", "Offline"), ":::MLLOG {\"key\": \"loadgen_version\"", "garbage\n:::MLLOG {\"key\": \"loadgen_version\"")
	})

	// Endpoints runs.
	add("endpoints_no_config", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", true, "Offline", "Server"), rmScen("llama3.1-8b", "Server", "config.yaml"))
	add("endpoints_no_accuracy_score", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", true, "Offline", "Server"), func(tr *tree) {
		tr.writeJSON(filepath.Join(tr.scen("sut", "llama3.1-8b", "Offline"), "accuracy/accuracy_results.json"), map[string]any{"accuracy_scores": []any{}})
	})
	add("endpoints_disallowed_model", one("v6.1", "datacenter", "3d-unet-99", "3d-unet-99", true, "Offline"))
	add("endpoints_gptoss_tokens_out_of_range", one("v6.1", "datacenter", "gpt-oss-120b", "gpt-oss-120b", true, "Offline", "Server"), func(tr *tree) {
		tr.replace(filepath.Join(tr.scen("sut", "gpt-oss-120b", "Server"), "performance/result_summary.json"), `"avg": 1200.5`, `"avg": 1500.5`)
	})
	add("endpoints_audit_failed", one("v6.1", "datacenter", "deepseek-r1", "deepseek-r1", true, "Offline", "Server"), func(tr *tree) {
		tr.writeJSON(filepath.Join(tr.scen("sut", "deepseek-r1", "Server"), "audit/audit_consistency_output_test.json"), map[string]any{"test": "consistency_output_test", "passed": false})
	})
	add("endpoints_ttft_above_limit", one("v6.1", "datacenter", "llama3.1-8b", "llama3.1-8b", true, "Offline", "Server"), func(tr *tree) {
		tr.replace(filepath.Join(tr.scen("sut", "llama3.1-8b", "Server"), "performance/result_summary.json"), `"99.0": 150000000`, `"99.0": 2500000000`)
	})
	add("endpoints_in_v6.0", one("v6.0", "datacenter", "llama3.1-8b", "llama3.1-8b", true, "Offline"))

	// More of the older rounds.
	add("v5.0_seeds_of_v6.1", resnetEdge("v5.0"), setPerf("resnet", "Offline", "effective_schedule_rng_seed", Rounds["v6.1"].Seeds.Schedule))
	add("v5.0_llama2_interactive_ttft_at_limit", one("v5.0", "datacenter", "llama2-70b-interactive-99.9", "llama2-70b-interactive-99.9", false, "Offline", "Server"),
		setPerf("llama2-70b-interactive-99.9", "Server", "result_first_token_99.00_percentile_latency_ns", 450000000))
	add("v5.0_dlrm999_auc_below", one("v5.0", "datacenter", "dlrm-v2-99.9", "dlrm-v2-99.9", false, "Offline", "Server"),
		accTxt("dlrm-v2-99.9", "Server", "AUC=80.229%"))
	add("v5.0_retinanet_map_at_target", one("v5.0", "edge", "retinanet", "retinanet", false, "SingleStream", "MultiStream", "Offline"),
		accTxt("retinanet", "MultiStream", "mAP=37.1745%"))
	add("v5.0_gptj999_rouge1_below", one("v5.0", "edge", "gptj-99.9", "gptj-99.9", false, "SingleStream", "Offline"),
		accTxt("gptj-99.9", "SingleStream", "{'rouge1': 42.9, 'rouge2': 20.2, 'rougeL': 30.0, 'gen_len': 3700000}"))
	add("v5.1_llama2_99_interactive_only", one("v5.1", "datacenter", "llama2-70b-99", "llama2-70b-99", false, "Offline", "Interactive"))
	add("v5.1_deepseek_without_server", one("v5.1", "datacenter", "deepseek-r1", "deepseek-r1", false, "Offline"))
	add("v5.1_test01_missing", one("v5.1", "datacenter", "dlrm-v2-99.9", "dlrm-v2-99.9", false, "Offline", "Server"), rmComp("dlrm-v2-99.9", "Server", "TEST01"))
	add("v5.1_whisper_tokens_metric", one("v5.1", "edge", "whisper", "whisper", false, "Offline"))
	add("v6.0_dlrm_v2_gone", one("v6.0", "datacenter", "dlrm-v2-99", "dlrm-v2-99", false, "Offline", "Server"))
	add("v6.0_yolo95_map_below", one("v6.0", "edge", "yolo-95", "yolo-95", false, "SingleStream", "MultiStream", "Offline"),
		accTxt("yolo-95", "Offline", "mAP=50.72%"))
	add("v6.0_llama2_99_test06_missing", one("v6.0", "datacenter", "llama2-70b-99", "llama2-70b-99", false, "Offline", "Server"), rmComp("llama2-70b-99", "Server", "TEST06"))
	add("v6.0_sdxl_captions_missing", one("v6.0", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"), func(tr *tree) {
		tr.rm(filepath.Join(accDir(tr, "stable-diffusion-xl", "Offline"), "images", "captions.txt"))
	})
	add("v6.0_sdxl_image_missing", one("v6.0", "edge", "stable-diffusion-xl", "stable-diffusion-xl", false, "SingleStream", "Offline"), func(tr *tree) {
		tr.rm(filepath.Join(accDir(tr, "stable-diffusion-xl", "Offline"), "images", "52.png"))
	})
	add("v6.0_gptoss_test09_present", one("v6.0", "datacenter", "gpt-oss-120b", "gpt-oss-120b", false, "Offline", "Server"))
	return cs
}

// baseCases are the mutations of testdata/base (a closed resnet edge tree
// and a llama2-70b-99.9 datacenter tree from this suite's loadgen logs),
// testdata/mutations.txt, checked with v6.1.
func baseCases(t testing.TB) []corpusCase {
	muts, err := os.ReadFile("testdata/mutations.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ops := map[string][][]string{}
	for _, line := range strings.Split(string(muts), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if _, seen := ops[f[0]]; !seen {
			names = append(names, f[0])
		}
		ops[f[0]] = append(ops[f[0]], f)
	}
	var cs []corpusCase
	for _, name := range names {
		name := name
		cs = append(cs, corpusCase{"base_" + name, "v6.1", func(t testing.TB, dir string) {
			copyTree(t, "testdata/base", dir)
			for _, f := range ops[name] {
				mutate(t, dir, f)
			}
		}})
	}
	return cs
}

func allCases(t testing.TB) []corpusCase {
	return append(baseCases(t), generatedCases()...)
}

// golden is a recorded checker output.
type golden struct {
	verdict string // OK, FAIL or CRASH <exception>
	lines   []string
}

func readGolden(t testing.TB, name string) golden {
	data, err := os.ReadFile(filepath.Join("testdata/goldens", name+".txt"))
	if err != nil {
		t.Fatalf("%v (record it with testdata/make_goldens.py)", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	v, ok := strings.CutPrefix(lines[0], "verdict: ")
	if !ok {
		t.Fatalf("%s: no verdict line", name)
	}
	return golden{v, lines[1:]}
}

// setMessage matches the messages that print a Python set (or a list made
// from one), whose order is the hash order of that run.
var setMessage = regexp.MustCompile(`(does not have all required scenarios, missing \[|has file list mismatch \(\{)([^\]\}]*)`)

func canonical(line string) string {
	return setMessage.ReplaceAllStringFunc(line, func(m string) string {
		sm := setMessage.FindStringSubmatch(m)
		items := strings.Split(sm[2], ", ")
		sort.Strings(items)
		return sm[1] + strings.Join(items, ", ")
	})
}

// reportLines are a report's messages as the checker logs them: its
// ERROR and WARNING lines, NoResults, and the failing SUMMARY.
func reportLines(rep *Report, root string) []string {
	var out []string
	for _, l := range rep.Lines {
		out = append(out, strings.ReplaceAll(strings.ReplaceAll(l.String(), root, "TREE"), "\n", `\n`))
	}
	for _, r := range rep.Results {
		if !r.Valid || r.Metric.isNone() {
			out = append(out, "ERROR NoResults "+strings.ReplaceAll(r.Path, root, "TREE"))
		}
	}
	if !rep.OK() {
		out = append(out, "ERROR SUMMARY: submission has errors")
	}
	return out
}

// TestCorpusMatchesTheMLCommonsChecker: on every corpus tree, the verdict
// is the checker's, and so is every message in order; where the checker
// crashes, the messages before its crash are the same and check names the
// crash as an error.
func TestCorpusMatchesTheMLCommonsChecker(t *testing.T) {
	cases := allCases(t)
	if *corpusDump != "" {
		for _, c := range cases {
			dir := filepath.Join(*corpusDump, c.name)
			c.build(t, filepath.Join(dir, "tree"))
			if err := os.WriteFile(filepath.Join(dir, "round"), []byte(c.round+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	rounds := map[string]int{}
	for _, c := range cases {
		rounds[c.round]++
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := readGolden(t, c.name)
			dir := filepath.Join(t.TempDir(), "tree")
			c.build(t, dir)
			csv := filepath.Join(t.TempDir(), "summary.csv")
			rep, err := Check(dir, Options{Round: c.round, CSV: csv})
			if err != nil {
				t.Fatal(err)
			}
			if want, err := os.ReadFile(filepath.Join("testdata/goldens", c.name+".csv")); err == nil {
				got, _ := os.ReadFile(csv)
				if g := strings.ReplaceAll(string(got), dir, "TREE"); g != string(want) {
					t.Errorf("summary CSV:\n%s\nthe checker's:\n%s", g, want)
				}
			}
			got := reportLines(rep, dir)
			crash := strings.HasPrefix(g.verdict, "CRASH")
			switch {
			case crash && rep.Crashes == 0:
				t.Errorf("the checker crashes (%s); check reports no crash", g.verdict)
			case !crash && rep.Crashes > 0:
				t.Errorf("check reports a crash; the checker's verdict is %s", g.verdict)
			case g.verdict == "OK" && !rep.OK(), g.verdict == "FAIL" && rep.OK():
				t.Errorf("verdict OK=%v, the checker's %s", rep.OK(), g.verdict)
			}
			want := g.lines
			if crash {
				// The checker's messages stop at its crash; check's
				// first crash error stands there.
				n := len(got)
				for i, l := range rep.Lines {
					if strings.Contains(l.Text, "the MLCommons checker stops here") {
						n = i
						break
					}
				}
				got = got[:n]
			}
			if !equalLines(got, want) {
				t.Errorf("messages differ from the checker's:\n%s", diffLines(got, want))
			}
		})
	}
	if len(cases) < 80 {
		t.Errorf("only %d corpus cases", len(cases))
	}
	t.Logf("cases per round: %v", rounds)
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if canonical(a[i]) != canonical(b[i]) {
			return false
		}
	}
	return true
}

func diffLines(got, want []string) string {
	var b bytes.Buffer
	for i := 0; i < len(got) || i < len(want); i++ {
		g, w := "", ""
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if canonical(g) != canonical(w) {
			mark = "! "
		}
		b.WriteString(mark + "got:  " + g + "\n" + mark + "want: " + w + "\n")
	}
	return b.String()
}
