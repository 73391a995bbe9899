// Separation rank over C of a model with Gaussian weights (gauss.hpp). Its
// output y = P + iQ (P, Q real) has the coefficient matrix M = A + iB (A of P,
// B of Q), and rank_C(M) = rank_Q([[A, -B], [B, A]]) / 2. That block matrix is
// the coefficient matrix of the real polynomial
//   F = P (1 + u v) + Q (u - v)
// in two more variables, u on side A and v on side B (rows: A-monomials times
// 1, u; columns: B-monomials times 1, v). So every method that reads a
// polynomial's coefficient matrix (group, exact, modular, support of the
// polynomial) runs on F unchanged, and each of its numbers is halved: an exact
// rank exactly (it is even), a lower bound rounded up, an upper bound down.
// The network's own methods run on the model: support (the monomials any
// weights can produce; valid over C) and grid (LV Claim 1 over Q(i) through
// the realified grid matrix, or mod a prime p = 1 mod 4 with i = sqrt(-1)).
// numeric takes the grid in complex doubles. blackbox is not offered for
// Gaussian weights yet.
#include "gauss_sep.hpp"

#include "netpoly/error.hpp"
#include "methods/method.hpp"
#include "netpoly/expand.hpp"

namespace netpoly {

namespace {

// p (n variables) in the ring of n + 2 variables.
FmpqMpoly lift(const FmpqMpoly& p, const FmpqMpolyCtxPtr& C) {
  FmpqMpoly r(C);
  const slong n = p.ctx()->nvars();
  std::vector<ulong> e(static_cast<std::size_t>(n + 2), 0);
  Fmpq c;
  for (slong t = 0; t < p.length(); ++t) {
    fmpq_mpoly_get_term_exp_ui(e.data(), p.get(), t, p.c());
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_push_term_fmpq_ui(r.get(), c.get(), e.data(), C->get());
  }
  fmpq_mpoly_sort_terms(r.get(), C->get());
  fmpq_mpoly_combine_like_terms(r.get(), C->get());
  return r;
}

void halve(MethodRun& r) {
  if (!r.value) return;
  const std::size_t v = *r.value;
  if (r.kind == RunKind::exact && v % 2)
    throw InternalError("the realified coefficient matrix of a Gaussian polynomial has odd rank " + std::to_string(v));
  r.value = r.kind == RunKind::lower ? (v + 1) / 2 : v / 2;
  r.how += " [rank over Q(i): half the rank of the realified matrix [[A, -B], [B, A]] (" + std::to_string(v) + ")]";
}

// The methods that run on the network itself over Q(i): support (the monomials
// any weights can produce), grid and numeric (values over Q(i), mod p or in
// complex doubles), blackbox (values mod p = 1 mod 4 with i = sqrt(-1)).
bool on_network(Method x) {
  return x == Method::support || x == Method::grid || x == Method::numeric || x == Method::blackbox ||
         x == Method("gram");
}

}  // namespace

void check_methods_for(const Model& m, const std::vector<Method>& methods, ulong prime) {
  if (!m.gaussian()) return;
  if (prime) (void)ModpRing::gaussian(prime);  // --prime must be 1 mod 4 (InputError)
  for (Method x : methods)
    if (!method_info(x).accepts_polynomial && !on_network(x))
      throw InputError(std::string("method ") + method_name(x) + " is not available for Gaussian weights (a+bi) "
                       "yet; use support, grid, numeric, blackbox, group, exact or modular");
}

FmpqMpoly realified_polynomial(const FmpqMpoly& re, const FmpqMpoly& im) {
  const slong n = re.ctx()->nvars();
  FmpqMpolyCtxPtr C = std::make_shared<FmpqMpolyCtx>(n + 2, re.ctx()->get()->zctx->minfo->ord);
  FmpqMpoly P = lift(re, C), Q = lift(im, C), u(C), v(C), t(C), F(C);
  fmpq_mpoly_gen(u.get(), n, C->get());
  fmpq_mpoly_gen(v.get(), n + 1, C->get());
  fmpq_mpoly_mul(t.get(), u.get(), v.get(), C->get());  // uv
  fmpq_mpoly_add_si(t.get(), t.get(), 1, C->get());     // 1 + uv
  fmpq_mpoly_mul(F.get(), P.get(), t.get(), C->get());
  fmpq_mpoly_sub(t.get(), u.get(), v.get(), C->get());  // u - v
  fmpq_mpoly_mul(t.get(), Q.get(), t.get(), C->get());
  fmpq_mpoly_add(F.get(), F.get(), t.get(), C->get());
  return F;
}

SepResult analyse_realified(const FmpqMpoly& F, const Partition& P, const SepOptions& o, const AnalysisContext& run) {
  Partition Pf = P;
  Pf.by_tokens = false;
  Pf.tokens.clear();
  Pf.in_A.push_back(1);  // u
  Pf.in_A.push_back(0);  // v
  SepResult r = analyse_polynomial(F, Pf, o, run);
  for (auto& x : r.runs) halve(x);
  static_cast<Bracket&>(r) = Bracket::combine(r.runs);
  r.partition = P;
  r.sizes["field"] = "Q(i)";
  return r;
}

SepResult analyse_gaussian_polynomial(const FmpqMpoly& re, const FmpqMpoly& im, const Partition& P,
                                      const SepOptions& o, const AnalysisContext& run) {
  return analyse_realified(realified_polynomial(re, im), P, o, run);
}

std::vector<SepResult> analyse_gaussian(const Model& m, const std::vector<Entry>& outputs,
                                        const std::vector<Partition>& partitions, const SepOptions& o,
                                        const SepProgress& progress, const AnalysisContext& run) {
  check_methods_for(m, o.methods, o.prime);
  const auto est = estimate_expansion(m);
  const bool expandable = est.terms <= o.max_terms;
  const bool by_default = o.methods.empty();
  std::vector<Method> on_poly, on_net;
  for (Method x : by_default ? plan(expandable ? PlanFor::expandable_network : PlanFor::unexpandable_network)
                             : o.methods) {
    if (method_info(x).accepts_polynomial) on_poly.push_back(x);
    else if (on_network(x)) on_net.push_back(x);  // others: not by default (checked above)
  }
  SepOptions po = o;
  po.methods = on_poly;
  if (!on_poly.empty()) {
    check_expansion_size(m, o.max_terms);
    run.check_memory(2 * expansion_memory_estimate(m), "the expansion over Q(i)");
  }
  PolyRing R(static_cast<slong>(m.num_inputs()));
  std::vector<SepResult> results;
  methods::BlackboxDraws draws(m, o);  // p = 1 mod 4, if a black-box runs
  for (const auto& e : outputs) {
    std::optional<FmpqMpoly> F;
    slong terms = 0;
    if (!on_poly.empty()) {
      const GaussPoly y = expand_gauss(R, m, {e})[0];
      terms = poly_stats(y, m.tokens, m.width).terms;
      F = realified_polynomial(y.re, y.im);
    }
    for (const auto& P : partitions) {
      SepResult res;
      // The network's own methods first: support (the monomials any weights
      // can produce) and the grid (LV Claim 1 over Q(i), or mod p with i = sqrt(-1)).
      methods::BidegreeCache bidegrees{m, e, P, false, std::nullopt, {}};
      for (Method x : on_net) {
        methods::MethodContext ctx{.model = &m, .e = e, .P = P, .o = o, .run = run, .res = res,
                                   .by_default = by_default, .degree = est.degree, .bidegrees = &bidegrees,
                                   .blackbox = &draws};
        const MethodInfo& info = method_info(x);
        if (by_default && info.applies && !info.applies(ctx)) continue;
        res.runs.push_back(info.run(ctx));
      }
      if (F) {
        SepResult on_F = analyse_realified(*F, P, po, run);
        for (auto& r : on_F.runs) res.runs.push_back(std::move(r));
        res.sizes = on_F.sizes;
        res.sizes["terms"] = terms;
      }
      static_cast<Bracket&>(res) = Bracket::combine(res.runs);
      res.output = e;
      res.partition = P;
      res.sizes["field"] = "Q(i)";
      if (progress) progress(res, true);
      results.push_back(std::move(res));
    }
  }
  return results;
}

}  // namespace netpoly
