#include "netpoly/seprank.hpp"

#include <Eigen/SVD>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "netpoly/blackbox_prime.hpp"
#include "netpoly/coeff_matrix.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/forward.hpp"
#include "netpoly/limits.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/rank.hpp"
#include "netpoly/support.hpp"

namespace netpoly {

using json = nlohmann::json;

const char* method_name(Method m) {
  switch (m) {
    case Method::group: return "group";
    case Method::exact: return "exact";
    case Method::modular: return "modular";
    case Method::blackbox: return "blackbox";
    case Method::grid: return "grid";
    case Method::numeric: return "numeric";
    case Method::support: return "support";
  }
  return "?";
}

std::vector<Method> parse_methods(const std::string& list) {
  std::vector<Method> r;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto k = list.find(',', start);
    std::string w = list.substr(start, k == std::string::npos ? std::string::npos : k - start);
    bool found = false;
    for (Method m : {Method::group, Method::exact, Method::modular, Method::blackbox, Method::grid, Method::numeric,
                     Method::support})
      if (w == method_name(m)) {
        if (std::find(r.begin(), r.end(), m) == r.end()) r.push_back(m);
        found = true;
      }
    if (!found)
      throw InputError("--methods: unknown method \"" + w +
                       "\" (expected a comma-separated list of group, exact, modular, blackbox, grid, numeric, support)");
    if (k == std::string::npos) break;
    start = k + 1;
  }
  return r;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fmt_g(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

ulong default_prime(const SepOptions& o) { return o.prime ? o.prime : nth_prime(0); }

// Whether the black-box's next round, estimated at `bytes` more than now,
// would pass --max-memory; then `note` says where it stopped (a lower bound
// from fewer points is still a lower bound, so the method ends there rather
// than the whole run at the watchdog).
bool round_over_memory(double bytes, std::size_t k, std::size_t next, std::string& note) {
  const double lim = current_limits().max_memory_bytes;
  const double need = resident_bytes() + bytes;
  if (lim <= 0 || need <= lim) return false;
  note = "stopped at " + std::to_string(k) + " points: the next round (" + std::to_string(next) + ") needs about " +
         fmt_g(need / 0x1p30) + " GiB, beyond " +
         (current_limits().memory_default ? "the default memory limit " : "--max-memory ") + fmt_g(lim / 0x1p30) +
         " GiB";
  return true;
}

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

template <class BR>
class BatchEvalIn final : public BatchEval {
 public:
  BatchEvalIn(const Model& m, ulong p, std::vector<std::size_t> va, std::vector<std::size_t> vb, Need need,
              std::size_t out)
      : p_(p), net_(prepare(BR(p, 1), m)), nin_(m.num_inputs()), va_(std::move(va)), vb_(std::move(vb)),
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

// ------------------------------------------------------------------ group, exact, modular
MethodRun run_group(const SparseIntMatrix& C, const std::vector<SparseIntMatrix>& blocks) {
  MethodRun r{Method::group, "upper", std::min(C.rows, C.cols), "certified upper bound", "", 0, json::object()};
  std::size_t block_sum = 0;
  for (const auto& b : blocks) block_sum += std::min(b.rows, b.cols);
  r.details = {{"distinct_A_parts", C.rows}, {"distinct_B_parts", C.cols}, {"blocks", blocks.size()},
               {"block_bound", block_sum}};
  return r;
}

MethodRun run_exact(const std::vector<SparseIntMatrix>& blocks, const SepOptions& o,
                    const std::vector<RankProfile>* profiles) {
  auto ex = rank_exact_blocks(blocks, o.seed, profiles);
  MethodRun r{Method::exact, "exact", ex.rank, "exact (certified)", "", 0, json::object()};
  std::size_t max_bits = 0;
  for (const auto& b : ex.certificate.blocks) max_bits = std::max<std::size_t>(max_bits, b.bound_bits);
  r.details = {{"blocks", ex.blocks},
               {"certificate",
                "nonsingular r x r minor mod p; C = C[:,J] C[I,J]^-1 C[I,:] checked mod primes whose product exceeds "
                "2x the Hadamard-type entry bound"},
               {"max_primes_per_block", ex.primes_used},
               {"max_bound_bits", max_bits},
               {"retries", ex.retries}};
  return r;
}

MethodRun run_modular(const std::vector<SparseIntMatrix>& blocks, const SepOptions& o,
                      std::vector<RankProfile>* profiles) {
  ulong p = default_prime(o);
  auto mr = rank_modp_blocks(blocks, p, o.seed, profiles);
  MethodRun r{Method::modular, "lower", mr.rank, "certified lower bound (rank mod p = " + std::to_string(p) + ")", "",
              0, json::object()};
  r.details = {{"prime", p}, {"blocks", mr.blocks}, {"algorithm", mr.algorithm}, {"block_ranks", mr.block_ranks}};
  return r;
}

// ------------------------------------------------------------------ inputs on both sides
std::vector<std::size_t> side_vars(const Partition& P, bool a) {
  std::vector<std::size_t> v;
  for (std::size_t k = 0; k < P.in_A.size(); ++k)
    if ((P.in_A[k] != 0) == a) v.push_back(k);
  return v;
}

Need single_need(const Model& m, const Entry& e) {
  Need need(m.tokens * m.output_width(), 0);
  need[e.token * m.output_width() + e.channel] = 1;
  return need;
}

std::unique_ptr<BatchEval> make_batch_eval(const Model& m, const Entry& e, const Partition& P, ulong p) {
  auto va = side_vars(P, true), vb = side_vars(P, false);
  const std::size_t out = e.token * m.output_width() + e.channel;
  if (p >= 3 && p < BatchF64Ring::kMaxPrime && BatchF64Ring::supported())
    return std::make_unique<BatchEvalIn<BatchF64Ring>>(m, p, std::move(va), std::move(vb), single_need(m, e), out);
  return std::make_unique<BatchEvalIn<BatchModpRing>>(m, p, std::move(va), std::move(vb), single_need(m, e), out);
}

MethodRun skipped(Method m, const std::string& why);

// The bidegrees of one (output, partition), computed once and shared by the
// support bound and the split black-box.
struct BidegreeCache {
  const Model& m;
  const Entry& e;
  const Partition& P;
  bool tried = false;
  std::optional<Bidegrees> bd;  // empty when too costly
  std::string why;
  const Bidegrees* get() {
    if (!tried) {
      tried = true;
      try {
        bd = support_bidegrees(m, e, P);
      } catch (const SupportRing::TooCostly& err) {
        why = err.what();
      }
    }
    return bd ? &*bd : nullptr;
  }
};

// Structural upper bound without expansion (support.hpp).
MethodRun run_support(BidegreeCache& bc) {
  const Bidegrees* bd = bc.get();
  if (!bd) return skipped(Method::support, "skipped: " + bc.why);
  const SupportBound sb = support_bound(*bd, bc.P);
  MethodRun r{Method::support, "upper", std::nullopt,
              "certified upper bound (monomials of the bidegrees the network can produce)", "", 0, json::object()};
  r.details = {{"bidegrees", sb.bidegrees},
               {"degree", sb.degree},
               {"cover", {{"A_degrees", sb.rows_cut}, {"B_degrees", sb.cols_cut}}},
               {"bound", sb.value.str()}};
  if (fmpz_cmp_ui(sb.value.get(), static_cast<ulong>(1) << 62) <= 0)
    r.value = static_cast<std::size_t>(fmpz_get_ui(sb.value.get()));
  else
    r.note = "the bound " + sb.value.str() + " is beyond 2^62";
  return r;
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

// ------------------------------------------------------------------ blackbox, split by A-degree
// The coefficient matrix C splits into independent blocks along the connected
// components of the bidegree graph (support.hpp): a nonzero entry (alpha, beta)
// joins the A-degree |alpha| to the B-degree |beta|, so rows of A-degrees in one
// component meet only columns of B-degrees in the same one, and
// rank C = sum over components c of rank C_c. The black-box sees each block
// separately: y(t a, b) = sum_a t^a y_a(a, b), so evaluating at s values t_l
// (s = number of A-degrees) and applying the inverse of V[l][a] = t_l^a mod p
// gives every y_a(a_i, b_j) exactly mod p, hence y_c = sum_{a in c} y_a. Then
// E_c = [y_c(a_i, b_j)] = V_A C_c V_B^T, so rank_p E_c <= rank C_c: the sum of
// the components' ranks is a certified lower bound, and each block needs only
// (its rank + 1) points per side instead of (sep + 1).
struct Component {
  std::vector<std::size_t> a_degrees;
  std::vector<ulong> weights;  // W[l] = sum_{a in c} Vinv[a][l]
  std::unique_ptr<NmodMat> E;
  std::size_t rank = 0, points = 0;
  bool done = false;
};

std::optional<MethodRun> run_blackbox_split(const Model& m, const Entry& e, const Partition& P, const SepOptions& o,
                                            std::size_t cap, BidegreeCache& bc, const BlackboxPrime& bp,
                                            double height) {
  if (!bc.get() || bc.get()->empty()) return std::nullopt;
  const Bidegrees& bd = *bc.get();
  // Components of the bipartite graph A-degree -- B-degree (union-find).
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
  std::vector<std::size_t> parent(s + bs.size());
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
  if (groups.size() < 2) return std::nullopt;  // one block: the plain black-box does the same with s times fewer passes
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
  std::vector<Component> comps;
  for (const auto& [root, idx] : groups) {
    Component c;
    c.weights.assign(s, 0);
    for (std::size_t k : idx) {
      c.a_degrees.push_back(as[k]);
      for (std::size_t l = 0; l < s; ++l)
        c.weights[l] = nmod_add(c.weights[l], Vinv.at(static_cast<slong>(k), static_cast<slong>(l)), mod);
    }
    comps.push_back(std::move(c));
  }

  const auto va = side_vars(P, true), vb = side_vars(P, false);
  const auto eval = make_batch_eval(m, e, P, p);
  std::vector<std::vector<ulong>> A, B;
  std::size_t k = std::min<std::size_t>(8, cap), k0 = 0;
  std::string stop_note;
  double spent = 0;
  while (true) {
    draw_points(A, B, k, va.size(), vb.size(), g, p);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Component*> open;
    for (auto& c : comps)
      if (!c.done) {
        auto M = std::make_unique<NmodMat>(static_cast<slong>(k), static_cast<slong>(k), p);
        for (std::size_t i = 0; i < k0; ++i)
          for (std::size_t j = 0; j < k0; ++j)
            M->at(static_cast<slong>(i), static_cast<slong>(j)) = c.E->at(static_cast<slong>(i), static_cast<slong>(j));
        c.E = std::move(M);
        open.push_back(&c);
      }
    parallel_for(k, [&](std::size_t i) {
      const std::size_t j0 = i < k0 ? k0 : 0;
      std::vector<std::vector<ulong>> ys(s);
      std::vector<ulong> ta(va.size());
      for (std::size_t l = 0; l < s; ++l) {
        for (std::size_t q = 0; q < va.size(); ++q) ta[q] = nmod_mul(t[l], A[i][q], mod);
        ys[l] = eval->row(ta, B, j0, k);
      }
      for (Component* c : open)
        for (std::size_t j = j0; j < k; ++j) {
          ulong v = 0;
          for (std::size_t l = 0; l < s; ++l) v = nmod_addmul(v, c->weights[l], ys[l][j - j0], mod);
          c->E->at(static_cast<slong>(i), static_cast<slong>(j)) = v;
        }
    });
    const double eval_secs = seconds_since(t0);
    bool all_done = true;
    std::size_t still_open = 0;
    for (Component* c : open) {
      c->rank = rank_dense_modp(*c->E);
      c->points = k;
      if (c->rank < k) {
        c->done = true;
        c->E.reset();
      }
      all_done = all_done && c->done;
      still_open += !c->done;
    }
    const double secs = seconds_since(t0), rank_secs = secs - eval_secs;
    spent += secs;
    if (all_done || k >= cap) break;
    const std::size_t next = std::min(2 * k, cap);
    // The next round: the evaluations grow with the new matrix entries, the
    // dense ranks (of the blocks still open, all k x k now) with the cube of k.
    const double grow = static_cast<double>(next) / static_cast<double>(k);
    const double est = eval_secs * static_cast<double>(next * next - k * k) / static_cast<double>(k * k - k0 * k0) +
                       rank_secs * static_cast<double>(still_open) / static_cast<double>(open.size()) * grow * grow * grow;
    if (spent + est > std::min(o.budget, budget_left() + spent)) {
      stop_note = "stopped at " + std::to_string(k) + " points: the next round (" + std::to_string(next) +
                  ") is estimated at " + fmt_g(est) + " s, beyond --budget " + fmt_g(o.budget) + " s";
      break;
    }
    // Memory of the next round: a next x next residue matrix per open block,
    // and one copy for the rank being taken.
    const double next2 = static_cast<double>(next) * static_cast<double>(next);
    if (round_over_memory((static_cast<double>(still_open) + 1) * next2 * sizeof(ulong), k, next, stop_note)) break;
    k0 = k;
    k = next;
  }
  std::size_t rank = 0;
  bool saturated = false;
  double eps = 0;
  json parts = json::array();
  for (const auto& c : comps) {
    rank += c.rank;
    const bool sat = c.rank == c.points;
    saturated = saturated || sat;
    // Per block (values of degree <= D in the points), union bound over blocks.
    eps += blackbox_block_eps(c.rank, static_cast<double>(degree), height, bp);
    parts.push_back({{"A_degrees", c.a_degrees}, {"rank", c.rank}, {"points", c.points}, {"saturated", sat}});
  }
  MethodRun r{Method::blackbox, "lower", rank,
              "certified lower bound (sum of per-block ranks mod " + blackbox_prime_text(bp) + ")", "", 0,
              json::object()};
  r.details = {{"points", k},          {"degree_bound", degree},
               {"saturated", saturated}, {"blocks", parts.size()}, {"split", "A-degree components"},
               {"block_ranks", parts},   {"arithmetic", eval->ring()}};
  blackbox_prime_details(r.details, bp, height);
  if (saturated)
    r.note = (stop_note.empty() ? "" : stop_note + "; ") + "some block was full rank at " + std::to_string(k) +
             " points: sep may be larger (raise --max-points)";
  else
    state_blackbox_probability(r, eps, static_cast<double>(degree), bp);
  return r;
}

// ------------------------------------------------------------------ blackbox
// `bp` is the run's prime (drawn once per analyse_network), `height` the
// output entry's coefficient bound (once per entry).
MethodRun run_blackbox(const Model& m, const Entry& e, const Partition& P, const SepOptions& o,
                       double degree, std::optional<std::size_t> known_upper, BidegreeCache& bc,
                       const BlackboxPrime& bp, double height) {
  const ulong p = bp.p;
  const auto va = side_vars(P, true), vb = side_vars(P, false);
  // rank(E) <= number of monomials on either side of degree <= D.
  auto monomials = [&](std::size_t nv) {
    double l = log_monomial_count(static_cast<double>(nv) + 1, degree);  // degree <= D: one more variable
    return l > 40 ? 1e18 : std::round(std::exp(l));  // an integer count
  };
  double cap_mono = std::min(monomials(va.size()), monomials(vb.size()));
  // More points than a certified upper bound + 1 cannot raise the rank.
  if (known_upper) cap_mono = std::min(cap_mono, static_cast<double>(*known_upper));
  const std::size_t cap = static_cast<std::size_t>(std::min<double>(static_cast<double>(o.max_points), cap_mono + 1));
  if (o.blackbox_split)
    if (auto split = run_blackbox_split(m, e, P, o, std::min<std::size_t>(o.max_points, cap), bc, bp, height))
      return *split;
  SplitMix64 g(bp.seed ^ 0xb1acb0c5ULL);
  std::size_t k = std::min<std::size_t>(8, cap);
  std::size_t rank = 0;
  std::vector<std::vector<ulong>> A, B;
  std::string stop_note;
  double seconds_per_eval = 0, spent = 0;
  std::unique_ptr<NmodMat> E;  // the values y(a_i, b_j) of the last round
  const auto eval = make_batch_eval(m, e, P, p);  // weights mod p (the same for every batch size)
  while (true) {
    draw_points(A, B, k, va.size(), vb.size(), g, p);
    auto t0 = std::chrono::steady_clock::now();
    // The previous round's k0 x k0 values are kept: only the new rows, and
    // the new columns of the old rows, are evaluated.
    const std::size_t k0 = E ? static_cast<std::size_t>(E->rows()) : 0;
    auto M = std::make_unique<NmodMat>(static_cast<slong>(k), static_cast<slong>(k), p);
    for (std::size_t i = 0; i < k0; ++i)
      for (std::size_t j = 0; j < k0; ++j)
        M->at(static_cast<slong>(i), static_cast<slong>(j)) = E->at(static_cast<slong>(i), static_cast<slong>(j));
    E.reset();
    // Rows are independent: evaluate them in parallel (each writes its own
    // row), each row as one batched forward pass over its missing points.
    parallel_for(k, [&](std::size_t i) {
      const std::size_t j0 = i < k0 ? k0 : 0;
      const auto y = eval->row(A[i], B, j0, k);
      for (std::size_t j = j0; j < k; ++j) M->at(static_cast<slong>(i), static_cast<slong>(j)) = y[j - j0];
    });
    rank = rank_dense_modp(*M);
    E = std::move(M);
    const double secs = seconds_since(t0);
    spent += secs;
    seconds_per_eval = secs / static_cast<double>(k * k - k0 * k0);
    if (rank < k || k >= cap) break;
    const std::size_t next = std::min(2 * k, cap);
    // Cost of the next round: evaluations (measured rate) and the dense rank.
    const double est = seconds_per_eval * static_cast<double>(next * next - k * k) +
                       1e-9 * std::pow(static_cast<double>(next), 3) / std::max(1u, thread_count());
    if (spent + est > std::min(o.budget, budget_left() + spent)) {
      stop_note = "stopped at " + std::to_string(k) + " points: the next round (" + std::to_string(next) +
                  ") is estimated at " + fmt_g(est) + " s, beyond --budget " + fmt_g(o.budget) + " s";
      break;
    }
    // The new matrix, the old one while it is copied over, and the rank's copy.
    const double next2 = static_cast<double>(next) * static_cast<double>(next);
    if (round_over_memory(2.25 * next2 * sizeof(ulong), k, next, stop_note)) break;
    k = next;
  }
  MethodRun r{Method::blackbox, "lower", rank, "certified lower bound (rank mod " + blackbox_prime_text(bp) + ")", "",
              0, json::object()};
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
    r.note = stop_note.empty() ? "matrix of " + std::to_string(k) + " points was full rank: sep may be larger (raise --max-points)"
                               : stop_note + "; the matrix was full rank, so sep may be larger";
  else
    state_blackbox_probability(r, eps, degree, bp);
  return r;
}

// ------------------------------------------------------------------ grid (LV Claim 1)
struct Grid {
  std::vector<std::vector<Fmpq>> rows, cols;  // values of the A-variables / B-variables
  std::vector<std::size_t> va, vb;
  std::string kind;
};

Grid make_grid(const Model& m, const Partition& P, const SepOptions& o) {
  Grid G;
  G.va = side_vars(P, true);
  G.vb = side_vars(P, false);
  SplitMix64 g(o.seed ^ 0x6e1dULL);
  const std::size_t side_cap = 1024;
  if (P.by_tokens && m.tokens > 1) {
    std::vector<std::size_t> ta = P.tokens, tb;
    for (std::size_t t = 0; t < m.tokens; ++t)
      if (!std::binary_search(ta.begin(), ta.end(), t)) tb.push_back(t);
    std::vector<std::vector<Fmpq>> T = o.template_vectors;
    std::size_t M = o.templates;
    if (!T.empty()) {
      M = T.size();
      for (std::size_t k = 0; k < T.size(); ++k)
        if (T[k].size() != m.width)
          throw InputError("templates[" + std::to_string(k) + "]: expected " + std::to_string(m.width) + " numbers");
    }
    const std::size_t sides = std::max(ta.size(), tb.size());
    if (M == 0) {  // largest M with M^|side| <= 256, at least 2
      M = 2;
      while (std::pow(static_cast<double>(M + 1), static_cast<double>(sides)) <= 256.0) ++M;
    }
    if (std::pow(static_cast<double>(M), static_cast<double>(sides)) > static_cast<double>(side_cap))
      throw InputError("--templates " + std::to_string(M) + ": the grid would have " + std::to_string(M) + "^" +
                       std::to_string(sides) + " rows (max " + std::to_string(side_cap) + ")");
    if (T.empty())
      for (std::size_t k = 0; k < M; ++k) {
        std::vector<Fmpq> t(m.width);
        for (auto& x : t) x = Fmpq(static_cast<slong>(g.symmetric(4)));
        T.push_back(std::move(t));
      }
    auto assignments = [&](const std::vector<std::size_t>& toks, const std::vector<std::size_t>& vars) {
      std::vector<std::vector<Fmpq>> out;
      std::size_t count = 1;
      for (std::size_t k = 0; k < toks.size(); ++k) count *= M;
      for (std::size_t idx = 0; idx < count; ++idx) {
        std::vector<Fmpq> vals(vars.size());
        std::size_t rest = idx;
        for (std::size_t k = 0; k < toks.size(); ++k) {
          const auto& t = T[rest % M];
          rest /= M;
          for (std::size_t c = 0; c < m.width; ++c) {
            auto pos = std::lower_bound(vars.begin(), vars.end(), toks[k] * m.width + c) - vars.begin();
            vals[pos] = t[c];
          }
        }
        out.push_back(std::move(vals));
      }
      return out;
    };
    G.rows = assignments(ta, G.va);
    G.cols = assignments(tb, G.vb);
    G.kind = std::to_string(M) + " templates per token";
  } else {
    // A split of variables: M random small-integer points per side.
    std::size_t M = o.templates ? o.templates : 64;
    if (M > side_cap) throw InputError("--templates: at most " + std::to_string(side_cap) + " points per side");
    auto pts = [&](std::size_t nv) {
      std::vector<std::vector<Fmpq>> out(M, std::vector<Fmpq>(nv));
      for (auto& v : out)
        for (auto& x : v) x = Fmpq(static_cast<slong>(g.symmetric(4)));
      return out;
    };
    G.rows = pts(G.va.size());
    G.cols = pts(G.vb.size());
    G.kind = std::to_string(M) + " random points per side";
  }
  return G;
}

// A grid method's work would pass what is left of --budget.
struct OverBudget : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Clock = std::chrono::steady_clock;

// The time a method may take from now: --budget per method, and what is left
// of the command's budget.
double method_cap(const SepOptions& o) { return std::min(o.budget, budget_left()); }

// Evaluates the grid matrix in a ring whose Elem is its Scalar (Q, Z/p,
// doubles): its first `count` entries in row order (all by default). Past
// `deadline` it throws OverBudget between two evaluations, so a method stops
// in time.
template <class Ring>
std::vector<typename Ring::Elem> eval_grid(const Ring& R, const Model& m, const Entry& e, const Grid& G,
                                           Clock::time_point deadline = Clock::time_point::max(),
                                           std::size_t count = SIZE_MAX) {
  auto net = prepare(R, m);
  const Need need = single_need(m, e);
  const std::size_t out = e.token * m.output_width() + e.channel;
  std::vector<typename Ring::Elem> X(m.num_inputs(), R.zero()), E;
  E.reserve(std::min(count, G.rows.size() * G.cols.size()));
  for (const auto& a : G.rows)
    for (const auto& b : G.cols) {
      if (E.size() >= count) return E;
      if (Clock::now() > deadline) throw OverBudget("the grid's evaluations");
      for (std::size_t t = 0; t < G.va.size(); ++t) X[G.va[t]] = R.scalar(a[t]);
      for (std::size_t t = 0; t < G.vb.size(); ++t) X[G.vb[t]] = R.scalar(b[t]);
      E.push_back(forward(R, net, X, need)[out]);
    }
  return E;
}

// Seconds for all the grid's evaluations in a ring, from timing one.
template <class Ring>
double grid_eval_seconds(const Ring& R, const Model& m, const Entry& e, const Grid& G) {
  const auto t0 = Clock::now();
  (void)eval_grid(R, m, e, G, Clock::time_point::max(), 1);
  return seconds_since(t0) * static_cast<double>(G.rows.size()) * static_cast<double>(G.cols.size());
}

Clock::time_point deadline_after(double seconds) {
  if (!(seconds < 1e9)) return Clock::time_point::max();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// LV Claim 1's grid matrix: its rank mod p first (cheap, and a certified lower
// bound: rank_p <= rank_Q <= sep); over Q when that can be larger (rank_p not
// full) and fits the budget. Estimates come from timing one evaluation.
MethodRun run_grid(const Model& m, const Entry& e, const Partition& P, const SepOptions& o) {
  Grid G = make_grid(m, P, o);
  const slong nr = static_cast<slong>(G.rows.size()), nc = static_cast<slong>(G.cols.size());
  const double n3 = static_cast<double>(nr) * static_cast<double>(nc) * static_cast<double>(std::min(nr, nc));
  const ulong p = default_prime(o);
  ModpRing Rp(p);
  const auto t0 = Clock::now();
  const double cap = method_cap(o);
  const double est_p = grid_eval_seconds(Rp, m, e, G) + 1e-9 * n3;
  if (est_p > cap)
    return skipped(Method::grid, "skipped: estimated " + fmt_g(est_p) + " s (" + std::to_string(nr) + " x " +
                                     std::to_string(nc) + " grid) exceeds what is left of --budget " + fmt_g(o.budget) + " s");
  std::vector<ulong> Ep;
  try {
    Ep = eval_grid(Rp, m, e, G, deadline_after(cap - seconds_since(t0)));
  } catch (const OverBudget&) {
    return skipped(Method::grid, "stopped after " + fmt_g(seconds_since(t0)) + " s: beyond --budget " + fmt_g(o.budget) +
                                     " s (estimated " + fmt_g(est_p) + " s)");
  }
  NmodMat Mp(nr, nc, p);
  for (slong i = 0; i < nr; ++i)
    for (slong j = 0; j < nc; ++j) Mp.at(i, j) = Ep[static_cast<std::size_t>(i * nc + j)];
  const std::size_t rp = rank_dense_modp(Mp);
  const std::size_t full = static_cast<std::size_t>(std::min(nr, nc));
  MethodRun r{Method::grid, "lower", rp, "", "", 0, json::object()};
  r.details = {{"grid", {nr, nc}}, {"templates", G.kind}, {"rank_mod_p", rp}, {"prime", p}};
  if (rp == full) {
    // rank_Q >= rank_p = the smaller dimension: both are full.
    r.how = "certified lower bound (grid rank over Q = rank mod p, full; LV Claim 1)";
    r.details["rank_Q"] = rp;
    r.note = "grid matrix has full rank: more templates may show a larger rank";
    return r;
  }
  const double left = cap - seconds_since(t0);
  // One exact evaluation can itself be long (values of 3^L digits): predicted
  // from the values' bit size (HeightRing at the first grid point) against
  // the mod-p evaluation, and timed only when that prediction fits.
  std::vector<Fmpq> point(m.num_inputs());
  for (std::size_t t = 0; t < G.va.size(); ++t) point[G.va[t]] = G.rows[0][t];
  for (std::size_t t = 0; t < G.vb.size(); ++t) point[G.vb[t]] = G.cols[0][t];
  const double bits = value_bits_bound(m, e, point);
  const double predicted = est_p * (7 + 0.7 * std::pow(std::max(1.0, bits / 64), 1.6)) * 1.5;
  // (The prediction runs high, about 20x on attention (3,3,1,4): it only
  // spares timing an evaluation that is far beyond the budget.)
  const double est_q =
      predicted > 30 * left ? predicted : grid_eval_seconds(RationalRing{}, m, e, G) * 1.5 + 4e-9 * n3;
  if (est_q > left) {
    r.how = "certified lower bound (grid rank mod p = " + std::to_string(p) + ", LV Claim 1)";
    r.note = "the rank over Q (estimated " + fmt_g(est_q) + " s) is beyond --budget: the rank mod p is the bound";
    return r;
  }
  try {
    auto Eq = eval_grid(RationalRing{}, m, e, G, deadline_after(left));
    // exact over Q: clear the common denominator, take the integer rank
    Fmpz den(1);
    for (const auto& q : Eq) fmpz_lcm(den.get(), den.get(), q.den());
    FmpzMat Z(nr, nc);
    for (slong i = 0; i < nr; ++i)
      for (slong j = 0; j < nc; ++j) {
        const Fmpq& q = Eq[static_cast<std::size_t>(i * nc + j)];
        fmpz_divexact(Z.at(i, j), den.get(), q.den());
        fmpz_mul(Z.at(i, j), Z.at(i, j), q.num());
      }
    const std::size_t rq = rank_dense_exact(Z);
    r.value = std::max(rq, rp);
    r.details["rank_Q"] = rq;
    r.how = "certified lower bound (grid rank over Q, LV Claim 1)";
  } catch (const OverBudget&) {
    r.how = "certified lower bound (grid rank mod p = " + std::to_string(p) + ", LV Claim 1)";
    r.note = "the rank over Q stopped at --budget: the rank mod p is the bound";
  }
  return r;
}

MethodRun run_numeric(const Model& m, const Entry& e, const Partition& P, const SepOptions& o) {
  Grid G = make_grid(m, P, o);
  const double cap = method_cap(o), n = static_cast<double>(std::max(G.rows.size(), G.cols.size()));
  const double est = grid_eval_seconds(DoubleRing{}, m, e, G) + 2e-8 * n * n * n;
  if (est > cap)
    return skipped(Method::numeric, "skipped: estimated " + fmt_g(est) + " s exceeds what is left of --budget " +
                                        fmt_g(o.budget) + " s");
  std::vector<double> Ed;
  try {
    Ed = eval_grid(DoubleRing{}, m, e, G, deadline_after(cap));
  } catch (const OverBudget&) {
    return skipped(Method::numeric, "stopped at --budget " + fmt_g(o.budget) + " s (estimated " + fmt_g(est) + " s)");
  }
  const Eigen::Index nr = static_cast<Eigen::Index>(G.rows.size()), nc = static_cast<Eigen::Index>(G.cols.size());
  Eigen::MatrixXd M(nr, nc);
  for (Eigen::Index i = 0; i < nr; ++i)
    for (Eigen::Index j = 0; j < nc; ++j) M(i, j) = Ed[static_cast<std::size_t>(i * nc + j)];
  Eigen::BDCSVD<Eigen::MatrixXd> svd(M);
  const auto& s = svd.singularValues();
  const double smax = s.size() ? s(0) : 0.0;
  const double tau = static_cast<double>(std::max(nr, nc)) * std::numeric_limits<double>::epsilon() * smax;
  std::size_t rank = 0;
  while (static_cast<Eigen::Index>(rank) < s.size() && s(static_cast<Eigen::Index>(rank)) > tau) ++rank;
  double above = rank > 0 ? s(static_cast<Eigen::Index>(rank - 1)) : 0.0;
  double below = static_cast<Eigen::Index>(rank) < s.size() ? s(static_cast<Eigen::Index>(rank)) : 0.0;
  MethodRun r{Method::numeric, "estimate", rank, "numeric estimate (double SVD of the grid matrix)", "", 0,
              json::object()};
  r.details = {{"grid", {nr, nc}},       {"templates", G.kind},     {"threshold", tau},
               {"sigma_max", smax},      {"sigma_above", above},    {"sigma_below", below},
               {"gap", below > 0 ? above / below : std::numeric_limits<double>::infinity()}};
  if (below > 0 && above / below < 1e6) r.note = "small gap between singular values: the estimate is unreliable";
  return r;
}

// ------------------------------------------------------------------ combining
void combine(SepResult& res) {
  res.lower = {};
  res.upper = {};
  const MethodRun* lower_run = nullptr;
  for (const auto& r : res.runs) {
    if (!r.value) continue;
    // On ties the exact method names the end: it certifies both.
    const bool tie_wins = r.kind == "exact";
    if (r.kind == "lower" || r.kind == "exact")
      if (!res.lower.value || *r.value > *res.lower.value || (tie_wins && *r.value == *res.lower.value)) {
        res.lower = {r.value, method_name(r.method)};
        lower_run = &r;
      }
    // A black-box rank equal to the best lower end carries the probability statement.
    if (r.method == Method::blackbox && res.lower.value && *r.value == *res.lower.value && lower_run &&
        lower_run->kind != "exact")
      lower_run = &r;
    if (r.kind == "upper" || r.kind == "exact")
      if (!res.upper.value || *r.value < *res.upper.value || (tie_wins && *r.value == *res.upper.value))
        res.upper = {r.value, method_name(r.method)};
  }
  if (res.lower.value && res.upper.value && *res.lower.value > *res.upper.value)
    throw Error("internal inconsistency: certified lower bound " + std::to_string(*res.lower.value) + " (" +
                    res.lower.method + ") exceeds certified upper bound " + std::to_string(*res.upper.value) + " (" +
                    res.upper.method + ")",
                ExitCode::check_failed);
  if (res.lower.value && res.upper.value && *res.lower.value == *res.upper.value) {
    res.status = "exact";
  } else if (lower_run && lower_run->method == Method::blackbox && lower_run->details.contains("failure_probability")) {
    res.status = "probabilistic";
    res.failure_probability = lower_run->details["failure_probability"].get<double>();
  } else {
    res.status = "bracket";
  }
}

bool closed(const SepResult& res) {
  for (const auto& r : res.runs)
    if (r.kind == "exact" && r.value) return true;
  SepResult t = res;
  combine(t);
  return t.status == "exact";
}

MethodRun skipped(Method m, const std::string& why) {
  MethodRun r{m, "", std::nullopt, "", why, 0, json::object()};
  return r;
}

// Rough cost models (seconds), used only to skip methods beyond --budget.
double cost_matrix_methods(const SparseIntMatrix& C, const std::vector<SparseIntMatrix>& blocks, Method m) {
  double c = 0;
  for (const auto& b : blocks) {
    double r = std::min<double>({static_cast<double>(b.rows), static_cast<double>(b.cols), 512.0});
    c += static_cast<double>(b.rows) * static_cast<double>(b.cols) * r;
  }
  return (m == Method::exact ? 40.0 : 1.0) * c * 1e-9 + static_cast<double>(C.nnz()) * 1e-7;
}

}  // namespace

namespace {

void check_partition(const Partition& P, std::size_t nvars, const std::string& what) {
  if (P.in_A.size() != nvars)
    throw InputError("partition " + P.label() + ": it splits " + std::to_string(P.in_A.size()) + " variables, " +
                     what + " has " + std::to_string(nvars));
}

// In the default mode the exact method is not started when its estimate
// exceeds this (seconds); asking for it with --methods lifts the cap.
constexpr double kDefaultExactCap = 60;

// The coefficient matrix of one (output, partition), its blocks, and the
// blocks' rank profiles mod the default prime once the modular method ran
// (the exact method starts from them instead of eliminating again).
struct MatrixCache {
  std::optional<SparseIntMatrix> C;
  std::vector<SparseIntMatrix> blocks;
  std::vector<RankProfile> profiles;
};

// `matrix` makes the coefficient matrix of the polynomial for the partition.
void run_poly_methods(SepResult& res, const std::function<SparseIntMatrix()>& matrix, const SepOptions& o,
                      const std::vector<Method>& methods, bool stop_when_closed, MatrixCache& mc,
                      bool by_default = false) {
  for (Method m : methods) {
    if (m != Method::group && m != Method::exact && m != Method::modular) continue;
    if (stop_when_closed && closed(res)) break;
    auto t0 = std::chrono::steady_clock::now();
    if (!mc.C) {
      mc.C = matrix();
      mc.blocks = split_blocks(*mc.C);
      res.sizes["coefficient_matrix"] = {mc.C->rows, mc.C->cols};
      res.sizes["nnz"] = mc.C->nnz();
    }
    const SparseIntMatrix& C = *mc.C;
    double est = cost_matrix_methods(C, mc.blocks, m);
    if (m == Method::exact)  // with the blocks' ranks known (modular ran), the estimate is much better
      for (const auto& run : res.runs)
        if (run.method == Method::modular && run.details.contains("block_ranks"))
          est = estimate_exact_seconds(mc.blocks, run.details["block_ranks"].get<std::vector<std::size_t>>());
    const double cap = std::min(o.budget, budget_left());
    if (est > cap) {
      res.runs.push_back(skipped(m, "skipped: estimated " + fmt_g(est) + " s exceeds what is left of --budget " + fmt_g(o.budget) + " s"));
      continue;
    }
    if (by_default && m == Method::exact && est > kDefaultExactCap) {
      res.runs.push_back(skipped(m, "not run by default: estimated " + fmt_g(est) +
                                        " s (ask for it with --methods exact)"));
      continue;
    }
    // Profiles mod the exact method's first prime (nth_prime(0), the default) can be reused.
    const bool reusable = default_prime(o) == nth_prime(0);
    MethodRun r = m == Method::group ? run_group(C, mc.blocks)
                  : m == Method::exact
                      ? run_exact(mc.blocks, o, reusable && !mc.profiles.empty() ? &mc.profiles : nullptr)
                      : run_modular(mc.blocks, o, reusable ? &mc.profiles : nullptr);
    r.seconds = seconds_since(t0);
    res.runs.push_back(std::move(r));
  }
}

}  // namespace

SepResult analyse_polynomial(const FmpqMpoly& y, const Partition& P, const SepOptions& o) {
  check_partition(P, static_cast<std::size_t>(y.ctx()->nvars()), "the polynomial");
  SepResult res;
  res.partition = P;
  std::vector<Method> methods = o.methods.empty() ? std::vector<Method>{Method::group, Method::exact} : o.methods;
  for (Method m : methods)
    if (m != Method::group && m != Method::exact && m != Method::modular)
      throw InputError(std::string("method ") + method_name(m) + " needs a network, not a polynomial");
  MatrixCache mc;
  run_poly_methods(res, [&] { return coefficient_matrix(y, P); }, o, methods, o.methods.empty(), mc);
  combine(res);
  return res;
}

std::uint64_t os_random_seed() {
  std::random_device rd;  // getrandom(2) on Linux
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

std::vector<SepResult> analyse_network(const Model& m, const std::vector<Entry>& outputs,
                                       const std::vector<Partition>& partitions, const SepOptions& o_in,
                                       const SepProgress& progress) {
  SepOptions o = o_in;
  if (!o.blackbox_seed) o.blackbox_seed = os_random_seed();
  // Validate before any work: a partition or an entry of another shape would index out of range.
  for (const auto& P : partitions) check_partition(P, m.num_inputs(), "the model");
  for (const auto& e : outputs)
    if (e.token >= m.tokens || e.channel >= m.output_width())
      throw InputError("output " + std::to_string(e.token) + "," + std::to_string(e.channel) +
                       ": out of range (the model has " + std::to_string(m.tokens) + " tokens and " +
                       std::to_string(m.output_width()) + " output channels)");
  const auto est = estimate_expansion(m);
  const bool expandable = est.terms <= o.max_terms;
  std::vector<Method> methods = o.methods;
  const bool by_default = methods.empty();
  if (by_default)
    methods = expandable ? std::vector<Method>{Method::support, Method::group, Method::modular, Method::exact,
                                               Method::blackbox}
                         : std::vector<Method>{Method::support, Method::blackbox, Method::grid};
  bool needs_expansion = false;
  for (Method mm : methods) needs_expansion = needs_expansion || mm == Method::group || mm == Method::exact || mm == Method::modular;
  const double expand_cost = est.terms * 2e-6;
  std::vector<SepResult> results;
  // Lexicographic: expand_packed() can then pack variables (the analysis never prints the terms).
  PolyRing R(static_cast<slong>(m.num_inputs()), ORD_LEX);
  // The black-box's prime, drawn once for the run, and each entry's
  // coefficient bound, once per entry (both only if a black-box runs).
  std::optional<BlackboxPrime> bb_prime;
  for (const auto& e : outputs) {
    std::optional<double> bb_height;
    std::optional<PackedExpansion> y;  // read in its packed ring: the analysis never needs the terms unpacked
    double expand_seconds = 0;
    std::string expand_skip;
    if (needs_expansion) {
      if (!expandable) {
        expand_skip = "skipped: expansion estimated at " + fmt_g(est.terms) + " terms exceeds --max-terms " +
                      fmt_g(o.max_terms) + " (raise --max-terms, or use support/blackbox/grid)";
      } else if (expand_cost > std::min(o.budget, budget_left())) {
        expand_skip = "skipped: expansion estimated " + fmt_g(expand_cost) + " s exceeds --budget " + fmt_g(o.budget) + " s";
      } else {
        check_memory_estimate(expansion_memory_estimate(m), "the expansion");
        auto t0 = std::chrono::steady_clock::now();
        y = std::move(expand_packed(R, m, {e})[0]);
        expand_seconds = seconds_since(t0);
      }
    }
    for (const auto& P : partitions) {
      SepResult res;
      res.output = e;
      res.partition = P;
      MatrixCache mc;
      BidegreeCache bidegrees{m, e, P, false, std::nullopt, {}};
      if (y) {
        res.sizes["terms"] = y->poly.length();
        res.sizes["expansion_seconds"] = expand_seconds;
      }
      // The pair's result so far, for a caller that shows or keeps work as it goes.
      auto report_partial = [&] {
        if (!progress) return;
        SepResult partial = res;
        combine(partial);
        progress(partial, false);
      };
      for (Method mm : methods) {
        if (by_default && closed(res)) break;
        if (mm == Method::group || mm == Method::exact || mm == Method::modular) {
          if (!y) {
            res.runs.push_back(skipped(mm, expand_skip));
            continue;
          }
          run_poly_methods(res, [&] { return coefficient_matrix(*y, P); }, o, {mm}, false, mc, by_default);
          report_partial();
          continue;
        }
        auto t0 = std::chrono::steady_clock::now();
        std::optional<std::size_t> upper;
        for (const auto& run : res.runs)
          if ((run.kind == "upper" || run.kind == "exact") && run.value) upper = std::min(upper.value_or(SIZE_MAX), *run.value);
        MethodRun r;
        try {
          if (mm == Method::blackbox) {
            if (!bb_prime) bb_prime = draw_blackbox_prime(m, *o.blackbox_seed, o.prime);
            if (!bb_height) bb_height = coefficient_height_log2(m, e);
          }
          r = mm == Method::blackbox ? run_blackbox(m, e, P, o, est.degree, upper, bidegrees, *bb_prime, *bb_height)
              : mm == Method::support ? run_support(bidegrees)
              : mm == Method::grid    ? run_grid(m, e, P, o)
                                      : run_numeric(m, e, P, o);
        } catch (const InputError& err) {
          // A method the default plan chose that does not fit this model (a
          // grid of too many rows) is skipped; asked for by name, it is an error.
          if (!by_default) throw;
          r = skipped(mm, std::string("not run by default: ") + err.what());
        }
        r.seconds = seconds_since(t0);
        if (r.details.contains("grid")) res.sizes["grid"] = r.details["grid"];
        if (r.details.contains("points")) res.sizes["blackbox_points"] = r.details["points"];
        res.runs.push_back(std::move(r));
        report_partial();
      }
      combine(res);
      if (progress) progress(res, true);
      results.push_back(std::move(res));
    }
  }
  return results;
}

json to_json(const SepResult& r) {
  json j;
  j["output"] = {{"token", r.output.token}, {"channel", r.output.channel}};
  j["partition"] = {{"A", r.partition.a_names()}, {"B", r.partition.b_names()},
                    {"by", r.partition.by_tokens ? "tokens" : "variables"}};
  auto end = [](const End& e) {
    json x = {{"value", nullptr}, {"method", e.method.empty() ? json(nullptr) : json(e.method)}};
    if (e.value) x["value"] = *e.value;
    return x;
  };
  j["lower"] = end(r.lower);
  j["upper"] = end(r.upper);
  j["status"] = r.status;
  if (r.status == "probabilistic") j["failure_probability"] = r.failure_probability;
  json sizes = r.sizes;
  sizes.erase("expansion_seconds");
  j["sizes"] = sizes;
  json methods = json::array(), timings = json::object();
  for (const auto& m : r.runs) {
    json x = {{"method", method_name(m.method)}, {"kind", m.kind}, {"how", m.how}, {"details", m.details}};
    x["value"] = m.value ? json(*m.value) : json(nullptr);
    if (!m.note.empty()) x["note"] = m.note;
    methods.push_back(x);
    timings[method_name(m.method)] = m.seconds;
  }
  if (r.sizes.contains("expansion_seconds")) timings["expansion"] = r.sizes["expansion_seconds"];
  j["methods"] = methods;
  j["timings"] = timings;
  return j;
}

json sup_inf_json(const std::vector<SepResult>& rs, bool sup) {
  if (rs.empty()) return nullptr;
  // sup-sep = max over results of sep: bracket [max lower, max upper]; inf: [min lower, min upper].
  std::optional<std::size_t> lo, hi;
  bool lo_all = true, hi_all = true;
  for (const auto& r : rs) {
    if (r.lower.value) lo = !lo ? *r.lower.value : (sup ? std::max(*lo, *r.lower.value) : std::min(*lo, *r.lower.value));
    else lo_all = false;
    if (r.upper.value) hi = !hi ? *r.upper.value : (sup ? std::max(*hi, *r.upper.value) : std::min(*hi, *r.upper.value));
    else hi_all = false;
  }
  json j;
  // For sup, a missing lower end (0) does not change the max; a missing upper makes it unbounded.
  j["lower"] = (lo && (sup || lo_all)) ? json(*lo) : json(nullptr);
  j["upper"] = (hi && (hi_all || !sup)) ? json(*hi) : json(nullptr);
  // "exact" when the ends meet (they may while some results are only bracketed).
  j["status"] = !j["lower"].is_null() && j["lower"] == j["upper"] ? "exact" : "bracket";
  return j;
}

}  // namespace netpoly
