// The black-box's doubling driver (blackbox/rounds.hpp).
#include "analysis/blackbox/rounds.hpp"
#include "analysis/blackbox/tape.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <cmath>

#include "model/forward.hpp"
#include "netpoly/parallel.hpp"
#include "analysis/rank/fflas.hpp"
#include "analysis/nominal.hpp"
#include "analysis/rank/rank.hpp"
#include "domains/batch_rings.hpp"

namespace netpoly::methods {
namespace {

// The weights mod p as a batch ring's scalars; Gaussian weights a + bi as
// a + ι b with ι^2 = -1 mod p (p = 1 mod 4: blackbox/prime.hpp).
template <class BR>
Network<typename BR::Scalar> batch_weights(const Model& m, ulong p) {
  if (!m.gaussian()) return prepare(BR(p, 1), m);
  return prepare(ModpRing::gaussian(p), m).map_weights([](ulong s) { return static_cast<typename BR::Scalar>(s); });
}

template <class BR>
class BatchEvalIn final : public BatchEval {
 public:
  static constexpr std::size_t kChunk = 512;
  BatchEvalIn(const Model& m, ulong p, std::vector<std::size_t> va, std::vector<std::size_t> vb, Need need,
              std::size_t out)
      : p_(p), net_(batch_weights<BR>(m, p)), nin_(m.num_inputs()), va_(std::move(va)), vb_(std::move(vb)),
        need_(std::move(need)), out_(out) {}
  // In chunks of kChunk points: a forward pass's intermediate batches then
  // stay in the core's cache instead of streaming whole rows through memory.
  std::vector<ulong> row(const std::vector<ulong>& a, const Columns& B, std::size_t j0, std::size_t k) const override {
    std::vector<ulong> r(k - j0);
    for (std::size_t c0 = j0; c0 < k; c0 += kChunk) {
      const std::size_t c1 = std::min(k, c0 + kChunk), n = c1 - c0;
      const BR R(p_, n);
      std::vector<typename BR::Elem> X(nin_);
      for (std::size_t q = 0; q < va_.size(); ++q) X[va_[q]] = R.constant(a[q]);
      for (std::size_t q = 0; q < vb_.size(); ++q) {
        X[vb_[q]].resize(n);
        for (std::size_t j = c0; j < c1; ++j) X[vb_[q]][j - c0] = static_cast<typename BR::Elem::value_type>(B.input(q)[j]);
      }
      auto y = forward(R, net_, std::move(X), need_);
      for (std::size_t j = 0; j < n; ++j) r[c0 - j0 + j] = static_cast<ulong>(y[out_][j]);
    }
    return r;
  }
  std::string ring() const override { return "nmod"; }

 private:
  ulong p_;
  Network<typename BR::Scalar> net_;
  std::size_t nin_;
  std::vector<std::size_t> va_, vb_;
  Need need_;
  std::size_t out_;
};


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




// What a round's stages read: the evaluator with the round's columns (side
// B's K points, prepared once), the scaling t, the A-points and their count.
struct RoundInput {
  const BatchEval& eval;
  const Columns& cols;
  const std::vector<ulong>& t;
  const nmod_t& mod;
  const std::vector<std::vector<ulong>>& A;
  std::size_t na;
};

// One stage's evaluations: each row i in [r0, r1) as batched forward passes
// over the columns some open block still lacks in that row (each block keeps
// the top-left want x want square of the shared points; old[b]: the square
// it had from earlier rounds).
double evaluate_stage(const RoundInput& in, const std::vector<Block*>& open, const std::vector<std::size_t>& old,
                      std::size_t r0, std::size_t r1, const AnalysisContext& run) {
  const auto& [eval, cols, t, mod, A, na] = in;
  std::size_t K = 0;
  for (const Block* c : open) K = std::max(K, c->want);
  const std::size_t s = t.size();
  // A block's value sum_l W[l] y_l adds in 64 bits, reduced once, where the
  // s products of residues fit (the small prime); else term by term.
  const bool wide = static_cast<long double>(s) * static_cast<long double>(mod.n - 1) * static_cast<long double>(mod.n - 1) <
                    0x1p64L;
  std::atomic<std::size_t> pairs{0};
  // A round can take minutes: a cancellation (the caller's time spent) is
  // polled per row, the rows left are skipped and the round is dropped (the
  // blocks ranked in its earlier stages are kept by the caller).
  std::atomic<bool> cancelled{false};
  parallel_for(r1 - r0, [&](std::size_t di) {
    const std::size_t i = r0 + di;
    if (cancelled.load() || (run.cancelled && run.cancelled())) {
      cancelled = true;
      return;
    }
    std::size_t j0 = K, k = 0;
    for (std::size_t b = 0; b < open.size(); ++b)
      if (i < open[b]->want) {
        j0 = std::min(j0, i < old[b] ? old[b] : 0);
        k = std::max(k, open[b]->want);
      }
    if (j0 >= k) return;
    std::vector<std::vector<ulong>> ys(s);
    std::vector<ulong> ta(na);
    for (std::size_t l = 0; l < s; ++l) {
      for (std::size_t q = 0; q < na; ++q) ta[q] = nmod_mul(t[l], A[i][q], mod);
      ys[l] = eval.row(ta, cols, j0, k);
    }
    pairs += (k - j0) * s;
    for (std::size_t b = 0; b < open.size(); ++b) {
      Block* c = open[b];
      if (i >= c->want) continue;
      for (std::size_t j = i < old[b] ? old[b] : 0; j < c->want; ++j) {
        ulong v = 0;
        if (wide) {
          for (std::size_t l = 0; l < s; ++l) v += c->weights[l] * ys[l][j - j0];
          v %= mod.n;
        } else {
          for (std::size_t l = 0; l < s; ++l) v = nmod_addmul(v, c->weights[l], ys[l][j - j0], mod);
        }
        c->E->at(static_cast<slong>(i), static_cast<slong>(j)) = v;
      }
    }
  });
  if (cancelled.load()) run.check_cancelled();
  return static_cast<double>(pairs.load());
}

// The goal's straight round: every open block's want set to its cap (and
// `cap`) when that one round's estimate, with a margin, fits the budget and
// its matrices fit the memory bound; otherwise the wants stay (doubling).
void go_straight(std::vector<Block>& blocks, std::size_t passes, std::size_t cap, const SepOptions& o,
                 const AnalysisContext& run, const Goal& goal) {
  double kn = 0, cubes = 0, cells = 0, biggest = 0, open = 0;
  for (const auto& c : blocks)
    if (!c.done && !c.exact) {
      const double w = static_cast<double>(std::min(c.cap, cap));
      kn = std::max(kn, w);
      cubes += w * w * w;
      cells += w * w;
      biggest = std::max(biggest, w * w);
      ++open;
    }
  const double est = goal.straight_ev * static_cast<double>(passes) * kn * kn + goal.straight_rk * cubes;
  const double bytes = (cells + biggest * std::min<double>(open, run.threads)) * 8;
  std::string unused;
  // (With a margin: a round cut short by the budget is dropped whole,
  // where the doubling would have kept its earlier rounds.)
  if (open > 0 && 1.5 * est <= std::min({o.budget, goal.budget, run.budget_left()}) &&
      !round_over_memory(run, bytes, 0, static_cast<std::size_t>(kn), unused)) {
    for (auto& c : blocks)
      if (!c.done && !c.exact) c.want = std::min(c.cap, cap);
    run.progress("blackbox: every block to its cap, " + std::to_string(static_cast<std::size_t>(kn)) +
                 " points, in about " + fmt_g(est) + " s");
  }
}

// The open blocks' dense ranks side by side, the largest first (the threads
// take indices in order), one BLAS thread each; a block whose n^3 is at
// least the others' together first, alone, with every thread.
// Ranks the open blocks' matrices (the largest alone on every thread when it
// outweighs the rest, the others side by side); `set` stores each rank as it
// finishes (serialised by the caller), so that a round that is stopped keeps
// the blocks whose rank finished.
void rank_blocks(const std::vector<Block*>& open, unsigned threads, const std::function<void(Block*, std::size_t)>& set) {
  std::vector<Block*> by_size = open;
  std::stable_sort(by_size.begin(), by_size.end(), [](const Block* a, const Block* b) { return a->want > b->want; });
  double rest = 0;
  for (std::size_t b = 1; b < by_size.size(); ++b) rest += std::pow(static_cast<double>(by_size[b]->want), 3);
  std::size_t from = 0;
  if (!by_size.empty() && std::pow(static_cast<double>(by_size[0]->want), 3) >= rest) {
    set(by_size[0], rank_dense_modp(*by_size[0]->E, static_cast<int>(std::max(1u, threads))));
    from = 1;
  }
  parallel_for(by_size.size() - from,
               [&](std::size_t b) { set(by_size[from + b], rank_dense_modp(*by_size[from + b]->E, 1)); });
}

// The certified rank sum so far: every block's rank mod p at its points
// (this round's where it finished, the last round's or the floor
// elsewhere), or its checkpoint in this round where that is larger.
std::size_t rank_sum(const std::vector<Block>& blocks, const std::map<const Block*, std::size_t>& checkpoints) {
  std::size_t sum = 0;
  for (const auto& c : blocks) {
    const auto it = checkpoints.find(&c);
    sum += std::max({c.rank, c.floor, it == checkpoints.end() ? std::size_t{0} : it->second});
  }
  return sum;
}

// A block's state once its rank mod p at its `want` points is known: exact
// (rank = cap), closed (rank < points), or still full rank.
void set_ranked(Block& c, std::size_t rank, ulong p) {
  c.rank = rank;
  c.points = c.want;
  c.prime = p;
  c.exact = rank >= c.cap;
  c.done = !c.exact && rank < c.want;
}

// rank_blocks with each block's rank as it finishes, and the sum so far to
// the goal, so that Ctrl-C or a limit in this round keeps every finished
// block. A finished block's state is this round's at once (its points, prime,
// exact or closed), as the round's end sets it: what the goal reads of it
// mid-round (a shard's file) is consistent, its rank never above its points.
void rank_and_report(const std::vector<Block*>& open, const std::vector<Block>& blocks, unsigned threads,
                     const Goal& goal, std::size_t K, ulong p, const std::map<const Block*, std::size_t>& checkpoints) {
  std::mutex mu;
  rank_blocks(open, threads, [&](Block* b, std::size_t r) {
    std::lock_guard<std::mutex> lock(mu);
    set_ranked(*b, r, p);
    if (goal.on_round) goal.on_round(rank_sum(blocks, checkpoints), K);
  });
}

// A block of at least this many points that starts a round below half of
// them (the straight round) is ranked at a checkpoint too: its top-left
// square at half its points (in multiples of 64), a certified lower bound
// at about an eighth of its own rank's cost, so that a round stopped in its
// long last stage keeps more than the smaller blocks.
constexpr std::size_t kCheckpointFrom = 2048;

// A round in stages of rows: the rows below a stage's end are evaluated (each
// over every column it needs, as in one pass: no value is computed twice),
// then the blocks (and checkpoint squares) whose rows are all done are
// ranked and reported, smallest first. A round interrupted or stopped by a
// limit in a later stage keeps every block ranked before it (issue 53 §5).
// Stage ends are the checkpoints, and the blocks' sizes from 64 on that are
// at least twice the last end (so about log2 of the round's size stages at
// most, and no stage of a handful of rows that would leave a thread idle).
// Returns the values computed and the seconds spent evaluating them.
std::pair<double, double> evaluate_and_rank(const RoundInput& in, const std::vector<Block*>& open,
                                            const std::vector<std::size_t>& old, const std::vector<Block>& blocks,
                                            const AnalysisContext& run, const Goal& goal) {
  std::vector<std::size_t> sizes, checkpoint(open.size(), 0);
  std::size_t K = 0;
  for (std::size_t b = 0; b < open.size(); ++b) {
    const std::size_t w = open[b]->want, half = w / 2 / 64 * 64;
    sizes.push_back(w);
    K = std::max(K, w);
    if (w >= kCheckpointFrom && old[b] < half) sizes.push_back(checkpoint[b] = half);
  }
  std::sort(sizes.begin(), sizes.end());
  std::vector<std::size_t> ends;
  for (std::size_t w : sizes)
    if (w < K && (std::count(checkpoint.begin(), checkpoint.end(), w) ||
                  (w >= 64 && w >= 2 * (ends.empty() ? 0 : ends.back()))))
      ends.push_back(w);
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  ends.push_back(K);
  std::map<const Block*, std::size_t> checkpoints;
  double values = 0, eval_secs = 0;
  std::size_t prev = 0;
  for (std::size_t end : ends) {
    const auto t0 = std::chrono::steady_clock::now();
    values += evaluate_stage(in, open, old, prev, end, run);
    eval_secs += seconds_since(t0);
    for (std::size_t b = 0; b < open.size(); ++b)
      if (checkpoint[b] > prev && checkpoint[b] <= end) {
        const slong n = static_cast<slong>(checkpoint[b]);
        NmodMat square(n, n, open[b]->E->modulus());
        for (slong i = 0; i < n; ++i)
          for (slong j = 0; j < n; ++j) square.at(i, j) = open[b]->E->at(i, j);
        checkpoints[open[b]] = rank_dense_modp(square, static_cast<int>(std::max(1u, run.threads)));
        if (goal.on_round) goal.on_round(rank_sum(blocks, checkpoints), K);
      }
    std::vector<Block*> completed;
    for (Block* c : open)
      if (c->want > prev && c->want <= end) completed.push_back(c);
    rank_and_report(completed, blocks, run.threads, goal, K, in.mod.n, checkpoints);
    prev = end;
  }
  return {values, eval_secs};
}

}  // namespace

Columns::Columns(const std::vector<std::vector<ulong>>& B, std::size_t nb_, std::size_t count)
    : n(std::min(count, B.size())), nb(nb_), v(n * nb_) {
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t q = 0; q < nb; ++q) v[q * n + j] = B[j].at(q);
}

std::unique_ptr<BatchEval> make_batch_eval(const Model& m, const Entry& e, const Partition& P, ulong p) {
  // The dense-rank library is loaded (and OpenBLAS given its kernels, which
  // sets OPENBLAS_CORETYPE: rank/fflas.cpp) here, on the method's thread, before
  // the rounds rank blocks side by side on several threads.
  (void)fflas::available();
  auto va = side_vars(P, true), vb = side_vars(P, false);
  const std::size_t out = e.token * m.output_width() + e.channel;
  // (The weights as BatchF64Ring's scalars exist only where the pass is compiled.)
  std::unique_ptr<BatchEval> eval;
  if (tape_applies(p)) eval = make_tape_eval(batch_weights<BatchF64Ring>(m, p), p, va, vb, single_need(m, e), out);
  if (!eval) eval = std::make_unique<BatchEvalIn<BatchModpRing>>(m, p, std::move(va), std::move(vb), single_need(m, e), out);
  // (The same on every machine: counted, whichever evaluator runs here.)
  eval->set_nominal_value_seconds(nominal::forward_ops(m, e) * nominal::kModpOp);
  return eval;
}

void hand_over(std::vector<Block>& blocks) {
  for (auto& c : blocks) {
    c.floor = std::max(c.floor, c.rank);
    c.E.reset();
    if (c.exact) continue;
    if (c.done) c.want = std::min(c.rank + 1, c.cap);
    c.done = false;
    c.rank = 0;
    c.prime = 0;
  }
}

double potential(const std::vector<Block>& blocks, std::size_t cap) {
  double s = 0;
  for (const auto& c : blocks)
    s += static_cast<double>(c.done || c.exact ? c.rank : std::max(c.rank, std::min(c.cap, cap)));
  return s;
}

Rounds double_points(const Sampler& s, std::vector<Block>& blocks, const RoundLimits& lim, Points& pts) {
  const auto& [eval, t, p, g, na, nb] = s;
  const auto& [cap, o, run, goal] = lim;
  nmod_t mod;
  nmod_init(&mod, p);
  if (pts.p != 0 && pts.p != p)
    throw InternalError("black-box: points mod " + std::to_string(pts.p) + " reused mod " + std::to_string(p));
  pts.p = p;
  auto& A = pts.A;
  auto& B = pts.B;
  Rounds out;
  for (auto& c : blocks) c.want = std::min({c.want, c.cap, cap});
  double eval_rate = 0, rank_rate = 0;  // seconds per forward-pass value, per n^3 of rank
  if (run.nominal) {  // fixed rates: the rounds' plan is the same on every machine (analysis/nominal.hpp)
    eval_rate = eval.nominal_value_seconds();
    rank_rate = nominal::kRankN3;
  }
  if (goal.straight_ev > 0) go_straight(blocks, t.size(), cap, o, run, goal);
  while (true) {
    run.check_cancelled();
    std::vector<Block*> open;
    std::vector<std::size_t> old;
    std::size_t K = 0;
    for (auto& c : blocks)
      if (!c.done && !c.exact) {
        if (c.E && (c.E->modulus() != p || static_cast<std::size_t>(c.E->rows()) > A.size()))
          throw InternalError("black-box: a block's " + std::to_string(c.E->rows()) + " x " + std::to_string(c.E->rows()) +
                              " values mod " + std::to_string(c.E->modulus()) + " would be extended mod " +
                              std::to_string(p) + " at " + std::to_string(A.size()) + " points");
        const std::size_t had = c.E ? static_cast<std::size_t>(c.E->rows()) : 0;
        auto M = std::make_unique<NmodMat>(static_cast<slong>(c.want), static_cast<slong>(c.want), p);
        for (std::size_t i = 0; i < had; ++i)
          for (std::size_t j = 0; j < had; ++j)
            M->at(static_cast<slong>(i), static_cast<slong>(j)) = c.E->at(static_cast<slong>(i), static_cast<slong>(j));
        c.E = std::move(M);
        open.push_back(&c);
        old.push_back(had);
        K = std::max(K, c.want);
      }
    if (open.empty()) break;
    draw_points(A, B, K, na, nb, g, p);
    auto t0 = std::chrono::steady_clock::now();
    Columns cols(B, nb, K);
    eval.prepare(cols);
    const double prepare_secs = seconds_since(t0);
    const auto [values, stage_secs] = evaluate_and_rank({eval, cols, t, mod, A, na}, open, old, blocks, run, goal);
    const double eval_secs = prepare_secs + stage_secs, secs = seconds_since(t0), rank_secs = secs - eval_secs;
    double cubes = 0;
    for (Block* c : open) cubes += std::pow(static_cast<double>(c->want), 3);
    if (!run.nominal && values > 0) eval_rate = eval_secs / values;
    if (!run.nominal && cubes > 1e9) rank_rate = rank_secs / cubes;
    std::size_t still_open = 0;
    for (Block* c : open) {
      set_ranked(*c, c->rank, p);  // (as the stages set it; a block of no points was in none)
      if (c->exact || c->done) c->E.reset();
      else if (c->want < std::min(c->cap, cap)) {
        // Double, or grow by goal.growth (in multiples of 64) from 1,024 on;
        // straight to the cap when 1.5 times the next size would pass it (one
        // elimination of the cap's size instead of two).
        const std::size_t top = std::min(c->cap, cap);
        const std::size_t next =
            c->want < 1024 ? 2 * c->want
                           : std::max(c->want + 64, static_cast<std::size_t>(std::ceil(static_cast<double>(c->want) * goal.growth / 64)) * 64);
        c->want = 3 * next >= 2 * top ? top : std::min(next, top);
      }
      still_open += !c->done && !c->exact;
    }
    // Nominal: the round's estimate at the fixed rates, not the time it took here.
    out.spent += run.nominal ? eval_rate * values + rank_rate * cubes : secs;
    out.k = K;
    std::size_t rank_so_far = 0;
    for (const auto& c : blocks) rank_so_far += std::max(c.rank, c.floor);
    if (goal.on_round) goal.on_round(rank_so_far, K);
    // Most important first (a terminal cuts the line at its width): the rank
    // so far, the next round's estimate, the open blocks; the prime last.
    const std::string head = "blackbox: rank >= " + std::to_string(rank_so_far) + " at " + std::to_string(K) +
                             " points, " + fmt_g(out.spent) + " s";
    const std::string tail = "; " + std::to_string(still_open) + " of " + std::to_string(blocks.size()) +
                             " block(s) still full rank; mod " + std::to_string(p);
    run.progress(head + tail);
    if (still_open == 0) break;
    if (goal.target && potential(blocks, cap) < static_cast<double>(goal.target) &&
        std::any_of(blocks.begin(), blocks.end(), [](const Block& c) { return c.done && c.rank < c.cap; })) {
      out.gave_up = true;
      break;
    }
    // The next round: new values at the measured rate, ranks at the measured
    // rate per n^3 (a prior of 2e-10 n^3 s before one was measured); memory:
    // the open blocks' matrices, the old ones while copied, the ranks' copies.
    std::size_t Kn = 0;
    double cubes_next = 0, cells = 0, biggest = 0;
    bool grows = false;
    for (const Block* c : open)
      if (!c->done && !c->exact) {
        grows = grows || c->want > c->points;
        Kn = std::max(Kn, c->want);
        const double w = static_cast<double>(c->want);
        cubes_next += w * w * w;
        cells += w * w + static_cast<double>(c->points) * static_cast<double>(c->points);
        biggest = std::max(biggest, w * w);
      }
    if (!grows) break;  // every open block is at its cap or --max-points
    const double kk = static_cast<double>(K), kn = static_cast<double>(Kn);
    const double est = eval_rate * static_cast<double>(t.size()) * (kn * kn - kk * kk) +
                       (rank_rate > 0 ? rank_rate : 2e-10 / std::max(1u, run.threads)) * cubes_next;
    // The next round's ETA on the progress line (a round can take minutes).
    run.progress(head + "; next " + std::to_string(Kn) + " points in about " + fmt_g(est) + " s" + tail);
    if (out.spent + est > std::min({o.budget, goal.budget, run.budget_left() + out.spent})) {
      out.stop_note = "stopped at " + std::to_string(K) + " points: the next round (" + std::to_string(Kn) +
                      ") is estimated at " + fmt_g(est) + " s, beyond " + budget_text(o);
      break;
    }
    const double bytes = (cells + biggest * std::min<double>(static_cast<double>(open.size()), run.threads)) * 8;
    if (round_over_memory(run, bytes, K, Kn, out.stop_note)) break;
  }
  return out;
}

}  // namespace netpoly::methods
