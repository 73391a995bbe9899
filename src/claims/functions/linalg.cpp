// Exact linear algebra on matrices written as lists of rows: det(A) and
// rank(A) over Q (FLINT's fmpq_mat) and over Q[x] or Q(i)[x] (fraction-free
// elimination, Bareiss: every division exact in the polynomial ring, checked
// by FLINT's fmpq_mpoly_divides, so the rank is the one over the field of
// fractions); compositions(n, k); subs(f, point). What LV Lemma 7 (a
// determinant's top degree), LV Claim 2 (ranks of A(Ω)) and B.2's
// compositions need.
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

#include "claims/eval/work_limits.hpp"
#include "function.hpp"
#include "netpoly/error.hpp"
#include "domains/flint_linalg.hpp"
#include "model/gauss.hpp"
#include "analysis/rank/rank.hpp"
#include "netpoly/rings.hpp"
#include "runtime/number_text.hpp"

namespace netpoly::claims_detail {
namespace {

using CPoly = GaussRing<PolyRing>::Elem;
using PolyMatrix = std::vector<std::vector<CPoly>>;

// The matrix's entries as exact rationals, when every one is an exact number.
std::optional<FmpqMat> number_matrix(const Matrix& m, const SrcLoc& at, const std::string& what) {
  FmpqMat r(static_cast<slong>(m.size()), static_cast<slong>(m[0].size()));
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m[0].size(); ++j) {
      const Value& x = m[i][j];
      if (x.kind != Value::Kind::number) return std::nullopt;
      if (!x.num.is_exact())
        fail(at, what + ": entry [" + std::to_string(i) + ", " + std::to_string(j) + "] is " + describe(x.num) +
                     ", not an exact number");
      fmpq_set(r.at(static_cast<slong>(i), static_cast<slong>(j)), x.num.cert.lo.value().get());
    }
  return r;
}

// The entries as polynomials over Q(i) in one context (the most variables of any entry).
PolyMatrix poly_matrix(Evaluator& ev, const Matrix& m, const SrcLoc& at, const std::string& what, bool& complex,
                       FmpqMpolyCtxPtr& C) {
  std::size_t n = 1;
  std::vector<std::vector<std::shared_ptr<const PolyVal>>> ps(m.size());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (const auto& x : m[i]) {
      if (x.kind == Value::Kind::number) {
        if (!x.num.is_exact()) fail(at, what + ": an entry is " + describe(x.num) + ", not an exact number");
        ps[i].push_back(nullptr);
        continue;
      }
      ps[i].push_back(ev.as_poly(x, at));
      n = std::max(n, static_cast<std::size_t>(ps[i].back()->p.ctx()->nvars()));
    }
  C = ev.ctx(n);
  complex = false;
  PolyMatrix out(m.size());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m[i].size(); ++j) {
      CPoly e{FmpqMpoly(C), FmpqMpoly(C)};
      if (const auto& p = ps[i][j]) {
        e.re = lift_to(p->p, C);
        if (p->im) {
          e.im = lift_to(*p->im, C);
          complex = true;
        }
      } else {
        fmpq_mpoly_set_fmpq(e.re.get(), m[i][j].num.cert.lo.value().get(), C->get());
      }
      out[i].push_back(std::move(e));
    }
  return out;
}

bool is_zero(const CPoly& x) { return x.re.is_zero() && x.im.is_zero(); }

// q = a / d, exact in Q(i)[x] (Bareiss' divisions always are): a conj(d) / (d conj(d)) over Q(i).
CPoly exact_div(const GaussRing<PolyRing>& R, const CPoly& a, const CPoly& d) {
  const FmpqMpolyCtxPtr& C = a.re.ctx();
  CPoly q{FmpqMpoly(C), FmpqMpoly(C)};
  auto divide = [&](FmpqMpoly& out, const FmpqMpoly& num, const FmpqMpoly& den) {
    if (!fmpq_mpoly_divides(out.get(), num.get(), den.get(), C->get()))
      throw InternalError("det/rank: a fraction-free elimination step did not divide exactly");
  };
  if (d.im.is_zero()) {
    divide(q.re, a.re, d.re);
    divide(q.im, a.im, d.re);
    return q;
  }
  CPoly conj{d.re, FmpqMpoly(C)};
  fmpq_mpoly_neg(conj.im.get(), d.im.get(), C->get());
  const CPoly num = R.mul(a, conj);
  FmpqMpoly norm(C), t(C);
  fmpq_mpoly_mul(norm.get(), d.re.get(), d.re.get(), C->get());
  fmpq_mpoly_mul(t.get(), d.im.get(), d.im.get(), C->get());
  fmpq_mpoly_add(norm.get(), norm.get(), t.get(), C->get());
  divide(q.re, num.re, norm);
  divide(q.im, num.im, norm);
  return q;
}

// Fraction-free (Bareiss) elimination in place: the rank over the field of
// fractions, and the sign of the row swaps. Every entry it writes is a minor
// of the input, so every division is exact.
std::size_t bareiss(PolyMatrix& M, int& sign, double max_terms, WorkClock& clock) {
  const FmpqMpolyCtxPtr C = M[0][0].re.ctx();
  const GaussRing<PolyRing> R{PolyRing(C)};
  const std::size_t n = M.size(), m = M[0].size();
  CPoly prev{FmpqMpoly(C), FmpqMpoly(C)};
  fmpq_mpoly_one(prev.re.get(), C->get());
  sign = 1;
  std::size_t r = 0;
  for (std::size_t c = 0; c < m && r < n; ++c) {
    std::size_t p = r;
    while (p < n && is_zero(M[p][c])) ++p;
    if (p == n) continue;
    if (p != r) {
      std::swap(M[p], M[r]);
      sign = -sign;
    }
    for (std::size_t i = r + 1; i < n; ++i) {
      for (std::size_t j = c + 1; j < m; ++j) {
        const double size = static_cast<double>(M[r][c].re.length() + M[r][c].im.length() + 1) *
                            static_cast<double>(M[i][j].re.length() + M[i][j].im.length() + 1);
        if (size > 10 * max_terms) throw LimitError("det/rank: entries beyond 10 x max_terms terms");
        clock.tick();
        CPoly t = R.mul(M[r][c], M[i][j]);
        const CPoly u = R.mul(M[i][c], M[r][j]);
        fmpq_mpoly_sub(t.re.get(), t.re.get(), u.re.get(), C->get());
        fmpq_mpoly_sub(t.im.get(), t.im.get(), u.im.get(), C->get());
        M[i][j] = exact_div(R, t, prev);
      }
      M[i][c] = CPoly{FmpqMpoly(C), FmpqMpoly(C)};
    }
    prev = M[r][c];
    ++r;
  }
  return r;
}

Value poly_result(CPoly x, bool complex) {
  auto p = std::make_shared<PolyVal>(std::move(x.re));
  if (complex) p->im = std::move(x.im);
  p->tokens = static_cast<std::size_t>(p->p.ctx()->nvars());
  return make_poly(p);
}

// Seconds an exact elimination over Q (FLINT's det or rank) of this matrix
// is expected to take: the grid method's estimate of the same work (rows x
// cols x the smaller side, scaled by the entries' words after clearing the
// denominators of each row).
double exact_elimination_seconds(const FmpqMat& q) {
  FmpzMat z(q.rows(), q.cols());
  fmpq_mat_get_fmpz_mat_rowwise(z.get(), nullptr, q.get());
  std::size_t max_bits = 1;
  for (slong i = 0; i < z.rows(); ++i)
    for (slong j = 0; j < z.cols(); ++j) max_bits = std::max<std::size_t>(max_bits, fmpz_bits(z.at(i, j)));
  const double r = static_cast<double>(z.rows()), c = static_cast<double>(z.cols());
  return 1e-8 * r * c * std::min(r, c) * (static_cast<double>(max_bits) / 64 + 1);
}

// det(A): a number for a matrix of exact numbers (fmpq_mat_det), else a polynomial.
Value det_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "det");
  if (A.size() != A[0].size())
    fail(e.loc, "det: a " + std::to_string(A.size()) + " x " + std::to_string(A[0].size()) + " matrix is not square");
  if (A.size() > 200) fail(e.loc, "det: at most 200 x 200");
  if (auto q = number_matrix(A, e.loc, "det")) {
    const double est = exact_elimination_seconds(*q);
    if (est > ev.defaults().budget)
      limit_reached(e,
                    "beyond " + budget_text(ev.defaults()) + ", the exact determinant (estimated at " +
                        fmt_g(est) + " s) was not computed",
                    "raise --budget");
    Fmpq d;
    fmpq_mat_det(d.get(), q->get());
    return Value::number(Quantity::exact(XRat(d)));
  }
  bool complex = false;
  FmpqMpolyCtxPtr C;
  PolyMatrix M = poly_matrix(ev, A, e.loc, "det", complex, C);
  int sign = 1;
  WorkClock clock(ev, e);
  const std::size_t r = bareiss(M, sign, ev.defaults().max_terms, clock);
  CPoly d{FmpqMpoly(C), FmpqMpoly(C)};
  if (r == A.size()) {
    d = M.back().back();
    if (sign < 0) {
      fmpq_mpoly_neg(d.re.get(), d.re.get(), C->get());
      fmpq_mpoly_neg(d.im.get(), d.im.get(), C->get());
    }
  }
  return poly_result(std::move(d), complex);
}

// rank(A): over Q for numbers (fmpz_mat_rank of the rows cleared of
// denominators), over the field of fractions for polynomials (Bareiss).
Value rank_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "rank");
  if (A.size() > 1000 || A[0].size() > 1000) fail(e.loc, "rank: at most 1000 x 1000");
  if (auto q = number_matrix(A, e.loc, "rank")) {
    FmpzMat z(q->rows(), q->cols());
    fmpq_mat_get_fmpz_mat_rowwise(z.get(), nullptr, q->get());
    // The rank mod a prime first: a certified lower bound, exact when full.
    const ulong p = nth_prime(0);
    NmodMat zp(z.rows(), z.cols(), p);
    for (slong i = 0; i < z.rows(); ++i)
      for (slong j = 0; j < z.cols(); ++j) zp.at(i, j) = fmpz_fdiv_ui(z.at(i, j), p);
    const slong rp = static_cast<slong>(rank_dense_modp(zp));
    const slong full = std::min(z.rows(), z.cols());
    if (rp == full) return make_int(rp);
    const double est = exact_elimination_seconds(*q);
    if (est > ev.defaults().budget) {
      const Quantity b = Quantity::bracket(XRat(rp), XRat(full));
      ev.notes.push_back(call_place(e) + ": beyond " + budget_text(ev.defaults()) + ", the rank over Q (estimated at " +
                         fmt_g(est) + " s) was not computed: bracketed by its rank mod " + std::to_string(p) +
                         " (a certified lower bound) and the smaller side (raise --budget)");
      ev.record(e, b.status());
      return Value::number(b);
    }
    return make_int(fmpz_mat_rank(z.get()));
  }
  bool complex = false;
  FmpqMpolyCtxPtr C;
  PolyMatrix M = poly_matrix(ev, A, e.loc, "rank", complex, C);
  int sign = 1;
  WorkClock clock(ev, e);
  return make_int(static_cast<slong>(bareiss(M, sign, ev.defaults().max_terms, clock)));
}

// compositions(n, k): every k-tuple of integers >= 0 with sum n, in lexicographic order.
Value compositions_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const std::size_t n = need_size(a.arg(0), a.pos[0]->loc, "compositions(n, k): n"),
                    k = need_size(a.arg(1), a.pos[1]->loc, "compositions(n, k): k");
  // ((k n)) = binom(n + k - 1, n) tuples, refused beyond 10^6 (counted without overflow).
  double count = k == 0 ? (n == 0 ? 1 : 0) : 1;
  for (std::size_t i = 1; i <= n && k > 0; ++i) count = count * static_cast<double>(k - 1 + i) / static_cast<double>(i);
  if (count > 1e6) fail(e.loc, "compositions(" + std::to_string(n) + ", " + std::to_string(k) + "): more than 10^6 tuples");
  std::vector<Value> out;
  std::vector<slong> t(k, 0);
  // Lexicographic: the last entry takes what is left; the others run as an odometer from the right.
  std::function<void(std::size_t, slong)> rec = [&](std::size_t i, slong left) {
    if (i + 1 >= k) {
      if (k == 0) {
        if (left == 0) out.push_back(make_list({}));
        return;
      }
      t[i] = left;
      std::vector<Value> row;
      for (slong x : t) row.push_back(make_int(x));
      out.push_back(make_list(std::move(row)));
      return;
    }
    for (slong x = 0; x <= left; ++x) {
      t[i] = x;
      rec(i + 1, left - x);
    }
  };
  rec(0, static_cast<slong>(n));
  return make_list(std::move(out));
}

// Numbers of Q(i) (re + i im): the rings' Gaussian rationals.
using GaussQ = GaussRing<RationalRing>::Elem;
const GaussRing<RationalRing>& gauss_q() {
  static const GaussRing<RationalRing> R{RationalRing{}};
  return R;
}
GaussQ gmul(const GaussQ& x, const GaussQ& y) { return gauss_q().mul(x, y); }

// Bits a power v^e gains per unit of e, at most: v = (p + q i) / den, |v^e|
// <= (|p| + |q|)^e / den^e, so log2(|p| + |q|) + log2(den); 0 for 0 and the
// units 1, -1, I, -I.
double growth_bits(const GaussQ& v) {
  Fmpz den, s, t;
  fmpz_lcm(den.get(), v.re.den(), v.im.den());
  fmpz_divexact(s.get(), den.get(), v.re.den());
  fmpz_mul(s.get(), s.get(), v.re.num());
  fmpz_abs(s.get(), s.get());
  fmpz_divexact(t.get(), den.get(), v.im.den());
  fmpz_mul(t.get(), t.get(), v.im.num());
  fmpz_abs(t.get(), t.get());
  fmpz_add(s.get(), s.get(), t.get());
  const double top = fmpz_cmp_ui(s.get(), 1) <= 0 ? 0 : fmpz_dlog(s.get()) / std::log(2.0);
  return top + (fmpz_is_one(den.get()) ? 0 : fmpz_dlog(den.get()) / std::log(2.0));
}

// v^e for e >= 0 (any size when v is 0 or a unit; else e fits a word: the
// caller's estimate of the value's bits bounds it).
GaussQ gpow(const GaussQ& v, const fmpz* e) {
  GaussQ r = gauss_q().one();
  if (fmpz_is_zero(e)) return r;
  if (v.re.is_zero() && v.im.is_zero()) return gauss_q().zero();
  if (growth_bits(v) == 0) {  // 1, -1, I, -I: v^(e mod 4)
    for (ulong k = fmpz_fdiv_ui(e, 4); k > 0; --k) r = gmul(r, v);
    return r;
  }
  GaussQ b = v;
  for (ulong k = fmpz_get_ui(e); k > 0; k >>= 1) {
    if (k & 1) r = gmul(r, b);
    if (k > 1) b = gmul(b, b);
  }
  return r;
}

// subs(f, [v0, v1, ...]): f at the point x_k = v_k (exact numbers, or constants over Q(i) such as 1 + 2*I),
// term by term in Q(i). The value's size is bounded before any power is taken: a term c x^e has at most
// bits(c) + sum_k e_k growth_bits(v_k) bits.
Value subs_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  auto f = ev.as_poly(a.arg(0), a.pos[0]->loc);
  const Value pt = a.arg(1);
  const std::size_t n = static_cast<std::size_t>(f->p.ctx()->nvars());
  if (pt.kind != Value::Kind::list || pt.list->size() != n)
    fail(a.pos[1]->loc, "subs(f, point): expected a list of " + std::to_string(n) + " values (one per variable of f)");
  std::vector<GaussQ> v;
  for (const auto& x : *pt.list) {
    GaussQ z = gauss_q().zero();
    if (x.kind == Value::Kind::number) {
      if (!x.num.is_exact()) fail(a.pos[1]->loc, "subs: a coordinate is " + describe(x.num) + ", not an exact number");
      fmpq_set(z.re.get(), x.num.cert.lo.value().get());
    } else {
      auto c = ev.as_poly(x, a.pos[1]->loc);
      auto constant = [&](const FmpqMpoly& q, Fmpq& out) {
        if (!fmpq_mpoly_is_fmpq(q.get(), q.c()))
          fail(a.pos[1]->loc, "subs: a coordinate is a polynomial, not a number");
        fmpq_mpoly_get_fmpq(out.get(), q.get(), q.c());
      };
      constant(c->p, z.re);
      if (c->im) constant(*c->im, z.im);
    }
    v.push_back(std::move(z));
  }
  std::vector<double> grow;
  for (const auto& z : v) grow.push_back(growth_bits(z));
  std::vector<Fmpz> ex(n);
  std::vector<fmpz*> exp_ptrs;
  for (auto& x : ex) exp_ptrs.push_back(x.get());
  Fmpq c;
  // The value's bits, at most (each term's, plus the carries of the sum).
  double bits = 0;
  for (const FmpqMpoly* q : {&f->p, f->im ? &*f->im : nullptr}) {
    if (!q) continue;
    for (slong t = 0; t < q->length(); ++t) {
      fmpq_mpoly_get_term_coeff_fmpq(c.get(), q->get(), t, q->c());
      fmpq_mpoly_get_term_exp_fmpz(exp_ptrs.data(), q->get(), t, q->c());
      double b = static_cast<double>(fmpz_bits(c.num()) + fmpz_bits(c.den()));
      for (std::size_t k = 0; k < n; ++k)
        if (grow[k] > 0 && !fmpz_is_zero(ex[k].get())) b += grow[k] * fmpz_get_d(ex[k].get()) + 2;
      bits = std::max(bits, b + std::log2(static_cast<double>(q->length()) + 1));
    }
  }
  if (bits > kMaxPowerBits) {
    limit_reached(e,
                  "the value at this point would have up to " + fmt_g(bits) + " bits, more than " +
                      std::to_string(static_cast<long>(kMaxPowerBits)) + " (the limit of an exact power)",
                  "no flag raises it: compare logarithms instead (log3(...))");
  }
  WorkClock clock(ev, e);
  auto at_point = [&](const FmpqMpoly& q) {
    GaussQ sum = gauss_q().zero();
    for (slong t = 0; t < q.length(); ++t) {
      clock.tick();
      fmpq_mpoly_get_term_coeff_fmpq(c.get(), q.get(), t, q.c());
      fmpq_mpoly_get_term_exp_fmpz(exp_ptrs.data(), q.get(), t, q.c());
      GaussQ term{c, Fmpq()};
      for (std::size_t k = 0; k < n; ++k)
        if (!fmpz_is_zero(ex[k].get())) term = gmul(term, gpow(v[k], ex[k].get()));
      fmpq_add(sum.re.get(), sum.re.get(), term.re.get());
      fmpq_add(sum.im.get(), sum.im.get(), term.im.get());
    }
    return sum;
  };
  GaussQ val = at_point(f->p);
  if (f->im) {  // f = p + i q: p(z) + i q(z)
    const GaussQ qz = at_point(*f->im);
    fmpq_sub(val.re.get(), val.re.get(), qz.im.get());
    fmpq_add(val.im.get(), val.im.get(), qz.re.get());
  }
  if (val.im.is_zero() && !f->im) {
    bool real_point = true;
    for (const auto& x : *pt.list) real_point = real_point && x.kind == Value::Kind::number;
    if (real_point) return Value::number(Quantity::exact(XRat(val.re)));
  }
  auto C1 = ev.ctx(1);
  auto p = std::make_shared<PolyVal>(FmpqMpoly(C1));
  fmpq_mpoly_set_fmpq(p->p.get(), val.re.get(), C1->get());
  p->im = FmpqMpoly(C1);
  fmpq_mpoly_set_fmpq(p->im->get(), val.im.get(), C1->get());
  return make_poly(p);
}

}  // namespace

std::vector<FunctionInfo> linalg_functions() {
  using P = FunctionInfo::Part;
  return {
      {"det", 1, 1, P::none, {}, {}, "exact determinant of a square matrix of numbers or polynomials (over Q, Q(i))",
       det_fn},
      {"rank", 1, 1, P::none, {}, {},
       "exact rank of a matrix: over Q for numbers, over the field of fractions for polynomials", rank_fn},
      {"compositions", 2, 2, P::none, {}, {},
       "compositions(n, k): every k-tuple of integers >= 0 with sum n, in lexicographic order", compositions_fn},
      {"subs", 2, 2, P::none, {}, {}, "subs(f, [v0, v1, ...]): f at a point (exact numbers, I allowed)", subs_fn},
  };
}

}  // namespace netpoly::claims_detail
