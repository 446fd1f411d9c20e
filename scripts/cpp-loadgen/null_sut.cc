// null_sut runs one C++ LoadGen test against a system under test that
// completes every sample inside IssueQuery, the C++ side of
// scripts/loadgen-vs-cpp.sh (the Go side is `mlperf loadgen --sut null`).
// Each response carries the sample's index as 4 little-endian bytes, as
// the Go NullSUT's do. The settings come from the embedded mlperf.conf and
// USER_CONF, looked up under MODEL and SCENARIO; the test runs in
// performance mode without a trace, and writes its logs into OUT_DIR.
//
// Usage: null_sut USER_CONF MODEL SCENARIO OUT_DIR
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "loadgen.h"
#include "query_sample_library.h"
#include "system_under_test.h"
#include "test_settings.h"

namespace {

class NullQSL : public mlperf::QuerySampleLibrary {
 public:
  const std::string& Name() override { return name_; }
  size_t TotalSampleCount() override { return 1024; }
  size_t PerformanceSampleCount() override { return 1024; }
  void LoadSamplesToRam(const std::vector<mlperf::QuerySampleIndex>&) override {}
  void UnloadSamplesFromRam(const std::vector<mlperf::QuerySampleIndex>&) override {}

 private:
  std::string name_ = "NullQSL";
};

class NullSUT : public mlperf::SystemUnderTest {
 public:
  const std::string& Name() override { return name_; }
  void IssueQuery(const std::vector<mlperf::QuerySample>& samples) override {
    data_.resize(samples.size());
    resp_.resize(samples.size());
    for (size_t i = 0; i < samples.size(); i++) {
      data_[i] = static_cast<uint32_t>(samples[i].index);
      resp_[i] = {samples[i].id, reinterpret_cast<uintptr_t>(&data_[i]), 4};
    }
    mlperf::QuerySamplesComplete(resp_.data(), resp_.size());
  }
  void FlushQueries() override {}

 private:
  std::string name_ = "NullSUT";
  std::vector<uint32_t> data_;  // IssueQuery is called by one thread
  std::vector<mlperf::QuerySampleResponse> resp_;
};

mlperf::TestScenario ParseScenario(const std::string& s) {
  if (s == "SingleStream") return mlperf::TestScenario::SingleStream;
  if (s == "MultiStream") return mlperf::TestScenario::MultiStream;
  if (s == "Offline") return mlperf::TestScenario::Offline;
  return mlperf::TestScenario::Server;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: null_sut USER_CONF MODEL SCENARIO OUT_DIR\n");
    return 2;
  }
  mlperf::TestSettings ts;
  if (ts.FromConfig(argv[1], argv[2], argv[3]) != 0) {
    std::fprintf(stderr, "null_sut: cannot read %s\n", argv[1]);
    return 3;
  }
  ts.scenario = ParseScenario(argv[3]);
  ts.mode = mlperf::TestMode::PerformanceOnly;
  mlperf::LogSettings ls;
  ls.log_output.outdir = argv[4];
  ls.enable_trace = false;
  NullQSL qsl;
  NullSUT sut;
  mlperf::StartTest(&sut, &qsl, ts, ls);
  return 0;
}
