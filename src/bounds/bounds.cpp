// The registry of the seeds' bounds (one file per paper: levine.cpp,
// navon_bronstein.cpp, navon_ao.cpp, degree.cpp) and what every record
// shares: its exact value and log3, and the display helpers.
#include "netpoly/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "bound_entry.hpp"
#include "netpoly/error.hpp"

namespace netpoly {

using bounds_detail::Real;
using bounds_detail::fz;
using bounds_detail::ui_pow_ui;

namespace bounds_detail {

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

Fmpq frac(const Fmpz& num, const Fmpz& den) {
  Fmpq q;
  fmpq_set_fmpz_frac(q.get(), num.get(), den.get());
  return q;
}

Draft draft(const char* id, const char* source, const char* applies, BoundKind kind, const char* formula,
            const char* condition, bool in_regime, const char* note) {
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

namespace {
std::vector<const BoundEntry*>& registry_list() {
  static std::vector<const BoundEntry*> r;  // filled by RegisterBound objects before main
  return r;
}
}  // namespace

RegisterBound::RegisterBound(const BoundEntry& e) : entry(e) {
  auto& r = registry_list();
  r.insert(std::upper_bound(r.begin(), r.end(), &entry,
                            [](const BoundEntry* a, const BoundEntry* b) { return a->order < b->order; }),
           &entry);
}

}  // namespace bounds_detail

namespace {

using bounds_detail::Draft;

constexpr std::uint64_t kMaxLayers = 1000000;
constexpr std::uint64_t kMaxSize = 1000000000;  // width, tokens, heads
constexpr std::uint64_t kMaxDegree = 1000000;

const std::vector<const bounds_detail::BoundEntry*>& bounds_registry() { return bounds_detail::registry_list(); }

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
  // ... and the numbers the exact computation passes through (LV Thm 4's (2C + d)^d).
  if (!(d.exact_digits <= static_cast<double>(o.max_exact_digits))) return b;
  Fmpq q = d.exact();
  Fmpz v;
  fmpz_fdiv_q(v.get(), q.num(), q.den());
  if (v.str().size() > o.max_exact_digits) return b;
  b.floored = !q.is_integer();
  b.exact = std::move(v);
  b.value_kind = ValueKind::exact;
  return b;
}

}  // namespace

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

void validate_bound_params(const NetworkShape& p) {
  auto range = [](std::uint64_t v, std::uint64_t hi, const char* what) {
    if (v < 1 || v > hi)
      throw InputError(std::string("bounds: ") + what + " must be in [1, " + std::to_string(hi) + "] (got " +
                       std::to_string(v) + ")");
  };
  range(p.layers, kMaxLayers, "--layers");
  range(p.width, kMaxSize, "--width");
  range(p.heads, kMaxSize, "--heads");
  if (p.arch != Arch::mlp) range(p.tokens, kMaxSize, "--tokens");
  if (p.arch == Arch::product) range(p.block_degree(), kMaxDegree, "--degree");
  if (p.arch == Arch::attention && (p.block_degree() < 2 || p.block_degree() > kMaxDegree))
    throw InputError("--degree: an attention block has degree 2.." + std::to_string(kMaxDegree) + ", got " +
                     std::to_string(p.block_degree()));
  if (p.arch == Arch::attention && p.width % p.heads != 0)
    throw InputError("bounds: --heads (" + std::to_string(p.heads) + ") must divide --width (" +
                     std::to_string(p.width) + ")");
}

std::vector<Bound> compute_bounds(const NetworkShape& p, const BoundOptions& o) {
  validate_bound_params(p);
  const bounds_detail::Ctx c(p);
  std::vector<Bound> out, degrees;
  for (const auto* e : bounds_registry())
    if (e->applies(p)) {
      Bound b = finish(e->make(c), o);
      (b.kind == BoundKind::degree ? degrees : out).push_back(std::move(b));
    }
  for (auto& b : degrees) out.push_back(std::move(b));
  return out;
}

std::vector<std::string> bound_ids() {
  std::vector<std::string> ids;
  for (const auto* e : bounds_registry()) ids.emplace_back(e->id);
  return ids;
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

Fmpz nb_lemma54_corrected(const Fmpz& sep_f, std::uint64_t n, std::uint64_t m) {
  // A token-mixing entry sigma2(sum_{s<n} W_ts f_sj) squares a sum of n entries of sep <= K
  // (sep <= n K by NB Lemma 5.2 (i)), so by Lemma 5.2 (iv) its sep is <= binom(n K + 1, 2); a
  // channel-mixing entry sigma2(sum_{c<m} f_tc W_cj) sums m entries: binom(m K + 1, 2). The
  // residual pi_r(f) adds <= K (Lemma 5.2 (i), (ii)). With s = max(n, m) both kinds are covered.
  Fmpz s, r;
  fmpz_mul_ui(s.get(), sep_f.get(), std::max(n, m));
  r = nb_lemma52_square(s);
  fmpz_add(r.get(), r.get(), sep_f.get());
  return r;
}

Fmpz nb_lemma54_layer(const Fmpz& sep_f, std::uint64_t n) {
  // NB Lemma 5.4, eq. (9) as printed: n^2 sep(f)^2 + sep(f). False for channel-mixing layers
  // with m > n (docs/findings.md); kept so that the failure can be shown.
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

// ------------------------------------------------------ one-step lemmas
namespace {
std::vector<const StepLemma*>& lemma_registry() {
  static std::vector<const StepLemma*> r;  // filled by RegisterStepLemma objects before main
  return r;
}
}  // namespace

RegisterStepLemma::RegisterStepLemma(const StepLemma& l) { lemma_registry().push_back(&l); }
const std::vector<const StepLemma*>& step_lemmas() { return lemma_registry(); }
const StepLemma* find_step_lemma(const std::string& id) {
  for (const StepLemma* l : lemma_registry())
    if (id == l->id) return l;
  return nullptr;
}

namespace {
// "NB Lemma 5.4" is the printed form (false for channel mixing with m > n; kept to show it).
const StepLemma kNbLemma54{"NB Lemma 5.4", {{"n", "tokens", "N"}},
                           [](const Fmpz& K, const std::vector<std::uint64_t>& p) { return nb_lemma54_layer(K, p[0]); }};
const StepLemma kNbLemma54Corrected{
    "NB Lemma 5.4 (corrected)", {{"n", "tokens", "N"}, {"m", "width", "d"}},
    [](const Fmpz& K, const std::vector<std::uint64_t>& p) { return nb_lemma54_corrected(K, p[0], p[1]); }};
const StepLemma kNbLemma52Square{"NB Lemma 5.2 (iv)", {},
                                 [](const Fmpz& K, const std::vector<std::uint64_t>&) { return nb_lemma52_square(K); }};
const StepLemma kLvLemma2{
    "LV Lemma 2", {{"N", "n", "tokens"}, {"d", "m", "width"}, {"H", "heads"}},
    [](const Fmpz& K, const std::vector<std::uint64_t>& p) { return lv_lemma2_layer(p[0], p[1], p[2], K); }};
const RegisterStepLemma nb_lemma54_registered(kNbLemma54), nb_lemma54_corrected_registered(kNbLemma54Corrected),
    nb_lemma52_registered(kNbLemma52Square), lv_lemma2_registered(kLvLemma2);
}  // namespace

}  // namespace netpoly
