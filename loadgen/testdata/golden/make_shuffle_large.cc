// make_shuffle_large.cc: golden for the large-N branch of loadgen/rng's
// Shuffle (libstdc++'s std::shuffle draws one value per swap once N*N
// exceeds the URNG's range). For each N it shuffles 0..N-1 with
// std::mt19937(qsl_rng_seed of mlperf.conf) and prints N, the FNV-1a 64 of
// the whole result (each element as 4 little-endian bytes), and its first
// and last 16 elements.
//
// Build and run (g++ 12, libstdc++):
//   g++ -O2 -std=c++17 make_shuffle_large.cc -o make_shuffle_large
//   ./make_shuffle_large > shuffle_large_qslseed.txt
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

int main() {
  const uint64_t seed = 2085463073848966840ULL;
  std::printf("# N fnv1a64 first16... last16... of std::shuffle(iota(N), mt19937(%llu))\n",
              static_cast<unsigned long long>(seed));
  for (uint32_t n : {65535u, 65536u, 65537u, 100000u, 788379u, 2000000u}) {
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    std::mt19937 g(static_cast<std::mt19937::result_type>(seed));
    std::shuffle(v.begin(), v.end(), g);
    uint64_t h = 14695981039346656037ULL;
    for (uint32_t x : v) {
      for (int b = 0; b < 4; b++) {
        h ^= (x >> (8 * b)) & 0xff;
        h *= 1099511628211ULL;
      }
    }
    std::printf("%u %016llx", n, static_cast<unsigned long long>(h));
    for (uint32_t i = 0; i < 16; i++) std::printf(" %u", v[i]);
    for (uint32_t i = n - 16; i < n; i++) std::printf(" %u", v[i]);
    std::printf("\n");
  }
  return 0;
}
