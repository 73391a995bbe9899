// Preset network families with random integer weights (netpoly make …).
// Weights come from SplitMix64, so a seed gives the same model on every machine.
#pragma once
#include <cstdint>
#include <string>

#include "netpoly/model.hpp"
#include "netpoly/random.hpp"
#include "netpoly/shape.hpp"

namespace netpoly {

struct PresetOptions {
  NetworkShape shape;
  std::uint64_t seed = 1;
  std::int64_t range = 3;  // weights uniform in [-range, range]
};

// The preset of a network shape (the shape the bounds speak of), with the
// given seed and weight range: what `table` measures and the tests compare.
PresetOptions preset_options(const NetworkShape& p, std::uint64_t seed = 1, std::int64_t range = 3);

// Builds the preset; throws InputError for impossible shapes (e.g. H not dividing d).
Model make_preset(const PresetOptions& o);

}  // namespace netpoly
