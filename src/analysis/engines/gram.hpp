// The `gram` upper bound (docs/math.md §4): softmax-free attention without
// anything but attention layers maps token o to Phi(M) x_o, where
// M = sum_j x_j x_j^T, so every output entry is linear in x_o and a polynomial
// in the Gram matrices M_A and M_B of the two sides. Per degree j in the
// output side's Gram matrix and k in the other side's, the coefficient
// matrix's rows and columns live in spaces whose dimensions are bounded by
// representation theory (weight-independent), by the first layer's head
// contraction, and by functionals at the points where that contraction
// vanishes on the Gram variety (both weight-dependent); a minimum weighted
// vertex cover of the degree graph (support.hpp) bounds the rank.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/flint.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "runtime/random.hpp"
#include "analysis/engines/support.hpp"

namespace netpoly::gram {

// dim S_lambda(C^d) (Weyl's formula; 0 when lambda has more than d parts).
Fmpz schur_dim(const std::vector<std::size_t>& lambda, std::size_t d);
// Monomials of degree k in n variables.
Fmpz monomials(std::size_t n, std::size_t k);
// `want` distinct monomials of degree k in s coordinates (sorted index
// tuples), drawn uniformly at random, or all of them when there are at most
// `want`; sorted.
std::vector<std::vector<std::size_t>> monomial_sample(std::size_t s, std::size_t k, std::size_t want,
                                                      SplitMix64& g);

// An upper bound on the dimension of the degree-k polynomials in the entries
// of U = X^T X, X an r x d matrix, as functions of X: sum over partitions mu
// of k with at most min(r, d) parts of dim S_{2 mu}(C^d) (Littlewood's
// plethysm S^k(S^2 V) = sum S_{2 mu} V; Cauchy). nullopt when enumerating the
// partitions would pass `budget` of them; the partitions enumerated are
// subtracted from it.
std::optional<Fmpz> gram_dim(std::size_t k, std::size_t d, std::size_t r, double& budget);
inline std::optional<Fmpz> gram_dim(std::size_t k, std::size_t d, std::size_t r) {
  double b = 2e6;
  return gram_dim(k, d, r, b);
}
// An upper bound on the dimension of span{ x_{o,e} q(X^T X) : e, deg q = j }
// (x_o a row of the n x d matrix X): sum over the partitions lambda of 2j+1
// with exactly one odd part and at most min(n, d) parts of dim S_lambda(C^d)
// (Pieri on V (x) S^j(S^2 V); Cauchy).
std::optional<Fmpz> covariant_dim(std::size_t j, std::size_t d, std::size_t n, double& budget);
inline std::optional<Fmpz> covariant_dim(std::size_t j, std::size_t d, std::size_t n) {
  double b = 2e6;
  return covariant_dim(j, d, n, b);
}

// What the bound needs to know about a model (attention_shape); nullopt and
// `why` when the bound does not apply.
struct Shape {
  std::size_t d = 0;
  std::size_t n_out = 0, n_other = 0;  // tokens on the output's side and on the other
  bool output_in_A = true;
  std::vector<std::size_t> degrees;  // the total degrees of Phi in M
  std::size_t full = 0;              // most occurrences of M not inside the first layer in any term
  std::size_t contraction_generic = 0;  // min(sum_h da_h^2, d(d+1)/2): the first layer's forms, any weights
};
std::optional<Shape> attention_shape(const Model& m, const Entry& e, const Partition& P, std::string& why);

// The first layer's map Sym(d) -> Mat(d), M -> sum_h O_h V_h M K_h^T Q_h, over
// Q: its rank, and an integral basis of its kernel (symmetric d x d matrices).
struct Contraction {
  std::size_t rank = 0;
  std::vector<FmpzMat> kernel;
};
Contraction first_layer_contraction(const Model& m);

// Lower bounds on the codimensions (pencil points, engines/gram_jets.cpp): for the
// side of r tokens (the output's side when `output_side`), degree deg, order
// e = deg - full: the rank mod a prime of functionals that vanish on the
// space the bound counts. 0 when no point was found or the work would pass
// `max_cells`.
struct Codims {
  std::map<std::size_t, std::size_t> out, other;  // Gram degree -> codimension found
  ulong prime_out = 0, prime_other = 0;
  std::size_t points_out = 0, points_other = 0;
  std::string note;
};
// At most `max_cells` matrix entries per degree and `total_cells` over all.
Codims pencil_codims(const Contraction& c, const Shape& s, const std::vector<std::size_t>& out_degrees,
                     const std::vector<std::size_t>& other_degrees, double max_cells = 4e7, double total_cells = 8e7);

struct Bound {
  SupportBound cover;               // the weighted cover (value = the bound)
  SupportBound generic;             // with the weight-independent parts only
  Bidegrees edges;                  // (A-degree, B-degree) in the input variables
  std::map<std::size_t, Fmpz> wA, wB;  // per A-degree / B-degree: the bound on its space
  std::size_t contraction = 0;      // rank of the first layer's map used
  Codims codims;
};
// `exact_weights`: use the model's weights (contraction rank over Q, pencil
// points); false for Gaussian weights (only weight-independent parts).
Bound gram_bound(const Model& m, const Shape& s, bool exact_weights);

}  // namespace netpoly::gram
