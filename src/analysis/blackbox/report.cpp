// The black-box's result (outcome.hpp): the blocks' certified ranks summed,
// the probability statement over the seed, and the witness network.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/blackbox/outcome.hpp"
#include "analysis/rank/fflas.hpp"
#include "netpoly/seprank.hpp"
#include "runtime/number_text.hpp"

namespace netpoly::methods {

using json = nlohmann::json;

// The method's result from the blocks: the sum of their certified lower
// bounds; the probability statement when every block closed (or is exact).
MethodRun report(const std::vector<Block>& comps, const Outcome& o, const BlackboxPrime& bp, double height,
                 double degree, bool split) {
  const std::vector<Block>& blocks = (o.certified_small || o.small_final) && o.classes_mod ? o.first : comps;
  std::size_t rank = 0;
  bool saturated = false, fell = false;
  double eps = 0;
  json parts = json::array();
  for (const auto& c : blocks) {
    rank += std::max(c.rank, c.floor);
    const bool sat = !c.exact && c.rank == c.points;
    saturated = saturated || sat;
    fell = fell || (!c.exact && c.rank < c.floor);
    // Per block (values of degree <= D in the points), union bound over blocks;
    // a block at its cap is known exactly, but keeps its term (conservative).
    eps += blackbox_block_eps(std::max(c.rank, c.floor), degree, height, bp);
    parts.push_back({{"A_degrees", c.a_degrees}, {"cap", c.cap}, {"rank", std::max(c.rank, c.floor)}, {"points", c.points},
                     {"saturated", sat}, {"exact", c.exact}});
  }
  rank = std::max(rank, o.small_rank);  // both certified lower bounds
  MethodRun r;
  r.method = Method::blackbox;
  r.kind = RunKind::lower;
  r.value = rank;
  r.nominal_seconds = o.rounds.spent;  // (nominal under AnalysisContext::nominal: the rounds' fixed-rate costs)
  const std::string what = split ? "sum of per-block ranks" : "rank";
  r.details = {{"points", o.rounds.k}, {"saturated", saturated}, {"arithmetic", o.ring}};
  r.size_key = "blackbox_points";
  r.size = o.rounds.k;
  if (split) {
    r.details["blocks"] = parts.size();
    r.details["split"] = "A-degree components";
    r.details["block_ranks"] = parts;
  }
  if (degree < 0x1p53) r.details["degree_bound"] = static_cast<std::uint64_t>(degree);
  else r.details["degree_bound"] = degree;
  if (o.small) {
    r.details["small_prime"] = o.small;
    r.details["small_prime_rank"] = o.small_rank;
    if (o.classes_mod) r.details["small_prime_classes_mod"] = o.classes_mod;
    r.details["dense_rank"] = o.small < fflas::kMaxPrime && fflas::available() ? "fflas-ffpack" : "flint";
  }
  if (o.certified_small || o.small_final) {
    r.how = "certified lower bound (" + what + " mod " + small_prime_text(o.small, bp.seed) + ")" +
            (o.certified_small ? ", equal to the best certified upper bound" : "");
    r.details["prime"] = o.small;
    r.details["prime_source"] = "random = 1 mod 120 in [2^22, 2^23) (small-prime phase)";
    r.details["seed"] = bp.seed;
    if (o.small_final)
      r.note = (o.rounds.stop_note.empty() ? "" : o.rounds.stop_note + "; ") + "some block was full rank at " +
               std::to_string(o.rounds.k) + " points: sep may be larger (raise --max-points or --budget)";
    return r;
  }
  r.how = "certified lower bound (" + what + " mod " + blackbox_prime_text(bp) +
          (o.small ? ", and mod the small prime " + std::to_string(o.small) : "") + ")";
  blackbox_prime_details(r.details, bp, height);
  if (saturated)
    r.note = (o.rounds.stop_note.empty() ? "" : o.rounds.stop_note + "; ") +
             (split ? "some block was full rank at " + std::to_string(o.rounds.k) + " points"
                    : "matrix of " + std::to_string(o.rounds.k) + " points was full rank") +
             ": sep may be larger (raise --max-points)";
  else if (fell)
    r.note = "a block's rank mod the big prime fell below its rank mod the small prime: no probability statement";
  else
    state_blackbox_probability(r, eps, degree, bp);
  if (!o.small_note.empty()) r.note = r.note.empty() ? o.small_note : o.small_note + "; " + r.note;
  return r;
}

// Generic mode: the integer network whose own sep the run certifies, and how
// far (the small prime's network by its rank sum, or the large prime's by the
// blocks it ranked itself; the run's value, per-block maxima of both, may be
// larger: a lower bound for the generic sep only).
MethodRun with_witness(const MethodContext& ctx, MethodRun r, const std::vector<Block>& comps, const Outcome& o,
                       const BlackboxPrime& bp) {
  if (!ctx.generic) return r;
  std::size_t own = 0;
  for (const auto& c : comps)
    if (c.prime == bp.p) own += c.rank;
  const bool small = o.small && (o.certified_small || o.small_final || o.small_rank >= own);
  r.witness = ctx.generic->shared_at(small ? o.small : bp.p);
  r.witness_value = small ? o.small_rank : own;
  r.details["witness_prime"] = small ? o.small : bp.p;
  r.details["witness_sep_at_least"] = r.witness_value;
  return r;
}

}  // namespace netpoly::methods
