// The `mixer` upper bound (docs/math.md, "Separable terms through a mixer"):
// a forward pass over RankRing, whose element stands for a polynomial f with
//   - per bidegree (a, b) a bound r_ab on the rank of f's bihomogeneous
//     component f_ab (a separable sum of at most r_ab terms), and
//   - per side a set G_A (G_B) of named linear forms in A's (B's) variables
//     such that f is a polynomial in their span L_A and in L_B (m_A =
//     |G_A| bounds dim L_A), and the input variables f may depend on. A name
//     is an input variable or a fresh one for one fixed form (a basis vector
//     of the linear part of one element of A-degree at most 1), so the copies
//     of one value (a residual branch and the mixing branch) share names.
// Sums add ranks and join the name sets, products multiply ranks, the square
// of a block of r terms has r(r + 1)/2, and every block is capped by the
// dimension of the polynomials of its degrees in m_A (m_B) linear forms; the
// caps repeat until none lowers anything. The output's blocks
// then bound sep by a minimum cut of the bidegree graph whose A-degree a is
// weighted by the span of its rows, B-degree b likewise, and each bidegree by
// its block's rank (support_bound with edge capacities). Integer counting
// only; no expansion.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/engines/support.hpp"
#include "netpoly/flint.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/rings.hpp"
#include "domains/structure_rings.hpp"

namespace netpoly::mixer_rank {

// dim of the homogeneous polynomials of degree k in m linear forms:
// binom(m + k - 1, k) (1 for k = 0, 0 for m = 0 < k).
Fmpz sym_dim(std::size_t m, std::size_t k);

struct RankRing : PatternRing {
  struct Block {
    std::size_t a = 0, b = 0;
    Fmpz r;  // rank of f_ab is at most r (r > 0)
  };
  struct Elem {
    std::vector<Block> blocks;     // sorted by (a, b); empty: f = 0
    std::size_t mA = 0, mB = 0;    // |G_A| >= dim L_A, |G_B| >= dim L_B
    std::vector<std::uint64_t> gA, gB;  // the names of G_A, G_B (bitsets; names below the inputs' count: variables)
    std::vector<std::uint64_t> vars;  // the input variables f may depend on (bitset)
    bool empty() const { return blocks.empty(); }
  };
  std::vector<std::uint64_t> maskA;  // the variables of side A (bitset)
  std::size_t max_degree = 1 << 12;  // beyond: TooCostly
  double max_work = 4e8;             // block products over the pass; beyond: TooCostly
  mutable double work = 0;
  std::size_t max_names = std::size_t{1} << 20;  // fresh names over the pass; beyond: TooCostly
  // The next fresh name (shared by copies of the ring; layers may run in
  // parallel, and only the sizes of the name sets enter the bound, so their
  // numbering does not).
  std::shared_ptr<std::atomic<std::size_t>> next_name;

  explicit RankRing(const Partition& P);
  Elem variable(std::size_t v) const;  // x_v: rank 1 at (1, 0) or (0, 1), one linear form
  Elem zero() const { return {}; }
  Elem one() const;  // the constant 1: rank 1 at (0, 0), no forms
  void axpy(Elem& r, Scalar s, const Elem& x) const {
    if (s) add(r, x);
  }
  void add(Elem& r, const Elem& x) const;
  // A product; the square of f when both arguments are the same object
  // (detail::activate calls mul(z, z)): r(r + 1)/2 for a block with itself.
  Elem mul(const Elem& x, const Elem& y) const;
  void addmul(Elem& r, const Elem& a, const Elem& b) const { add(r, mul(a, b)); }

 private:
  void normalize(Elem& e) const;
  std::vector<std::uint64_t> fresh(std::size_t k) const;
};

// Whether the bound is offered by default: networks of token_mix,
// channel_mix and permute layers and sums of branches of them (NB eq. (3))
// with real weights; otherwise `why`.
bool is_mixer(const Model& m, std::string& why);

struct Bound {
  SupportBound cut;                      // the minimum cut (value = the bound)
  std::vector<RankRing::Block> blocks;   // the output's blocks (within support's bidegrees)
  std::size_t mA = 0, mB = 0;            // the output's span bounds
  std::map<std::size_t, Fmpz> wA, wB;    // per A-degree / B-degree: the bound on its rows' (columns') span
};
// `support_bd`: support's bidegrees of the entry when known (the blocks
// outside them are zero); nullptr: the ring's own. Throws
// RankRing::TooCostly when the pass would be too costly.
Bound mixer_bound(const Model& m, const Entry& e, const Partition& P, const Bidegrees* support_bd);

}  // namespace netpoly::mixer_rank
