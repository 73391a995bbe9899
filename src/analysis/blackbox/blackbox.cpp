// blackbox: rank mod p of [y(a_i, b_j)] at random points, no expansion
// (docs/math.md §2.4): a certified lower bound, equal to sep with probability
// >= 1 - eps over the black-box seed (blackbox/prime.hpp). Where the bidegree
// graph splits the coefficient matrix into blocks, each block is seen on its
// own (fewer points per block). One doubling driver serves both.
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <memory>

#include "analysis/blackbox/blackbox.hpp"
#include "analysis/blackbox/outcome.hpp"
#include "analysis/blackbox/shards.hpp"
#include "analysis/methods/method.hpp"
#include "netpoly/expand.hpp"
#include "analysis/rank/fflas.hpp"
#include "model/forward.hpp"
#include "netpoly/parallel.hpp"
#include "runtime/random.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

using json = nlohmann::json;

// A primitive m-th root of unity mod p (m | p - 1), from random elements.
ulong root_of_unity(ulong p, std::size_t m, SplitMix64& g) {
  nmod_t mod;
  nmod_init(&mod, p);
  n_factor_t f;
  n_factor_init(&f);
  n_factor(&f, m, 1);
  for (;;) {
    const ulong w = nmod_pow_ui(1 + g.below(p - 1), (p - 1) / m, mod);
    bool primitive = true;
    for (int k = 0; k < f.num; ++k) primitive = primitive && nmod_pow_ui(w, m / f.p[k], mod) != 1;
    if (primitive) return w;
  }
}

}  // namespace

// t and the blocks' weights mod p. Split: distinct nonzero t_l with
// V[l][a] = t_l^a invertible mod p (almost every draw), and block weights
// the sums of the rows of V^-1 over the block's A-degrees. Empty when 20
// draws found no invertible V.
std::optional<std::vector<ulong>> set_weights(const Layout& L, std::vector<Block>& blocks, ulong p, SplitMix64& g) {
  if (L.as.empty()) {
    blocks[0].weights = {1};
    return std::vector<ulong>{1};
  }
  nmod_t mod;
  nmod_init(&mod, p);
  if (L.m) {
    // y(w^l a, b) = sum_a w^(l a) y_a(a, b), so (1/m) sum_l w^(-l r) y(w^l a, b)
    // is the sum of the y_a with a = r mod m: a class's weights sum that over
    // its residues r.
    const ulong w = root_of_unity(p, L.m, g), inv_m = nmod_inv(L.m % p, mod), winv = nmod_inv(w, mod);
    std::vector<ulong> t(L.m);
    for (std::size_t l = 0; l < L.m; ++l) t[l] = nmod_pow_ui(w, l, mod);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      blocks[b].weights.assign(L.m, 0);
      for (std::size_t l = 0; l < L.m; ++l)
        for (std::size_t r : L.groups[b])
          blocks[b].weights[l] = nmod_add(blocks[b].weights[l], nmod_mul(inv_m, nmod_pow_ui(winv, l * r, mod), mod), mod);
    }
    return t;
  }
  const std::size_t s = L.as.size();
  NmodMat Vinv(static_cast<slong>(s), static_cast<slong>(s), p);
  std::vector<ulong> t(s);
  for (int attempt = 0;; ++attempt) {
    if (attempt == 20) return std::nullopt;
    for (auto& x : t) x = 1 + g.below(p - 1);
    NmodMat V(static_cast<slong>(s), static_cast<slong>(s), p);
    for (std::size_t l = 0; l < s; ++l)
      for (std::size_t k = 0; k < s; ++k) V.at(static_cast<slong>(l), static_cast<slong>(k)) = nmod_pow_ui(t[l], L.as[k], mod);
    if (nmod_mat_inv(Vinv.get(), V.get())) break;
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    blocks[b].weights.assign(s, 0);
    for (std::size_t k : L.groups[b])
      for (std::size_t l = 0; l < s; ++l)
        blocks[b].weights[l] = nmod_add(blocks[b].weights[l], Vinv.at(static_cast<slong>(k), static_cast<slong>(l)), mod);
  }
  return t;
}

namespace {


// Goal::on_round for a phase mod `p`: the rank sum so far (a certified lower
// bound, as the finished method's: a rank mod any prime at any points) to the
// scheduler, the largest of the phases. In generic mode too: each block's
// rank is a rank of the network drawn mod its phase's prime, at most the
// generic block's rank, so the sum is a lower bound on the generic sep. No
// witness network is named for it (a block's rank may come from the other
// phase's network; with_witness names one when the method finishes).
std::function<void(std::size_t, std::size_t)> tell_provisional(MethodContext& ctx, Outcome& out, ulong p,
                                                                 bool split) {
  if (!ctx.provisional) return {};
  return [&ctx, &out, p, split](std::size_t rank, std::size_t points) {
    if (rank <= out.provisional) return;
    out.provisional = rank;
    MethodRun r;
    r.method = Method::blackbox;
    r.kind = RunKind::lower;
    r.value = rank;
    r.how = "certified lower bound (" + std::string(split ? "sum of per-block ranks" : "rank") + " mod " +
            std::to_string(p) + " at up to " + std::to_string(points) + " points per side)";
    r.note = "the rounds finished so far; the method was still running";
    r.details = {{"points", points}, {"prime", p}, {"unfinished", true}};
    ctx.provisional(r);
  };
}

}  // namespace

// The components grouped into classes of A-degrees mod m (a component whose
// degrees meet several residues joins their classes): each class costs one
// matrix, and all of them m forward passes per pair instead of s.
std::pair<Layout, std::vector<Block>> classes_mod(const Layout& L, const std::vector<Block>& comps, std::size_t m) {
  std::vector<std::size_t> parent(m);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& g : L.groups)
    for (std::size_t k : g) parent[find(L.as[k] % m)] = find(L.as[g[0]] % m);
  std::map<std::size_t, std::size_t> slot;  // root residue -> class
  Layout C;
  C.as = L.as;
  C.m = m;
  std::vector<Block> classes;
  for (std::size_t b = 0; b < comps.size(); ++b) {
    const std::size_t root = find(L.as[L.groups[b][0]] % m);
    auto [it, fresh] = slot.emplace(root, classes.size());
    if (fresh) {
      classes.emplace_back().cap = 0;
      C.groups.emplace_back();
      for (std::size_t r = 0; r < m; ++r)
        if (find(r) == root) C.groups.back().push_back(r);
    }
    Block& c = classes[it->second];
    c.a_degrees.insert(c.a_degrees.end(), comps[b].a_degrees.begin(), comps[b].a_degrees.end());
    c.cap = std::min(c.cap + comps[b].cap, std::numeric_limits<std::size_t>::max() / 4);
    // A class's rank is the sum of its components' (their A-degrees differ),
    // so their certified ranks so far are its floor: a class round that is
    // stopped keeps at least the probe's bound (issue 53 §5).
    c.floor += std::max(comps[b].rank, comps[b].floor);
  }
  for (auto& c : classes) std::sort(c.a_degrees.begin(), c.a_degrees.end());
  return {C, std::move(classes)};
}

namespace {

// Seconds of the small-prime phase if every block reaches its cap: the
// passes (per pair, m or s of them) over the largest block's square at `ev`
// seconds per value, and the ranks at `rk` seconds per n^3.
double phase_cost(const std::vector<Block>& blocks, std::size_t passes, std::size_t cap, double ev, double rk) {
  double top = 0, cubes = 0;
  for (const auto& c : blocks) {
    const double n = static_cast<double>(std::min(c.cap, cap));
    top = std::max(top, n);
    cubes += n * n * n;
  }
  return static_cast<double>(passes) * top * top * ev + cubes * rk;
}

// The classes mod m (m | 120) the cost model prefers to the components for
// blocks that reach their caps, with the evaluation's measured speed
// (`ev`, seconds per value over the threads) and the ranks' (`rk`, per n^3);
// m = 0 when the components are cheapest.
std::size_t choose_classes(const Layout& L, const std::vector<Block>& comps, std::size_t cap, double ev, double rk) {
  double best = phase_cost(comps, L.as.size(), cap, ev, rk);
  std::size_t pick = 0;
  for (std::size_t m : {2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60, 120}) {
    if (m >= L.as.size()) break;
    const auto classes = classes_mod(L, comps, m).second;
    const double cost = phase_cost(classes, m, cap, ev, rk);
    if (classes.size() > 1 && cost < best) {
      best = cost;
      pick = m;
    }
  }
  return pick;
}

// The small prime's phase. A probe on the components up to 256 points
// first: a block closing below its cap there means the sum cannot reach the
// target, and the large prime follows (each block starting at its rank + 1).
// Otherwise the rest runs on the components, or on classes mod m where the
// cost model prefers them (the small prime is 1 mod 120). Returns true when
// this phase's bound is the result (certified, or stopped full rank).
bool small_prime_phase(MethodContext& ctx, const Layout& L, std::vector<Block>& blocks, std::size_t cap,
                       const BlackboxPrime& bp, std::uint64_t salt, double target, Outcome& out) {
  const std::size_t na = side_vars(ctx.P, true).size(), nb = side_vars(ctx.P, false).size();
  const ulong q = draw_small_prime(*ctx.model, bp.seed);
  if (q == 0) {
    out.small_note = "the small-prime phase was skipped: every prime = 1 mod 120 in [2^22, 2^23) divides a weight's "
                     "denominator";
    return false;
  }
  SplitMix64 g(bp.seed ^ salt ^ 0x5ea11b1eULL);
  const auto eval = make_batch_eval(ctx.weights_for(q), ctx.e, ctx.P, q);
  out.small = q;
  out.ring = eval->ring();
  auto t = set_weights(L, blocks, q, g);
  if (!t) return false;
  Points pts;
  Goal goal{.target = static_cast<std::size_t>(target), .budget = ctx.o.budget};
  goal.on_round = tell_provisional(ctx, out, q, !L.as.empty());
  out.rounds = double_points({*eval, *t, q, g, na, nb}, blocks, {std::min<std::size_t>(cap, 256), ctx.o, ctx.run, goal}, pts);
  const auto open = [](const std::vector<Block>& bs) {
    return std::any_of(bs.begin(), bs.end(), [](const Block& c) { return !c.done && !c.exact; });
  };
  std::vector<Block>* run_on = &blocks;
  if (!out.rounds.gave_up && open(blocks) && cap > 256) {
    std::size_t mm = 0;
    Goal rest = goal;
    rest.budget -= out.rounds.spent;
    if (potential(blocks, cap) >= target) {  // every block still full rank: straight to the caps, if it fits
      // (Its points from g where the classes follow, as before; else from a copy, so the points stay.)
      SplitMix64 copy = g;
      // (Nominal costs: the fixed rates, the same choice on every machine; the
      // points are drawn as the measurement draws them, so they stay the same.)
      const auto [ev, rk] = measure_rates(*eval, na, nb, q, L.as.size() > 2 ? g : copy, ctx.run.threads, ctx.run.nominal);
      if (L.as.size() > 2) mm = choose_classes(L, blocks, cap, ev, rk);
      rest.straight_ev = ev, rest.straight_rk = rk;
    }
    const double spent = out.rounds.spent;
    if (mm) {  // the classes start afresh, at new points
      auto [C, classes] = classes_mod(L, blocks, mm);
      out.first = std::move(classes);
      out.classes_mod = mm;
      run_on = &out.first;
      t = set_weights(C, out.first, q, g);
      Points fresh;
      if (t) out.rounds = double_points({*eval, *t, q, g, na, nb}, out.first, {cap, ctx.o, ctx.run, rest}, fresh);
    } else {  // the components go on from where the probe left them, at the same points
      out.rounds = double_points({*eval, *t, q, g, na, nb}, blocks, {cap, ctx.o, ctx.run, rest}, pts);
    }
    out.rounds.spent += spent;
  }
  for (const auto& c : *run_on) out.small_rank += c.rank;
  if (static_cast<double>(out.small_rank) >= target) return out.certified_small = true;
  // Stopped by the budget, memory or --max-points with blocks still full
  // rank: the big prime would stop there too, later; this bound is the result.
  if (open(*run_on) && !out.rounds.gave_up) return out.small_final = true;
  // The components go to the big prime from where the probe (or the rest of
  // this phase on them) left them; after a run on classes, the components'
  // matrices still hold the probe's values mod q, dropped here too.
  hand_over(blocks);
  return false;
}

// Two phases (docs/math.md §2.4). First, unless --prime fixed the prime, no
// certified upper bound is known, or the caps cannot reach it, a small random prime
// q (below 2^23, where FFLAS-FFPACK eliminates): its ranks are certified
// lower bounds, and a block whose rank reaches its cap is known exactly, so
// if the sum meets the upper bound, sep is exact and the big prime is not
// needed. The phase gives up as soon as that can no longer happen. Then the
// big prime bp.p, whose closed blocks carry the probability statement; each
// block starts where the small prime left it (rank + 1 points if it closed).
std::optional<Outcome> blackbox_rounds(MethodContext& ctx, const Layout& L, std::vector<Block>& blocks,
                                       std::size_t cap, const BlackboxPrime& bp, std::uint64_t salt) {
  const std::size_t na = side_vars(ctx.P, true).size(), nb = side_vars(ctx.P, false).size();
  Outcome out;
  // The target is the best certified upper bound another method reported:
  // meeting it makes the bracket exact (the blocks' caps alone are not
  // reported as an upper bound).
  const auto upper = ctx.best_upper();
  const double target = upper ? static_cast<double>(*upper) : 0;
  if (upper && !bp.fixed && ctx.o.small_prime_first &&
      small_prime_phase(ctx, L, blocks, cap, bp, salt, target, out))
    return out;
  if (ctx.small_prime_only) return out;  // the scheduler keeps it only if it met the upper bound
  SplitMix64 g(bp.seed ^ salt);
  const auto t = set_weights(L, blocks, bp.p, g);
  if (!t) return std::nullopt;  // a tiny --prime: the caller falls back to the whole matrix
  const auto eval = make_batch_eval(ctx.weights_for(bp.p), ctx.e, ctx.P, bp.p);
  const double spent = out.rounds.spent;
  Points pts;
  Goal goal{.target = 0, .budget = ctx.o.budget - spent, .growth = 1.5};
  goal.on_round = tell_provisional(ctx, out, bp.p, !L.as.empty());
  out.rounds = double_points({*eval, *t, bp.p, g, na, nb}, blocks, {cap, ctx.o, ctx.run, goal}, pts);
  out.rounds.spent += spent;
  out.ring = eval->ring();
  return out;
}

// Bounds on the span of the rows of each A-degree and of the columns of each
// B-degree that other methods published (`degree_weights`, e.g. gram's): the
// smallest per degree.
struct DegreeBounds {
  std::map<std::size_t, Fmpz> A, B;
};
DegreeBounds published_degree_bounds(const MethodContext& ctx) {
  DegreeBounds db;
  for (const auto& run : ctx.res.runs) {
    if (!run.value || !run.details.contains("degree_weights")) continue;
    const json& w = run.details["degree_weights"];
    for (const char* side : {"A", "B"}) {
      auto& into = side[0] == 'A' ? db.A : db.B;
      for (const auto& [deg, val] : w[side].items()) {
        Fmpz x;
        if (!x.set_str(val.get<std::string>())) continue;
        const std::size_t k = std::stoul(deg);
        if (auto it = into.find(k); it == into.end() || fmpz_cmp(x.get(), it->second.get()) < 0) into[k] = x;
      }
    }
  }
  return db;
}

// The blocks along the connected components of the bidegree graph
// (support.hpp): a nonzero entry (alpha, beta) joins the A-degree |alpha| to
// the B-degree |beta|, so rows of A-degrees in one component meet only
// columns of B-degrees in the same one, and rank C = sum over components c of
// rank C_c. y(t a, b) = sum_a t^a y_a(a, b): evaluating at s values t_l
// (s = number of A-degrees) and applying the inverse of V[l][a] = t_l^a mod p
// gives every y_a(a_i, b_j) mod p, hence y_c = sum_{a in c} y_a, and
// E_c = V_A C_c V_B^T, so rank_p E_c <= rank C_c: the sum of the blocks'
// ranks is a certified lower bound, each needing only (its rank + 1) points
// per side. A block's cap: rank C_c is at most the minimum weighted vertex
// cover of its bidegrees (support.hpp), each degree weighted by a bound on
// its rows' (columns') span: its monomials, or what another method published.
// Empty when there is a single block (the whole matrix needs s times fewer
// passes).
std::optional<BlockLayout> components(MethodContext& ctx) {
  const Bidegrees* bdp = ctx.bidegrees->get();
  if (!bdp || bdp->empty()) return std::nullopt;
  const Bidegrees& bd = *bdp;
  std::vector<std::size_t> as, bs;
  for (const auto& [a, b] : bd) {
    as.push_back(a);
    bs.push_back(b);
  }
  std::sort(as.begin(), as.end());
  as.erase(std::unique(as.begin(), as.end()), as.end());
  std::sort(bs.begin(), bs.end());
  bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
  const std::size_t s = as.size();
  std::vector<std::size_t> parent(s + bs.size());  // union-find over A- and B-degrees
  for (std::size_t k = 0; k < parent.size(); ++k) parent[k] = k;
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto ia = [&](std::size_t a) { return static_cast<std::size_t>(std::lower_bound(as.begin(), as.end(), a) - as.begin()); };
  auto ib = [&](std::size_t b) { return static_cast<std::size_t>(std::lower_bound(bs.begin(), bs.end(), b) - bs.begin()); };
  for (const auto& [a, b] : bd) parent[find(ia(a))] = find(s + ib(b));
  std::map<std::size_t, std::vector<std::size_t>> groups;  // root -> A-degree indices
  for (std::size_t k = 0; k < s; ++k) groups[find(k)].push_back(k);
  if (groups.size() < 2) return std::nullopt;
  // A block's cap: the minimum weighted vertex cover of its bidegrees, each
  // degree weighted by the monomials of that degree on its side, or by a
  // smaller bound on its rows' (columns') span another method published.
  const std::size_t na = side_vars(ctx.P, true).size(), nb = side_vars(ctx.P, false).size();
  const DegreeBounds db = published_degree_bounds(ctx);
  auto weight = [](const std::map<std::size_t, Fmpz>& pub, std::size_t n) {
    return [&pub, n](std::size_t deg) {
      Fmpz c;
      if (n == 0) fmpz_set_ui(c.get(), deg == 0 ? 1 : 0);
      else fmpz_bin_uiui(c.get(), deg + n - 1, n - 1);
      if (auto it = pub.find(deg); it != pub.end() && fmpz_cmp(it->second.get(), c.get()) < 0) c = it->second;
      return c;
    };
  };
  std::map<std::size_t, Bidegrees> edges;  // root -> its bidegrees
  for (const auto& [a, b] : bd) edges[find(ia(a))].emplace_back(a, b);
  BlockLayout bl;
  bl.L.as = as;
  const auto wa = weight(db.A, na), wb = weight(db.B, nb);
  for (const auto& [root, idx] : groups) {
    Block c;
    for (std::size_t k : idx) c.a_degrees.push_back(as[k]);
    const Fmpz bound = support_bound(edges[root], wa, wb).value;
    c.cap = fmpz_cmp_ui(bound.get(), static_cast<ulong>(1e15)) < 0 ? static_cast<std::size_t>(fmpz_get_ui(bound.get()))
                                                                  : std::numeric_limits<std::size_t>::max() / 4;
    std::vector<std::size_t> bdeg;
    double rows = 0, cols = 0;
    for (const auto& [a, b] : edges[root]) bdeg.push_back(b);
    std::sort(bdeg.begin(), bdeg.end());
    bdeg.erase(std::unique(bdeg.begin(), bdeg.end()), bdeg.end());
    for (std::size_t a : c.a_degrees) rows += fmpz_get_d(wa(a).get());
    for (std::size_t b : bdeg) cols += fmpz_get_d(wb(b).get());
    bl.L.groups.push_back(idx);
    bl.blocks.push_back(std::move(c));
    bl.b_degrees.push_back(std::move(bdeg));
    bl.rows.push_back(rows);
    bl.cols.push_back(cols);
  }
  return bl;
}

// The split run: the blocks of `components` through the two phases.
std::optional<MethodRun> run_split(MethodContext& ctx, std::size_t cap, const BlackboxPrime& bp, double height) {
  auto bl = components(ctx);
  if (!bl) return std::nullopt;
  std::size_t degree = 0;
  for (const auto& [a, b] : *ctx.bidegrees->get()) degree = std::max(degree, a + b);
  std::vector<Block>& blocks = bl->blocks;
  const auto o = blackbox_rounds(ctx, bl->L, blocks, cap, bp, 0x5b11ab0c5ULL);
  if (!o) return std::nullopt;
  return with_witness(ctx, report(blocks, *o, bp, height, ctx.generic ? ctx.eps_degree() : static_cast<double>(degree), true),
                      blocks, *o, bp);
}

// rank(E) <= number of monomials on either side of degree <= D, and <= a
// certified upper bound another method reported.
double monomial_cap(const MethodContext& ctx) {
  auto monomials = [&](std::size_t nv) {
    double l = log_monomial_count(static_cast<double>(nv) + 1, ctx.degree);  // degree <= D: one more variable
    return l > 40 ? 1e18 : std::round(std::exp(l));  // an integer count
  };
  double cap_mono = std::min(monomials(side_vars(ctx.P, true).size()), monomials(side_vars(ctx.P, false).size()));
  if (auto upper = ctx.best_upper()) cap_mono = std::min(cap_mono, static_cast<double>(*upper));
  return cap_mono;
}

}  // namespace

// The prime is the analysis's (drawn once), the height bound the entry's.
// --plan and --blocks are blackbox/shards.cpp's.
MethodRun run_blackbox(MethodContext& ctx) {
  if (ctx.o.plan) return run_plan(ctx);
  if (ctx.o.share_count) return run_shard(ctx);
  const BlackboxPrime& bp = ctx.blackbox_prime();
  const double height = ctx.blackbox_height();
  const double cap_mono = monomial_cap(ctx);
  // More points than a certified upper bound + 1 cannot raise the rank.
  const std::size_t cap =
      static_cast<std::size_t>(std::min<double>(static_cast<double>(ctx.o.max_points), cap_mono + 1));
  if (ctx.o.blackbox_split)
    if (auto split = run_split(ctx, std::min<std::size_t>(ctx.o.max_points, cap), bp, height)) return *split;
  // If sep > rank, an (rank+1)-minor of E is a nonzero polynomial of degree
  // <= 2 (rank+1) D in the random points, unless p divides the integral
  // minor (blackbox_block_eps). D is the true degree bound (a double, never
  // clamped); eps >= 1 promises nothing, and the rank is then only a
  // certified lower bound.
  std::vector<Block> whole(1);
  whole[0].cap = cap_mono < 1e15 ? static_cast<std::size_t>(cap_mono) : std::numeric_limits<std::size_t>::max() / 4;
  const auto o = blackbox_rounds(ctx, Layout{}, whole, cap, bp, 0xb1acb0c5ULL);
  // the whole matrix always has its weights
  return with_witness(ctx, report(whole, *o, bp, height, ctx.eps_degree(), false), whole, *o, bp);
}

BlockLayout block_layout(MethodContext& ctx) {
  if (ctx.o.blackbox_split)
    if (auto bl = components(ctx)) return std::move(*bl);
  BlockLayout bl;
  const double cap_mono = monomial_cap(ctx);
  bl.blocks.resize(1);
  bl.blocks[0].cap = cap_mono < 1e15 ? static_cast<std::size_t>(cap_mono) : std::numeric_limits<std::size_t>::max() / 4;
  bl.b_degrees.emplace_back();
  bl.rows.push_back(cap_mono);
  bl.cols.push_back(cap_mono);
  return bl;
}
}  // namespace netpoly::methods
