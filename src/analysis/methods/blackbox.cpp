// blackbox: rank mod p of [y(a_i, b_j)] at random points, no expansion
// (docs/math.md §2.4): a certified lower bound, equal to sep with probability
// >= 1 - eps over the black-box seed (blackbox_prime.hpp). Where the bidegree
// graph splits the coefficient matrix into blocks, each block is seen on its
// own (fewer points per block). One doubling driver serves both.
#include <cmath>
#include <map>
#include <memory>

#include "method.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/forward.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/random.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

using json = nlohmann::json;

// Batched forward passes mod p of one output entry: the side-A inputs fixed
// at one point, the side-B inputs at n points. Over BatchF64Ring when the
// prime and the CPU allow it, else over BatchModpRing; both give the same
// residues.
class BatchEval {
 public:
  virtual ~BatchEval() = default;
  // y(a, b_j) mod p for j in [j0, k), with a = (a_q) on the variables va and b_j = B[j] on vb.
  virtual std::vector<ulong> row(const std::vector<ulong>& a, const std::vector<std::vector<ulong>>& B, std::size_t j0,
                                 std::size_t k) const = 0;
  virtual std::string ring() const = 0;
};

// The weights mod p as a batch ring's scalars; Gaussian weights a + bi as
// a + ι b with ι^2 = -1 mod p (p = 1 mod 4: blackbox_prime.hpp).
template <class BR>
Network<typename BR::Scalar> batch_weights(const Model& m, ulong p) {
  if (!m.gaussian()) return prepare(BR(p, 1), m);
  return prepare(ModpRing::gaussian(p), m).map_weights([](ulong s) { return static_cast<typename BR::Scalar>(s); });
}

template <class BR>
class BatchEvalIn final : public BatchEval {
 public:
  BatchEvalIn(const Model& m, ulong p, std::vector<std::size_t> va, std::vector<std::size_t> vb, Need need,
              std::size_t out)
      : p_(p), net_(batch_weights<BR>(m, p)), nin_(m.num_inputs()), va_(std::move(va)), vb_(std::move(vb)),
        need_(std::move(need)), out_(out) {}
  std::vector<ulong> row(const std::vector<ulong>& a, const std::vector<std::vector<ulong>>& B, std::size_t j0,
                         std::size_t k) const override {
    const std::size_t n = k - j0;
    const BR R(p_, n);
    std::vector<typename BR::Elem> X(nin_);
    for (std::size_t q = 0; q < va_.size(); ++q) X[va_[q]] = R.constant(a[q]);
    for (std::size_t q = 0; q < vb_.size(); ++q) {
      X[vb_[q]].resize(n);
      for (std::size_t j = j0; j < k; ++j) X[vb_[q]][j - j0] = static_cast<typename BR::Elem::value_type>(B[j][q]);
    }
    auto y = forward(R, net_, std::move(X), need_);
    std::vector<ulong> r(n);
    for (std::size_t j = 0; j < n; ++j) r[j] = static_cast<ulong>(y[out_][j]);
    return r;
  }
  std::string ring() const override { return std::is_same_v<BR, BatchF64Ring> ? "f64-avx2" : "nmod"; }

 private:
  ulong p_;
  Network<typename BR::Scalar> net_;
  std::size_t nin_;
  std::vector<std::size_t> va_, vb_;
  Need need_;
  std::size_t out_;
};

std::unique_ptr<BatchEval> make_batch_eval(const Model& m, const Entry& e, const Partition& P, ulong p) {
  auto va = side_vars(P, true), vb = side_vars(P, false);
  const std::size_t out = e.token * m.output_width() + e.channel;
  if (p >= 3 && p < BatchF64Ring::kMaxPrime && BatchF64Ring::supported())
    return std::make_unique<BatchEvalIn<BatchF64Ring>>(m, p, std::move(va), std::move(vb), single_need(m, e), out);
  return std::make_unique<BatchEvalIn<BatchModpRing>>(m, p, std::move(va), std::move(vb), single_need(m, e), out);
}

// Random points mod p, one per side, until there are k of each.
void draw_points(std::vector<std::vector<ulong>>& A, std::vector<std::vector<ulong>>& B, std::size_t k,
                 std::size_t na, std::size_t nb, SplitMix64& g, ulong p) {
  while (A.size() < k) {
    std::vector<ulong> a(na), b(nb);
    for (auto& x : a) x = g.below(p);
    for (auto& x : b) x = g.below(p);
    A.push_back(std::move(a));
    B.push_back(std::move(b));
  }
}

// One block of the coefficient matrix as the black-box sees it: the values
// sum_l W[l] y(t_l a_i, b_j) (W = {1}, t = {1} for the whole matrix).
struct Block {
  std::vector<std::size_t> a_degrees;
  std::vector<ulong> weights;
  std::unique_ptr<NmodMat> E;
  std::size_t rank = 0, points = 0;
  bool done = false;
};

struct Rounds {
  std::size_t k = 0;      // points per side of the last round
  std::string stop_note;  // why the doubling stopped before the blocks closed, if it did
};

// The doubling driver: k = 8, 16, ... points per side until every block's
// rank is below k (closed), k reaches `cap`, or the next round would pass
// --budget or --max-memory. Each round keeps the previous values and
// evaluates only the new rows and columns. `split` picks the cost model of
// the next round (per-block ranks, or one matrix at a measured rate).
Rounds double_points(const BatchEval& eval, std::vector<Block>& blocks, const std::vector<ulong>& t, ulong p,
                     SplitMix64& g, std::size_t na, std::size_t nb, std::size_t cap, const SepOptions& o,
                     const AnalysisContext& run, bool split) {
  nmod_t mod;
  nmod_init(&mod, p);
  const std::size_t s = t.size();
  std::vector<std::vector<ulong>> A, B;
  Rounds out;
  std::size_t k = std::min<std::size_t>(8, cap), k0 = 0;
  double spent = 0;
  while (true) {
    run.check_cancelled();
    draw_points(A, B, k, na, nb, g, p);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Block*> open;
    for (auto& c : blocks)
      if (!c.done) {
        auto M = std::make_unique<NmodMat>(static_cast<slong>(k), static_cast<slong>(k), p);
        for (std::size_t i = 0; i < k0; ++i)
          for (std::size_t j = 0; j < k0; ++j)
            M->at(static_cast<slong>(i), static_cast<slong>(j)) = c.E->at(static_cast<slong>(i), static_cast<slong>(j));
        c.E = std::move(M);
        open.push_back(&c);
      }
    // Rows are independent: evaluated in parallel (each writes its own row),
    // each as batched forward passes over its missing points.
    parallel_for(k, [&](std::size_t i) {
      const std::size_t j0 = i < k0 ? k0 : 0;
      std::vector<std::vector<ulong>> ys(s);
      std::vector<ulong> ta(na);
      for (std::size_t l = 0; l < s; ++l) {
        for (std::size_t q = 0; q < na; ++q) ta[q] = nmod_mul(t[l], A[i][q], mod);
        ys[l] = eval.row(ta, B, j0, k);
      }
      for (Block* c : open)
        for (std::size_t j = j0; j < k; ++j) {
          ulong v = 0;
          for (std::size_t l = 0; l < s; ++l) v = nmod_addmul(v, c->weights[l], ys[l][j - j0], mod);
          c->E->at(static_cast<slong>(i), static_cast<slong>(j)) = v;
        }
    });
    const double eval_secs = seconds_since(t0);
    // The open blocks' dense ranks are independent: side by side on the
    // threads (one block: one elimination).
    parallel_for(open.size(), [&](std::size_t b) { open[b]->rank = rank_dense_modp(*open[b]->E); });
    std::size_t still_open = 0, rank_so_far = 0;
    for (Block* c : open) {
      c->points = k;
      if (c->rank < k) {
        c->done = true;
        c->E.reset();
      }
      still_open += !c->done;
    }
    for (const auto& c : blocks) rank_so_far += c.rank;
    const double secs = seconds_since(t0), rank_secs = secs - eval_secs;
    spent += secs;
    out.k = k;
    run.progress("blackbox: " + std::to_string(k) + " points per side, rank >= " + std::to_string(rank_so_far) + ", " +
                 std::to_string(still_open) + " of " + std::to_string(blocks.size()) + " block(s) still full rank, " +
                 fmt_g(spent) + " s");
    if (still_open == 0 || k >= cap) break;
    const std::size_t next = std::min(2 * k, cap);
    const double kk = static_cast<double>(k * k - k0 * k0), nn = static_cast<double>(next * next - k * k);
    double est, bytes;
    const double next2 = static_cast<double>(next) * static_cast<double>(next);
    if (split) {
      // The evaluations grow with the new matrix entries, the dense ranks (of
      // the blocks still open, all k x k now) with the cube of k; memory: a
      // next x next residue matrix per open block and the rank's copy.
      const double grow = static_cast<double>(next) / static_cast<double>(k);
      est = eval_secs * nn / kk +
            rank_secs * static_cast<double>(still_open) / static_cast<double>(open.size()) * grow * grow * grow;
      bytes = (static_cast<double>(still_open) + 1) * next2 * sizeof(ulong);
    } else {
      // Evaluations at the measured rate and the dense rank; memory: the new
      // matrix, the old one while it is copied over, and the rank's copy.
      est = secs / kk * nn + 1e-9 * std::pow(static_cast<double>(next), 3) / std::max(1u, run.threads);
      bytes = 2.25 * next2 * sizeof(ulong);
    }
    if (spent + est > std::min(o.budget, run.budget_left() + spent)) {
      out.stop_note = "stopped at " + std::to_string(k) + " points: the next round (" + std::to_string(next) +
                      ") is estimated at " + fmt_g(est) + " s, beyond --budget " + fmt_g(o.budget) + " s";
      break;
    }
    if (round_over_memory(run, bytes, k, next, out.stop_note)) break;
    k0 = k;
    k = next;
  }
  return out;
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
// per side. Empty when there is a single block (the whole matrix needs s
// times fewer passes) or the bidegrees are too costly.
std::optional<MethodRun> run_split(MethodContext& ctx, std::size_t cap, const BlackboxPrime& bp, double height) {
  const Model& m = *ctx.model;
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
  for (const auto& [a, b] : bd)
    parent[find(ia(a))] = find(s + static_cast<std::size_t>(std::lower_bound(bs.begin(), bs.end(), b) - bs.begin()));
  std::map<std::size_t, std::vector<std::size_t>> groups;  // root -> A-degree indices
  for (std::size_t k = 0; k < s; ++k) groups[find(k)].push_back(k);
  if (groups.size() < 2) return std::nullopt;
  std::size_t degree = 0;
  for (const auto& [a, b] : bd) degree = std::max(degree, a + b);

  const ulong p = bp.p;
  nmod_t mod;
  nmod_init(&mod, p);
  SplitMix64 g(bp.seed ^ 0x5b11ab0c5ULL);
  // Distinct nonzero t_l with V invertible mod p (true for almost all draws).
  NmodMat Vinv(static_cast<slong>(s), static_cast<slong>(s), p);
  std::vector<ulong> t(s);
  for (int attempt = 0;; ++attempt) {
    if (attempt == 20) return std::nullopt;
    for (auto& x : t) x = 1 + g.below(p - 1);
    NmodMat V(static_cast<slong>(s), static_cast<slong>(s), p);
    for (std::size_t l = 0; l < s; ++l)
      for (std::size_t k = 0; k < s; ++k) V.at(static_cast<slong>(l), static_cast<slong>(k)) = nmod_pow_ui(t[l], as[k], mod);
    if (nmod_mat_inv(Vinv.get(), V.get())) break;
  }
  std::vector<Block> blocks;
  for (const auto& [root, idx] : groups) {
    Block c;
    c.weights.assign(s, 0);
    for (std::size_t k : idx) {
      c.a_degrees.push_back(as[k]);
      for (std::size_t l = 0; l < s; ++l)
        c.weights[l] = nmod_add(c.weights[l], Vinv.at(static_cast<slong>(k), static_cast<slong>(l)), mod);
    }
    blocks.push_back(std::move(c));
  }
  const auto eval = make_batch_eval(m, ctx.e, ctx.P, p);
  const Rounds rounds = double_points(*eval, blocks, t, p, g, side_vars(ctx.P, true).size(),
                                      side_vars(ctx.P, false).size(), cap, ctx.o, ctx.run, true);
  std::size_t rank = 0;
  bool saturated = false;
  double eps = 0;
  json parts = json::array();
  for (const auto& c : blocks) {
    rank += c.rank;
    const bool sat = c.rank == c.points;
    saturated = saturated || sat;
    // Per block (values of degree <= D in the points), union bound over blocks.
    eps += blackbox_block_eps(c.rank, static_cast<double>(degree), height, bp);
    parts.push_back({{"A_degrees", c.a_degrees}, {"rank", c.rank}, {"points", c.points}, {"saturated", sat}});
  }
  MethodRun r;
  r.method = Method::blackbox;
  r.kind = RunKind::lower;
  r.value = rank;
  r.how = "certified lower bound (sum of per-block ranks mod " + blackbox_prime_text(bp) + ")";
  r.details = {{"points", rounds.k},     {"degree_bound", degree},
               {"saturated", saturated}, {"blocks", parts.size()}, {"split", "A-degree components"},
               {"block_ranks", parts},   {"arithmetic", eval->ring()}};
  blackbox_prime_details(r.details, bp, height);
  if (saturated)
    r.note = (rounds.stop_note.empty() ? "" : rounds.stop_note + "; ") + "some block was full rank at " +
             std::to_string(rounds.k) + " points: sep may be larger (raise --max-points)";
  else
    state_blackbox_probability(r, eps, static_cast<double>(degree), bp);
  return r;
}

// The prime is the analysis's (drawn once), the height bound the entry's.
MethodRun run(MethodContext& ctx) {
  const Model& m = *ctx.model;
  const BlackboxPrime& bp = ctx.blackbox_prime();
  const double height = ctx.blackbox_height();
  const double degree = ctx.degree;
  const auto va = side_vars(ctx.P, true), vb = side_vars(ctx.P, false);
  // rank(E) <= number of monomials on either side of degree <= D.
  auto monomials = [&](std::size_t nv) {
    double l = log_monomial_count(static_cast<double>(nv) + 1, degree);  // degree <= D: one more variable
    return l > 40 ? 1e18 : std::round(std::exp(l));  // an integer count
  };
  double cap_mono = std::min(monomials(va.size()), monomials(vb.size()));
  // More points than a certified upper bound + 1 cannot raise the rank.
  if (auto upper = ctx.best_upper()) cap_mono = std::min(cap_mono, static_cast<double>(*upper));
  const std::size_t cap =
      static_cast<std::size_t>(std::min<double>(static_cast<double>(ctx.o.max_points), cap_mono + 1));
  if (ctx.o.blackbox_split)
    if (auto split = run_split(ctx, std::min<std::size_t>(ctx.o.max_points, cap), bp, height)) return *split;
  SplitMix64 g(bp.seed ^ 0xb1acb0c5ULL);
  const auto eval = make_batch_eval(m, ctx.e, ctx.P, bp.p);  // weights mod p (the same for every batch size)
  std::vector<Block> whole(1);
  whole[0].weights = {1};
  const Rounds rounds = double_points(*eval, whole, {1}, bp.p, g, va.size(), vb.size(), cap, ctx.o, ctx.run, false);
  const std::size_t rank = whole[0].rank, k = rounds.k;
  MethodRun r;
  r.method = Method::blackbox;
  r.kind = RunKind::lower;
  r.value = rank;
  r.how = "certified lower bound (rank mod " + blackbox_prime_text(bp) + ")";
  const bool saturated = rank == k;
  // If sep > rank, an (rank+1)-minor of E is a nonzero polynomial of degree
  // <= 2 (rank+1) D in the random points, unless p divides the integral
  // minor (blackbox_block_eps). D is the true degree bound (a double, never
  // clamped); eps >= 1 promises nothing, and the rank is then only a
  // certified lower bound.
  const double eps = blackbox_block_eps(rank, degree, height, bp);
  r.details = {{"points", k}, {"saturated", saturated}, {"arithmetic", eval->ring()}};
  blackbox_prime_details(r.details, bp, height);
  if (degree < 0x1p53) r.details["degree_bound"] = static_cast<std::uint64_t>(degree);
  else r.details["degree_bound"] = degree;
  if (saturated)
    r.note = rounds.stop_note.empty()
                 ? "matrix of " + std::to_string(k) + " points was full rank: sep may be larger (raise --max-points)"
                 : rounds.stop_note + "; the matrix was full rank, so sep may be larger";
  else
    state_blackbox_probability(r, eps, degree, bp);
  return r;
}

const MethodInfo info{
    .id = Method::blackbox,
    .order = 3,
    .kind = RunKind::lower,
    .summary = "rank mod a random prime of [y(a_i, b_j)] at random points, no expansion; "
               "equal to sep with probability >= 1 - eps",
    .plan = {.expandable = 4, .unexpandable = 1, .polynomial = -1},
    .run = run,
};
const RegisterMethod registered(info);

}  // namespace
}  // namespace netpoly::methods
