// Functions on polynomials: random and written-out polynomials (generators),
// and degree, terms and vars of a polynomial, network or output.
#include <algorithm>
#include <cmath>
#include <functional>

#include "function.hpp"
#include "netpoly/expand.hpp"
#include "model/gauss.hpp"
#include "runtime/random.hpp"
#include "claims/eval/work_limits.hpp"

namespace netpoly::claims_detail {
namespace {

std::vector<Value> gen_random_poly(Evaluator& ev, const Expr& e, const Env& env) {
  auto list_of = [&](const char* n, std::vector<slong> dflt) {
    const Arg* a = named(e, n);
    if (!a) return dflt;
    Value v = ev.eval(*a->value, env);
    std::vector<slong> r;
    if (v.kind == Value::Kind::list)
      for (const auto& x : *v.list) r.push_back(need_int(x, a->loc, n));
    else
      r.push_back(need_int(v, a->loc, n));
    return r;
  };
  // terms and degree: a value or a range a..b to draw from
  auto span = [&](const char* n, slong lo_dflt, slong hi_dflt, bool single_is_max) {
    const Arg* a = named(e, n);
    if (!a) return std::make_pair(lo_dflt, hi_dflt);
    if (a->value->kind == Expr::Kind::range)
      return std::make_pair(need_int(ev.eval(*a->value->kids[0], env), a->loc, n),
                            need_int(ev.eval(*a->value->kids[1], env), a->loc, n));
    const slong x = need_int(ev.eval(*a->value, env), a->loc, n);
    return std::make_pair(single_is_max ? std::min<slong>(1, x) : x, x);
  };
  const auto vars = list_of("vars", {4});
  const auto seeds = list_of("seed", {1});
  const auto [tlo, thi] = span("terms", 2, 6, false);
  const auto [dlo, dhi] = span("degree", 1, 2, true);
  slong R = 3;
  if (const Arg* a = named(e, "coeffs")) R = need_int(ev.eval(*a->value, env), a->loc, "coeffs");
  if (tlo < 0 || thi < tlo || dlo < 0 || dhi < dlo || R < 1 || dhi > 64)
    fail(e.loc, "random_poly: need 0 <= terms lo <= hi, 0 <= degree lo <= hi <= 64, coeffs >= 1");
  // The work: up to `thi` terms per polynomial, each pushed once and the
  // like terms combined at the end (adding them one by one costs the square).
  check_terms(ev, e, static_cast<double>(thi), "random_poly with up to " + std::to_string(thi) + " terms");
  double words = 0;
  for (slong n : vars) words = std::max(words, std::ceil(static_cast<double>(std::max<slong>(n, 1)) * 8 / 64));
  check_work_memory(e, 2 * static_cast<double>(thi) * (8 * words + 48),
                    "random_poly with up to " + std::to_string(thi) + " terms");
  WorkClock clock(ev, e);
  std::vector<Value> out;
  for (slong n : vars) {
    if (n < 1 || n > 64) fail(e.loc, "random_poly: vars must be in [1, 64]");
    for (slong s : seeds) {
      SplitMix64 g(static_cast<std::uint64_t>(s));
      auto C = ev.ctx(static_cast<std::size_t>(n));
      auto pv = std::make_shared<PolyVal>(FmpqMpoly(C));
      pv->tokens = static_cast<std::size_t>(n);
      pv->width = 1;
      pv->flat = true;
      const slong nt = tlo + static_cast<slong>(g.below(static_cast<std::uint64_t>(thi - tlo + 1)));
      std::vector<ulong> ex(static_cast<std::size_t>(n));
      for (slong k = 0; k < nt; ++k) {
        clock.tick();
        std::fill(ex.begin(), ex.end(), 0);
        const slong deg = dlo + static_cast<slong>(g.below(static_cast<std::uint64_t>(dhi - dlo + 1)));
        for (slong j = 0; j < deg; ++j) ++ex[g.below(static_cast<std::uint64_t>(n))];
        slong c = static_cast<slong>(g.below(static_cast<std::uint64_t>(2 * R)));
        c = c < R ? c - R : c - R + 1;  // uniform in [-R, R] without 0
        Fmpq cq(c);
        fmpq_mpoly_push_term_fmpq_ui(pv->p.get(), cq.get(), ex.data(), C->get());
      }
      fmpq_mpoly_sort_terms(pv->p.get(), C->get());
      fmpq_mpoly_combine_like_terms(pv->p.get(), C->get());
      Value v;
      v.kind = Value::Kind::poly;
      v.poly = pv;
      v.desc = "random_poly(vars = " + std::to_string(n) + ", terms = " + std::to_string(tlo) + ".." +
               std::to_string(thi) + ", degree = " + std::to_string(dlo) + ".." + std::to_string(dhi) +
               ", coeffs = " + std::to_string(R) + ", seed = " + std::to_string(s) + ")";
      out.push_back(std::move(v));
    }
  }
  return out;
}

// A poly("...") literal's terms as re + i im (im stays zero without I).
using CP = GaussRing<PolyRing>::Elem;

CP poly_terms(const Expr& top, const FmpqMpolyCtxPtr& C, std::size_t nvars, std::size_t tokens, std::size_t width,
              bool flat) {
  const GaussRing<PolyRing> G{PolyRing(C)};
  auto zero = [&] { return G.zero(); };
  auto mul = [&](const CP& a, const CP& b) { return G.mul(a, b); };
  std::function<CP(const Expr&)> term = [&](const Expr& x) -> CP {
    CP r = zero();
    switch (x.kind) {
      case Expr::Kind::number:
        fmpq_mpoly_set_fmpq(r.re.get(), x.number.get(), C->get());
        return r;
      case Expr::Kind::name: {
        if (x.str == "I") {
          fmpq_mpoly_one(r.im.get(), C->get());
          return r;
        }
        std::size_t k = 0;
        const auto us = x.str.find('_');
        if (us == std::string::npos) {
          k = std::stoul(x.str.substr(1));
        } else {
          const std::size_t i = std::stoul(x.str.substr(1, us - 1)), c = std::stoul(x.str.substr(us + 1));
          if (flat || c >= width || i >= tokens) fail(x.loc, "variable " + x.str + " out of range");
          k = i * width + c;
        }
        if (k >= nvars)
          fail(x.loc,
               "variable " + x.str + " out of range (the polynomial has " + std::to_string(nvars) + " variables)");
        fmpq_mpoly_gen(r.re.get(), static_cast<slong>(k), C->get());
        return r;
      }
      case Expr::Kind::neg: {
        CP a = term(*x.kids[0]);
        fmpq_mpoly_neg(r.re.get(), a.re.get(), C->get());
        fmpq_mpoly_neg(r.im.get(), a.im.get(), C->get());
        return r;
      }
      case Expr::Kind::binary: {
        CP a = term(*x.kids[0]);
        if (x.op == '^' || x.op == '/') {
          if (x.kids[1]->kind != Expr::Kind::number) fail(x.kids[1]->loc, "poly: expected a number here");
          const Fmpq& q = x.kids[1]->number;
          if (x.op == '/') {
            if (q.is_zero()) fail(x.loc, "division by zero");
            fmpq_mpoly_scalar_div_fmpq(r.re.get(), a.re.get(), q.get(), C->get());
            fmpq_mpoly_scalar_div_fmpq(r.im.get(), a.im.get(), q.get(), C->get());
            return r;
          }
          if (!q.is_integer() || fmpz_sgn(q.num()) < 0 || fmpz_cmp_ui(q.num(), 1000) > 0)
            fail(x.kids[1]->loc, "poly: exponents are integers 0..1000");
          const ulong k = fmpz_get_ui(q.num());
          if (a.im.is_zero()) {
            if (!fmpq_mpoly_pow_ui(r.re.get(), a.re.get(), k, C->get())) throw FlintFailure("poly: power failed");
            return r;
          }
          fmpq_mpoly_one(r.re.get(), C->get());
          for (ulong j = 0; j < k; ++j) r = mul(r, a);
          return r;
        }
        CP b = term(*x.kids[1]);
        if (x.op == '+' || x.op == '-') {
          auto f = x.op == '+' ? fmpq_mpoly_add : fmpq_mpoly_sub;
          f(r.re.get(), a.re.get(), b.re.get(), C->get());
          f(r.im.get(), a.im.get(), b.im.get(), C->get());
          return r;
        }
        return mul(a, b);
      }
      default:
        fail(x.loc, "poly: expected numbers, variables, I, + - * / ^ and parentheses");
    }
  };
  return term(top);
}

std::vector<Value> gen_poly(Evaluator& ev, const Expr& e, const Env& env) {
  // Variables: x{k} flat, or x{i}_{c} with tokens/width given.
  std::size_t tokens = 0, width = 1, nvars = 0;
  const Arg* av = named(e, "vars");
  const Arg* at = named(e, "tokens");
  const Arg* aw = named(e, "width");
  bool flat = true;
  if (at || aw) {
    if (!at || !aw || av) fail(e.loc, "poly: give vars = n, or tokens = N and width = d");
    tokens = need_size(ev.eval(*at->value, env), at->loc, "tokens");
    width = need_size(ev.eval(*aw->value, env), aw->loc, "width");
    nvars = tokens * width;
    flat = false;
  } else if (av) {
    nvars = need_size(ev.eval(*av->value, env), av->loc, "vars");
    tokens = nvars;
  }
  // Without a size: one more than the largest flat index written.
  bool has_i = false;
  std::function<void(const Expr&)> scan = [&](const Expr& x) {
    if (x.kind == Expr::Kind::name && x.str == "I") {
      has_i = true;
      return;
    }
    if (x.kind == Expr::Kind::name && !av && !at) {
      if (x.str.find('_') != std::string::npos) fail(x.loc, "poly: variables x{i}_{c} need tokens = N, width = d");
      const std::size_t k = std::stoul(x.str.substr(1));
      nvars = std::max(nvars, k + 1);
      tokens = nvars;
    }
    for (const auto& k : x.kids) scan(*k);
  };
  scan(*e.poly);
  if (nvars == 0) nvars = tokens = 1;
  auto C = ev.ctx(nvars);
  CP whole = poly_terms(*e.poly, C, nvars, tokens, width, flat);
  auto pv = std::make_shared<PolyVal>(std::move(whole.re));
  if (has_i) pv->im = std::move(whole.im);  // over Q(i) when I is written, even where it cancels
  pv->tokens = tokens;
  pv->width = width;
  pv->flat = flat;
  Value v;
  v.kind = Value::Kind::poly;
  v.poly = pv;
  v.desc = e.text;
  return {v};
}

Value poly_measure(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const auto& pos = a.pos;
  const std::string& f = e.str;
  Value target = a.arg(0);
  if (f == "vars") {
    std::size_t t = 0, w = 0;
    bool flat = true;
    shape_of(target, t, w, flat, pos[0]->loc);
    return make_int(static_cast<slong>(t * w));
  }
  auto pv = ev.as_poly(target, pos[0]->loc);
  // Terms and degrees are those of the monomials (of re and im over Q(i)).
  auto p = std::make_shared<PolyVal>(monomials_of(*pv));
  if (f == "terms") return make_int(p->p.length());
  // The zero polynomial's degree is -infinity, which no claim value can be:
  // refused rather than read as -1.
  if (p->p.is_zero()) fail(e.loc, "degree of the zero polynomial (it is -infinity); test terms(...) > 0 first");
  check_exponents_fit(p->p, e.loc.str() + ": degree");
  if (!e.part) return make_int(fmpq_mpoly_total_degree_si(p->p.get(), p->p.c()));
  PartVal P = ev.partition(e, target, env);
  slong best = 0;
  const slong nv = p->p.ctx()->nvars();
  std::vector<ulong> ex(static_cast<std::size_t>(nv));
  for (slong t = 0; t < p->p.length(); ++t) {
    fmpq_mpoly_get_term_exp_ui(ex.data(), p->p.get(), t, p->p.c());
    slong s = 0;
    for (slong v = 0; v < nv; ++v)
      if (static_cast<std::size_t>(v) < P.P.in_A.size() && P.P.in_A[static_cast<std::size_t>(v)])
        s += static_cast<slong>(ex[static_cast<std::size_t>(v)]);
    best = std::max(best, s);
  }
  return make_int(best);
}

}  // namespace

std::vector<FunctionInfo> polynomial_constructors() {
  using P = FunctionInfo::Part;
  return {
      {"random_poly",
       0,
       0,
       P::none,
       {"vars", "terms", "seed", "degree", "coeffs"},
       {},
       "seeded random polynomials in x0..x{vars-1}", nullptr, gen_random_poly},
      {"poly",
       1,
       1,
       P::none,
       {"vars", "tokens", "width"},
       {},
       "a polynomial written out: poly(\"x0*x3 + 2*x1\", vars = 4)", nullptr, gen_poly},
  };
}

std::vector<FunctionInfo> polynomial_measures() {
  using P = FunctionInfo::Part;
  return {
      {"degree", 1, 1, P::optional, {}, {}, "total degree, or the degree in side A of a partition", poly_measure},
      {"terms", 1, 1, P::none, {}, {}, "number of terms of the expanded polynomial", poly_measure},
      {"vars", 1, 1, P::none, {}, {}, "number of input variables", poly_measure},
  };
}

}  // namespace netpoly::claims_detail
