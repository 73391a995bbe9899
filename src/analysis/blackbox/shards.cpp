// --plan and --blocks of the black-box (blackbox/shards.hpp): its blocks
// before any evaluation, and one share of them mod the small prime.
#include "analysis/blackbox/shards.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>

#include "analysis/rank/fflas.hpp"
#include "analysis/nominal.hpp"
#include "netpoly/error.hpp"

namespace netpoly::methods {
namespace {

using json = nlohmann::json;

// The points per side a block's rounds end at: its cap, or --max-points.
std::size_t points_of(const Block& c, std::size_t max_points) { return std::min(c.cap, max_points); }

// Forward passes per pair of points: one per A-degree, or m for classes mod m.
std::size_t passes_of(const Layout& L) { return L.m ? L.m : std::max<std::size_t>(1, L.as.size()); }

// A block's work for the shares: its rank's n^3 and its passes n^2 values.
double work_of(const Block& c, std::size_t max_points, std::size_t passes) {
  const double n = static_cast<double>(points_of(c, max_points));
  return n * n * n + static_cast<double>(passes) * n * n;
}

// Nominal rates for choosing the classes (seconds per value, per n^3 of
// rank, one thread): fixed, so that every task chooses the same.
constexpr double kNominalValue = 5e-7, kNominalRank = 4.2e-11;

// The dearest share's seconds at the nominal rates: its passes over its
// largest unit's square, and its units' ranks. Linear in the units and n.
double dearest_share(const BlockLayout& bl, std::size_t max_points, std::size_t count) {
  const std::vector<std::size_t> owner = share_owners(bl, max_points, count);
  std::map<std::size_t, std::pair<double, double>> share;  // share -> (largest n, sum of n^3)
  for (std::size_t u = 0; u < owner.size(); ++u) {
    const double n = static_cast<double>(points_of(bl.blocks[u], max_points));
    auto& [top, cubes] = share[owner[u]];
    top = std::max(top, n);
    cubes += n * n * n;
  }
  double worst = 0;
  for (const auto& [k, tc] : share)
    worst = std::max(worst, static_cast<double>(passes_of(bl.L)) * tc.first * tc.first * kNominalValue +
                                tc.second * kNominalRank);
  return worst;
}

// Peak bytes of a block's rounds at n points: its matrix, the previous
// round's while copied (half the side), and the dense rank's copy.
double block_bytes(double n) { return 8 * (2 * n * n + n * n / 4); }

// Seconds of a block's rounds at the small prime: the values (s passes per
// pair, each evaluated once) and the ranks of the doubling rounds (about
// 8/7 of the last one's n^3).
double block_seconds(double n, std::size_t s, double ev, double rk) {
  return static_cast<double>(s) * n * n * ev + rk * n * n * n * 8 / 7;
}

// The best certified upper end so far and the method that gave it.
json upper_json(const MethodContext& ctx) {
  const auto upper = ctx.best_upper();
  if (!upper) return nullptr;
  for (const auto& run : ctx.res.runs)
    if ((run.kind == RunKind::upper || run.kind == RunKind::exact) && run.value == upper)
      return {{"value", *upper}, {"method", method_name(run.method)}};
  return {{"value", *upper}, {"method", "?"}};
}

// Every block's A-degrees and cap: shards agree on it or are of another analysis.
json layout_json(const BlockLayout& bl) {
  json j = json::array();
  for (const auto& c : bl.blocks) j.push_back({{"A_degrees", c.a_degrees}, {"cap", c.cap}});
  return j;
}

std::uint64_t seed_of(const MethodContext& ctx) {
  if (!ctx.o.blackbox_seed) throw InternalError("black-box: no seed was drawn for --plan/--blocks");
  return *ctx.o.blackbox_seed;
}

ulong small_prime_of(const MethodContext& ctx, const char* what) {
  const ulong q = draw_small_prime(*ctx.model, seed_of(ctx));
  if (!q)
    throw InputError(std::string(what) + ": every prime = 1 mod 120 in [2^22, 2^23) divides a weight's denominator: "
                                         "no small prime for the blocks");
  return q;
}

constexpr std::uint64_t kShardSalt = 0x5a4dc0deULL;

}  // namespace

std::pair<double, double> measure_rates(const BatchEval& eval, std::size_t na, std::size_t nb, ulong q, SplitMix64& g,
                                        unsigned threads, bool nominal) {
  std::vector<ulong> a(na, 1);
  std::vector<std::vector<ulong>> B(1024, std::vector<ulong>(nb));
  for (auto& b : B)
    for (auto& x : b) x = g.below(q);
  // The row alone: side B's own work is once per set of columns, not per value.
  Columns cols(B, nb);
  eval.prepare(cols);
  auto t0 = std::chrono::steady_clock::now();
  (void)eval.row(a, cols, 0, B.size());
  const double th = std::max(1u, threads);
  const double ev = seconds_since(t0) / 1024.0 / th;
  const double rk = fflas::available() ? (th > 1 ? 2.5e-11 : 4.2e-11) : 5.5e-11 / th;
  if (nominal) return {eval.nominal_value_seconds(), nominal::kRankN3};
  return {ev, rk};
}

namespace {

// The components' classes mod m as a layout, with each class's components.
ShareLayout classes_layout(const BlockLayout& comps, std::size_t m) {
  auto [C, classes] = classes_mod(comps.L, comps.blocks, m);
  ShareLayout sl;
  sl.m = m;
  sl.units.L = std::move(C);
  sl.units.blocks = std::move(classes);
  const std::size_t n = sl.units.blocks.size();
  sl.parts.resize(n);
  sl.units.b_degrees.resize(n);
  sl.units.rows.assign(n, 0);
  sl.units.cols.assign(n, 0);
  for (std::size_t b = 0; b < comps.blocks.size(); ++b)
    for (std::size_t u = 0; u < n; ++u) {
      const auto& ad = sl.units.blocks[u].a_degrees;
      if (std::find(ad.begin(), ad.end(), comps.blocks[b].a_degrees[0]) == ad.end()) continue;
      sl.parts[u].push_back(b);
      auto& bd = sl.units.b_degrees[u];
      bd.insert(bd.end(), comps.b_degrees[b].begin(), comps.b_degrees[b].end());
      std::sort(bd.begin(), bd.end());
      sl.units.rows[u] += comps.rows[b];
      sl.units.cols[u] += comps.cols[b];
    }
  return sl;
}

}  // namespace

ShareLayout share_layout(BlockLayout comps, std::size_t max_points, std::size_t count) {
  std::size_t pick = 0;
  if (comps.L.as.size() > 2) {
    double cost = dearest_share(comps, max_points, count);
    for (std::size_t m : {2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60, 120}) {
      if (m >= comps.L.as.size()) break;
      const ShareLayout sl = classes_layout(comps, m);
      if (sl.units.blocks.size() < 2) continue;
      const double c = dearest_share(sl.units, max_points, count);
      if (c < cost) {
        cost = c;
        pick = m;
      }
    }
  }
  if (pick) return classes_layout(comps, pick);
  ShareLayout sl;
  for (std::size_t b = 0; b < comps.blocks.size(); ++b) sl.parts.push_back({b});
  sl.units = std::move(comps);
  return sl;
}

std::vector<std::size_t> share_owners(const BlockLayout& bl, std::size_t max_points, std::size_t count) {
  if (count == 0) throw InternalError("share_owners: no share");
  const std::size_t s = passes_of(bl.L);
  std::vector<std::size_t> order(bl.blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return work_of(bl.blocks[x], max_points, s) > work_of(bl.blocks[y], max_points, s);
  });
  // A min-heap of (work so far, share): the least loaded share first, ties
  // to the lower index, as a scan for the first minimum would choose; only
  // the shares that have been given a unit, and the next fresh one, are in
  // it, so the cost is O(units log units), whatever n is.
  using Load = std::pair<double, std::size_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<>> heap;
  std::size_t fresh = 0;  // shares 0..fresh-1 are in the heap, once each
  std::vector<std::size_t> owner(bl.blocks.size(), 0);
  for (std::size_t b : order) {
    // A fresh share has load 0 and a higher index than every share in the
    // heap: it is chosen unless the heap's least load is 0 too.
    Load k{0, fresh};
    if (!heap.empty() && (heap.top().first <= 0 || fresh == count)) {
      k = heap.top();
      heap.pop();
    } else {
      ++fresh;
    }
    owner[b] = k.second;
    heap.push({k.first + work_of(bl.blocks[b], max_points, s), k.second});
  }
  return owner;
}

std::vector<std::size_t> share_blocks(const BlockLayout& bl, std::size_t max_points, std::size_t index,
                                      std::size_t count) {
  const std::vector<std::size_t> owner = share_owners(bl, max_points, count);
  std::vector<std::size_t> mine;
  for (std::size_t u = 0; u < owner.size(); ++u)
    if (owner[u] + 1 == index) mine.push_back(u);
  return mine;
}

// More shares than blocks would leave shares with nothing to compute (and
// forged counts would cost work): refused, naming the count that fits.
void check_share_count(const BlockLayout& comps, std::size_t count, std::size_t index) {
  if (count <= comps.blocks.size()) return;
  throw InputError("--blocks " + std::to_string(index) + "/" + std::to_string(count) + ": the black-box lays out " +
                   std::to_string(comps.blocks.size()) + " block(s) for this pair, so at most " +
                   std::to_string(comps.blocks.size()) + " shares have work: use --blocks I/" +
                   std::to_string(comps.blocks.size()) + " or fewer (seprank --plan lists the blocks)");
}

MethodRun run_plan(MethodContext& ctx) {
  const BlockLayout bl = block_layout(ctx);
  if (ctx.o.share_count) check_share_count(bl, ctx.o.share_count, ctx.o.share_index);
  const std::uint64_t seed = seed_of(ctx);
  const ulong q = small_prime_of(ctx, "--plan");
  const std::size_t s = passes_of(bl.L), mp = ctx.o.max_points, count = std::max<std::size_t>(1, ctx.o.share_count);
  const auto eval = make_batch_eval(ctx.weights_for(q), ctx.e, ctx.P, q);
  SplitMix64 g(seed ^ kShardSalt);
  // (Plain doubles, not a structured binding: the shares' lambda below reads them.)
  const auto rates = measure_rates(*eval, side_vars(ctx.P, true).size(), side_vars(ctx.P, false).size(), q, g,
                                   ctx.run.threads);
  const double ev = rates.first, rk = rates.second;
  // Each component as the analysis sees it (alone: s passes per pair).
  json blocks = json::array();
  double caps = 0, ranks = 0, top = 0;
  bool all_reach = true;
  for (std::size_t b = 0; b < bl.blocks.size(); ++b) {
    const Block& c = bl.blocks[b];
    const double n = static_cast<double>(points_of(c, mp));
    blocks.push_back({{"index", b}, {"A_degrees", c.a_degrees}, {"B_degrees", bl.b_degrees[b]}, {"rows", bl.rows[b]},
                      {"cols", bl.cols[b]}, {"cap", c.cap}, {"points", points_of(c, mp)}, {"reaches_cap", c.cap <= mp},
                      {"memory_bytes", block_bytes(n)}, {"seconds", block_seconds(n, s, ev, rk)}});
    caps += static_cast<double>(c.cap);
    ranks += rk * n * n * n * 8 / 7;
    top = std::max(top, n);
    all_reach = all_reach && c.cap <= mp;
  }
  // What the shares of `count` compute (units: the components or their
  // classes mod m), and each share's blocks, memory and time.
  const ShareLayout sl = share_layout(block_layout(ctx), mp, count);
  const std::size_t passes = passes_of(sl.units.L);
  json units = json::array(), shares = json::array();
  for (std::size_t u = 0; u < sl.units.blocks.size(); ++u) {
    const Block& c = sl.units.blocks[u];
    const double n = static_cast<double>(points_of(c, mp));
    units.push_back({{"index", u}, {"blocks", sl.parts[u]}, {"A_degrees", c.a_degrees}, {"cap", c.cap},
                     {"points", points_of(c, mp)}, {"memory_bytes", block_bytes(n)},
                     {"seconds", block_seconds(n, passes, ev, rk)}});
  }
  // Each share's units (one pass: linear in the units and n); a share given
  // no unit (more shares than units) has nothing to compute and is not listed.
  std::map<std::size_t, std::vector<std::size_t>> by_share;
  {
    const auto owner = share_owners(sl.units, mp, count);
    for (std::size_t u = 0; u < owner.size(); ++u) by_share[owner[u] + 1].push_back(u);
  }
  auto share_json = [&](std::size_t k, const std::vector<std::size_t>& mine) {
    double bytes = 0, sec = 0, tn = 0;
    for (std::size_t u : mine) {
      const double n = static_cast<double>(points_of(sl.units.blocks[u], mp));
      bytes += block_bytes(n);
      sec += rk * n * n * n * 8 / 7;
      tn = std::max(tn, n);
    }
    return json{{"index", k}, {"count", count}, {"units", mine}, {"memory_bytes", bytes},
                {"seconds", sec + static_cast<double>(passes) * tn * tn * ev}};
  };
  for (const auto& [k, mine] : by_share) shares.push_back(share_json(k, mine));
  json plan = {{"prime", q}, {"seed", seed}, {"upper", upper_json(ctx)}, {"max_points", mp},
               {"split", bl.L.as.empty() ? "whole matrix" : "A-degree components"}, {"passes_per_pair", s},
               {"seconds_per_value", ev}, {"rank_seconds_per_n3", rk}, {"threads", ctx.run.threads},
               {"ring", eval->ring()}, {"blocks", blocks}, {"sum_of_caps", caps},
               {"seconds", ranks + static_cast<double>(s) * top * top * ev},
               {"exact_if_every_block_reaches_its_cap", all_reach}, {"classes_mod", sl.m}, {"unit_passes_per_pair", passes},
               {"units", units}, {"shares", shares}, {"share_count", count},
               {"empty_shares", count - by_share.size()}};
  if (ctx.o.share_count) {
    const auto it = by_share.find(ctx.o.share_index);
    plan["share"] = share_json(ctx.o.share_index, it == by_share.end() ? std::vector<std::size_t>{} : it->second);
  }
  MethodRun r;
  r.method = Method::blackbox;
  r.kind = RunKind::lower;
  r.how = "plan only (--plan): " + std::to_string(bl.blocks.size()) + " block(s), nothing computed";
  r.note = "--plan: the blocks' sizes and estimates; no rank was computed";
  r.details = {{"plan", plan}, {"seed", seed}};
  return r;
}

MethodRun run_shard(MethodContext& ctx) {
  BlockLayout comps = block_layout(ctx);
  check_share_count(comps, ctx.o.share_count, ctx.o.share_index);
  ShareLayout sl = share_layout(std::move(comps), ctx.o.max_points, ctx.o.share_count);
  BlockLayout& bl = sl.units;
  const std::uint64_t seed = seed_of(ctx);
  const ulong q = small_prime_of(ctx, "--blocks");
  const std::size_t mp = ctx.o.max_points, na = side_vars(ctx.P, true).size(), nb = side_vars(ctx.P, false).size();
  const auto eval = make_batch_eval(ctx.weights_for(q), ctx.e, ctx.P, q);
  // The points and t come from the seed alone, never from the share: a
  // block's rank is the same in every split of the blocks into shares.
  SplitMix64 g(seed ^ kShardSalt);
  const auto t = set_weights(bl.L, bl.blocks, q, g);
  if (!t) throw InternalError("--blocks: no invertible Vandermonde matrix mod the small prime " + std::to_string(q));
  json layout = layout_json(bl);
  for (std::size_t u = 0; u < layout.size(); ++u) layout[u]["blocks"] = sl.parts[u];
  const json upper = upper_json(ctx);
  const auto mine = share_blocks(bl, mp, ctx.o.share_index, ctx.o.share_count);
  std::vector<Block> sub;
  for (std::size_t b : mine) sub.push_back(std::move(bl.blocks[b]));
  // The shard as it stands: after every round (running: a stop keeps it) and at the end.
  auto shard_run = [&](bool running, const std::string& note) {
    json blocks = json::array();
    std::size_t sum = 0, top = 0;
    for (std::size_t k = 0; k < sub.size(); ++k) {
      const Block& c = sub[k];
      const std::size_t rank = std::max(c.rank, c.floor);
      sum += rank;
      top = std::max(top, c.points);
      blocks.push_back({{"index", mine[k]}, {"A_degrees", c.a_degrees}, {"cap", c.cap}, {"points", c.points},
                        {"rank", rank}, {"reached_cap", c.exact},
                        {"state", c.exact ? "exact" : c.done ? "closed below its cap" : "open"}});
    }
    MethodRun r;
    r.method = Method::blackbox;
    r.kind = RunKind::lower;
    r.value = sum;
    r.how = "certified lower bound (sum of the ranks of share " + std::to_string(ctx.o.share_index) + "/" +
            std::to_string(ctx.o.share_count) + ": " + std::to_string(sub.size()) + " of " +
            std::to_string(layout.size()) + " blocks, mod " + small_prime_text(q, seed) + ")";
    r.note = note;
    r.details = {{"points", top}, {"prime", q}, {"seed", seed}, {"arithmetic", eval->ring()}};
    r.details["shard"] = {{"prime", q}, {"seed", seed}, {"max_points", mp}, {"upper", upper}, {"classes_mod", sl.m},
                          {"share", {{"index", ctx.o.share_index}, {"count", ctx.o.share_count}}},
                          {"layout", layout}, {"blocks", blocks}, {"running", running}, {"note", note}};
    if (running) r.details["unfinished"] = true;
    return r;
  };
  Goal goal;
  goal.budget = ctx.o.budget;
  goal.on_round = [&](std::size_t, std::size_t) {
    if (ctx.provisional) ctx.provisional(shard_run(true, "the rounds finished so far; the shard was still running"));
  };
  Points pts;
  const Rounds rounds = double_points({*eval, *t, q, g, na, nb}, sub, {mp, ctx.o, ctx.run, goal}, pts);
  return shard_run(false, rounds.stop_note);
}

}  // namespace netpoly::methods
