// The generic separation rank of a model's shape (docs/math.md §2.5): its
// layers with every weight an indeterminate. gsep = max over weight
// assignments of sep, attained on a dense open set, so "sep <= X for every
// weight assignment" holds iff gsep <= X, and "sep >= X for almost every
// weight assignment" iff gsep >= X. The analysis (`seprank --generic`) brackets it with
// weight-independent upper bounds (support) and the black-box at weights
// drawn at random mod its prime, whose rank is a certified lower bound for
// the sep of the integer network it drew, hence for gsep.
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "netpoly/model.hpp"
#include "runtime/random.hpp"

namespace netpoly {

// The shape with every weight 1 (real; a Gaussian model's imaginary parts
// dropped): its structure, what the support bound reads.
Model shape_with_ones(const Model& m);

// The shape with every weight an integer drawn uniformly from [0, p) by g
// (real: generic complex weights give the same rank as generic real ones,
// the real points being Zariski dense).
Model shape_with_random_weights(const Model& m, ulong p, SplitMix64& g);

// The degree of output e as a polynomial in the weights and the inputs
// together (a forward pass where every weight has degree 1).
double joint_degree(const Model& m, const Entry& e);

// Per output entry (row-major), the degree in the weights alone (the inputs
// constants): a forward pass where every weight has degree 1 and every
// input degree 0 (-1: the entry is structurally zero).
std::vector<long> weight_degrees(const Model& m);

// log2 of a bound on the sum of the absolute values of the coefficients of
// output e as a polynomial in the weights and the inputs (HeightRing with
// every weight a monomial of coefficient 1).
double joint_height_log2(const Model& m, const Entry& e);

// The networks the generic analysis draws, one per prime, from its seed:
// weights uniform in [0, p) for the black-box mod p, kept so that the
// network a certified lower end speaks of can be written out.
class GenericDraws {
 public:
  GenericDraws(const Model& shape, std::uint64_t seed) : shape_(shape), seed_(seed) {}
  const Model& at(ulong p);

 private:
  const Model& shape_;
  std::uint64_t seed_;
  std::map<ulong, std::shared_ptr<const Model>> drawn_;

 public:
  std::shared_ptr<const Model> shared_at(ulong p) {
    (void)at(p);
    return drawn_.at(p);
  }
};

}  // namespace netpoly
