// Internal to src/bounds: an RAII MPFR real and the few log-domain helpers
// the bound formulas need (log3, log3 of binomials and factorials). Values
// too large to write down are handled as their base-3 logarithms.
#pragma once
#include <mpfr.h>

#include <string>

#include "netpoly/flint.hpp"

namespace netpoly::bounds_detail {

// Working precision of every bound computation (the spec asks for >= 128 bits).
inline constexpr mpfr_prec_t kPrec = 256;

class Real {
 public:
  Real() { mpfr_init2(v_, kPrec); mpfr_set_zero(v_, 1); }
  Real(double x) { mpfr_init2(v_, kPrec); mpfr_set_d(v_, x, MPFR_RNDN); }  // NOLINT: implicit by design
  static Real from_ui(ulong x) { Real r; mpfr_set_ui(r.v_, x, MPFR_RNDN); return r; }
  static Real from_fmpz(const Fmpz& x) { Real r; fmpz_get_mpfr(r.v_, x.get(), MPFR_RNDN); return r; }
  Real(const Real& o) { mpfr_init2(v_, kPrec); mpfr_set(v_, o.v_, MPFR_RNDN); }
  Real(Real&& o) noexcept { mpfr_init2(v_, kPrec); mpfr_swap(v_, o.v_); }
  Real& operator=(const Real& o) { mpfr_set(v_, o.v_, MPFR_RNDN); return *this; }
  Real& operator=(Real&& o) noexcept { mpfr_swap(v_, o.v_); return *this; }
  ~Real() { mpfr_clear(v_); }
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  double to_double() const { return mpfr_get_d(v_, MPFR_RNDN); }
  bool is_finite() const { return mpfr_number_p(v_) != 0; }

 private:
  mpfr_t v_;
};

Real operator+(const Real& a, const Real& b);
Real operator-(const Real& a, const Real& b);
Real operator*(const Real& a, const Real& b);
Real operator/(const Real& a, const Real& b);
Real operator-(const Real& a);
bool operator<(const Real& a, const Real& b);

Real log3(const Real& x);                 // -inf for 0, NaN for negatives
Real pow_ui(ulong base, ulong e);         // base^e
Real three_pow(const Real& e);            // 3^e for real e
Real sqrt(const Real& x);
Real e_const();                           // Euler's number e
Real log3_factorial(const Real& n);       // log3(n!) for an integer n >= 0
// log3 binom(a + b, a) for integers a, b >= 0, given apart so that a huge a
// does not swallow a small b (3^L + d rounds to 3^L at any fixed precision).
Real log3_binomial(const Real& a, const Real& b);

// Decimal text with `digits` significant digits ("6.52372", "1.23457e+30").
std::string to_string(const Real& x, int digits);

}  // namespace netpoly::bounds_detail
