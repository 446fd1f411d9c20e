// trace_harness prints, for one C++ LoadGen run with a null SUT, every
// LoadSamplesToRam call and every IssueQuery call (the QSL indices of its
// samples), one line each: "load N i0 i1 ..." / "issue N i0 i1 ...".
// Usage: trace_harness SCENARIO MODE TOTAL PERF USER_CONF OUTDIR
//   SCENARIO: SingleStream|MultiStream|Server|Offline, MODE: accuracy|performance
// It links the C++ LoadGen (mlcommons/inference loadgen/), built separately.
#include <cstdio>
#include <cstdlib>
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

int main(int argc, char** argv) {
  if (argc != 7) return 2;
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
  mlperf::StartTest(&sut, &qsl, ts, ls);
  return 0;
}
