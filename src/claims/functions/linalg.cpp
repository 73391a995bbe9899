// Exact linear algebra on matrices written as lists of rows: det(A) and
// rank(A) over Q (FLINT's fmpq_mat) and over Q[x] or Q(i)[x] (fraction-free
// elimination, Bareiss: every division exact in the polynomial ring, checked
// by FLINT's fmpq_mpoly_divides, so the rank is the one over the field of
// fractions); compositions(n, k); subs(f, point). What LV Lemma 7 (a
// determinant's top degree), LV Claim 2 (ranks of A(Ω)) and B.2's
// compositions need.
#include <functional>
#include <optional>

#include "function.hpp"
#include "netpoly/error.hpp"
#include "netpoly/flint_linalg.hpp"
#include "netpoly/gauss.hpp"
#include "netpoly/rings.hpp"

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
std::size_t bareiss(PolyMatrix& M, int& sign, double max_terms) {
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

// det(A): a number for a matrix of exact numbers (fmpq_mat_det), else a polynomial.
Value det_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "det");
  if (A.size() != A[0].size())
    fail(e.loc, "det: a " + std::to_string(A.size()) + " x " + std::to_string(A[0].size()) + " matrix is not square");
  if (A.size() > 200) fail(e.loc, "det: at most 200 x 200");
  if (auto q = number_matrix(A, e.loc, "det")) {
    Fmpq d;
    fmpq_mat_det(d.get(), q->get());
    return Value::number(Quantity::exact(XRat(d)));
  }
  bool complex = false;
  FmpqMpolyCtxPtr C;
  PolyMatrix M = poly_matrix(ev, A, e.loc, "det", complex, C);
  int sign = 1;
  const std::size_t r = bareiss(M, sign, ev.defaults().max_terms);
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
    return make_int(fmpz_mat_rank(z.get()));
  }
  bool complex = false;
  FmpqMpolyCtxPtr C;
  PolyMatrix M = poly_matrix(ev, A, e.loc, "rank", complex, C);
  int sign = 1;
  return make_int(static_cast<slong>(bareiss(M, sign, ev.defaults().max_terms)));
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

// subs(f, [v0, v1, ...]): f at the point x_k = v_k (exact numbers, or constants over Q(i) such as 1 + 2*I).
// Over Q(i) through FLINT's composition: x_k -> a_k + b_k t in Q[t], then t^2 = -1.
Value subs_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  auto f = ev.as_poly(a.arg(0), a.pos[0]->loc);
  const Value pt = a.arg(1);
  const std::size_t n = static_cast<std::size_t>(f->p.ctx()->nvars());
  if (pt.kind != Value::Kind::list || pt.list->size() != n)
    fail(a.pos[1]->loc, "subs(f, point): expected a list of " + std::to_string(n) + " values (one per variable of f)");
  auto C1 = ev.ctx(1);  // Q[t]
  std::vector<FmpqMpoly> img;
  for (const auto& v : *pt.list) {
    FmpqMpoly x(C1);
    if (v.kind == Value::Kind::number) {
      if (!v.num.is_exact()) fail(a.pos[1]->loc, "subs: a coordinate is " + describe(v.num) + ", not an exact number");
      fmpq_mpoly_set_fmpq(x.get(), v.num.cert.lo.value().get(), C1->get());
    } else {
      auto c = ev.as_poly(v, a.pos[1]->loc);
      Fmpq re, im;
      auto constant = [&](const FmpqMpoly& q, Fmpq& out) {
        if (!fmpq_mpoly_is_fmpq(q.get(), q.c()))
          fail(a.pos[1]->loc, "subs: a coordinate is a polynomial, not a number");
        fmpq_mpoly_get_fmpq(out.get(), q.get(), q.c());
      };
      constant(c->p, re);
      if (c->im) constant(*c->im, im);
      FmpqMpoly t(C1);
      fmpq_mpoly_gen(t.get(), 0, C1->get());
      fmpq_mpoly_scalar_mul_fmpq(t.get(), t.get(), im.get(), C1->get());
      fmpq_mpoly_set_fmpq(x.get(), re.get(), C1->get());
      fmpq_mpoly_add(x.get(), x.get(), t.get(), C1->get());
    }
    img.push_back(std::move(x));
  }
  std::vector<fmpq_mpoly_struct*> ptrs;
  for (auto& x : img) ptrs.push_back(x.get());
  // value = sum_j c_j t^j with t = i: real part c_0 - c_2 + c_4 ..., imaginary c_1 - c_3 + ...
  auto at_point = [&](const FmpqMpoly& q, Fmpq& re, Fmpq& im) {
    FmpqMpoly r(C1);
    if (!fmpq_mpoly_compose_fmpq_mpoly(r.get(), q.get(), ptrs.data(), q.c(), C1->get()))
      throw LimitError("subs: the substitution is too large");
    re = Fmpq(0);
    im = Fmpq(0);
    Fmpq c;
    ulong j = 0;
    for (slong t = 0; t < r.length(); ++t) {
      fmpq_mpoly_get_term_coeff_fmpq(c.get(), r.get(), t, C1->get());
      fmpq_mpoly_get_term_exp_ui(&j, r.get(), t, C1->get());
      Fmpq& part = j % 2 ? im : re;
      if (j % 4 < 2) fmpq_add(part.get(), part.get(), c.get());
      else fmpq_sub(part.get(), part.get(), c.get());
    }
  };
  Fmpq re, im, re2, im2;
  at_point(f->p, re, im);
  if (f->im) {  // f = p + i q: p(z) + i q(z)
    at_point(*f->im, re2, im2);
    fmpq_sub(re.get(), re.get(), im2.get());
    fmpq_add(im.get(), im.get(), re2.get());
  }
  if (im.is_zero() && !f->im) {
    bool real_point = true;
    for (const auto& v : *pt.list) real_point = real_point && v.kind == Value::Kind::number;
    if (real_point) return Value::number(Quantity::exact(XRat(re)));
  }
  auto p = std::make_shared<PolyVal>(FmpqMpoly(C1));
  fmpq_mpoly_set_fmpq(p->p.get(), re.get(), C1->get());
  p->im = FmpqMpoly(C1);
  fmpq_mpoly_set_fmpq(p->im->get(), im.get(), C1->get());
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
