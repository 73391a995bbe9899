// Preset network families with random integer weights (netpoly make …).
// Weights come from SplitMix64, so a seed gives the same model on every machine.
#pragma once
#include <cstdint>
#include <string>

#include "netpoly/bounds.hpp"
#include "netpoly/model.hpp"
#include "netpoly/random.hpp"

namespace netpoly {

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
