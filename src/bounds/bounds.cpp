// The formulas of docs/math.md §3, checked against the seed papers. Where the two
// differ we follow the paper and say so next to the formula.
#include "netpoly/bounds.hpp"

#include <cmath>
#include <functional>
#include <limits>

#include "netpoly/error.hpp"
#include "real.hpp"

namespace netpoly {

using bounds_detail::Real;

namespace {

constexpr std::uint64_t kMaxLayers = 1000000;
constexpr std::uint64_t kMaxSize = 1000000000;  // width, tokens, heads
constexpr std::uint64_t kMaxDegree = 1000000;

Fmpz fz(std::uint64_t x) {
  Fmpz r;
  fmpz_set_ui(r.get(), x);
  return r;
}

Real re(std::uint64_t x) { return Real::from_ui(x); }

Fmpz ui_pow_ui(std::uint64_t base, std::uint64_t e) {
  Fmpz r = fz(base);
  fmpz_pow_ui(r.get(), r.get(), e);
  return r;
}

// base^e for an exponent that may not fit a word when the base is 0 or 1.
Fmpz pow_exact(const Fmpz& base, const Fmpz& e) {
  Fmpz r(1);
  if (fmpz_is_zero(e.get())) return r;
  if (fmpz_is_zero(base.get()) || fmpz_is_one(base.get())) return base;
  if (!fmpz_abs_fits_ui(e.get())) throw LimitError("bounds: exponent too large for an exact value");
  fmpz_pow_ui(r.get(), base.get(), fmpz_get_ui(e.get()));
  return r;
}

// Sign of base^e - x, without overflow (base >= 1).
int cmp_pow(std::uint64_t base, std::uint64_t e, std::uint64_t x) {
  unsigned __int128 v = 1;
  for (std::uint64_t i = 0; i < e; ++i) {
    v *= base;
    if (v > x) return 1;
    if (base == 1) break;
  }
  return v < x ? -1 : (v == x ? 0 : 1);
}

// A bound before its value is fixed: log3 always, the exact value on demand.
struct Draft {
  Bound b;
  Real log3;
  std::function<Fmpq()> exact;  // empty for real-valued formulas
};

Fmpq frac(const Fmpz& num, const Fmpz& den) {
  Fmpq q;
  fmpq_set_fmpz_frac(q.get(), num.get(), den.get());
  return q;
}

Bound finish(Draft d, const BoundOptions& o) {
  Bound b = std::move(d.b);
  if (!b.defined) {
    b.value_kind = ValueKind::log3;
    b.log3 = std::numeric_limits<double>::quiet_NaN();
    b.log3_text = "nan";
    return b;
  }
  b.log3 = d.log3.to_double();
  b.log3_text = bounds_detail::to_string(d.log3, 20);
  b.value_kind = ValueKind::log3;
  if (!d.exact || !d.log3.is_finite()) return b;
  // Estimate the length from log3 (slightly low, so no value is missed), then check it exactly.
  const double digits = b.log3 <= 0 ? 1.0 : std::floor(b.log3 * std::log10(3.0) - 1e-9) + 1.0;
  if (!(digits <= static_cast<double>(o.max_exact_digits))) return b;
  Fmpq q = d.exact();
  Fmpz v;
  fmpz_fdiv_q(v.get(), q.num(), q.den());
  if (v.str().size() > o.max_exact_digits) return b;
  b.floored = !q.is_integer();
  b.exact = std::move(v);
  b.value_kind = ValueKind::exact;
  return b;
}

// The parameters as exact integers and as reals, and the derived C(L), lambda.
struct Ctx {
  std::uint64_t L, d, H, N, k;
  Real Lr, dr, Hr, Nr, kr;
  Real C;       // C(L) = (3^L - 1)/2
  Real lambda;  // 3^(L-2) (1/3 for L = 1)
  explicit Ctx(const BoundParams& p)
      : L(p.layers), d(p.width), H(p.heads), N(p.arch == Arch::mlp ? 1 : p.tokens), k(p.degree),
        Lr(re(L)), dr(re(d)), Hr(re(H)), Nr(re(N)), kr(re(k)) {
    Real three_L = bounds_detail::three_pow(Lr);
    C = (three_L - Real(1.0)) / Real(2.0);
    lambda = three_L / Real(9.0);
  }
};

Draft draft(const char* id, const char* source, const char* applies, BoundKind kind, const char* formula,
            const char* condition, bool in_regime, const char* note = "") {
  Draft d;
  d.b.id = id;
  d.b.source = source;
  d.b.applies_to = applies;
  d.b.kind = kind;
  d.b.formula = formula;
  d.b.condition = condition;
  d.b.in_regime = in_regime;
  d.b.note = note;
  return d;
}

using bounds_detail::log3;
using bounds_detail::log3_binomial;

constexpr const char* kAttn = "attention (no residual)";
constexpr const char* kAttnRes = "attention (residual)";
constexpr const char* kAE = "holds for all weights but a set of measure zero";

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

// LV Thm 1 lower bound = NB Thm 5.7: 3^(L-2) (log3(d - H) - L + 2 - log3 2),
// written as lambda * log3((d - H) / (2 lambda)) so that exact zeros stay zero.
Real lv_thm1_lower_log3(const Ctx& c) {
  return c.lambda * log3((c.dr - c.Hr) / (Real(2.0) * c.lambda));
}

void attention_bounds(const Ctx& c, std::vector<Draft>& out) {
  const std::uint64_t L = c.L, d = c.d, H = c.H;
  const bool n_gt_1 = c.N > 1;
  const bool deep = cmp_pow(3, L, d) > 0;     // L > log3 d  <=>  3^L > d
  const bool shallow = cmp_pow(3, L, d) < 0;  // L < log3 d  <=>  3^L < d

  {  // LV Thm 3 (App. A.2): sep <= (H (d_a + 1))^C(L) = (d + H)^C(L), any partition.
    Draft x = draft("LV Thm 3", "LV App. A.2, Theorem 3", kAttn, BoundKind::upper, "(H (d_a + 1))^C(L)",
                    "N > 1", n_gt_1);
    x.log3 = c.C * log3(c.dr + c.Hr);
    x.exact = [L, d, H]() { return Fmpq(pow_exact(fz(d + H), lv_C(L))); };
    out.push_back(std::move(x));
  }
  {  // LV Thm 4 (App. A.3): sep <= d (C+1) ((d 2C)) (2C/d + 1)^d; rational, so the value is its floor.
    Draft x = draft("LV Thm 4", "LV App. A.3, Theorem 4", kAttn, BoundKind::upper,
                    "d (C(L)+1) ((d 2C(L))) (2C(L)/d + 1)^d", "N > 1", n_gt_1);
    x.log3 = log3(c.dr) + log3(c.C + Real(1.0)) + lv_thm4_core_log3(c);
    x.exact = [L, d]() { return lv_thm4_exact(L, d, 1); };
    out.push_back(std::move(x));
  }
  {  // LV Thm 1, upper side (eq. 7 / eq. 18): log3 sep <= C(L) log3(d + H). Equals Thm 3's log3.
    Draft x = draft("LV Thm 1 (upper)", "LV §4.1, Theorem 1, eq. (7)", kAttn, BoundKind::upper,
                    "log3 sep <= (3^L - 1)/2 log3(d + H)", "L < log3 d", shallow);
    x.log3 = c.C * log3(c.dr + c.Hr);
    out.push_back(std::move(x));
  }
  {  // LV Thm 1, lower side (eq. 7): log3 sep >= 3^(L-2) (log3(d - H) + a), a = -L + 2 - log3 2.
    Draft x = draft("LV Thm 1 (lower)", "LV §4.1, Theorem 1, eq. (7)", kAttn, BoundKind::lower,
                    "log3 sep >= 3^(L-2) (log3(d - H) - L + 2 - log3 2)", "L < log3 d", shallow, kAE);
    x.b.defined = d > H;
    x.log3 = lv_thm1_lower_log3(c);
    out.push_back(std::move(x));
  }
  {  // LV Thm 2, upper side (eq. 8): log3 sep <= 2 d L + c1 + c2, c1 = L, c2 = -2d log3(d/(2 sqrt(2e))) + log3 d.
    Draft x = draft("LV Thm 2 (upper)", "LV §4.2, Theorem 2, eq. (8)", kAttn, BoundKind::upper,
                    "log3 sep <= 2 d L + L - 2 d log3(d / (2 sqrt(2e))) + log3 d", "L > log3 d", deep);
    Real two_sqrt_2e = Real(2.0) * bounds_detail::sqrt(Real(2.0) * bounds_detail::e_const());
    x.log3 = Real(2.0) * c.dr * c.Lr + c.Lr - Real(2.0) * c.dr * log3(c.dr / two_sqrt_2e) + log3(c.dr);
    out.push_back(std::move(x));
  }
  {  // LV Thm 2, lower side (eq. 8): log3 sep >= d L/2 + b1 + b2, b1 = -L (H/2 + 1), b2 = -d (1 + log3((d-H)/2)/2).
    Draft x = draft("LV Thm 2 (lower)", "LV §4.2, Theorem 2, eq. (8)", kAttn, BoundKind::lower,
                    "log3 sep >= d L/2 - L (H/2 + 1) - d (1 + log3((d - H)/2) / 2)", "L > log3 d", deep, kAE);
    x.b.defined = d > H;
    Real half(0.5);
    x.log3 = c.dr * c.Lr * half - c.Lr * (c.Hr * half + Real(1.0)) -
             c.dr * (Real(1.0) + log3((c.dr - c.Hr) * half) * half);
    out.push_back(std::move(x));
  }
  {  // LV App. B.2 with Lemma 6: a weight assignment and template vectors whose grid sub-matrix is
     // Const * (V V^T)^{⊙ lambda}, full rank ((d' lambda)), d' = (d - H)/2, lambda = 3^(L-2).
     // Lemma 6 splits each head's d_a coordinates into (d_a - 1)/2 + (d_a - 1)/2 + 1, so d_a
     // must be odd (d - H even is not enough: H = 2, d = 8 has d - H = 6 but d_a = 4); d_a >= 3
     // makes d' >= 1; the sub-matrix uses one token on each side of the partition, so N >= 2;
     // the layer recursion starts at layer 3 with lambda = 3^(L-2), so L >= 2.
    const std::uint64_t da = d / H;
    const bool in = L >= 2 && da % 2 == 1 && da >= 3 && c.N >= 2;
    Draft x = draft("LV B.2 witness", "LV App. B.2 and Lemma 6 (grid-tensor rank)", kAttn, BoundKind::lower,
                    "((d' lambda)), d' = (d - H)/2, lambda = 3^(L-2)", "L >= 2, d_a = d/H odd >= 3, N >= 2", in,
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
    out.push_back(std::move(x));
  }
  {  // NB Thm 5.7 (eq. 15): log3 sep >= 3^(p-2) (log3(m - H) - p + 2 - log3 2) for p < log3 m.
     // NB writes it for y^R (residual), but derives it from [23] Thm 7.1 "for linear transformers
     // without residual connections" (= LV Thm 1's lower side); we apply it without residuals.
    Draft x = draft("NB Thm 5.7", "NB §5, Theorem 5.7, eq. (15)", kAttn, BoundKind::lower,
                    "log3 sep >= 3^(p-2) (log3(m - H) - p + 2 - log3 2)", "p < log3 m", shallow,
                    "holds for some weights, hence almost all; NB states it for y^R but proves it "
                    "without residual connections");
    x.b.defined = d > H;
    x.log3 = lv_thm1_lower_log3(c);
    out.push_back(std::move(x));
  }
  {  // AO eq. (1), from LV Thm 2: sep = Theta(3^(L d)) when L > log3 d. An order, not a bound.
    Draft x = draft("AO eq. (1)", "AO §1.1, eq. (1) (from LV Thm 2)", kAttn, BoundKind::order, "Theta(3^(L d))",
                    "L > log3 d", deep, "asymptotic order with unstated constants, not a certified bound");
    x.log3 = c.Lr * c.dr;
    out.push_back(std::move(x));
  }
}

// The base 2 H m^2 n^2 of NB Theorems 5.5 and 5.6 (m = width, n = tokens), exactly.
Fmpz nb_base(std::uint64_t d, std::uint64_t H, std::uint64_t N) {
  Fmpz b = fz(d);
  fmpz_mul_ui(b.get(), b.get(), d);
  fmpz_mul_ui(b.get(), b.get(), N);
  fmpz_mul_ui(b.get(), b.get(), N);
  fmpz_mul_ui(b.get(), b.get(), 2 * H);
  return b;
}

void attention_residual_bounds(const Ctx& c, std::vector<Draft>& out) {
  const std::uint64_t L = c.L, d = c.d, H = c.H, N = c.N;
  {  // LV Thm 5 (App. A.4): sep <= prod_{l=1..L} (l + 1) (N d^4 / H)^(3^(l-1)) = (L+1)! K^C(L), K = N d^4/H.
     // The theorem's headline form, log3 sep <= L log3 L + C(L)(4 log3 d + log3 N - log3 H), is smaller
     // than this product for L <= 2 ((L+1)! > L^L); we use the product the proof ends with (and
     // docs/math.md states).
    Draft x = draft("LV Thm 5", "LV App. A.4, Theorem 5", kAttnRes, BoundKind::upper,
                    "prod_{l=1..L} (l + 1) (N d^4 / H)^(3^(l-1))", "none", true,
                    "the theorem's log form L log3 L + C(L) log3(N d^4/H) differs for L <= 2; "
                    "this is the product form of its proof");
    Real K = c.Nr * c.dr * c.dr * c.dr * c.dr / c.Hr;
    x.log3 = bounds_detail::log3_factorial(c.Lr + Real(1.0)) + c.C * log3(K);
    x.exact = [L, d, H, N]() {
      Fmpz K = fz(d), f;
      fmpz_pow_ui(K.get(), K.get(), 4);
      fmpz_mul_ui(K.get(), K.get(), N);
      fmpz_divexact_ui(K.get(), K.get(), H);  // H | d
      Fmpz r = pow_exact(K, lv_C(L));
      fmpz_fac_ui(f.get(), L + 1);
      fmpz_mul(r.get(), r.get(), f.get());
      return Fmpq(r);
    };
    out.push_back(std::move(x));
  }
  {  // LV Thm 6 (App. A.4): sep <= d (C+1)^2 ((d 2C)) (2C/d + 1)^d = (C+1) * Thm 4; floor of a rational.
    Draft x = draft("LV Thm 6", "LV App. A.4, Theorem 6", kAttnRes, BoundKind::upper,
                    "d (C(L)+1)^2 ((d 2C(L))) (2C(L)/d + 1)^d", "none", true);
    x.log3 = log3(c.dr) + Real(2.0) * log3(c.C + Real(1.0)) + lv_thm4_core_log3(c);
    x.exact = [L, d]() { return lv_thm4_exact(L, d, 2); };
    out.push_back(std::move(x));
  }
  {  // NB Thm 5.6 (eq. 13): depth-p attention with residuals: sep <= (2 H m^2 n^2)^(3^p).
    Draft x = draft("NB Thm 5.6", "NB §5, Theorem 5.6, eq. (13)", kAttnRes, BoundKind::upper,
                    "(2 H m^2 n^2)^(3^p)", "none", true);
    Real b = Real(2.0) * c.Hr * c.dr * c.dr * c.Nr * c.Nr;
    x.log3 = bounds_detail::three_pow(c.Lr) * log3(b);
    x.exact = [L, d, H, N]() { return Fmpq(pow_exact(nb_base(d, H, N), ui_pow_ui(3, L))); };
    out.push_back(std::move(x));
  }
}

void mixer_bounds(const Ctx& c, const char* applies, std::vector<Draft>& out) {
  const std::uint64_t L = c.L, d = c.d, H = c.H, N = c.N;
  // NB Thm 5.5 (eq. 10): depth-p mlp-based architecture (mixer; an mlp is the one-token case,
  // n = 1): sep <= (2 H m^2 n^2)^(2^p). Lemma 5.4's recursion includes residual layers (1_R).
  Draft x = draft("NB Thm 5.5", "NB §5, Theorem 5.5, eq. (10)", applies, BoundKind::upper, "(2 H m^2 n^2)^(2^p)",
                  "none", true, "covers residual layers (NB Def. 3.2, set R)");
  Real b = Real(2.0) * c.Hr * c.dr * c.dr * c.Nr * c.Nr;
  Real two_p;
  mpfr_ui_pow(two_p.get(), 2, c.Lr.get(), MPFR_RNDN);
  x.log3 = two_p * log3(b);
  x.exact = [L, d, H, N]() { return Fmpq(pow_exact(nb_base(d, H, N), ui_pow_ui(2, L))); };
  out.push_back(std::move(x));
}

void product_bounds(const Ctx& c, bool residual, std::vector<Draft>& out) {
  if (residual) return;  // AO does not treat residual connections
  // AO eq. (3): sep = Theta(k^(L d)) for L > log_k d (k >= 2). An order, not a bound.
  Draft x = draft("AO eq. (3)", "AO §1.2, eq. (3)", "product", BoundKind::order, "Theta(k^(L d))", "L > log_k d, k >= 2",
                  c.k >= 2 && cmp_pow(c.k, c.L, c.d) > 0, "asymptotic order with unstated constants, not a certified bound");
  x.log3 = c.Lr * c.dr * log3(c.kr);
  out.push_back(std::move(x));
}

// Total degree of the network polynomial: attention 3^L (LV Cor. 3: 2C(L) + 1), sigma2 layers
// 2^p, degree-k blocks k^L (AO eq. 16). A residual adds lower-degree terms only.
void degree_bound(const Ctx& c, Arch arch, std::vector<Draft>& out) {
  std::uint64_t base = arch == Arch::attention ? 3 : (arch == Arch::product ? c.k : 2);
  const char* id = arch == Arch::attention ? "degree 3^L" : (arch == Arch::product ? "degree k^L" : "degree 2^p");
  const char* formula = arch == Arch::attention ? "3^L" : (arch == Arch::product ? "k^L" : "2^p");
  const char* src = arch == Arch::attention ? "LV App. A.1, Corollary 3 (2C(L) + 1 = 3^L); AO §1.1"
                                            : (arch == Arch::product ? "AO §6.2, eq. (16)" : "NB §3 (sigma2 squares each layer)");
  Draft x = draft(id, src, arch_name(arch), BoundKind::degree, formula, "none", true);
  x.log3 = c.Lr * log3(re(base));
  const std::uint64_t L = c.L;
  x.exact = [base, L]() { return Fmpq(ui_pow_ui(base, L)); };
  out.push_back(std::move(x));
}

}  // namespace

Arch parse_arch(const std::string& name) {
  if (name == "attention") return Arch::attention;
  if (name == "mixer") return Arch::mixer;
  if (name == "mlp") return Arch::mlp;
  if (name == "product") return Arch::product;
  throw InputError("bounds: unknown architecture \"" + name + "\" (expected attention, mixer, mlp or product)");
}

const char* arch_name(Arch a) {
  switch (a) {
    case Arch::attention: return "attention";
    case Arch::mixer: return "mixer";
    case Arch::mlp: return "mlp";
    case Arch::product: return "product";
  }
  return "?";
}

const char* bound_kind_name(BoundKind k) {
  switch (k) {
    case BoundKind::upper: return "upper";
    case BoundKind::lower: return "lower";
    case BoundKind::order: return "asymptotic order";
    case BoundKind::degree: return "degree";
  }
  return "?";
}

const char* value_kind_name(ValueKind k) { return k == ValueKind::exact ? "exact" : "log3"; }

void validate_bound_params(const BoundParams& p) {
  auto range = [](std::uint64_t v, std::uint64_t hi, const char* what) {
    if (v < 1 || v > hi)
      throw InputError(std::string("bounds: ") + what + " must be in [1, " + std::to_string(hi) + "] (got " +
                       std::to_string(v) + ")");
  };
  range(p.layers, kMaxLayers, "--layers");
  range(p.width, kMaxSize, "--width");
  range(p.heads, kMaxSize, "--heads");
  if (p.arch != Arch::mlp) range(p.tokens, kMaxSize, "--tokens");
  if (p.arch == Arch::product) range(p.degree, kMaxDegree, "--degree");
  if (p.arch == Arch::attention && p.width % p.heads != 0)
    throw InputError("bounds: --heads (" + std::to_string(p.heads) + ") must divide --width (" +
                     std::to_string(p.width) + ")");
}

std::vector<Bound> compute_bounds(const BoundParams& p, const BoundOptions& o) {
  validate_bound_params(p);
  Ctx c(p);
  std::vector<Draft> drafts;
  switch (p.arch) {
    case Arch::attention:
      if (p.residual) attention_residual_bounds(c, drafts);
      else attention_bounds(c, drafts);
      break;
    case Arch::mixer: mixer_bounds(c, "mixer", drafts); break;
    case Arch::mlp: mixer_bounds(c, "mlp", drafts); break;
    case Arch::product: product_bounds(c, p.residual, drafts); break;
  }
  degree_bound(c, p.arch, drafts);
  std::vector<Bound> out;
  out.reserve(drafts.size());
  for (auto& d : drafts) out.push_back(finish(std::move(d), o));
  return out;
}

std::string format_log3(const Bound& b, int digits) {
  if (!b.defined) return "-";
  Real x;
  if (mpfr_set_str(x.get(), b.log3_text.c_str(), 10, MPFR_RNDN) != 0) return b.log3_text;
  return bounds_detail::to_string(x, digits);
}

std::string format_value(const Bound& b, std::size_t max_digits) {
  if (!b.defined) return "undefined";
  if (b.value_kind == ValueKind::log3 || !b.exact) return "3^" + format_log3(b);
  std::string s = b.exact->str();
  std::string out;
  if (s.size() <= max_digits) {
    out = s;
  } else {
    out = s.substr(0, 1) + "." + s.substr(1, 5) + "e" + std::to_string(s.size() - 1) + " (" +
          std::to_string(s.size()) + " digits)";
  }
  return b.floored ? out + " (floor)" : out;
}

// ---------------------------------------------------------------- helpers

Fmpz lv_C(std::uint64_t L) {
  Fmpz r = ui_pow_ui(3, L);
  fmpz_sub_ui(r.get(), r.get(), 1);
  fmpz_divexact_ui(r.get(), r.get(), 2);
  return r;
}

Fmpz multiset_coefficient(const Fmpz& n, const Fmpz& k) {
  if (fmpz_sgn(n.get()) < 0 || fmpz_sgn(k.get()) < 0) throw InputError("multiset coefficient of a negative number");
  if (fmpz_is_zero(k.get())) return Fmpz(1);
  if (fmpz_is_zero(n.get())) return Fmpz(0);
  // binom(n + k - 1, k) = binom(t + s, s) with s = min(k, n - 1), t = max(k, n - 1).
  Fmpz nm1, s, t;
  fmpz_sub_ui(nm1.get(), n.get(), 1);
  const bool k_small = fmpz_cmp(k.get(), nm1.get()) <= 0;
  s = k_small ? k : nm1;
  t = k_small ? nm1 : k;
  if (!fmpz_abs_fits_ui(s.get())) throw LimitError("multiset coefficient too large for an exact value");
  const ulong si = fmpz_get_ui(s.get());
  Fmpz r(1), f;
  for (ulong i = 1; i <= si; ++i) {  // r = binom(t + i, i) after step i
    fmpz_add_ui(f.get(), t.get(), i);
    fmpz_mul(r.get(), r.get(), f.get());
    fmpz_divexact_ui(r.get(), r.get(), i);
  }
  return r;
}

Fmpz lv_lemma2_layer(std::uint64_t N, std::uint64_t d, std::uint64_t H, const Fmpz& K) {
  if (H == 0 || d % H != 0) throw InputError("LV Lemma 2: H must divide d");
  // LV Lemma 2, eq. (21): H * (d/H) * d * N * d * (d/H) * d summed terms = N d^4 / H, each of rank <= K^3.
  Fmpz r = fz(d), k3;
  fmpz_pow_ui(r.get(), r.get(), 4);
  fmpz_mul_ui(r.get(), r.get(), N);
  fmpz_divexact_ui(r.get(), r.get(), H);
  fmpz_pow_ui(k3.get(), K.get(), 3);
  fmpz_mul(r.get(), r.get(), k3.get());
  return r;
}

Fmpz nb_lemma54_layer(const Fmpz& sep_f, std::uint64_t n) {
  // NB Lemma 5.4, eq. (9): n^2 sep(f)^2 + sep(f).
  Fmpz r;
  fmpz_mul(r.get(), sep_f.get(), sep_f.get());
  fmpz_mul_ui(r.get(), r.get(), n);
  fmpz_mul_ui(r.get(), r.get(), n);
  fmpz_add(r.get(), r.get(), sep_f.get());
  return r;
}

Fmpz nb_lemma52_square(const Fmpz& sep_f) {
  // NB Lemma 5.2 (iv), eq. (7): binom(k_f + 1, 2) = (k_f + 1) k_f / 2.
  Fmpz r;
  fmpz_add_ui(r.get(), sep_f.get(), 1);
  fmpz_mul(r.get(), r.get(), sep_f.get());
  fmpz_fdiv_q_2exp(r.get(), r.get(), 1);
  return r;
}

}  // namespace netpoly
