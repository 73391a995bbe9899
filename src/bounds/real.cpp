#include "real.hpp"

#include <cstdio>
#include <vector>

namespace netpoly::bounds_detail {

Real operator+(const Real& a, const Real& b) { Real r; mpfr_add(r.get(), a.get(), b.get(), MPFR_RNDN); return r; }
Real operator-(const Real& a, const Real& b) { Real r; mpfr_sub(r.get(), a.get(), b.get(), MPFR_RNDN); return r; }
Real operator*(const Real& a, const Real& b) { Real r; mpfr_mul(r.get(), a.get(), b.get(), MPFR_RNDN); return r; }
Real operator/(const Real& a, const Real& b) { Real r; mpfr_div(r.get(), a.get(), b.get(), MPFR_RNDN); return r; }
Real operator-(const Real& a) { Real r; mpfr_neg(r.get(), a.get(), MPFR_RNDN); return r; }
bool operator<(const Real& a, const Real& b) { return mpfr_less_p(a.get(), b.get()) != 0; }

namespace {

Real ln(const Real& x) { Real r; mpfr_log(r.get(), x.get(), MPFR_RNDN); return r; }
Real ln3() { Real r; mpfr_set_ui(r.get(), 3, MPFR_RNDN); mpfr_log(r.get(), r.get(), MPFR_RNDN); return r; }
Real log1p(const Real& x) { Real r; mpfr_log1p(r.get(), x.get(), MPFR_RNDN); return r; }
Real pi() { Real r; mpfr_const_pi(r.get(), MPFR_RNDN); return r; }

// Below this the log-factorial and log-binomial are summed term by term;
// above it Stirling's series with ten Bernoulli terms is exact to ~1e-49.
constexpr ulong kDirect = 256;

// Stirling correction S(x) = sum_k B_2k / (2k (2k-1) x^(2k-1)), k = 1..10,
// so that ln x! = x ln x - x + ln(2 pi x)/2 + S(x).
Real stirling_tail(const Real& x) {
  static const long num[] = {1, -1, 1, -1, 1, -691, 1, -3617, 43867, -174611};
  static const ulong den[] = {12, 360, 1260, 1680, 1188, 360360, 156, 122400, 244188, 125400};
  Real sum, xpow = x, x2 = x * x;
  for (int k = 0; k < 10; ++k) {
    Real c;
    mpfr_set_si(c.get(), num[k], MPFR_RNDN);
    mpfr_div_ui(c.get(), c.get(), den[k], MPFR_RNDN);
    sum = sum + c / xpow;
    xpow = xpow * x2;
  }
  return sum;
}

// Natural log of n! for an integer n >= 0.
Real ln_factorial(const Real& n) {
  if (mpfr_cmp_ui(n.get(), kDirect) <= 0) {
    Real s;
    for (ulong i = 2, m = mpfr_get_ui(n.get(), MPFR_RNDN); i <= m; ++i) s = s + ln(Real::from_ui(i));
    return s;
  }
  return n * ln(n) - n + ln(Real(2.0) * pi() * n) / Real(2.0) + stirling_tail(n);
}

}  // namespace

Real log3(const Real& x) { return ln(x) / ln3(); }

Real pow_ui(ulong base, ulong e) { Real r; mpfr_ui_pow_ui(r.get(), base, e, MPFR_RNDN); return r; }

Real three_pow(const Real& e) {
  Real r, three = Real::from_ui(3);
  mpfr_pow(r.get(), three.get(), e.get(), MPFR_RNDN);
  return r;
}

Real sqrt(const Real& x) { Real r; mpfr_sqrt(r.get(), x.get(), MPFR_RNDN); return r; }

Real e_const() { Real one = Real::from_ui(1), r; mpfr_exp(r.get(), one.get(), MPFR_RNDN); return r; }

Real log3_factorial(const Real& n) { return ln_factorial(n) / ln3(); }

Real log3_binomial(const Real& a, const Real& b) {
  // With s = min(a, b) and t = max(a, b): binom(s + t, s) = prod_{i=1..s} (1 + t/i).
  const Real& s = b < a ? b : a;
  const Real& t = b < a ? a : b;
  if (mpfr_zero_p(s.get())) return Real();
  Real n = s + t;
  if (mpfr_cmp_ui(s.get(), kDirect) <= 0) {
    Real sum;
    for (ulong i = 1, si = mpfr_get_ui(s.get(), MPFR_RNDN); i <= si; ++i) sum = sum + log1p(t / Real::from_ui(i));
    return sum / ln3();
  }
  // Stirling on n!, s!, t! with the large terms combined so nothing cancels:
  // n ln n - s ln s - t ln t = s ln(1 + t/s) + t ln(1 + s/t).
  Real main = s * log1p(t / s) + t * log1p(s / t);
  Real half = ln(n / (Real(2.0) * pi() * s * t)) / Real(2.0);
  return (main + half + stirling_tail(n) - stirling_tail(s) - stirling_tail(t)) / ln3();
}

std::string to_string(const Real& x, int digits) {
  if (mpfr_nan_p(x.get())) return "nan";
  if (mpfr_inf_p(x.get())) return mpfr_sgn(x.get()) > 0 ? "inf" : "-inf";
  int n = mpfr_snprintf(nullptr, 0, "%.*Rg", digits, x.get());
  std::vector<char> buf(static_cast<std::size_t>(n) + 1);
  mpfr_snprintf(buf.data(), buf.size(), "%.*Rg", digits, x.get());
  return std::string(buf.data());
}

}  // namespace netpoly::bounds_detail
