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
// The methods that evaluate the network (blackbox, grid, numeric) are not
// offered for Gaussian weights yet.
#include "gauss_sep.hpp"

#include "netpoly/error.hpp"
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

}  // namespace

void check_methods_for(const Model& m, const std::vector<Method>& methods) {
  if (!m.gaussian()) return;
  for (Method x : methods)
    if (!method_info(x).accepts_polynomial)
      throw InputError(std::string("method ") + method_name(x) + " evaluates the network over a prime field or in "
                       "doubles, which Gaussian weights (a+bi) do not have yet; use group, exact, modular or support");
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

std::vector<SepResult> analyse_gaussian(const Model& m, const std::vector<Entry>& outputs,
                                        const std::vector<Partition>& partitions, const SepOptions& o,
                                        const SepProgress& progress, const AnalysisContext& run) {
  check_methods_for(m, o.methods);
  check_expansion_size(m, o.max_terms);
  run.check_memory(2 * expansion_memory_estimate(m), "the expansion over Q(i)");
  PolyRing R(static_cast<slong>(m.num_inputs()));
  std::vector<SepResult> results;
  for (const auto& e : outputs) {
    const GaussPoly y = expand_gauss(R, m, {e})[0];
    const FmpqMpoly F = realified_polynomial(y.re, y.im);
    for (const auto& P : partitions) {
      Partition Pf = P;
      Pf.by_tokens = false;
      Pf.tokens.clear();
      Pf.in_A.push_back(1);  // u
      Pf.in_A.push_back(0);  // v
      SepResult res = analyse_polynomial(F, Pf, o, run);
      for (auto& r : res.runs) halve(r);
      static_cast<Bracket&>(res) = Bracket::combine(res.runs);
      res.output = e;
      res.partition = P;
      res.sizes["terms"] = poly_stats(y, m.tokens, m.width).terms;
      res.sizes["field"] = "Q(i)";
      if (progress) progress(res, true);
      results.push_back(std::move(res));
    }
  }
  return results;
}

}  // namespace netpoly
