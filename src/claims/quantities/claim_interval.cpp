// Interval quantities and the three-way verdict of relations (claim_interval.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "claims/quantities/claim_interval.hpp"
#include "netpoly/error.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

// ------------------------------------------------------------------ XRat
int XRat::sign() const { return inf_ ? inf_ : fmpq_sgn(v_.get()); }

std::string XRat::str() const {
  if (inf_) return inf_ < 0 ? "-inf" : "inf";
  return v_.str();
}

int cmp(const XRat& a, const XRat& b) {
  if (a.inf_sign() || b.inf_sign()) {
    if (a.inf_sign() == b.inf_sign()) return 0;
    const int ai = a.inf_sign(), bi = b.inf_sign();
    if (ai) return ai;
    return -bi;
  }
  const int c = fmpq_cmp(a.value().get(), b.value().get());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string short_str(const XRat& x) {
  if (!x.finite()) return x.str();
  std::string s = x.value().str();
  if (s.size() <= 30) return s;
  if (x.is_integer()) {
    const bool neg = s[0] == '-';
    std::string d = neg ? s.substr(1) : s;
    return (neg ? "-" : "") + d.substr(0, 1) + "." + d.substr(1, 5) + "e" + std::to_string(d.size() - 1) + " (" +
           std::to_string(d.size()) + " digits)";
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.12g", x.value().to_double());
  return std::string(b) + " (rational)";
}

namespace {

XRat x_add(const XRat& a, const XRat& b) {
  if (a.inf_sign() && b.inf_sign() && a.inf_sign() != b.inf_sign())
    throw InternalError("inf - inf in interval arithmetic");
  if (a.inf_sign()) return a;
  if (b.inf_sign()) return b;
  Fmpq r;
  fmpq_add(r.get(), a.value().get(), b.value().get());
  return XRat(r);
}

XRat x_neg(const XRat& a) {
  if (a.inf_sign()) return XRat::inf(-a.inf_sign());
  Fmpq r;
  fmpq_neg(r.get(), a.value().get());
  return XRat(r);
}

// 0 * inf = 0: the ends of closed intervals, where inf stands for "unbounded".
XRat x_mul(const XRat& a, const XRat& b) {
  const int sa = a.sign(), sb = b.sign();
  if (sa == 0 || sb == 0) return XRat(0);
  if (a.inf_sign() || b.inf_sign()) return XRat::inf(sa * sb);
  Fmpq r;
  fmpq_mul(r.get(), a.value().get(), b.value().get());
  return XRat(r);
}

XRat x_inv(const XRat& a) {  // a != 0
  if (a.inf_sign()) return XRat(0);
  Fmpq r;
  fmpq_inv(r.get(), a.value().get());
  return XRat(r);
}

const XRat& x_min(const XRat& a, const XRat& b) { return cmp(a, b) <= 0 ? a : b; }
const XRat& x_max(const XRat& a, const XRat& b) { return cmp(a, b) >= 0 ? a : b; }

double bits_of(const XRat& a) {
  if (!a.finite()) return 0;
  return static_cast<double>(fmpz_bits(a.value().num())) + static_cast<double>(fmpz_bits(a.value().den()));
}

XRat x_pow_ui(const XRat& a, ulong e) {
  if (e == 0) return XRat(1);
  if (a.inf_sign()) return XRat::inf(a.inf_sign() < 0 && e % 2 == 1 ? -1 : 1);
  if (bits_of(a) * static_cast<double>(e) > kMaxPowerBits && !fmpq_is_zero(a.value().get()) &&
      !fmpq_is_one(a.value().get()) && !(fmpz_is_pm1(a.value().num()) && fmpz_is_one(a.value().den())))
    throw LimitError("a power would have more than " + std::to_string(static_cast<long>(kMaxPowerBits)) +
                     " bits; compare logarithms instead (log3(...))");
  Fmpq r;
  fmpz_pow_ui(fmpq_numref(r.get()), a.value().num(), e);
  fmpz_pow_ui(fmpq_denref(r.get()), a.value().den(), e);
  return XRat(r);
}

Interval iv_add(const Interval& a, const Interval& b) { return {x_add(a.lo, b.lo), x_add(a.hi, b.hi)}; }
Interval iv_neg(const Interval& a) { return {x_neg(a.hi), x_neg(a.lo)}; }

Interval iv_mul(const Interval& a, const Interval& b) {
  XRat p[4] = {x_mul(a.lo, b.lo), x_mul(a.lo, b.hi), x_mul(a.hi, b.lo), x_mul(a.hi, b.hi)};
  XRat lo = p[0], hi = p[0];
  for (const auto& x : p) {
    if (cmp(x, lo) < 0) lo = x;
    if (cmp(x, hi) > 0) hi = x;
  }
  return {lo, hi};
}

Interval iv_div(const Interval& a, const Interval& b) {
  if (b.is_point() && b.lo.sign() == 0) throw InputError("division by zero");
  if (b.lo.sign() <= 0 && b.hi.sign() >= 0) return Interval();  // unbounded
  return iv_mul(a, Interval(x_inv(b.hi), x_inv(b.lo)));
}

Interval iv_pow_int(const Interval& a, const Fmpz& e) {
  if (fmpz_sgn(e.get()) < 0) {
    Fmpz m;
    fmpz_neg(m.get(), e.get());
    return iv_div(Interval::point(XRat(1)), iv_pow_int(a, m));
  }
  if (!fmpz_abs_fits_ui(e.get())) {
    // Only 0, 1 (and -1) have such powers that can be written down.
    if (a.is_point() && (a.lo.sign() == 0 || cmp(a.lo, XRat(1)) == 0)) return a;
    throw LimitError("exponent " + e.str() + " is too large for an exact power");
  }
  const ulong n = fmpz_get_ui(e.get());
  XRat l = x_pow_ui(a.lo, n), h = x_pow_ui(a.hi, n);
  if (a.lo.sign() >= 0 || n % 2 == 1) return {x_min(l, h), x_max(l, h)};
  if (a.hi.sign() <= 0) return {h, l};
  return {XRat(0), x_max(l, h)};
}

// The double value of a finite XRat (for enclosures).
double to_d(const XRat& x) {
  if (x.inf_sign()) return x.inf_sign() * HUGE_VAL;
  return x.value().to_double();
}

// log(x) for an exact positive rational, in doubles, with its absolute error margin.
void dlog_with_margin(const Fmpq& x, double& v, double& margin) {
  const double ln = fmpz_dlog(x.num()), ld = fmpz_dlog(x.den());
  v = ln - ld;
  margin = 1e-12 * (std::fabs(ln) + std::fabs(ld) + 1.0);
}

// Exact log_base(x) when x is an integer power of base.
std::optional<slong> exact_log(const Fmpq& x, const Fmpq& base, double approx) {
  if (!std::isfinite(approx) || std::fabs(approx) > 1e5) return std::nullopt;
  const slong k = static_cast<slong>(std::llround(approx));
  Fmpq p;
  fmpq_pow_si(p.get(), base.get(), k);
  if (fmpq_equal(p.get(), x.get())) return k;
  return std::nullopt;
}

XRat down(double v) { return XRat(fmpq_from_double(v)); }

Interval iv_log(const Interval& a, const Fmpq& base) {
  if (a.hi.sign() <= 0) throw InputError("logarithm of a non-positive number");
  auto end = [&](const XRat& x, bool lower) -> XRat {
    if (x.inf_sign() > 0) return XRat::inf(1);
    if (x.sign() <= 0) return XRat::inf(-1);
    Interval e = log_enclosure(x.value(), base);
    return lower ? e.lo : e.hi;
  };
  return {end(a.lo, true), end(a.hi, false)};
}

Interval iv_floor(const Interval& a, bool ceil) {
  auto f = [&](const XRat& x) {
    if (!x.finite()) return x;
    Fmpz r;
    if (ceil)
      fmpz_cdiv_q(r.get(), x.value().num(), x.value().den());
    else
      fmpz_fdiv_q(r.get(), x.value().num(), x.value().den());
    return XRat(r);
  };
  return {f(a.lo), f(a.hi)};
}

Fmpz binom_exact(const Fmpz& n, const Fmpz& k) {
  if (fmpz_sgn(n.get()) < 0) throw InputError("binom(n, k): n must be >= 0 (got " + n.str() + ")");
  if (fmpz_cmp(k.get(), n.get()) > 0) return Fmpz(0);
  Fmpz kk = k, nk;
  fmpz_sub(nk.get(), n.get(), k.get());
  if (fmpz_cmp(nk.get(), kk.get()) < 0) kk = nk;  // binom(n, k) = binom(n, n - k)
  if (!fmpz_abs_fits_ui(kk.get()) || fmpz_get_ui(kk.get()) > 1000000)
    throw LimitError("binom(" + n.str() + ", " + k.str() + ") is too large for an exact value");
  const ulong m = fmpz_get_ui(kk.get());
  if (static_cast<double>(m) * static_cast<double>(fmpz_bits(n.get())) > kMaxPowerBits)
    throw LimitError("binom(" + n.str() + ", " + k.str() + ") is too large for an exact value");
  Fmpz r(1), f;
  for (ulong i = 1; i <= m; ++i) {  // r = binom(n - m + i, i)
    fmpz_sub_ui(f.get(), n.get(), m - i);
    fmpz_mul(r.get(), r.get(), f.get());
    fmpz_divexact_ui(r.get(), r.get(), i);
  }
  return r;
}

Interval iv_binom(const Interval& n, const Fmpz& k) {
  auto end = [&](const XRat& x, bool lower) -> XRat {
    if (x.inf_sign() > 0) return XRat::inf(1);
    if (!x.finite() || x.sign() < 0) {
      if (lower) return XRat(0);  // binom(n, k) >= 0 for the integers n >= 0 a sep can take
      throw InputError("binom(n, k): n must be >= 0");
    }
    Fmpz v;
    // n is an integer in the interval: round the ends inwards.
    if (lower)
      fmpz_cdiv_q(v.get(), x.value().num(), x.value().den());
    else
      fmpz_fdiv_q(v.get(), x.value().num(), x.value().den());
    return XRat(binom_exact(v, k));
  };
  return {end(n.lo, true), end(n.hi, false)};
}

// Applies f to cert and likely and merges the trust labels.
Quantity lift1(const Quantity& a, const std::function<Interval(const Interval&)>& f) {
  Quantity r;
  r.cert = f(a.cert);
  r.trust = a.trust;
  r.likely = a.trust == Trust::exact ? r.cert : f(a.likely);
  r.failure_probability = a.failure_probability;
  r.real = a.real;
  return r;
}

Quantity lift2(const Quantity& a, const Quantity& b,
               const std::function<Interval(const Interval&, const Interval&)>& f) {
  Quantity r;
  r.cert = f(a.cert, b.cert);
  r.trust = std::max(a.trust, b.trust);
  r.likely = r.trust == Trust::exact ? r.cert : f(a.likely, b.likely);
  r.failure_probability = a.failure_probability + b.failure_probability;
  r.real = a.real || b.real;
  return r;
}


// Ends that are long fractions (enclosures of reals) print as decimals.
std::string end_str(const XRat& x) {
  if (!x.finite() || x.is_integer() || x.value().str().size() <= 30) return short_str(x);
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", x.value().to_double());
  return b;
}


std::string real_str(const Interval& i) {
  if (!i.lo.finite() || !i.hi.finite()) return iv_str(i);
  const double mid = (to_d(i.lo) + to_d(i.hi)) / 2, half = (to_d(i.hi) - to_d(i.lo)) / 2;
  char b[96];
  std::snprintf(b, sizeof b, "%.15g +- %.1g", mid, half);
  return b;
}

}  // namespace

std::string probability_str(double p) { return fmt_g(p); }

std::string iv_str(const Interval& i) {
  if (i.is_point()) return end_str(i.lo);
  return "[" + end_str(i.lo) + ", " + end_str(i.hi) + "]";
}

Fmpq fmpq_from_double(double d) {
  if (!std::isfinite(d)) throw InputError("not a finite number");
  int e = 0;
  const double m = std::frexp(d, &e);  // d = m 2^e, 0.5 <= |m| < 1
  Fmpz num;
  fmpz_set_d(num.get(), std::ldexp(m, 53));  // exact: 53-bit mantissa
  e -= 53;
  Fmpq r{num};
  if (e > 0)
    fmpq_mul_2exp(r.get(), r.get(), static_cast<ulong>(e));
  else if (e < 0)
    fmpq_div_2exp(r.get(), r.get(), static_cast<ulong>(-e));
  return r;
}

Interval log_enclosure(const Fmpq& x, const Fmpq& base) {
  if (fmpq_sgn(x.get()) <= 0) throw InputError("logarithm of a non-positive number");
  if (fmpq_cmp_ui(base.get(), 1) <= 0) throw InputError("logarithm base must be > 1");
  double lx, mx, lb, mb;
  dlog_with_margin(x, lx, mx);
  dlog_with_margin(base, lb, mb);
  const double v = lx / lb;
  if (auto k = exact_log(x, base, v)) return Interval::point(XRat(static_cast<slong>(*k)));
  // |lx/lb - true| <= (mx + |v| mb) / (lb - mb), plus the rounding of the division.
  const double margin = (mx + std::fabs(v) * mb) / (lb - mb) + 1e-15 * std::fabs(v) + 1e-300;
  return {down(v - margin), down(v + margin)};
}

// ------------------------------------------------------------------ Quantity
const char* trust_name(Trust t) {
  switch (t) {
    case Trust::exact:
      return "exact";
    case Trust::probabilistic:
      return "probabilistic";
    case Trust::numeric:
      return "numeric";
  }
  return "?";
}

Quantity Quantity::exact(const XRat& v) {
  Quantity q;
  q.cert = q.likely = Interval::point(v);
  return q;
}

Quantity Quantity::bracket(const XRat& lo, const XRat& hi) {
  Quantity q;
  q.cert = q.likely = Interval(lo, hi);
  return q;
}

Quantity Quantity::enclosure(const Interval& iv) {
  Quantity q;
  q.cert = q.likely = iv;
  q.real = !iv.is_point();
  return q;
}

std::string Quantity::status() const {
  if (cert.is_point()) return "exact";
  if (trust == Trust::probabilistic) return "probabilistic";
  if (trust == Trust::numeric) return "numeric";
  if (real && cert.lo.finite() && cert.hi.finite()) return "enclosure";
  return "bracket";
}

std::optional<Fmpz> Quantity::exact_integer() const {
  if (!cert.is_point() || !cert.lo.is_integer()) return std::nullopt;
  Fmpz z;
  fmpz_set(z.get(), cert.lo.value().num());
  return z;
}

std::string describe(const Quantity& q) {
  const std::string st = q.status();
  if (st == "exact") return short_str(q.cert.lo);
  if (st == "enclosure") return real_str(q.cert) + " (enclosure)";
  if (st == "probabilistic")
    return (q.real ? real_str(q.likely) : iv_str(q.likely)) +
           " (probabilistic: wrong with probability <= " + probability_str(q.failure_probability) + "; certified " +
           iv_str(q.cert) + ")";
  if (st == "numeric") return "~" + iv_str(q.likely) + " (numeric estimate; certified " + iv_str(q.cert) + ")";
  return iv_str(q.cert) + " (bracket)";
}

// ------------------------------------------------------------------ arithmetic
Quantity q_add(const Quantity& a, const Quantity& b) { return lift2(a, b, iv_add); }
Quantity q_neg(const Quantity& a) { return lift1(a, iv_neg); }
Quantity q_sub(const Quantity& a, const Quantity& b) {
  return lift2(a, b, [](const Interval& x, const Interval& y) { return iv_add(x, iv_neg(y)); });
}
Quantity q_mul(const Quantity& a, const Quantity& b) { return lift2(a, b, iv_mul); }
Quantity q_div(const Quantity& a, const Quantity& b) { return lift2(a, b, iv_div); }

Quantity q_pow(const Quantity& a, const Quantity& b) {
  if (b.is_exact() && b.cert.lo.is_integer()) {
    Fmpz e;
    fmpz_set(e.get(), b.cert.lo.value().num());
    return lift1(a, [&](const Interval& x) { return iv_pow_int(x, e); });
  }
  // A varying or non-integer exponent: monotone for a >= 1, b >= 0.
  if (cmp(a.cert.lo, XRat(1)) < 0 || b.cert.lo.sign() < 0)
    throw InputError("a^b with an inexact or non-integer exponent b needs a >= 1 and b >= 0");
  auto f = [](const Interval& x, const Interval& y) -> Interval {
    auto end = [](const XRat& base, const XRat& e, bool lower) -> XRat {
      if (e.inf_sign() > 0 || base.inf_sign() > 0) return cmp(base, XRat(1)) == 0 ? XRat(1) : XRat::inf(1);
      if (e.is_integer()) {
        Fmpz z;
        fmpz_set(z.get(), e.value().num());
        Interval p = iv_pow_int(Interval::point(base), z);
        return p.lo;
      }
      // base^e = exp(e ln base), in doubles with a margin.
      double lb, mb;
      dlog_with_margin(base.value(), lb, mb);
      const double ev = e.value().to_double();
      const double v = ev * lb, m = std::fabs(ev) * mb + 1e-15 * std::fabs(v) + 1e-300;
      if (v + m > 700) throw LimitError("a^b too large for an enclosure; compare logarithms instead");
      const double r = std::exp(lower ? v - m : v + m);
      return XRat(fmpq_from_double(lower ? r * (1 - 1e-14) : r * (1 + 1e-14)));
    };
    return {end(x.lo, y.lo, true), end(x.hi, y.hi, false)};
  };
  Quantity r = lift2(a, b, f);
  r.real = r.real || !(b.cert.lo.is_integer() && b.cert.hi.is_integer());
  return r;
}

Quantity q_min(const Quantity& a, const Quantity& b) {
  return lift2(a, b,
               [](const Interval& x, const Interval& y) { return Interval(x_min(x.lo, y.lo), x_min(x.hi, y.hi)); });
}

Quantity q_max(const Quantity& a, const Quantity& b) {
  return lift2(a, b,
               [](const Interval& x, const Interval& y) { return Interval(x_max(x.lo, y.lo), x_max(x.hi, y.hi)); });
}

namespace {

// The integers of an interval, [ceil(lo), floor(hi)]; nullopt when there is none.
std::optional<Interval> integers_in(const Interval& i) {
  auto round = [](const XRat& x, bool up) {
    if (!x.finite()) return x;
    Fmpz z;
    if (up)
      fmpz_cdiv_q(z.get(), x.value().num(), x.value().den());
    else
      fmpz_fdiv_q(z.get(), x.value().num(), x.value().den());
    return XRat(z);
  };
  Interval r(round(i.lo, true), round(i.hi, false));
  if (cmp(r.lo, r.hi) > 0) return std::nullopt;
  return r;
}

Fmpz exact_k(const Quantity& k, const std::string& f) {
  if (!k.is_exact() || !k.cert.lo.is_integer() || k.cert.lo.sign() < 0)
    throw InputError(f + ": k must be an exact integer >= 0");
  Fmpz kk;
  fmpz_set(kk.get(), k.cert.lo.value().num());
  return kk;
}

}  // namespace

Quantity q_integer(const Quantity& a, const std::string& what) {
  if (a.cert.is_point() && !a.cert.lo.is_integer())
    throw InputError(what + " must be an integer, got " + short_str(a.cert.lo));
  if (a.real && !a.cert.is_point())
    throw InputError(what + " is a real number known only as an enclosure (" + describe(a) +
                     "); take floor(...) or ceil(...) of it first");
  const auto c = integers_in(a.cert);
  if (!c) throw InputError(what + " must be an integer, and " + iv_str(a.cert) + " holds no integer");
  Quantity r = a;
  r.real = false;
  r.cert = *c;
  const auto l = a.trust == Trust::exact ? c : integers_in(a.likely);
  if (!l) {  // the estimate is no integer: keep only what is certified
    r.trust = Trust::exact;
    r.failure_probability = 0;
  }
  r.likely = l ? *l : r.cert;
  return r;
}

Quantity q_binom(const Quantity& n, const Quantity& k) {
  const Fmpz kk = exact_k(k, "binom(n, k)");
  return lift1(q_integer(n, "binom(n, k): n"), [&](const Interval& x) { return iv_binom(x, kk); });
}

Quantity q_multiset(const Quantity& n, const Quantity& k) {
  const Fmpz kk = exact_k(k, "multiset(n, k)");
  const Quantity m = q_integer(n, "multiset(n, k): n");
  if (m.cert.hi.sign() < 0) throw InputError("multiset(n, k): n must be >= 0");
  if (fmpz_is_zero(kk.get())) return Quantity::exact(XRat(1));  // ((n 0)) = 1, one empty multiset
  return q_binom(q_sub(q_add(m, k), Quantity::exact(XRat(1))), k);
}

Quantity q_log(const Quantity& a, const Quantity& base) {
  if (!base.is_exact() || cmp(base.cert.lo, XRat(1)) <= 0)
    throw InputError("logarithm base must be an exact number > 1");
  const Fmpq b = base.cert.lo.value();
  Quantity r = lift1(a, [&](const Interval& x) { return iv_log(x, b); });
  r.real = !r.cert.is_point();
  return r;
}

Quantity q_floor(const Quantity& a) {
  Quantity r = lift1(a, [](const Interval& x) { return iv_floor(x, false); });
  r.real = false;
  return r;
}

Quantity q_ceil(const Quantity& a) {
  Quantity r = lift1(a, [](const Interval& x) { return iv_floor(x, true); });
  r.real = false;
  return r;
}

Quantity q_abs(const Quantity& a) {
  return lift1(a, [](const Interval& x) -> Interval {
    if (x.lo.sign() >= 0) return x;
    if (x.hi.sign() <= 0) return iv_neg(x);
    return {XRat(0), x_max(x_neg(x.lo), x.hi)};
  });
}

}  // namespace netpoly
