// The one pseudo-random generator of netpoly: preset weights, points,
// projections and templates all come from it, so a seed gives the same
// result on every machine.
#pragma once
#include <cstdint>

namespace netpoly {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, portable, fully specified.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    std::uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x;
    do x = next(); while (x >= lim);
    return x % n;
  }
  // Uniform integer in [-r, r].
  std::int64_t symmetric(std::int64_t r) { return static_cast<std::int64_t>(below(2 * r + 1)) - r; }

 private:
  std::uint64_t s_;
};

}  // namespace netpoly
