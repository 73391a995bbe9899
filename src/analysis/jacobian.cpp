// The rank of the Jacobian of weights -> output coefficients (netpoly/jacobian.hpp).
#include "netpoly/jacobian.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include <flint/nmod_mat.h>
#include <flint/nmod_vec.h>

#include "analysis/blackbox/prime.hpp"
#include "analysis/generic.hpp"
#include "domains/structure_rings.hpp"
#include "model/forward.hpp"
#include "netpoly/error.hpp"
#include "runtime/random.hpp"

namespace netpoly {

namespace {

// Forward-mode derivatives mod p: an element is a value and its gradient
// with respect to every weight (empty: zero); a weight is its value and its
// index. The one forward pass (model/forward.hpp) runs over it.
struct JacobianRing {
  struct Scalar {
    ulong v = 0;
    std::size_t idx = 0;
  };
  struct Elem {
    ulong v = 0;
    std::vector<ulong> g;
  };
  nmod_t mod;
  std::size_t W = 0;
  bool is_zero(const Scalar& s) const { return s.v == 0; }
  Elem zero() const { return {}; }
  Elem one() const { return {1, {}}; }
  void grad_axpy(std::vector<ulong>& r, ulong c, const std::vector<ulong>& x) const {  // r += c x
    if (x.empty() || c == 0) return;
    if (r.empty()) r.assign(W, 0);
    _nmod_vec_scalar_addmul_nmod(r.data(), x.data(), static_cast<slong>(W), c, mod);
  }
  void axpy(Elem& r, const Scalar& s, const Elem& x) const {  // r += w x: d(w x) = w dx + x e_w
    r.v = nmod_add(r.v, nmod_mul(s.v, x.v, mod), mod);
    grad_axpy(r.g, s.v, x.g);
    if (x.v) {
      if (r.g.empty()) r.g.assign(W, 0);
      r.g[s.idx] = nmod_add(r.g[s.idx], x.v, mod);
    }
  }
  void add(Elem& r, const Elem& x) const {
    r.v = nmod_add(r.v, x.v, mod);
    grad_axpy(r.g, 1, x.g);
  }
  void addmul(Elem& r, const Elem& a, const Elem& b) const {
    r.v = nmod_add(r.v, nmod_mul(a.v, b.v, mod), mod);
    grad_axpy(r.g, a.v, b.g);
    grad_axpy(r.g, b.v, a.g);
  }
  Elem mul(const Elem& a, const Elem& b) const {
    Elem r;
    addmul(r, a, b);
    return r;
  }
};

constexpr std::size_t kMaxWeights = 6000;  // rows x weights residues: about 290 MB at the cap

std::size_t rank_of(const std::vector<std::vector<ulong>>& rows, std::size_t W, ulong p) {
  nmod_mat_t M;
  nmod_mat_init(M, static_cast<slong>(rows.size()), static_cast<slong>(W), p);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < W; ++j) nmod_mat_entry(M, i, j) = rows[i][j];
  const slong r = nmod_mat_rank(M);
  nmod_mat_clear(M);
  return static_cast<std::size_t>(r);
}

// outputs x the number of monomials of degree <= D in n variables (saturating).
double monomial_count(std::size_t n, long D) {
  if (D < 0) return 0;
  double c = 1;  // binom(n + D, n)
  for (long k = 1; k <= D && c < 1e18; ++k) c = c * static_cast<double>(n + static_cast<std::size_t>(k)) / static_cast<double>(k);
  return std::floor(c + 0.5);
}

}  // namespace

JacobianResult jacobian_rank(const Model& m, const std::vector<Entry>& outputs, std::uint64_t seed) {
  if (outputs.empty()) throw InputError("jacobian rank: no output entry");
  Model shape = m;
  shape.imag.clear();
  JacobianResult res;
  res.outputs = outputs;
  std::size_t W = 0;
  (void)shape.map_weights([&](const Fmpq& w) {
    ++W;
    return w;
  });
  res.weights = W;
  if (W == 0) throw InputError("jacobian rank: the model has no weights");
  if (W > kMaxWeights)
    throw LimitError("jacobian rank: " + std::to_string(W) + " weights; at most " + std::to_string(kMaxWeights) +
                     " (a dense matrix of about as many rows as weights, mod a prime)");
  if (!seed) {
    std::random_device rd;
    seed = ((static_cast<std::uint64_t>(rd()) << 32) ^ rd()) | 1;
  }
  res.seed = seed;
  const Model ones = shape_with_ones(shape);
  const BlackboxPrime bp = draw_blackbox_prime(ones, seed, 0);
  const ulong p = bp.p;
  res.prime = p;
  SplitMix64 g(seed ^ 0x4a61636f6269616eULL);
  JacobianRing R;
  nmod_init(&R.mod, p);
  R.W = W;
  std::size_t k = 0;
  const auto net = shape.map_weights([&](const Fmpq&) { return JacobianRing::Scalar{1 + g.below(p - 1), k++}; });
  const std::size_t dout = m.output_width(), n = m.num_inputs();
  Need need(m.tokens * dout, 0);
  for (const auto& e : outputs) {
    if (e.token >= m.tokens || e.channel >= dout) throw InputError("jacobian rank: output entry out of range");
    need[e.token * dout + e.channel] = 1;
  }
  // The upper end: every output's coefficients of degree <= its degree bound.
  DegreeRing Dg;
  const auto degs = forward(Dg, prepare(Dg, ones), std::vector<long>(n, 1));
  double monomials = 0, joint = 0, height = 0;
  for (const auto& e : outputs) {
    monomials += monomial_count(n, degs.at(e.token * dout + e.channel));
    joint = std::max(joint, joint_degree(shape, e));
    height = std::max(height, joint_height_log2(shape, e));
  }
  res.upper = static_cast<std::size_t>(std::min(static_cast<double>(W), monomials));
  std::vector<std::vector<ulong>> rows;
  std::size_t target = 8, rank = 0;
  for (;;) {
    while (res.points < target) {
      std::vector<JacobianRing::Elem> X(n);
      for (auto& x : X) x.v = g.below(p);
      const auto y = forward(R, net, std::move(X), need);
      ++res.points;
      for (const auto& e : outputs) {
        const auto& el = y.at(e.token * dout + e.channel);
        rows.push_back(el.g.empty() ? std::vector<ulong>(W, 0) : el.g);
      }
    }
    rank = rank_of(rows, W, p);
    if (rank < rows.size() || rank >= res.upper) break;
    target *= 2;
  }
  res.rank = rank;
  if (rank >= res.upper) {
    res.failure_probability = 0;  // the ends meet: exact
  } else {
    // An (r+1)-minor: degree <= (r+1) D in (w, x); coefficients below 2^((r+1)(h + log2 D + log2(r+1))).
    const double r1 = static_cast<double>(rank) + 1;
    const double bits = r1 * (height + std::log2(std::max(1.0, joint)) + std::log2(r1));
    res.failure_probability =
        std::min(1.0, r1 * joint / std::ldexp(1.0, 49) + bits / (49.0 * blackbox_prime_count()));
  }
  return res;
}

}  // namespace netpoly
