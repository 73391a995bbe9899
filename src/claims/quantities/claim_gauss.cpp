// Polynomials over Q(i) in claims: poly("x0 + I*x1", vars = 2), the outputs
// of networks with Gaussian weights, and arithmetic on them. A PolyVal keeps
// the real part in p and the imaginary part in im; sep(...) of one is over C
// (analyse_gaussian_polynomial: the realified polynomial, halved).
#include "claims/eval/claim_eval.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "model/gauss.hpp"
#include "claims/eval/work_limits.hpp"

namespace netpoly::claims_detail {

bool gaussian_value(const Value& v) {
  if (v.kind == Value::Kind::poly) return v.poly->im.has_value();
  if (v.kind == Value::Kind::net || v.kind == Value::Kind::output) return v.net->model.gaussian();
  return false;
}

namespace {

using CPoly = GaussRing<PolyRing>::Elem;

// x y over Q(i) (GaussRing: the one home of complex arithmetic), refused up
// front beyond the claims' size limit like a real product.
CPoly cmul(const CPoly& x, const CPoly& y, const FmpqMpolyCtxPtr& C, double max_terms) {
  const double size = static_cast<double>(std::max<slong>(1, x.re.length() + x.im.length())) *
                      static_cast<double>(std::max<slong>(1, y.re.length() + y.im.length()));
  if (size > 10 * max_terms)
    throw LimitError("product of polynomials over Q(i) with " + std::to_string(x.re.length() + x.im.length()) +
                     " and " + std::to_string(y.re.length() + y.im.length()) + " terms exceeds 10 x max_terms");
  return GaussRing<PolyRing>(PolyRing(C)).mul(x, y);
}

}  // namespace

FmpqMpoly lift_to(const FmpqMpoly& p, const FmpqMpolyCtxPtr& C) {
  if (p.ctx().get() == C.get()) return p;
  FmpqMpoly r(C);
  std::vector<slong> map(static_cast<std::size_t>(p.ctx()->nvars()));
  for (std::size_t i = 0; i < map.size(); ++i) map[i] = static_cast<slong>(i);
  fmpq_mpoly_compose_fmpq_mpoly_gen(r.get(), p.get(), map.data(), p.c(), C->get());
  return r;
}

// The variables of a OP b are the n of the larger side: the shape (tokens x width) of an
// operand with n variables (the left one first), else n flat variables x0 .. x{n-1}.
void result_shape(PolyVal& out, const std::shared_ptr<const PolyVal>& a, const std::shared_ptr<const PolyVal>& b,
                  std::size_t n) {
  auto fits = [n](const std::shared_ptr<const PolyVal>& p) { return p && p->tokens * p->width == n; };
  const PolyVal* s = fits(a) ? a.get() : fits(b) ? b.get() : nullptr;
  out.tokens = s ? s->tokens : n;
  out.width = s ? s->width : 1;
  out.flat = s ? s->flat : true;
}

Value gauss_binary(Evaluator& ev, const Expr& e, const Value& a, const Value& b) {
  const char op = e.op ? e.op : '-';
  auto polylike = [](const Value& v) {
    return v.kind == Value::Kind::poly || v.kind == Value::Kind::net || v.kind == Value::Kind::output;
  };
  std::shared_ptr<const PolyVal> pa, pb;
  if (polylike(a)) pa = ev.as_poly(a, e.loc);
  if (polylike(b)) pb = ev.as_poly(b, e.loc);
  const std::size_t n = std::max(pa ? static_cast<std::size_t>(pa->p.ctx()->nvars()) : 0,
                                 pb ? static_cast<std::size_t>(pb->p.ctx()->nvars()) : 0);
  auto C = ev.ctx(n);
  auto operand = [&](const std::shared_ptr<const PolyVal>& p, const Value& v) {
    CPoly x{FmpqMpoly(C), FmpqMpoly(C)};
    if (p) {
      x.re = lift_to(p->p, C);
      if (p->im) x.im = lift_to(*p->im, C);
    } else {
      if (!v.num.is_exact()) fail(e.loc, "only an exact number can be combined with a polynomial, got " + describe(v.num));
      fmpq_mpoly_set_fmpq(x.re.get(), v.num.cert.lo.value().get(), C->get());
    }
    return x;
  };
  const double max_terms = ev.defaults().max_terms;
  CPoly x = operand(pa, a), r{FmpqMpoly(C), FmpqMpoly(C)};
  if (op == '^' || op == '/') {
    if (b.kind != Value::Kind::number || !b.num.is_exact())
      fail(e.loc, op == '^' ? "a polynomial power needs an exact integer exponent"
                            : "a polynomial can only be divided by an exact number");
    if (op == '/') {
      if (b.num.cert.lo.sign() == 0) fail(e.loc, "division by zero");
      const Fmpq q = b.num.cert.lo.value();
      fmpq_mpoly_scalar_div_fmpq(r.re.get(), x.re.get(), q.get(), C->get());
      fmpq_mpoly_scalar_div_fmpq(r.im.get(), x.im.get(), q.get(), C->get());
    } else {
      const slong k = need_int(b, e.kids.size() > 1 ? e.kids[1]->loc : e.loc, "the exponent");
      if (k < 0) fail(e.loc, "a polynomial power needs an exponent >= 0");
      {  // the size of x^k, estimated from re + im (its terms and coefficients' sizes)
        FmpqMpoly both(C);
        fmpq_mpoly_add(both.get(), x.re.get(), x.im.get(), C->get());
        check_power_size(ev, e, both, static_cast<ulong>(k));
      }
      fmpq_mpoly_one(r.re.get(), C->get());
      for (slong bit = 62; bit >= 0; --bit) {  // square and multiply
        r = cmul(r, r, C, max_terms);
        if ((k >> bit) & 1) r = cmul(r, x, C, max_terms);
      }
    }
  } else {
    CPoly y = operand(pb, b);
    if (op == '+' || op == '-') {
      auto f = op == '+' ? fmpq_mpoly_add : fmpq_mpoly_sub;
      f(r.re.get(), x.re.get(), y.re.get(), C->get());
      f(r.im.get(), x.im.get(), y.im.get(), C->get());
    } else {
      r = cmul(x, y, C, max_terms);
    }
  }
  auto out = std::make_shared<PolyVal>(std::move(r.re));
  out->im = std::move(r.im);
  result_shape(*out, pa, pb, n);
  return make_poly(out);
}

FmpqMpoly monomials_of(const PolyVal& p) { return p.im ? monomial_union(p.p, *p.im) : p.p; }


}  // namespace netpoly::claims_detail
