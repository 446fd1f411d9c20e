// trace_harness prints, for one C++ LoadGen run with a null SUT, every
// LoadSamplesToRam call and every IssueQuery call (the QSL indices of its
// samples), one line each: "load N i0 i1 ..." / "issue N i0 i1 ...".
// After the run it prints the detail log's entries that settings decide
// ("detail KEY VALUE": every effective_* setting, generated_*, the
// result_* validity flags, error_* entries and the "Ending ..." message)
// and the seq_ids of the accuracy log ("accuracy N s0 s1 ...", sorted).
// Usage: trace_harness SCENARIO MODE TOTAL PERF USER_CONF OUTDIR [AUDIT_CONFIG]
//   SCENARIO: SingleStream|MultiStream|Server|Offline, MODE: accuracy|performance
//   AUDIT_CONFIG: the audit.config StartTest reads (default: none)
// It links the C++ LoadGen (mlcommons/inference loadgen/), built separately.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>
#include "loadgen.h"
#include "query_sample_library.h"
#include "system_under_test.h"
#include "test_settings.h"

static FILE* out;

class QSL : public mlperf::QuerySampleLibrary {
 public:
  QSL(size_t total, size_t perf) : total_(total), perf_(perf) {}
  const std::string& Name() override { return name_; }
  size_t TotalSampleCount() override { return total_; }
  size_t PerformanceSampleCount() override { return perf_; }
  void LoadSamplesToRam(const std::vector<mlperf::QuerySampleIndex>& s) override {
    fprintf(out, "load %zu", s.size());
    for (auto i : s) fprintf(out, " %zu", (size_t)i);
    fprintf(out, "\n");
  }
  void UnloadSamplesFromRam(const std::vector<mlperf::QuerySampleIndex>& s) override {
    fprintf(out, "unload %zu\n", s.size());
  }
 private:
  std::string name_ = "QSL";
  size_t total_, perf_;
};

class SUT : public mlperf::SystemUnderTest {
 public:
  const std::string& Name() override { return name_; }
  void IssueQuery(const std::vector<mlperf::QuerySample>& s) override {
    fprintf(out, "issue %zu", s.size());
    std::vector<mlperf::QuerySampleResponse> r;
    for (auto& q : s) {
      fprintf(out, " %zu", (size_t)q.index);
      r.push_back({q.id, 0, 0});
    }
    fprintf(out, "\n");
    mlperf::QuerySamplesComplete(r.data(), r.size());
  }
  void FlushQueries() override {}
 private:
  std::string name_ = "SUT";
};

// Detail prints the detail-log entries settings decide, in log order.
static void Detail(const std::string& dir) {
  std::ifstream in(dir + "/mlperf_log_detail.txt");
  std::string line;
  while (std::getline(in, line)) {
    size_t k = line.find("\"key\": \"");
    size_t v = line.find("\", \"value\": ");
    size_t e = line.find(", \"time_ms\": ");
    if (k == std::string::npos || v == std::string::npos || e == std::string::npos) continue;
    std::string key = line.substr(k + 8, v - k - 8);
    std::string val = line.substr(v + 12, e - v - 12);
    bool keep = key.rfind("effective_", 0) == 0 || key.rfind("generated_", 0) == 0 ||
                key.rfind("error_", 0) == 0 || key == "result_validity" ||
                key == "result_min_queries_met" || key == "result_min_duration_met" ||
                (key == "generic_message" && val.find("Ending") != std::string::npos);
    if (keep) fprintf(out, "detail %s %s\n", key.c_str(), val.c_str());
  }
}

// Accuracy prints the seq_ids the accuracy log holds, sorted.
static void Accuracy(const std::string& dir) {
  std::ifstream in(dir + "/mlperf_log_accuracy.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<size_t> seq;
  for (size_t p = text.find("\"seq_id\" : "); p != std::string::npos;
       p = text.find("\"seq_id\" : ", p + 1)) {
    seq.push_back(std::strtoull(text.c_str() + p + 11, nullptr, 10));
  }
  std::sort(seq.begin(), seq.end());
  fprintf(out, "accuracy %zu", seq.size());
  for (auto s : seq) fprintf(out, " %zu", s);
  fprintf(out, "\n");
}

int main(int argc, char** argv) {
  if (argc != 7 && argc != 8) return 2;
  std::string sc = argv[1], mode = argv[2];
  mlperf::TestSettings ts;
  ts.scenario = sc == "SingleStream" ? mlperf::TestScenario::SingleStream
              : sc == "MultiStream"  ? mlperf::TestScenario::MultiStream
              : sc == "Server"       ? mlperf::TestScenario::Server
                                     : mlperf::TestScenario::Offline;
  ts.mode = mode == "accuracy" ? mlperf::TestMode::AccuracyOnly
                               : mlperf::TestMode::PerformanceOnly;
  if (ts.FromConfig(argv[5], "synthetic", sc) != 0) return 3;
  out = stdout;
  QSL qsl(atoi(argv[3]), atoi(argv[4]));
  SUT sut;
  mlperf::LogSettings ls;
  ls.log_output.outdir = argv[6];
  mlperf::StartTest(&sut, &qsl, ts, ls, argc == 8 ? argv[7] : "");
  Detail(argv[6]);
  Accuracy(argv[6]);
  return 0;
}
