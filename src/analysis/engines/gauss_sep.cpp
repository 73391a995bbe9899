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
// numeric takes the grid in complex doubles. blackbox runs on the model
// itself, mod a random prime p = 1 mod 4 with i a square root of -1
// (blackbox/prime.cpp); only mixer needs real weights (check_methods_for).
#include "analysis/engines/gauss_sep.hpp"

#include "netpoly/error.hpp"
#include "analysis/methods/method.hpp"
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

}  // namespace

void halve_realified(MethodRun& r) {
  if (!r.value) return;
  const std::size_t v = *r.value;
  if (r.kind == RunKind::exact && v % 2)
    throw InternalError("the realified coefficient matrix of a Gaussian polynomial has odd rank " + std::to_string(v));
  r.value = r.kind == RunKind::lower ? (v + 1) / 2 : v / 2;
  r.how += " [rank over Q(i): half the rank of the realified matrix [[A, -B], [B, A]] (" + std::to_string(v) + ")]";
}


void check_methods_for(const Model& m, const std::vector<Method>& methods, ulong prime) {
  if (!m.gaussian()) return;
  if (prime) (void)ModpRing::gaussian(prime);  // --prime must be 1 mod 4 (InputError)
  for (Method x : methods)
    if (!method_info(x).gaussian) {
      std::string ok;
      for (const MethodInfo* i : method_registry())
        if (i->gaussian) ok += (ok.empty() ? "" : ", ") + std::string(i->id.id());
      throw InputError(std::string("method ") + method_name(x) + " is not available for Gaussian weights (a+bi) "
                       "yet; use " + ok);
    }
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

Partition realified_partition(const Partition& P) {
  Partition Pf = P;
  Pf.by_tokens = false;
  Pf.tokens.clear();
  Pf.in_A.push_back(1);  // u
  Pf.in_A.push_back(0);  // v
  return Pf;
}

SepResult analyse_realified(const FmpqMpoly& F, const Partition& P, const SepOptions& o, const AnalysisContext& run) {
  SepResult r = analyse_polynomial(F, realified_partition(P), o, run);
  for (auto& x : r.runs) halve_realified(x);
  static_cast<Bracket&>(r) = Bracket::combine(r.runs);
  r.partition = P;
  r.sizes["field"] = "Q(i)";
  return r;
}

SepResult analyse_gaussian_polynomial(const FmpqMpoly& re, const FmpqMpoly& im, const Partition& P,
                                      const SepOptions& o, const AnalysisContext& run) {
  return analyse_realified(realified_polynomial(re, im), P, o, run);
}

}  // namespace netpoly
