// The scheduler: which methods run on each (output, partition) pair, in
// what order, within which budget, sharing what (the expansion per output
// entry, the coefficient matrix and bidegrees per pair, the black-box prime
// per analysis). The methods themselves are in methods/, one file each.
#include "netpoly/seprank.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <memory>
#include <random>

#include "analysis/engines/gauss_sep.hpp"
#include "methods/method.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "analysis/generic.hpp"
#include "runtime/limits.hpp"
#include "netpoly/options.hpp"
#include "runtime/number_text.hpp"
#include "expansion/packing.hpp"

namespace netpoly {

using json = nlohmann::json;
using methods::seconds_since;
using methods::skipped;

namespace {

void combine(SepResult& res) { static_cast<Bracket&>(res) = Bracket::combine(res.runs); }

bool closed(const SepResult& res) {
  for (const auto& r : res.runs)
    if (r.kind == RunKind::exact && r.value) return true;
  return Bracket::combine(res.runs).status == BracketStatus::exact;
}

void check_partition(const Partition& P, std::size_t nvars, const std::string& what) {
  if (P.in_A.size() != nvars)
    throw InputError("partition " + P.label() + ": it splits " + std::to_string(P.in_A.size()) + " variables, " +
                     what + " has " + std::to_string(nvars));
}

// Runs `list` on one pair in order. Before a method that reads the
// coefficient matrix, `matrix` builds it (once); `expand_skip` says why there
// is none. A method estimated beyond --budget (or, by default, beyond its
// default cap) is skipped; by default the run stops once the bracket closes,
// and a method that does not fit the model (InputError) is skipped rather
// than an error.
// Before an expansion estimated to take long (more than kCertifyFirstTerms
// terms), the default plan tries the black-box's small-prime phase, within
// kCertifyFirstSeconds, when a structural upper bound is known: if its
// certified lower bound meets that bound, the bracket is exact and nothing is
// expanded. Otherwise the attempt is dropped (the plan goes on, the black-box
// in its own place).
constexpr double kCertifyFirstTerms = 1e6, kCertifyFirstSeconds = 60;

std::optional<MethodRun> certify_before_expansion(const methods::MethodContext& ctx) {
  const auto upper = ctx.best_upper();
  if (!upper || !ctx.model || ctx.o.prime || !ctx.o.small_prime_first) return std::nullopt;
  SepOptions o = ctx.o;
  o.budget = std::min(o.budget, kCertifyFirstSeconds);
  methods::MethodContext c = ctx.with_options(o);
  c.small_prime_only = true;
  const auto t0 = std::chrono::steady_clock::now();
  MethodRun r = method_info(Method::blackbox).run(c);
  r.seconds = seconds_since(t0);
  if (ctx.run.nominal) ctx.run.charge(r.nominal_seconds);
  if (!r.value || *r.value < *upper || !r.details.contains("small_prime")) return std::nullopt;
  return r;
}

// A method named in --methods is run, or refused up front (exit 3) naming
// the flag that lets it run: the default refinement budget caps what a
// default run tries, not what was asked for by name. (With --budget given,
// a method estimated beyond it is skipped with a note: that is --budget.)
[[noreturn]] void refuse_named(Method mm, double est, const SepOptions& o) {
  throw LimitError("--methods " + std::string(method_name(mm)) + ": estimated " + fmt_g(est) +
                   " s, beyond the " + fmt_g(o.budget) +
                   " s a run without --budget allows; give --budget " + fmt_g(std::ceil(2 * est)) +
                   " (or more) to run it, or leave it out of --methods");
}

void run_methods(SepResult& res, methods::MethodContext& ctx, const std::vector<Method>& list, bool stop_when_closed,
                 const std::function<SparseIntMatrix()>& matrix, const std::string& expand_skip,
                 const std::function<void()>& after_each) {
  for (Method mm : list) {
    ctx.run.check_cancelled();
    if (stop_when_closed && closed(res)) break;
    const MethodInfo& info = method_info(mm);
    if (ctx.by_default && info.applies && !info.applies(ctx)) continue;
    const auto t0 = std::chrono::steady_clock::now();
    // What runs now, for a terminal's progress line (a method may run long
    // without lines of its own).
    const std::string pair = ctx.e.name() + " " + ctx.P.label() + ": ";
    if (info.needs_expansion) {
      if (!matrix) {
        res.runs.push_back(skipped(mm, expand_skip));
        continue;
      }
      if (!ctx.matrix->C) {
        ctx.run.progress(pair + "building the coefficient matrix");
        ctx.matrix->C = matrix();
        ctx.matrix->blocks = split_blocks(*ctx.matrix->C);
        res.sizes["coefficient_matrix"] = {ctx.matrix->C->rows, ctx.matrix->C->cols};
        res.sizes["nnz"] = ctx.matrix->C->nnz();
      }
    }
    std::optional<double> est;
    if (info.estimate) {
      est = info.estimate(ctx);
      if (est && *est > ctx.cap() && !ctx.by_default && ctx.o.budget_is_default) refuse_named(mm, *est, ctx.o);
      if (est && *est > ctx.cap()) {
        res.runs.push_back(skipped(mm, "skipped: estimated " + fmt_g(*est) + " s exceeds what is left of " +
                                           budget_text(ctx.o)));
        if (after_each) after_each();
        continue;
      }
      if (est && ctx.by_default && *est > info.default_cap) {
        res.runs.push_back(skipped(mm, "not run by default: estimated " + fmt_g(*est) + " s (ask for it with --methods " +
                                           method_name(mm) + ")"));
        if (after_each) after_each();
        continue;
      }
    }
    ctx.run.progress(pair + "running " + method_name(mm));
    // Its certified bound so far, shown and kept (the caller's partial
    // result) until the method returns its own.
    ctx.provisional = [&](const MethodRun& so_far) {
      if (!after_each) return;
      res.runs.push_back(so_far);
      res.runs.back().seconds = seconds_since(t0);
      after_each();
      res.runs.pop_back();
    };
    MethodRun r;
    try {
      r = info.run(ctx);
    } catch (const InputError& err) {
      ctx.provisional = {};
      // (--plan and --blocks are the black-box's: its refusal is the command's.)
      if (!ctx.by_default || ctx.o.plan || ctx.o.share_count) throw;
      r = skipped(mm, std::string("not run by default: ") + err.what());
    } catch (...) {
      ctx.provisional = {};
      throw;
    }
    ctx.provisional = {};
    r.seconds = seconds_since(t0);
    // Nominal costs: what the method cost in the fixed-rate model, charged to the caller.
    if (ctx.run.nominal) ctx.run.charge(r.nominal_seconds > 0 ? r.nominal_seconds : est.value_or(0));
    if (ctx.realified && info.needs_expansion) halve_realified(r);
    if (!r.size_key.empty()) res.sizes[r.size_key] = r.size;
    res.runs.push_back(std::move(r));
    if (after_each) after_each();
  }
}

std::uint64_t os_random_seed() {
  std::random_device rd;  // getrandom(2) on Linux
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

SepResult analyse_polynomial(const FmpqMpoly& y, const Partition& P, const SepOptions& o_in,
                             const AnalysisContext& run) {
  const SepOptions o = resolved(o_in);
  check_partition(P, static_cast<std::size_t>(y.ctx()->nvars()), "the polynomial");
  SepResult res;
  res.partition = P;
  const std::vector<Method> list = o.methods.empty() ? plan(PlanFor::polynomial) : o.methods;
  for (Method m : list)
    if (!method_info(m).accepts_polynomial)
      throw InputError(std::string("method ") + method_name(m) + " needs a network, not a polynomial");
  methods::MatrixCache mc;
  methods::MethodContext ctx{.e = {}, .P = P, .o = o, .run = run, .res = res, .matrix = &mc};
  run_methods(res, ctx, list, o.methods.empty(), [&] { return coefficient_matrix(y, P); }, "", {});
  combine(res);
  return res;
}

namespace {

// "support, blackbox": the methods that speak of a shape's generic sep.
std::string generic_methods() {
  std::string s;
  for (Method x : plan(PlanFor::generic_shape)) s += (s.empty() ? "" : ", ") + std::string(method_name(x));
  return s;
}

// Before a long expansion (estimated beyond this many seconds) the default
// plan runs a black-box probe, so a certified lower end is known early.
constexpr double kProbeBeforeExpansion = 10;
constexpr const char* kProbeNote = "a probe before the expansion (at most 256 points a block)";

// One (output, partition) pair as the scheduler keeps it: its result so far
// and what its methods share.
struct Pair {
  SepResult res;
  methods::MatrixCache mc;
  methods::BidegreeCache bidegrees;
  Pair(const Model& m, const Entry& e, const Partition& P) : bidegrees{m, e, P, false, std::nullopt, {}} {
    res.output = e;
    res.partition = P;
  }
};

// Why the default plan does not expand (empty: it may). The estimate must fit
// --max-terms, what is left of the budget, and, with room for the estimate's
// factor 2, the memory limit: a default run falls back to the methods that
// need no expansion rather than stop at a limit.
std::string expansion_refused(const Model& m, const ExpansionEstimate& est, const SepOptions& o,
                              const AnalysisContext& run, bool by_default) {
  const double factor = m.gaussian() ? 2 : 1;  // a real and an imaginary part
  const double secs = factor * expansion_seconds_estimate(est.terms);
  if (est.terms > o.max_terms)
    return "skipped: expansion estimated at " + fmt_g(est.terms) + " terms exceeds --max-terms " + fmt_g(o.max_terms) +
           " (raise --max-terms, or use support/blackbox/grid)";
  if (secs > std::min(o.budget, run.budget_left()))
    return "skipped: expansion estimated " + fmt_g(secs) + " s exceeds " + budget_text(o);
  const double need = 2 * factor * expansion_memory_estimate(m), have = run.max_memory_bytes - run.resident_bytes();
  if (by_default && run.max_memory_bytes > 0 && need > have)
    return "not expanded by default: the expansion is estimated at up to " + format_bytes(need) +
           " at its peak, more than the " + format_bytes(have) + " left of " +
           (run.memory_default ? "the default memory limit (half the machine's memory)" : "--max-memory") +
           "; the methods that need no expansion ran instead (raise --max-memory to expand)";
  return "";
}

// A black-box probe (at most 256 points a block, 15 s) before a long
// expansion: a certified lower end known early. Dropped from the runs when
// the black-box's own run follows.
void run_probe(SepResult& res, const methods::MethodContext& pc, const std::function<void()>& after_each) {
  SepOptions probe = pc.o;
  probe.max_points = std::min<std::size_t>(pc.o.max_points, 256);
  probe.budget = std::min(pc.o.budget, 15.0);
  methods::MethodContext c = pc.with_options(probe);
  c.by_default = true;
  run_methods(res, c, {Method::blackbox}, true, {}, "", after_each);
  auto& r = res.runs.back();
  if (r.method == Method::blackbox)
    r.note = std::string(kProbeNote) + (r.note.empty() ? "" : "; " + r.note);
}

// An entry's expansion as the methods read it: packed (real weights), or the
// realified polynomial of a Gaussian model (engines/gauss_sep.hpp).
struct Expansion {
  std::optional<PackedExpansion> y;
  std::optional<FmpqMpoly> F;
  slong terms = 0;
  explicit operator bool() const { return y || F; }
  SparseIntMatrix matrix(const Partition& P) const {
    return y ? coefficient_matrix(*y, P) : coefficient_matrix(*F, realified_partition(P));
  }
};

// An explicit --budget is a promise of seconds (table --budget 5 ran on
// past 60 s at load 12: an expansion estimated within it, at 5 x its
// estimate or 120 s by default): the expansion stops between two products
// once the method's budget has passed, whatever the load. Not in a claim's
// analyses (nominal costs: the estimate decided).
class BudgetWatch final : public ProductWatch {
 public:
  BudgetWatch(std::shared_ptr<const ProductWatch> inner, double budget, std::string what, std::string text)
      : inner_(std::move(inner)), budget_(budget), what_(std::move(what)), text_(std::move(text)),
        t0_(std::chrono::steady_clock::now()) {}
  void after_product(slong terms) const override {
    if (inner_) inner_->after_product(terms);
    if (const double s = seconds_since(t0_); s > budget_)
      throw LimitError("the expansion of " + what_ + " stopped at " + text_ + " (after " + fmt_g(s) + " s)");
  }

 private:
  std::shared_ptr<const ProductWatch> inner_;
  double budget_;
  std::string what_, text_;
  std::chrono::steady_clock::time_point t0_;
};

// The expansion of entry e, watched (progress, cancellation, the memory
// limit). By default a stop near the memory limit is not an error: the
// polynomials are dropped, `skip` says why, and the plan goes on without.
Expansion expand_watched(const PolyRing& R, const Model& m, const Entry& e, const ExpansionEstimate& est,
                         const AnalysisContext& run, const SepOptions& o, bool by_default, std::string& skip) {
  const double factor = m.gaussian() ? 2 : 1;  // a real and an imaginary part
  if (!by_default) run.check_memory(factor * expansion_memory_estimate(m), "the expansion");
  PolyRing W = R;
  const double secs = factor * expansion_seconds_estimate(est.terms);
  // (Nominal costs, a claim's analyses: no stop on the clock; the estimate decided.)
  W.watch = expansion_watch(run, e.name(), secs, by_default && !run.nominal ? default_expansion_stop(secs) : 0);
  if (!run.nominal && !o.budget_is_default && std::isfinite(o.budget))
    W.watch = std::make_shared<BudgetWatch>(W.watch, o.budget, e.name(), budget_text(o));
  Expansion x;
  try {
    if (m.gaussian()) {
      const PolyRing G(static_cast<slong>(m.num_inputs()));
      PolyRing Gw = G;
      Gw.watch = W.watch;
      const GaussPoly g = expand_gauss(Gw, m, {e})[0];
      x.terms = poly_stats(g, m.tokens, m.width).terms;
      x.F = realified_polynomial(g.re, g.im);
    } else {
      x.y = std::move(expand_packed(W, m, {e})[0]);
      x.terms = x.y->poly.length();
    }
    return x;
  } catch (const LimitError& err) {
    if (!by_default) throw;
    skip = std::string("skipped: ") + err.what() + "; the methods that need no expansion ran instead";
  }
  release_memory();
  return Expansion{};
}

// Validate before any work: a partition or an entry of another shape would
// index out of range; methods must fit the mode and the number field.
void validate_request(const Model& m, const std::vector<Entry>& outputs, const std::vector<Partition>& partitions,
                      const SepOptions& o) {
  for (const auto& P : partitions) check_partition(P, m.num_inputs(), "the model");
  for (const auto& e : outputs)
    if (e.token >= m.tokens || e.channel >= m.output_width())
      throw InputError("output " + std::to_string(e.token) + "," + std::to_string(e.channel) +
                       ": out of range (the model has " + std::to_string(m.tokens) + " tokens and " +
                       std::to_string(m.output_width()) + " output channels)");
  check_methods_for(m, o);
}

// Weights whose denominators pass this many bits (trained floats: a float32
// brings up to 2^-149, a float64 2^-1074; k/4 brings 2 bits) make the
// expansion's coefficients long and its exact certificate need many primes.
constexpr ulong kLongDenominatorBits = 16;

bool long_denominators(const Model& m) {
  bool any = false;
  for (const auto& l : m.layers)
    l.for_each_matrix([&](const Mat<Fmpq>& W) {
      for (const auto& w : W.a) any = any || fmpz_bits(w.den()) > kLongDenominatorBits;
    });
  return any;
}

// The methods of a request: --methods, or the default plan of its kind.
// --plan and --blocks speak of the black-box's blocks: by default only the
// certified upper bounds that need no expansion (the blocks' caps) run before it.
// Weights with long denominators (trained floats) take the route without an
// expansion first: the structural upper ends, then the black-box's small
// prime; the expansion and its certificates only if that leaves a gap.
std::vector<Method> request_methods(const SepOptions& o, bool expandable, bool long_weights) {
  if (!o.methods.empty()) return o.methods;
  std::vector<Method> list = o.generic  ? plan(PlanFor::generic_shape)
                             : expandable ? plan(PlanFor::expandable_network)
                                          : plan(PlanFor::unexpandable_network);
  if (expandable && long_weights && !o.generic) {
    const auto bb = std::find(list.begin(), list.end(), Method::blackbox);
    const auto first = std::find_if(list.begin(), list.end(), [](Method x) { return method_info(x).needs_expansion; });
    if (bb != list.end() && first < bb) std::rotate(first, bb, bb + 1);
  }
  if (o.plan || o.share_count)
    std::erase_if(list, [](Method x) {
      return x != Method::blackbox && (method_info(x).kind != RunKind::upper || method_info(x).needs_expansion);
    });
  return list;
}

}  // namespace

void check_methods_for(const Model& m, const SepOptions& o) {
  if (o.generic)
    for (Method x : o.methods)
      if (method_info(x).plan.generic < 0)
        throw InputError(std::string("method ") + method_name(x) +
                         " speaks of one network, not of the generic sep of its shape (--generic takes " +
                         generic_methods() + ")");
  check_methods_for(m, o.methods, o.prime);  // Gaussian weights: the methods that take them
  if ((o.plan || o.share_count) && !o.methods.empty() &&
      std::find(o.methods.begin(), o.methods.end(), Method::blackbox) == o.methods.end())
    throw InputError(std::string(o.plan ? "--plan" : "--blocks") + " speaks of the black-box's blocks: add blackbox to --methods");
  if ((o.plan || o.share_count) && o.prime)
    throw InputError(std::string(o.plan ? "--plan" : "--blocks") +
                     ": the blocks are ranked mod the small prime drawn from --seed; --prime is not taken with it");
  if (o.share_count && !o.blackbox_seed)
    throw InputError("--blocks needs --seed: every share must rank its blocks mod the same prime at the same points");
}

namespace {

// A default run's black-box steps before an expansion, which may make it
// unnecessary: certify first (where the small prime's ranks meet a structural
// upper bound, the pair is exact), then, before a long expansion, a probe (a
// certified lower end early). Sets `skip` when no pair is left open.
void black_box_before_expansion(const std::vector<std::unique_ptr<Pair>>& pairs,
                                const std::vector<std::unique_ptr<methods::MethodContext>>& ctxs, double terms,
                                double secs, const std::vector<Method>& after, std::string& skip,
                                const std::function<void(const Pair&)>& report_partial) {
  if (terms > kCertifyFirstTerms)
    for (std::size_t k = 0; k < pairs.size(); ++k)
      if (!closed(pairs[k]->res))
        if (auto r = certify_before_expansion(*ctxs[k])) {
          pairs[k]->res.runs.push_back(std::move(*r));
          report_partial(*pairs[k]);
        }
  if (std::none_of(pairs.begin(), pairs.end(), [](const auto& q) { return !closed(q->res); }))
    skip = "not needed: every pair closed before the expansion";
  if (skip.empty() && secs > kProbeBeforeExpansion && std::find(after.begin(), after.end(), Method::blackbox) != after.end())
    for (std::size_t k = 0; k < pairs.size(); ++k) run_probe(pairs[k]->res, *ctxs[k], [&] { report_partial(*pairs[k]); });
}

// A probe superseded by the black-box's own run is dropped.
void drop_superseded_probe(std::vector<MethodRun>& runs) {
  const auto probe = std::find_if(runs.begin(), runs.end(), [](const MethodRun& r) {
    return r.method == Method::blackbox && r.note.rfind(kProbeNote, 0) == 0;
  });
  if (probe != runs.end() &&
      std::count_if(runs.begin(), runs.end(), [](const MethodRun& r) { return r.method == Method::blackbox && r.value; }) > 1)
    runs.erase(probe);
}

}  // namespace

std::vector<SepResult> analyse_network(const Model& m_in, const std::vector<Entry>& outputs,
                                       const std::vector<Partition>& partitions, const SepOptions& o_in,
                                       const SepProgress& progress, const AnalysisContext& run) {
  SepOptions o = resolved(o_in);
  // Generic mode: the methods read the shape (weights 1); the black-box draws
  // its weights mod its prime (GenericDraws).
  // One network: its canonical form (model.hpp), so that a traced or
  // hand-written model gets the methods of the layers it computes. Not the
  // generic shape: a composition of maps is a smaller family than one map.
  const Model m = o.generic ? shape_with_ones(m_in) : canonical_form(m_in);
  validate_request(m, outputs, partitions, o);
  if (!o.blackbox_seed) o.blackbox_seed = os_random_seed();
  const auto est = estimate_expansion(m);
  const bool by_default = o.methods.empty();
  const bool expandable = est.terms <= o.max_terms;
  const std::vector<Method> list = request_methods(o, expandable, long_denominators(m));
  std::optional<GenericDraws> generic;
  if (o.generic) generic.emplace(m_in, *o.blackbox_seed);
  // The methods before the first that needs the expansion run first (support:
  // certified and cheap), so that what an expansion costs never delays them.
  std::size_t first_expanding = list.size();
  for (std::size_t k = 0; k < list.size() && first_expanding == list.size(); ++k)
    if (method_info(list[k]).needs_expansion) first_expanding = k;
  const std::vector<Method> before(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(first_expanding));
  const std::vector<Method> after(list.begin() + static_cast<std::ptrdiff_t>(first_expanding), list.end());
  const bool needs_expansion = first_expanding < list.size();
  std::vector<SepResult> results;
  // Lexicographic: expand_packed() can then pack variables (the analysis never prints the terms).
  PolyRing R(static_cast<slong>(m.num_inputs()), ORD_LEX);
  methods::BlackboxDraws draws(m, o);  // only if a black-box runs
  for (const auto& e : outputs) {
    std::vector<std::unique_ptr<Pair>> pairs;
    std::vector<std::unique_ptr<methods::MethodContext>> ctxs;
    for (const auto& P : partitions) {
      pairs.push_back(std::make_unique<Pair>(m, e, P));
      Pair& q = *pairs.back();
      q.res.generic = o.generic;
      ctxs.push_back(std::make_unique<methods::MethodContext>(methods::MethodContext{.model = &m,
                                                                                    .e = e,
                                                                                    .P = P,
                                                                                    .o = o,
                                                                                    .run = run,
                                                                                    .res = q.res,
                                                                                    .by_default = by_default,
                                                                                    .degree = est.degree,
                                                                                    .matrix = &q.mc,
                                                                                    .bidegrees = &q.bidegrees,
                                                                                    .blackbox = &draws,
                                                                                    .generic = generic ? &*generic : nullptr,
                                                                                    .realified = m.gaussian()}));
    }
    // The pair's result so far, for a caller that shows or keeps work as it goes.
    auto report_partial = [&](const Pair& q) {
      if (!progress) return;
      SepResult partial = q.res;
      combine(partial);
      progress(partial, false);
    };
    for (std::size_t k = 0; k < pairs.size(); ++k)
      run_methods(pairs[k]->res, *ctxs[k], before, by_default, {}, "", [&] { report_partial(*pairs[k]); });
    auto open = [&] {
      return std::any_of(pairs.begin(), pairs.end(), [](const auto& q) { return !closed(q->res); });
    };
    Expansion y;  // packed (read in its packed ring: the analysis never needs the terms unpacked), or realified
    double expand_seconds = 0;
    std::string expand_skip;
    if (needs_expansion && (!by_default || open())) {
      expand_skip = expansion_refused(m, est, o, run, by_default);
      const double secs = expansion_seconds_estimate(est.terms);
      if (!by_default && o.budget_is_default && est.terms <= o.max_terms && secs > o.budget)
        refuse_named(list[first_expanding], (m.gaussian() ? 2 : 1) * secs, o);
      // Named, a method that needs the expansion is refused beyond --max-terms
      // (a claim's quantity stays a bracket instead: the claim language's rule).
      if (!by_default && !run.nominal && est.terms > o.max_terms)
        throw LimitError("--methods " + std::string(method_name(list[first_expanding])) +
                         ": it needs the expansion, estimated at " + fmt_g(est.terms) + " terms, more than --max-terms " +
                         fmt_g(o.max_terms) + "; raise --max-terms to run it, or leave it out of --methods");
      if (expand_skip.empty() && by_default)
        black_box_before_expansion(pairs, ctxs, est.terms, secs, after, expand_skip, report_partial);
      if (expand_skip.empty()) {
        auto t0 = std::chrono::steady_clock::now();
        y = expand_watched(R, m, e, est, run, o, by_default, expand_skip);
        expand_seconds = seconds_since(t0);
        if (run.nominal) run.charge((m.gaussian() ? 2 : 1) * secs);
      }
    }
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      Pair& q = *pairs[k];
      if (y) {
        q.res.sizes["terms"] = y.terms;
        q.res.sizes["expansion_seconds"] = expand_seconds;
      }
      if (m.gaussian()) q.res.sizes["field"] = "Q(i)";
      std::function<SparseIntMatrix()> matrix;
      if (y) matrix = [&] { return y.matrix(q.res.partition); };
      run_methods(q.res, *ctxs[k], after, by_default, matrix, expand_skip, [&] { report_partial(q); });
      drop_superseded_probe(q.res.runs);
      combine(q.res);
      if (progress) progress(q.res, true);
      results.push_back(std::move(q.res));
    }
  }
  return results;
}

json to_json(const SepResult& r) {
  json j;
  j["output"] = {{"token", r.output.token}, {"channel", r.output.channel}};
  j["quantity"] = quantity_name(r);
  j["partition"] = {{"A", r.partition.a_names()}, {"B", r.partition.b_names()},
                    {"by", r.partition.by_tokens ? "tokens" : "variables"}};
  r.write_ends_json(j);
  json sizes = r.sizes;
  sizes.erase("expansion_seconds");
  j["sizes"] = sizes;
  json methods = json::array(), timings = json::object();
  for (const auto& m : r.runs) {
    json x = {{"method", method_name(m.method)}, {"kind", run_kind_name(m.kind)}, {"how", m.how}, {"details", m.details}};
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

std::string quantity_name(const SepResult& r) {
  return r.generic ? "generic sep of this shape" : "sep of this network";
}

Bracket sup_of(const std::vector<SepResult>& rs) { return Bracket::sup({rs.begin(), rs.end()}); }
Bracket inf_of(const std::vector<SepResult>& rs) { return Bracket::inf({rs.begin(), rs.end()}); }

}  // namespace netpoly
