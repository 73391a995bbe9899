// Preset network families with random integer weights (netpoly make …).
// Weights come from SplitMix64, so a seed gives the same model on every machine.
#pragma once
#include <cstdint>
#include <string>

#include "netpoly/model.hpp"
#include "netpoly/shape.hpp"

namespace netpoly {

// How preset weights are drawn (all integers, uniform, from SplitMix64):
//   small   [-R, R] including 0 (R = 3 unless given): short coefficients, but zeros
//           and small values make degenerate networks (an output entry identically 0);
//   wide    [-R, R] without 0 (R = 100 unless given);
//   generic [-R, R] without 0 (R = 2^10 unless given), meant to measure the generic
//           (maximal) rank of the architecture; tables and claims check it against a
//           second independent draw (second_draw) and report any difference.
enum class WeightDist { small, wide, generic };
WeightDist parse_weight_dist(const std::string& s);  // InputError naming --weights
const char* weight_dist_name(WeightDist w);          // "small" | "wide" | "generic"

struct PresetOptions {
  NetworkShape shape;
  std::uint64_t seed = 1;
  std::int64_t range = 0;  // R; 0 = the distribution's default (3, 100, 2^10)
  WeightDist weights = WeightDist::small;
  // NB eq. (3) (mixer and mlp): a random permutation of the N x d entries
  // before each mixing layer (pi_o, pi_e) and, with residuals, in the residual
  // (pi_r: the layer is a sum of branches). Drawn from their own stream
  // (seed-derived), so the weights equal those of the unpermuted preset.
  bool permuted = false;
  // NB Remark 3.2 (ViP-style): with permuted, the mixing layer reads the sum
  // of this many random permutations of its input (1: NB eq. (3) itself).
  std::size_t perm_sum = 1;
  // WS's expansion factor γ (mixer and mlp): 0 keeps NB Def 3.2's one-matrix
  // mixing layers sigma2(W X); γ >= 1 makes every mixing layer a two-layer MLP
  // W2 sigma2(W X) of hidden width γ N (tokens) or γ d (channels).
  std::size_t expansion = 0;
  // attention: every layer causal (scores masked to j <= i, decoder-only
  // models; layers/attention.hpp). The weights are the unmasked preset's.
  bool causal = false;
  std::int64_t effective_range() const;
  // "integers in [-3, 3]", "nonzero integers in [-1024, 1024] (generic)"
  std::string weights_text() const;
};

// The preset of a network shape (the shape the bounds speak of), with the
// given seed and weights: what `table` measures and the tests compare.
PresetOptions preset_options(const NetworkShape& p, std::uint64_t seed = 1, std::int64_t range = 0,
                             WeightDist weights = WeightDist::small);

// The same preset with an independent seed (a second generic draw): a rank that
// differs between the two draws was the weights', not the architecture's.
PresetOptions second_draw(const PresetOptions& o);

// Builds the preset; throws InputError for impossible shapes (e.g. H not dividing d).
Model make_preset(const PresetOptions& o);

}  // namespace netpoly
