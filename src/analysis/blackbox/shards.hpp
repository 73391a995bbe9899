// The black-box's blocks laid out before any evaluation (blackbox.cpp builds
// them), and what --plan and --blocks do with them (blackbox/shards.cpp): the
// plan prints each block's width, cap, points, memory and time; a share i/n
// computes only its blocks mod the small prime and reports a shard that
// `seprank --merge` sums (docs/guide/slurm.md, "One analysis across a cluster").
#pragma once
#include <optional>
#include <vector>

#include "analysis/blackbox/rounds.hpp"

namespace netpoly::methods {

// How the blocks' values come from forward passes: the whole matrix (t =
// {1}, weight {1}), or one block per component of A-degrees (run_split).
struct Layout {
  std::vector<std::size_t> as;                   // the A-degrees; empty: the whole matrix
  std::vector<std::vector<std::size_t>> groups;  // per block: indices into as, or residues mod m
  std::size_t m = 0;  // 0: s values t_l (Vandermonde); else t_l = w^l, w of order m (classes mod m)
};

// t and the blocks' weights mod p (blackbox.cpp); empty when 20 draws found
// no invertible Vandermonde matrix (a tiny prime).
std::optional<std::vector<ulong>> set_weights(const Layout& L, std::vector<Block>& blocks, ulong p, SplitMix64& g);

// The components grouped into classes of A-degrees mod m (blackbox.cpp):
// one matrix per class, m forward passes per pair for all of them.
std::pair<Layout, std::vector<Block>> classes_mod(const Layout& L, const std::vector<Block>& comps, std::size_t m);

// The blocks as the analysis sees them before any evaluation: the components
// of A-degrees with their certified caps, or the whole matrix as one block
// (its cap: the monomials on either side, or the best certified upper bound).
struct BlockLayout {
  Layout L;
  std::vector<Block> blocks;
  std::vector<std::vector<std::size_t>> b_degrees;  // per block (empty for the whole matrix)
  std::vector<double> rows, cols;                   // per block: the coefficient block's size (or its bound)
};
BlockLayout block_layout(MethodContext& ctx);

// Seconds per forward-pass value over the threads (one row of 1,024 values
// at points drawn from g) and per n^3 of a dense rank mod q: the small-prime
// phase's cost model, and the plan's.
// With `nominal` (AnalysisContext::nominal) the points are drawn alike, but
// the rates returned are the nominal ones (analysis/nominal.hpp).
std::pair<double, double> measure_rates(const BatchEval& eval, std::size_t na, std::size_t nb, ulong q, SplitMix64& g,
                                        unsigned threads, bool nominal = false);

// What the shares of n compute: the components, or their classes mod m
// (m | 120) where that makes the dearest share cheaper at nominal rates (the
// same in every task, never measured, so every task of an array agrees).
// `parts[u]`: the components of unit u.
struct ShareLayout {
  BlockLayout units;
  std::size_t m = 0;  // 0: the units are the components
  std::vector<std::vector<std::size_t>> parts;
};
ShareLayout share_layout(BlockLayout comps, std::size_t max_points, std::size_t count);

// The units of share i of n (1-based i): the largest first, each to the
// share with the least work so far (points^3 + passes points^2), ties to the
// lower index; deterministic, so every task of an array agrees.
std::vector<std::size_t> share_blocks(const BlockLayout& bl, std::size_t max_points, std::size_t index,
                                      std::size_t count);

// The share (0-based) of every unit, for n shares, by the rule above, in
// O(units log units) whatever n is (share_blocks picks one share's).
std::vector<std::size_t> share_owners(const BlockLayout& bl, std::size_t max_points, std::size_t count);

// --plan: the blocks, nothing computed (the run has no value; its details' "plan").
MethodRun run_plan(MethodContext& ctx);
// --blocks i/n: share i's blocks mod the small prime (a certified lower bound
// each; exact where it reaches its cap), the details' "shard".
MethodRun run_shard(MethodContext& ctx);

}  // namespace netpoly::methods
