// The `support` method: a certified upper bound on sep(y; A, B) that needs no
// expansion, only the bidegrees (degree in A's variables, degree in B's) the
// network can produce.
//
// The coefficient matrix C has a row per A-monomial alpha and a column per B-monomial beta, and
// C[alpha][beta] != 0 only when (|alpha|, |beta|) is a bidegree of y. The
// forward pass over SupportRing gives a superset of those bidegrees. Group
// the rows by a = |alpha| (n_a = binom(a + |A| - 1, |A| - 1) monomials) and
// the columns by b = |beta| (m_b). If the row groups S and the column groups
// T cover every bidegree (a in S or b in T), then C = C[rows in S] + (the
// other rows, nonzero only in the columns of T), so
//   rank C <= sum_{a in S} n_a + sum_{b in T} m_b.
// The best cover is a minimum weighted vertex cover of the bipartite
// bidegree graph, i.e. a minimum s-t cut: computed by max flow (Edmonds-Karp)
// with exact integer capacities. For a network homogeneous of degree D the
// graph is a matching and the bound is sum_a min(n_a, m_{D-a}).
#pragma once
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "netpoly/flint.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"

namespace netpoly {

using Bidegrees = std::vector<std::pair<std::size_t, std::size_t>>;  // sorted, distinct (a, b)

// A superset of the bidegrees of the output entry e (a forward pass over
// SupportRing). Throws SupportRing::TooCostly when the degrees are too high.
Bidegrees support_bidegrees(const Model& m, const Entry& e, const Partition& P);
// The bidegrees of an explicit polynomial (exactly those of its terms).
Bidegrees polynomial_bidegrees(const FmpqMpoly& y, const Partition& P);

struct SupportBound {
  Fmpz value;                                   // the bound (0 when there are no bidegrees)
  std::vector<std::size_t> rows_cut, cols_cut;  // the optimal cover: A-degrees and B-degrees
  Bidegrees edges_cut;  // with edge weights: the bidegrees the cut pays for themselves
  std::size_t bidegrees = 0, degree = 0;        // number of bidegrees, largest a + b
};

// min over covers (S, T) of sum_{a in S} binom(a + nA - 1, nA - 1) + sum_{b in T} binom(b + nB - 1, nB - 1).
SupportBound support_bound(const Bidegrees& bd, std::size_t nA, std::size_t nB);
SupportBound support_bound(const Bidegrees& bd, const Partition& P);
// The same cover with other weights: rows of A-degree a span a space of
// dimension at most weight_A(a), columns of B-degree b at most weight_B(b)
// (the argument above holds for any such bounds: gram.hpp). With `edge_cap`,
// a bidegree (a, b) whose block C_ab has rank at most edge_cap(a, b) need not
// be covered: C is the sum of the covered parts and the other blocks, so the
// minimum s-t cut with those middle capacities bounds rank C (engines/mixer_rank.hpp).
using EdgeWeight = std::function<Fmpz(std::size_t, std::size_t)>;
SupportBound support_bound(const Bidegrees& bd, const std::function<Fmpz(std::size_t)>& weight_A,
                           const std::function<Fmpz(std::size_t)>& weight_B, const EdgeWeight* edge_cap = nullptr);

}  // namespace netpoly
