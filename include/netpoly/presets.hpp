// Preset network families with random integer weights (netpoly make …).
// Weights come from SplitMix64, so a seed gives the same model on every machine.
#pragma once
#include <cstdint>
#include <string>

#include "netpoly/bounds.hpp"
#include "netpoly/model.hpp"

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

struct PresetOptions {
  std::string arch;  // attention | mixer | mlp | product
  std::size_t layers = 1, width = 2, heads = 1, tokens = 2, degree = 2;
  bool residual = false;
  std::uint64_t seed = 1;
  std::int64_t range = 3;  // weights uniform in [-range, range]
};

// The preset of a network shape (the shape the bounds speak of), with the
// given seed and weight range: what `table` measures and the tests compare.
PresetOptions preset_options(const BoundParams& p, std::uint64_t seed = 1, std::int64_t range = 3);

// Builds the preset; throws InputError for impossible shapes (e.g. H not dividing d).
Model make_preset(const PresetOptions& o);

}  // namespace netpoly
