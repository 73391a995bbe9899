// NB: Navon & Bronstein, the mixer gap
// (../shared/seeds/navon-bronstein-mixer-gap.txt): Theorems 5.5, 5.6, 5.7.
#include "bound_entry.hpp"

namespace netpoly::bounds_detail {
namespace {

using bounds_detail::log3;

// The base 2 H m^2 n^2 of NB Theorems 5.5 and 5.6 (m = width, n = tokens), exactly.
Fmpz nb_base(std::uint64_t d, std::uint64_t H, std::uint64_t N) {
  Fmpz b = fz(d);
  fmpz_mul_ui(b.get(), b.get(), d);
  fmpz_mul_ui(b.get(), b.get(), N);
  fmpz_mul_ui(b.get(), b.get(), N);
  fmpz_mul_ui(b.get(), b.get(), 2 * H);
  return b;
}

Draft nb_thm55(const Ctx& c) {
  // NB Thm 5.5 (eq. 10): depth-p mlp-based architecture (mixer; an mlp is the one-token case,
  // n = 1): sep <= (2 H m^2 n^2)^(2^p). Lemma 5.4's recursion includes residual layers (1_R).
  // An mlp-based layer (NB eq. 3) has no heads: H = 1 whatever --heads says.
  const std::uint64_t L = c.L, d = c.d, H = 1, N = c.N;
  Draft x = draft("NB Thm 5.5", "NB §5, Theorem 5.5, eq. (10)", arch_name(c.arch), BoundKind::upper,
                  "(2 H m^2 n^2)^(2^p), H = 1 (mlp-based layers have no heads)", "none", true,
                  "covers residual layers (NB Def. 3.2, set R)");
  Real b = Real(2.0) * c.dr * c.dr * c.Nr * c.Nr;
  Real two_p;
  mpfr_ui_pow(two_p.get(), 2, c.Lr.get(), MPFR_RNDN);
  x.log3 = two_p * log3(b);
  x.exact = [L, d, H, N]() { return Fmpq(pow_exact(nb_base(d, H, N), ui_pow_ui(2, L))); };
  return x;
}


// NB Thm 5.6 (eq. 13): depth-p attention with residuals: sep <= (2 H m^2 n^2)^(3^p).
Draft nb_thm56(const Ctx& c) {
  const std::uint64_t L = c.L, d = c.d, H = c.H, N = c.N;
  Draft x = draft("NB Thm 5.6", "NB §5, Theorem 5.6, eq. (13)", kAttnRes, BoundKind::upper,
                  "(2 H m^2 n^2)^(3^p)", "none", true);
  Real b = Real(2.0) * c.Hr * c.dr * c.dr * c.Nr * c.Nr;
  x.log3 = bounds_detail::three_pow(c.Lr) * log3(b);
  x.exact = [L, d, H, N]() { return Fmpq(pow_exact(nb_base(d, H, N), ui_pow_ui(3, L))); };
  return x;
}

// NB Thm 5.7 (eq. 15): log3 sep >= 3^(p-2) (log3(m - H) - p + 2 - log3 2) for p < log3 m.
// NB writes it for y^R (residual), but derives it from [23] Thm 7.1 "for linear transformers
// without residual connections" (= LV Thm 1's lower side); we apply it without residuals.
Draft nb_thm57(const Ctx& c) {
  const std::uint64_t d = c.d, H = c.H;
  Draft x = draft("NB Thm 5.7", "NB §5, Theorem 5.7, eq. (15)", kAttn, BoundKind::lower,
                  "log3 sep >= 3^(p-2) (log3(m - H) - p + 2 - log3 2)",
                  "p < log3 m, p >= 2, d_a odd >= 3, n >= 2 (LV B.2)",
                  c.shallow && b2_shape(c),
                  "holds for some weights, hence almost all; NB states it for y^R but proves it "
                  "without residual connections");
  x.b.defined = d > H;
  x.log3 = lv_thm1_lower_log3(c);
  return x;
}

bool mixer_or_mlp(const NetworkShape& p) { return p.arch == Arch::mixer || p.arch == Arch::mlp; }

const RegisterBound nb_thm57_entry({"NB Thm 5.7", 17, attention_plain, nb_thm57});
const RegisterBound nb_thm56_entry({"NB Thm 5.6", 24, attention_residual, nb_thm56});
const RegisterBound nb_thm55_entry({"NB Thm 5.5", 30, mixer_or_mlp, nb_thm55});

}  // namespace
}  // namespace netpoly::bounds_detail
