// The dimension of a network's function family (issue 52 §6): the rank of
// the Jacobian of the map weights -> the output's coefficients, the
// polynomials the shape spans as its weights vary (LV §4.2's question of
// which polynomials a shallower network can replicate).
//
// At weights w0 and points x_1..x_R drawn at random mod a prime p drawn at
// random from [2^49, 2^50) (the black-box's range), the matrix
//   J[(k, o), j] = d y_o(w0, x_k) / d w_j  mod p
// (forward-mode derivatives over Z/p, the one forward pass) has rank r. Then
// r <= the generic rank of the Jacobian over Q = the dimension of the family
// (its Zariski closure, over C or R), for every p, w0 and points: a certified
// lower bound. Points are added until a row is dependent; the dimension is r
// unless an (r+1)-minor, a nonzero polynomial in (w, x) of degree <=
// (r+1) D with integer coefficients below 2^h, vanishes at the draw or mod p:
// probability <= (r+1) D / 2^49 + (r+1)(h + log2(r+1)) / (49 n), n the
// number of primes in the range (docs/math.md, *Function-space dimension*).
// The upper end: min(weights, outputs x monomials of degree <= the degree).
#pragma once
#include <cstdint>
#include <vector>

#include "netpoly/model.hpp"

namespace netpoly {

struct JacobianResult {
  std::size_t rank = 0;    // certified: dim >= rank
  std::size_t upper = 0;   // certified: dim <= upper
  std::size_t weights = 0;
  std::size_t points = 0;  // points drawn (rows = points x outputs)
  ulong prime = 0;
  std::uint64_t seed = 0;
  double failure_probability = 1;  // that dim > rank (over the prime, weights and points)
  std::vector<Entry> outputs;
};

// `outputs`: the entries whose coefficients the map gives (at least one);
// `seed` 0: drawn from std::random_device. The shape's weights are real
// (a Gaussian model's imaginary parts dropped, as the generic sep does).
JacobianResult jacobian_rank(const Model& m, const std::vector<Entry>& outputs, std::uint64_t seed = 0);

}  // namespace netpoly
