// sut_main.cc: the system under test that produced the LoadGen result
// goldens in this folder. It links the C++ LoadGen of mlcommons/inference
// (loadgen/, built with its CMakeLists.txt; see README.md) and runs one
// performance test whose settings come from a case file of "key value"
// lines (TestSettings field names; lines starting with # are comments).
//
// The SUT is a pool of worker threads that take samples in issue order and
// complete each after a service time drawn from a seeded exponential
// distribution (mean service_us), with probability slow_prob a further
// slow_us; with use_token_latencies it reports the first token after
// ttft_us and the last after tpot_us per further token, the sample having
// 2 + (7*index) % 19 tokens. The timings are real, so a run is not
// reproducible: the trace (mlperf_log_trace.json) records what happened,
// and make_series.py turns it into the latency series the Go test feeds to
// its own result computation.
//
// Usage: sut_main CASE_FILE OUT_DIR
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "loadgen.h"
#include "query_sample_library.h"
#include "system_under_test.h"
#include "test_settings.h"

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> ReadCase(const std::string& path) {
  std::map<std::string, std::string> kv;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    std::exit(2);
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string k, v;
    ls >> k >> v;
    if (!k.empty()) kv[k] = v;
  }
  return kv;
}

struct Params {
  int workers = 1;
  double service_us = 1000;
  double slow_prob = 0;
  double slow_us = 0;
  double ttft_us = 500;
  double tpot_us = 100;
  bool tokens = false;
  uint64_t seed = 1;
};

class OracleQSL : public mlperf::QuerySampleLibrary {
 public:
  OracleQSL(size_t total, size_t perf) : total_(total), perf_(perf) {}
  const std::string& Name() override { return name_; }
  size_t TotalSampleCount() override { return total_; }
  size_t PerformanceSampleCount() override { return perf_; }
  void LoadSamplesToRam(const std::vector<mlperf::QuerySampleIndex>&) override {}
  void UnloadSamplesFromRam(
      const std::vector<mlperf::QuerySampleIndex>&) override {}

 private:
  std::string name_ = "OracleQSL";
  size_t total_, perf_;
};

class OracleSUT : public mlperf::SystemUnderTest {
 public:
  explicit OracleSUT(const Params& p) : p_(p) {
    for (int w = 0; w < p_.workers; w++) {
      threads_.emplace_back([this, w] { Work(w); });
    }
  }
  ~OracleSUT() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  const std::string& Name() override { return name_; }
  void IssueQuery(const std::vector<mlperf::QuerySample>& samples) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      for (const auto& s : samples) queue_.push_back(s);
    }
    cv_.notify_all();
  }
  void FlushQueries() override {}

 private:
  void Work(int w) {
    std::mt19937_64 rng(p_.seed * 1000003 + w);
    std::exponential_distribution<double> service(1.0 / p_.service_us);
    std::uniform_real_distribution<double> unit(0, 1);
    for (;;) {
      mlperf::QuerySample s;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
        if (stop_ && queue_.empty()) return;
        s = queue_.front();
        queue_.pop_front();
      }
      auto us = [](double v) {
        return std::chrono::nanoseconds(static_cast<int64_t>(v * 1000));
      };
      double extra = unit(rng) < p_.slow_prob ? p_.slow_us : 0;
      if (!p_.tokens) {
        std::this_thread::sleep_for(us(service(rng) + extra));
        int32_t out = static_cast<int32_t>(s.index);
        mlperf::QuerySampleResponse r{s.id, reinterpret_cast<uintptr_t>(&out),
                                      sizeof(out)};
        mlperf::QuerySamplesComplete(&r, 1);
        continue;
      }
      int64_t n = 2 + (7 * static_cast<int64_t>(s.index)) % 19;
      std::vector<int32_t> toks(n, static_cast<int32_t>(s.index));
      std::this_thread::sleep_for(us(p_.ttft_us * (0.5 + unit(rng)) + extra));
      mlperf::QuerySampleResponse first{
          s.id, reinterpret_cast<uintptr_t>(toks.data()), sizeof(int32_t), 1};
      mlperf::FirstTokenComplete(&first, 1);
      std::this_thread::sleep_for(us(p_.tpot_us * (0.5 + unit(rng)) * (n - 1)));
      mlperf::QuerySampleResponse r{s.id,
                                    reinterpret_cast<uintptr_t>(toks.data()),
                                    toks.size() * sizeof(int32_t), n};
      mlperf::QuerySamplesComplete(&r, 1);
    }
  }

  Params p_;
  std::string name_ = "OracleSUT";
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<mlperf::QuerySample> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: sut_main CASE_FILE OUT_DIR\n";
    return 2;
  }
  auto kv = ReadCase(argv[1]);
  auto get = [&](const std::string& k, const std::string& def) {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
  };
  auto u64 = [&](const std::string& k, uint64_t def) {
    return std::stoull(get(k, std::to_string(def)));
  };
  auto f64 = [&](const std::string& k, double def) {
    return std::stod(get(k, std::to_string(def)));
  };

  mlperf::TestSettings ts;
  std::string sc = get("scenario", "SingleStream");
  ts.scenario = sc == "Server"        ? mlperf::TestScenario::Server
                : sc == "Offline"     ? mlperf::TestScenario::Offline
                : sc == "MultiStream" ? mlperf::TestScenario::MultiStream
                                      : mlperf::TestScenario::SingleStream;
  ts.mode = mlperf::TestMode::PerformanceOnly;
  ts.single_stream_expected_latency_ns =
      f64("single_stream_expected_latency_ns", 1e6);
  ts.single_stream_target_latency_percentile =
      f64("single_stream_target_latency_percentile", 0.90);
  ts.multi_stream_expected_latency_ns =
      f64("multi_stream_expected_latency_ns", 8e6);
  ts.multi_stream_target_latency_percentile =
      f64("multi_stream_target_latency_percentile", 0.99);
  ts.multi_stream_samples_per_query = u64("multi_stream_samples_per_query", 8);
  ts.server_target_qps = f64("server_target_qps", 1);
  ts.server_target_latency_ns = u64("server_target_latency_ns", 100000000);
  ts.server_target_latency_percentile =
      f64("server_target_latency_percentile", 0.99);
  ts.offline_expected_qps = f64("offline_expected_qps", 1);
  ts.min_duration_ms = u64("min_duration_ms", 10000);
  ts.max_duration_ms = u64("max_duration_ms", 0);
  ts.min_query_count = u64("min_query_count", 100);
  ts.max_query_count = u64("max_query_count", 0);
  ts.qsl_rng_seed = u64("qsl_rng_seed", 0);
  ts.sample_index_rng_seed = u64("sample_index_rng_seed", 0);
  ts.schedule_rng_seed = u64("schedule_rng_seed", 0);
  ts.sample_concatenate_permutation =
      u64("sample_concatenate_permutation", 0) != 0;
  ts.use_token_latencies = u64("use_token_latencies", 0) != 0;
  ts.server_ttft_latency = u64("server_ttft_latency", 100000000);
  ts.server_tpot_latency = u64("server_tpot_latency", 100000000);
  ts.infer_token_latencies = u64("infer_token_latencies", 0) != 0;
  ts.token_latency_scaling_factor = u64("token_latency_scaling_factor", 0);

  Params p;
  p.workers = static_cast<int>(u64("sut_workers", 1));
  p.service_us = f64("sut_service_us", 1000);
  p.slow_prob = f64("sut_slow_prob", 0);
  p.slow_us = f64("sut_slow_us", 0);
  p.ttft_us = f64("sut_ttft_us", 500);
  p.tpot_us = f64("sut_tpot_us", 100);
  p.tokens = ts.use_token_latencies;
  p.seed = u64("sut_seed", 1);

  mlperf::LogSettings ls;
  ls.log_output.outdir = argv[2];
  ls.enable_trace = true;

  OracleQSL qsl(u64("qsl_total", 1024), u64("qsl_performance", 1024));
  OracleSUT sut(p);
  mlperf::StartTest(&sut, &qsl, ts, ls);
  return 0;
}
