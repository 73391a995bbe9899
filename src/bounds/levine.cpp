// LV: Levine et al., "The depth-to-width interplay in self-attention"
// (../shared/seeds/levine-depth-width-self-attention.txt): Theorems 1-6 and
// the App. B.2 witness, for attention without and with residuals.
#include <cmath>

#include "bound_entry.hpp"

namespace netpoly::bounds_detail {

// LV Thm 1 lower bound = NB Thm 5.7: 3^(L-2) (log3(d - H) - L + 2 - log3 2),
// written as lambda * log3((d - H) / (2 lambda)) so that exact zeros stay zero.
Real lv_thm1_lower_log3(const Ctx& c) {
  return c.lambda * bounds_detail::log3((c.dr - c.Hr) / (Real(2.0) * c.lambda));
}

// The shapes LV App. B.2 ("Proof of the lower bounds in theorems 1 and 2")
// covers: its weight assignment starts at layer 3 with lambda = 3^(L-2)
// ("for all l > 2"), so L >= 2; Lemma 6 splits each head's d_a coordinates
// into (d_a - 1)/2 + (d_a - 1)/2 + 1, so d_a = d/H is odd, and V has
// d' = H (d_a - 1)/2 columns, so d_a >= 3 (at d_a = 1, H = d, V has no
// columns, the sub-matrix ((0 lambda)) = 0 rows, and the bounds read log3 0:
// docs/findings.md §13); its sub-matrix takes one token on each side of the
// partition, so N >= 2. Every lower bound derived from B.2 (LV Thm 1 and 2
// lower, NB Thm 5.7, the B.2 witness) is in its regime only there.
bool b2_shape(const Ctx& c) {
  if (c.H < 1) return false;
  const std::uint64_t da = c.d / c.H;
  return c.L >= 2 && da >= 3 && da % 2 == 1 && c.N >= 2;
}

// LV Thm 4's exact value divides (2C + d)^d by d^d: at L = 7, d = 9^7 that numerator has
// 3.2e7 digits though the quotient has 9,208. Its digits, d log10(2C + d), are what the exact
// computation costs (Draft::exact_digits), so it is skipped beyond the digit cap.
double lv_thm4_work_digits(const Ctx& c) {
  const Real twoC = Real(2.0) * c.C;
  return (c.dr * bounds_detail::log3(twoC + c.dr)).to_double() * std::log10(3.0) + 1.0;
}

namespace {

using bounds_detail::log3;
using bounds_detail::log3_binomial;

// LV Thm 4 without its leading d (C+1): ((d 2C)) (2C/d + 1)^d, as log3 and exactly.
Real lv_thm4_core_log3(const Ctx& c) {
  Real twoC = Real(2.0) * c.C;
  return log3_binomial(twoC, c.dr - Real(1.0)) + c.dr * log3((twoC + c.dr) / c.dr);
}
Fmpq lv_thm4_exact(std::uint64_t L, std::uint64_t d, std::uint64_t c_plus_1_power) {
  Fmpz C = lv_C(L), twoC, cp1, num, den, t;
  fmpz_mul_ui(twoC.get(), C.get(), 2);
  fmpz_add_ui(cp1.get(), C.get(), 1);
  fmpz_pow_ui(num.get(), cp1.get(), c_plus_1_power);
  fmpz_mul_ui(num.get(), num.get(), d);
  fmpz_add_ui(t.get(), twoC.get(), d);  // (2C + d)
  Fmpz nd = fz(d);
  Fmpz b = multiset_coefficient(nd, twoC);
  fmpz_mul(num.get(), num.get(), b.get());
  fmpz_pow_ui(t.get(), t.get(), d);
  fmpz_mul(num.get(), num.get(), t.get());
  fmpz_pow_ui(den.get(), nd.get(), d);
  return frac(num, den);
}


// LV Thm 3 (App. A.2): sep <= (H (d_a + 1))^C(L) = (d + H)^C(L), any partition.
Draft lv_thm3(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d, H = c.H;
  Draft x = draft("LV Thm 3", "LV App. A.2, Theorem 3", kAttn, BoundKind::upper, "(H (d_a + 1))^C(L)",
                  "N > 1", c.n_gt_1);
  x.log3 = c.C * log3(c.dr + c.Hr);
  x.exact = [L, d, H]() { return Fmpq(pow_exact(fz(d + H), lv_C(L))); };
  return x;
}

// LV Thm 4 (App. A.3): sep <= d (C+1) ((d 2C)) (2C/d + 1)^d; rational, so the value is its floor.
Draft lv_thm4(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d;
  Draft x = draft("LV Thm 4", "LV App. A.3, Theorem 4", kAttn, BoundKind::upper,
                  "d (C(L)+1) ((d 2C(L))) (2C(L)/d + 1)^d", "N > 1", c.n_gt_1);
  x.log3 = log3(c.dr) + log3(c.C + Real(1.0)) + lv_thm4_core_log3(c);
  x.exact = [L, d]() { return lv_thm4_exact(L, d, 1); };
  x.exact_digits = lv_thm4_work_digits(c);
  return x;
}

// LV Thm 1, upper side (eq. 7 / eq. 18): log3 sep <= C(L) log3(d + H). Equals Thm 3's log3.
Draft lv_thm1_upper(const Ctx& c) {
  Draft x = draft("LV Thm 1 (upper)", "LV §4.1, Theorem 1, eq. (7)", kAttn, BoundKind::upper,
                  "log3 sep <= (3^L - 1)/2 log3(d + H)", "L < log3 d", c.shallow);
  x.log3 = c.C * log3(c.dr + c.Hr);
  return x;
}

// LV Thm 1, lower side (eq. 7): log3 sep >= 3^(L-2) (log3(d - H) + a), a = -L + 2 - log3 2.
Draft lv_thm1_lower(const Ctx& c) {
  const std::uint64_t d = c.d, H = c.H;
  Draft x = draft("LV Thm 1 (lower)", "LV §4.1, Theorem 1, eq. (7); proof in App. B.2", kAttn, BoundKind::lower,
                  "log3 sep >= 3^(L-2) (log3(d - H) - L + 2 - log3 2)",
                  "L < log3 d, L >= 2, d_a odd >= 3, N >= 2 (B.2)", c.shallow && b2_shape(c), kAE);
  x.b.defined = d > H;
  x.log3 = lv_thm1_lower_log3(c);
  return x;
}

// LV Thm 2, upper side (eq. 8): log3 sep <= 2 d L + c1 + c2, c1 = L, c2 = -2d log3(d/(2 sqrt(2e))) + log3 d.
Draft lv_thm2_upper(const Ctx& c) {
  Draft x = draft("LV Thm 2 (upper)", "LV §4.2, Theorem 2, eq. (8)", kAttn, BoundKind::upper,
                  "log3 sep <= 2 d L + L - 2 d log3(d / (2 sqrt(2e))) + log3 d", "L > log3 d", c.deep);
  Real two_sqrt_2e = Real(2.0) * bounds_detail::sqrt(Real(2.0) * bounds_detail::e_const());
  x.log3 = Real(2.0) * c.dr * c.Lr + c.Lr - Real(2.0) * c.dr * log3(c.dr / two_sqrt_2e) + log3(c.dr);
  return x;
}

// LV Thm 2, lower side (eq. 8): log3 sep >= d L/2 + b1 + b2, b1 = -L (H/2 + 1), b2 = -d (1 + log3((d-H)/2)/2).
Draft lv_thm2_lower(const Ctx& c) {
  const std::uint64_t d = c.d, H = c.H;
  Draft x = draft("LV Thm 2 (lower)", "LV §4.2, Theorem 2, eq. (8); proof in App. B.2", kAttn, BoundKind::lower,
                  "log3 sep >= d L/2 - L (H/2 + 1) - d (1 + log3((d - H)/2) / 2)",
                  "L > log3 d, L >= 2, d_a odd >= 3, N >= 2 (B.2)", c.deep && b2_shape(c), kAE);
  x.b.defined = d > H;
  Real half(0.5);
  x.log3 = c.dr * c.Lr * half - c.Lr * (c.Hr * half + Real(1.0)) -
           c.dr * (Real(1.0) + log3((c.dr - c.Hr) * half) * half);
  return x;
}

// LV App. B.2 with Lemma 6: a weight assignment and template vectors whose grid sub-matrix is
// Const * (V V^T)^{⊙ lambda}, full rank ((d' lambda)), d' = (d - H)/2, lambda = 3^(L-2).
// Lemma 6 splits each head's d_a coordinates into (d_a - 1)/2 + (d_a - 1)/2 + 1, so d_a
// must be odd (d - H even is not enough: H = 2, d = 8 has d - H = 6 but d_a = 4); d_a >= 3
// makes d' >= 1; the sub-matrix uses one token on each side of the partition, so N >= 2;
// the layer recursion starts at layer 3 with lambda = 3^(L-2), so L >= 2.
Draft lv_b2_witness(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d, H = c.H;
  Draft x = draft("LV B.2 witness", "LV App. B.2 and Lemma 6 (grid-tensor rank)", kAttn, BoundKind::lower,
                  "((d' lambda)), d' = (d - H)/2, lambda = 3^(L-2)", "L >= 2, d_a = d/H odd >= 3, N >= 2", b2_shape(c),
                  "holds for all weights but a set of measure zero (LV Claim 2); "
                  "LV Thm 1 and Thm 2 lower bounds are relaxations of it");
  x.b.defined = L >= 2 && d > H && (d - H) % 2 == 0;
  if (x.b.defined) {
    Real dp = re((d - H) / 2);
    x.log3 = log3_binomial(c.lambda, dp - Real(1.0));
    x.exact = [L, d, H]() {
      return Fmpq(multiset_coefficient(fz((d - H) / 2), ui_pow_ui(3, L - 2)));
    };
  }
  return x;
}

// LV Thm 5 (App. A.4), K = N d^4 / H (LV Lemma 2's factor), in three forms:
//   "LV Thm 5": the theorem as stated, log3 sep <= L log3 L + C(L) log3 K, i.e. L^L K^C(L);
//   "LV Thm 5 (proof recursion)": what the proof's argument gives, "Sep(y) <= (L+1)
//     Sep(longest branch(L))" with "Sep(longest branch(L)) <= K (L Sep(longest branch(L-1)))^3"
//     and "Sep(longest branch(L=1)) = K": (L+1) S_L, S_1 = K, S_l = K (l S_{l-1})^3;
//   "LV Thm 5 (product form)": the proof's last line, prod_{l=1..L} (l+1) K^(3^(l-1)) = (L+1)! K^C(L).
// The recursion is the largest for L >= 2 (L = 2: 24 K^4 against 6 K^4 and 4 K^4); the other
// two do not follow from it, so only a violation of the recursion refutes what the paper proves.
Fmpz lv_K(std::uint64_t d, std::uint64_t H, std::uint64_t N) {
  Fmpz K = fz(d);
  fmpz_pow_ui(K.get(), K.get(), 4);
  fmpz_mul_ui(K.get(), K.get(), N);
  fmpz_divexact_ui(K.get(), K.get(), H);  // H | d
  return K;
}
Real lv_K_log3(const Ctx& c) { return log3(c.Nr * c.dr * c.dr * c.dr * c.dr / c.Hr); }

Draft lv_thm5(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d, H = c.H, N = c.N;
  Draft x = draft("LV Thm 5", "LV App. A.4, Theorem 5 (as stated)", kAttnRes, BoundKind::upper,
                  "log3 sep <= L log3 L + C(L) log3(N d^4 / H), i.e. L^L (N d^4/H)^C(L)", "none", true,
                  "smaller than what the proof's recursion gives for L >= 2 (see \"LV Thm 5 (proof recursion)\")");
  x.log3 = c.Lr * log3(c.Lr) + c.C * lv_K_log3(c);
  x.exact = [L, d, H, N]() {
    Fmpz r = pow_exact(lv_K(d, H, N), lv_C(L));
    Fmpz LL = ui_pow_ui(L, L);
    fmpz_mul(r.get(), r.get(), LL.get());
    return Fmpq(r);
  };
  return x;
}

// S_L of the proof exactly: S_1 = K, S_l = K (l S_{l-1})^3. log3 S_l = log3 K + 3 (log3 l + log3 S_{l-1}).
Draft lv_thm5_recursion(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d, H = c.H, N = c.N;
  Draft x = draft("LV Thm 5 (proof recursion)", "LV App. A.4, proof of Theorem 5", kAttnRes, BoundKind::upper,
                  "(L + 1) S_L, S_1 = N d^4/H, S_l = (N d^4/H) (l S_{l-1})^3", "none", true,
                  "the bound the proof's argument establishes");
  const Real lk = lv_K_log3(c);
  Real s = lk;
  for (std::uint64_t l = 2; l <= L; ++l) s = lk + Real(3.0) * (log3(re(l)) + s);
  x.log3 = log3(c.Lr + Real(1.0)) + s;
  x.exact = [L, d, H, N]() {
    const Fmpz K = lv_K(d, H, N);
    Fmpz S = K;
    for (std::uint64_t l = 2; l <= L; ++l) {
      fmpz_mul_ui(S.get(), S.get(), l);
      fmpz_pow_ui(S.get(), S.get(), 3);
      fmpz_mul(S.get(), S.get(), K.get());
    }
    fmpz_mul_ui(S.get(), S.get(), L + 1);
    return Fmpq(S);
  };
  return x;
}

Draft lv_thm5_product(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d, H = c.H, N = c.N;
  Draft x = draft("LV Thm 5 (product form)", "LV App. A.4, last line of the proof of Theorem 5", kAttnRes,
                  BoundKind::upper, "prod_{l=1..L} (l + 1) (N d^4 / H)^(3^(l-1)) = (L+1)! (N d^4/H)^C(L)", "none",
                  true, "smaller than the proof's recursion for L >= 2; does not follow from it");
  x.log3 = bounds_detail::log3_factorial(c.Lr + Real(1.0)) + c.C * lv_K_log3(c);
  x.exact = [L, d, H, N]() {
    Fmpz r = pow_exact(lv_K(d, H, N), lv_C(L)), f;
    fmpz_fac_ui(f.get(), L + 1);
    fmpz_mul(r.get(), r.get(), f.get());
    return Fmpq(r);
  };
  return x;
}

// LV Thm 6 (App. A.4): sep <= d (C+1)^2 ((d 2C)) (2C/d + 1)^d = (C+1) * Thm 4; floor of a rational.
Draft lv_thm6(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d;
  Draft x = draft("LV Thm 6", "LV App. A.4, Theorem 6", kAttnRes, BoundKind::upper,
                  "d (C(L)+1)^2 ((d 2C(L))) (2C(L)/d + 1)^d", "none", true);
  x.log3 = log3(c.dr) + Real(2.0) * log3(c.C + Real(1.0)) + lv_thm4_core_log3(c);
  x.exact = [L, d]() { return lv_thm4_exact(L, d, 2); };
  x.exact_digits = lv_thm4_work_digits(c);
  return x;
}

const RegisterBound lv_thm3_entry({"LV Thm 3", 10, attention_plain, lv_thm3});
const RegisterBound lv_thm4_entry({"LV Thm 4", 11, attention_plain, lv_thm4});
const RegisterBound lv_thm1_upper_entry({"LV Thm 1 (upper)", 12, attention_plain, lv_thm1_upper});
const RegisterBound lv_thm1_lower_entry({"LV Thm 1 (lower)", 13, attention_plain, lv_thm1_lower});
const RegisterBound lv_thm2_upper_entry({"LV Thm 2 (upper)", 14, attention_plain, lv_thm2_upper});
const RegisterBound lv_thm2_lower_entry({"LV Thm 2 (lower)", 15, attention_plain, lv_thm2_lower});
const RegisterBound lv_b2_witness_entry({"LV B.2 witness", 16, attention_plain, lv_b2_witness});
const RegisterBound lv_thm5_entry({"LV Thm 5", 20, attention_residual, lv_thm5});
const RegisterBound lv_thm5_rec_entry({"LV Thm 5 (proof recursion)", 21, attention_residual, lv_thm5_recursion});
const RegisterBound lv_thm5_prod_entry({"LV Thm 5 (product form)", 22, attention_residual, lv_thm5_product});
const RegisterBound lv_thm6_entry({"LV Thm 6", 23, attention_residual, lv_thm6});

}  // namespace
}  // namespace netpoly::bounds_detail
