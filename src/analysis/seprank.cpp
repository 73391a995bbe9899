// The scheduler: which methods run on each (output, partition) pair, in
// what order, within which budget, sharing what (the expansion per output
// entry, the coefficient matrix and bidegrees per pair, the black-box prime
// per analysis). The methods themselves are in methods/, one file each.
#include "netpoly/seprank.hpp"

#include <chrono>
#include <random>

#include "gauss_sep.hpp"
#include "methods/method.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"

namespace netpoly {

using json = nlohmann::json;
using methods::fmt_g;
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
  methods::MethodContext c{.model = ctx.model, .e = ctx.e, .P = ctx.P, .o = o, .run = ctx.run, .res = ctx.res,
                           .by_default = ctx.by_default, .degree = ctx.degree, .matrix = ctx.matrix,
                           .bidegrees = ctx.bidegrees, .blackbox = ctx.blackbox, .small_prime_only = true};
  const auto t0 = std::chrono::steady_clock::now();
  MethodRun r = method_info(Method::blackbox).run(c);
  r.seconds = seconds_since(t0);
  if (!r.value || *r.value < *upper || !r.details.contains("small_prime")) return std::nullopt;
  return r;
}

void run_methods(SepResult& res, methods::MethodContext& ctx, const std::vector<Method>& list, bool stop_when_closed,
                 const std::function<SparseIntMatrix()>& matrix, const std::string& expand_skip,
                 const std::function<void()>& after_each, bool certify_first = false) {
  for (Method mm : list) {
    ctx.run.check_cancelled();
    if (stop_when_closed && closed(res)) break;
    const MethodInfo& info = method_info(mm);
    if (ctx.by_default && info.applies && !info.applies(ctx)) continue;
    if (info.needs_expansion && certify_first && matrix && !ctx.matrix->C) {
      certify_first = false;
      if (auto r = certify_before_expansion(ctx)) {
        res.runs.push_back(std::move(*r));
        if (after_each) after_each();
        if (closed(res)) break;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (info.needs_expansion) {
      if (!matrix) {
        res.runs.push_back(skipped(mm, expand_skip));
        continue;
      }
      if (!ctx.matrix->C) {
        ctx.matrix->C = matrix();
        ctx.matrix->blocks = split_blocks(*ctx.matrix->C);
        res.sizes["coefficient_matrix"] = {ctx.matrix->C->rows, ctx.matrix->C->cols};
        res.sizes["nnz"] = ctx.matrix->C->nnz();
      }
    }
    if (info.estimate) {
      const std::optional<double> est = info.estimate(ctx);
      if (est && *est > ctx.cap()) {
        res.runs.push_back(skipped(mm, "skipped: estimated " + fmt_g(*est) + " s exceeds what is left of --budget " +
                                           fmt_g(ctx.o.budget) + " s"));
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
    MethodRun r;
    try {
      r = info.run(ctx);
    } catch (const InputError& err) {
      if (!ctx.by_default) throw;
      r = skipped(mm, std::string("not run by default: ") + err.what());
    }
    r.seconds = seconds_since(t0);
    if (r.details.contains("grid")) res.sizes["grid"] = r.details["grid"];
    if (r.details.contains("points")) res.sizes["blackbox_points"] = r.details["points"];
    res.runs.push_back(std::move(r));
    if (after_each) after_each();
  }
}

std::uint64_t os_random_seed() {
  std::random_device rd;  // getrandom(2) on Linux
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

SepResult analyse_polynomial(const FmpqMpoly& y, const Partition& P, const SepOptions& o,
                             const AnalysisContext& run) {
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

std::vector<SepResult> analyse_network(const Model& m, const std::vector<Entry>& outputs,
                                       const std::vector<Partition>& partitions, const SepOptions& o_in,
                                       const SepProgress& progress, const AnalysisContext& run) {
  SepOptions o = o_in;
  if (!o.blackbox_seed) o.blackbox_seed = os_random_seed();
  // Validate before any work: a partition or an entry of another shape would index out of range.
  for (const auto& P : partitions) check_partition(P, m.num_inputs(), "the model");
  for (const auto& e : outputs)
    if (e.token >= m.tokens || e.channel >= m.output_width())
      throw InputError("output " + std::to_string(e.token) + "," + std::to_string(e.channel) +
                       ": out of range (the model has " + std::to_string(m.tokens) + " tokens and " +
                       std::to_string(m.output_width()) + " output channels)");
  if (m.gaussian()) return analyse_gaussian(m, outputs, partitions, o, progress, run);
  const auto est = estimate_expansion(m);
  const bool expandable = est.terms <= o.max_terms;
  const bool by_default = o.methods.empty();
  const std::vector<Method> list =
      by_default ? plan(expandable ? PlanFor::expandable_network : PlanFor::unexpandable_network) : o.methods;
  bool needs_expansion = false;
  for (Method mm : list) needs_expansion = needs_expansion || method_info(mm).needs_expansion;
  const double expand_cost = est.terms * 2e-6;
  std::vector<SepResult> results;
  // Lexicographic: expand_packed() can then pack variables (the analysis never prints the terms).
  PolyRing R(static_cast<slong>(m.num_inputs()), ORD_LEX);
  methods::BlackboxDraws draws(m, o);  // only if a black-box runs
  for (const auto& e : outputs) {
    std::optional<PackedExpansion> y;  // read in its packed ring: the analysis never needs the terms unpacked
    double expand_seconds = 0;
    std::string expand_skip;
    bool can_expand = false;
    if (needs_expansion) {
      if (!expandable) {
        expand_skip = "skipped: expansion estimated at " + fmt_g(est.terms) + " terms exceeds --max-terms " +
                      fmt_g(o.max_terms) + " (raise --max-terms, or use support/blackbox/grid)";
      } else if (expand_cost > std::min(o.budget, run.budget_left())) {
        expand_skip = "skipped: expansion estimated " + fmt_g(expand_cost) + " s exceeds --budget " + fmt_g(o.budget) + " s";
      } else {
        can_expand = true;
      }
    }
    // Expanded when a method first reads a coefficient matrix, once per entry.
    auto expansion = [&]() -> const PackedExpansion& {
      if (!y) {
        run.check_memory(expansion_memory_estimate(m), "the expansion");
        auto t0 = std::chrono::steady_clock::now();
        y = std::move(expand_packed(R, m, {e})[0]);
        expand_seconds = seconds_since(t0);
      }
      return *y;
    };
    for (const auto& P : partitions) {
      SepResult res;
      res.output = e;
      res.partition = P;
      methods::MatrixCache mc;
      methods::BidegreeCache bidegrees{m, e, P, false, std::nullopt, {}};
      methods::MethodContext ctx{.model = &m,
                                 .e = e,
                                 .P = P,
                                 .o = o,
                                 .run = run,
                                 .res = res,
                                 .by_default = by_default,
                                 .degree = est.degree,
                                 .matrix = &mc,
                                 .bidegrees = &bidegrees,
                                 .blackbox = &draws};
      // The pair's result so far, for a caller that shows or keeps work as it goes.
      auto report_partial = [&] {
        if (!progress) return;
        SepResult partial = res;
        combine(partial);
        progress(partial, false);
      };
      std::function<SparseIntMatrix()> matrix;
      if (can_expand) matrix = [&] {
        const PackedExpansion& ye = expansion();
        res.sizes["terms"] = ye.poly.length();
        res.sizes["expansion_seconds"] = expand_seconds;
        return coefficient_matrix(ye, P);
      };
      run_methods(res, ctx, list, by_default, matrix, expand_skip, report_partial,
                  by_default && !y && est.terms > kCertifyFirstTerms);
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

Bracket sup_of(const std::vector<SepResult>& rs) { return Bracket::sup({rs.begin(), rs.end()}); }
Bracket inf_of(const std::vector<SepResult>& rs) { return Bracket::inf({rs.begin(), rs.end()}); }

}  // namespace netpoly
