// What a bound file needs (internal to src/bounds): the shape as exact
// integers and reals, a Draft (a record before its value is fixed), exact
// helpers, and the registry each bound joins with one RegisterBound object.
// docs/architecture.md says how to add a bound.
#pragma once
#include <cstdint>
#include <functional>

#include "netpoly/bounds.hpp"
#include "real.hpp"

namespace netpoly::bounds_detail {

Fmpz fz(std::uint64_t x);
Real re(std::uint64_t x);
Fmpz ui_pow_ui(std::uint64_t base, std::uint64_t e);
// base^e for an exponent that may not fit a word when the base is 0 or 1.
Fmpz pow_exact(const Fmpz& base, const Fmpz& e);
// Sign of base^e - x, without overflow (base >= 1).
int cmp_pow(std::uint64_t base, std::uint64_t e, std::uint64_t x);
Fmpq frac(const Fmpz& num, const Fmpz& den);

// A bound before its value is fixed: log3 always, the exact value on demand.
struct Draft {
  Bound b;
  Real log3;
  std::function<Fmpq()> exact;  // empty for real-valued formulas
  // Decimal digits of the largest number exact() builds, when far more than the value's
  // own (0: about the value's). finish() skips exact() when either exceeds the digit cap.
  double exact_digits = 0;
};

Draft draft(const char* id, const char* source, const char* applies, BoundKind kind, const char* formula,
            const char* condition, bool in_regime, const char* note = "");

// The parameters as exact integers and as reals, and the derived C(L), lambda.
struct Ctx {
  Arch arch;
  bool residual;
  std::uint64_t L, d, H, N, k;
  bool n_gt_1, deep, shallow;  // N > 1; L > log3 d; L < log3 d
  Real Lr, dr, Hr, Nr, kr;
  Real C;       // C(L) = (3^L - 1)/2
  Real lambda;  // 3^(L-2) (1/3 for L = 1)
  explicit Ctx(const NetworkShape& p)
      : arch(p.arch), residual(p.residual), L(p.layers), d(p.width), H(p.heads),
        N(p.arch == Arch::mlp ? 1 : p.tokens), k(p.block_degree()), n_gt_1(N > 1), deep(cmp_pow(3, L, d) > 0),
        shallow(cmp_pow(3, L, d) < 0), Lr(re(L)), dr(re(d)), Hr(re(H)), Nr(re(N)), kr(re(k)) {
    Real three_L = bounds_detail::three_pow(Lr);
    C = (three_L - Real(1.0)) / Real(2.0);
    lambda = three_L / Real(9.0);
  }
};


// One bound of the registry: its id (what claims and tables name), its
// place in listings (`order`; the degree records are listed after the
// separation-rank ones), which shapes it applies to, and its record.
struct BoundEntry {
  const char* id;
  int order;
  bool (*applies)(const NetworkShape&);
  Draft (*make)(const Ctx&);
};
// A bound file's static object: keeps its entry and adds it to the registry.
struct RegisterBound {
  BoundEntry entry;
  explicit RegisterBound(const BoundEntry& e);
  RegisterBound(const RegisterBound&) = delete;
  RegisterBound& operator=(const RegisterBound&) = delete;
};

// LV Thm 1's lower side = NB Thm 5.7 (levine.cpp).
Real lv_thm1_lower_log3(const Ctx& c);
// The shapes LV App. B.2's lower-bound construction covers: L >= 2, d_a = d/H odd >= 3,
// N >= 2 (levine.cpp).
bool b2_shape(const Ctx& c);
// Digits of the numerator (2C + d)^d LV Thm 4's and Thm 6's exact values pass through (levine.cpp).
double lv_thm4_work_digits(const Ctx& c);

constexpr const char* kAttn = "attention (no residual)";
constexpr const char* kAttnRes = "attention (residual)";
constexpr const char* kAE = "holds for all weights but a set of measure zero";

// LV's and NB's attention bounds are about degree-3 blocks (LV eq. (1)).
inline bool attention_plain(const NetworkShape& p) {
  return p.arch == Arch::attention && p.block_degree() == 3 && !p.residual;
}
inline bool attention_residual(const NetworkShape& p) {
  return p.arch == Arch::attention && p.block_degree() == 3 && p.residual;
}

}  // namespace netpoly::bounds_detail
