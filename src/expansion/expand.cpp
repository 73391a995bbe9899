#include "netpoly/expand.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>

#include <algorithm>
#include <cmath>
#include <functional>

#include "netpoly/error.hpp"
#include "model/forward.hpp"
#include "runtime/limits.hpp"

namespace netpoly {

std::string var_name(std::size_t width, slong v) {
  std::string s = "x";
  s += std::to_string(v / static_cast<slong>(width));
  s += '_';
  s += std::to_string(v % static_cast<slong>(width));
  return s;
}

std::vector<Entry> resolve_outputs(const Model& m, const std::optional<Entry>& requested, bool all) {
  if (requested && all) throw InputError("--output and --all: give one of them (--all is every output entry)");
  const std::size_t dout = m.output_width();
  if (requested) {
    if (requested->token >= m.tokens || requested->channel >= dout)
      throw InputError("--output " + std::to_string(requested->token) + "," + std::to_string(requested->channel) +
                       ": out of range (tokens 0.." + std::to_string(m.tokens - 1) + ", channels 0.." +
                       std::to_string(dout - 1) + ")");
    return {*requested};
  }
  if (m.output && !all) return {*m.output};
  std::vector<Entry> r;
  for (std::size_t i = 0; i < m.tokens; ++i)
    for (std::size_t c = 0; c < dout; ++c) r.push_back({i, c});
  return r;
}

// log of binom(n + k - 1, k): monomials of degree exactly k in n variables.
// binom(M + m, m) = prod_{i=1..m} (1 + M/i) with m = min(n - 1, k), M = max:
// a difference of lgamma values loses every digit when M is huge (degree
// 3^39 in 4 variables came out as 0 terms). Beyond m = 10000 the count is
// above 2^10000 anyway.
double log_monomial_count(double n, double k) {
  const double m = std::min(n - 1, k), M = std::max(n - 1, k);
  if (m > 10000) return HUGE_VAL;
  double s = 0;
  for (double i = 1; i <= m; ++i) s += std::log1p(M / i);
  return s;
}

namespace {

double log_multiset(double n, double k) { return log_monomial_count(n, k); }

}  // namespace

namespace {
template <class Ring>
std::vector<typename Ring::Elem> expand_in(const Ring& R, const Model& m, const std::vector<Entry>& outputs,
                                           std::vector<typename Ring::Elem> X);
}  // namespace

// The token-degree bound on the terms of any output entry (TokenDegreeRing);
// HUGE_VAL when the sets are too costly to compute.
double token_degree_terms(const Model& m) {
  if (m.tokens == 0 || m.width == 0 || m.num_inputs() > 4096 || m.tokens > 64) return HUGE_VAL;
  TokenDegreeRing T;
  T.tokens = m.tokens;
  std::vector<TokenDegreeRing::Elem> X;
  X.reserve(m.num_inputs());
  for (std::size_t t = 0; t < m.tokens; ++t)
    for (std::size_t c = 0; c < m.width; ++c) {
      TokenDegreeRing::Vec v(m.tokens, 0);
      v[t] = 1;
      X.push_back({v});
    }
  std::vector<Entry> all;
  for (std::size_t t = 0; t < m.tokens; ++t)
    for (std::size_t c = 0; c < m.output_width(); ++c) all.push_back({t, c});
  std::vector<TokenDegreeRing::Elem> Y;
  try {
    Y = expand_in(T, m, all, std::move(X));
  } catch (const TokenDegreeRing::TooCostly&) {
    return HUGE_VAL;
  }
  const double dm1 = static_cast<double>(m.width) - 1;
  double best = 0;
  for (const auto& y : Y) {
    double sum = 0;
    for (const auto& v : y) {
      double l = 0;  // log prod_t binom(v_t + d - 1, d - 1)
      for (auto t : v) l += log_monomial_count(dm1 + 1, static_cast<double>(t));
      sum += l > 700 ? HUGE_VAL : std::exp(l);
    }
    best = std::max(best, sum);
  }
  // A sum of integers computed through logarithms: round to the nearest when
  // it is that close (exp/log are off in the last bits), else round up.
  if (best >= 0x1p50) return best;
  const double r = std::round(best);
  return std::fabs(best - r) <= 1e-9 * std::max(1.0, best) ? r : std::ceil(best);
}

ExpansionEstimate estimate_expansion(const Model& m) {
  ExpansionEstimate e;
  double deg = 1;
  for (const auto& l : m.layers) {
    const double f = l.degree();
    deg *= f;
    if ((l.residual && f != 1) || !l.homogeneous()) e.homogeneous = false;
  }
  e.degree = deg;  // exact below 2^53; an upper estimate above (never clamped)
  const double n = static_cast<double>(m.num_inputs());
  // homogeneous: degree exactly D; otherwise all degrees 0..D = degree exactly D in n+1 variables.
  double lt = e.homogeneous ? log_multiset(n, deg) : log_multiset(n + 1, deg);
  e.terms = lt > 700 ? HUGE_VAL : std::exp(lt);
  // lgamma/exp are off in the last bits: an exact count of 20 can come out as
  // 20.000000000000004 and trip --max-terms 20. Counts below 2^50 are integers.
  if (e.terms < 0x1p50) e.terms = std::round(e.terms);
  // Far tighter where affordable: the monomials of the token-degree vectors
  // the network can produce (TokenDegreeRing), the largest over the outputs.
  const double refined = token_degree_terms(m);
  if (refined < e.terms) e.terms = refined;
  return e;
}

double expansion_memory_estimate(const Model& m) {
  auto e = estimate_expansion(m);
  // Per term: packed exponents (one word per 64/bits-per-exponent variables,
  // at least one) and a coefficient of a few words; about four polynomials of
  // the final size are alive at once during the last products. With the
  // token-degree term bound, this plus the resident set at the start is within
  // 2x of the measured peak on the bench ladder (bench/studies/memory.md).
  const double words = 1.0 + static_cast<double>(m.num_inputs()) / 8.0 + 3.0;
  return e.terms * words * 8.0 * 4.0;
}

namespace {

class ExpansionWatch final : public ProductWatch {
 public:
  ExpansionWatch(const AnalysisContext& run, std::string what, double est, double stop_after)
      : run_(run), what_(std::move(what)), est_(est), stop_after_(stop_after), t0_(std::chrono::steady_clock::now()) {
    run_.progress("expanding " + what_ + ": about " + format_fixed(est_, 0) + " s estimated");
  }
  void after_product(slong) const override {
    run_.check_cancelled();
    const auto now = std::chrono::steady_clock::now();
    const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0_).count();
    if (stop_after_ > 0 && static_cast<double>(ms) / 1000 > stop_after_) {
      throw LimitError("the default run gave up the expansion of " + what_ + " after " +
                       format_fixed(static_cast<double>(ms) / 1000, 0) + " s, beyond " + format_fixed(stop_after_, 0) +
                       " s (its estimate was about " + format_fixed(est_, 0) +
                       " s; --methods with a method that needs it, e.g. --methods support,modular, runs it to the end)");
    }
    long long next = next_ms_.load();
    if (ms < next || !next_ms_.compare_exchange_strong(next, ms + 500)) return;  // one thread, twice a second
    const double rss = run_.resident_bytes();
    const double limit = run_.max_memory_bytes;
    if (limit > 0 && rss > kExpansionMemoryFraction * limit)
      throw LimitError("the expansion of " + what_ + " stopped at " + format_bytes(rss) + " resident, " +
                       std::to_string(static_cast<int>(kExpansionMemoryFraction * 100)) + "% of " +
                       (run_.memory_default ? "the default memory limit (half the machine's memory) " : "--max-memory ") +
                       format_bytes(limit) + " (raise --max-memory)");
    run_.progress("expanding " + what_ + ": " + format_fixed(static_cast<double>(ms) / 1000, 0) + " s of about " +
                  format_fixed(est_, 0) + " s estimated, " + format_bytes(rss) + " resident");
  }

 private:
  const AnalysisContext& run_;
  std::string what_;
  double est_, stop_after_;
  std::chrono::steady_clock::time_point t0_;
  mutable std::atomic<long long> next_ms_{2000};  // nothing in the first two seconds
};

}  // namespace

std::shared_ptr<const ProductWatch> expansion_watch(const AnalysisContext& run, const std::string& what,
                                                    double estimated_seconds, double stop_after) {
  return std::make_shared<ExpansionWatch>(run, what, estimated_seconds, stop_after);
}

std::string format_degree(double degree) {
  char b[64];
  if (degree < 0x1p53) std::snprintf(b, sizeof b, "%.0f", degree);
  else std::snprintf(b, sizeof b, "about %.3g", degree);
  return b;
}

namespace {

// Exponents packed in `bits` bits each (below 2^bits), nvars of them: their
// sum is below 2^63 when bits + bits(nvars) <= 63. FLINT's own test sums the
// exponents of every term in a lexicographic ring (it has no degree field).
bool surely_fits(flint_bitcnt_t bits, slong nvars) {
  return bits + FLINT_BIT_COUNT(static_cast<ulong>(nvars)) <= 63;
}

}  // namespace

void check_exponents_fit(const FmpqMpoly& p, const std::string& what) {
  if (surely_fits(p.get()->zpoly->bits, p.ctx()->nvars())) return;
  if (!fmpq_mpoly_total_degree_fits_si(p.get(), p.c()))
    throw LimitError(what + ": the polynomial has degree 2^63 or more; exponents that large are not supported");
}

void check_exponents_fit(const NmodMpoly& p, const std::string& what) {
  if (surely_fits(p.get()->bits, nmod_mpoly_ctx_nvars(p.c()))) return;
  if (!nmod_mpoly_total_degree_fits_si(p.get(), p.c()))
    throw LimitError(what + ": the polynomial has degree 2^63 or more; exponents that large are not supported");
}

void check_expansion_size(const Model& m, double max_terms) {
  auto e = estimate_expansion(m);
  if (!(e.degree < kMaxExpansionDegree)) {
    char d[64];
    std::snprintf(d, sizeof d, "%.3g", e.degree);
    throw LimitError("refusing to expand: the degree bound " + std::string(d) +
                     " reaches 2^63 (9.22e+18), beyond the largest exponent netpoly reads; no flag raises this "
                     "limit; use a method that needs no expansion (support, blackbox, grid)");
  }
  if (e.terms > max_terms) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", e.terms);
    char lim[64];
    std::snprintf(lim, sizeof lim, "%.3g", max_terms);
    throw LimitError("refusing to expand: up to " + std::string(buf) + " terms per output entry (degree " +
                     format_degree(e.degree) + " in " + std::to_string(m.num_inputs()) +
                     " variables) exceeds --max-terms " + lim +
                     "; raise --max-terms to try anyway, or use a method that needs no expansion (support, blackbox, grid)");
  }
}

namespace {

Need need_mask(const Model& m, const std::vector<Entry>& outputs) {
  const std::size_t dout = m.output_width();
  Need need(m.tokens * dout, 0);
  for (const auto& e : outputs) need[e.token * dout + e.channel] = 1;
  return need;
}

template <class Ring>
std::vector<typename Ring::Elem> expand_in(const Ring& R, const Model& m, const std::vector<Entry>& outputs,
                                           std::vector<typename Ring::Elem> X) {
  auto net = prepare(R, m);
  if (m.layers.empty() && outputs.empty()) return {};
  auto Y = forward(R, net, std::move(X), need_mask(m, outputs));
  const std::size_t dout = m.output_width();
  std::vector<typename Ring::Elem> r;
  // Moved out, not copied (a copy of the output costs as much as the last
  // additions), unless the same entry is asked for again later.
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::size_t idx = outputs[k].token * dout + outputs[k].channel;
    bool again = false;
    for (std::size_t l = k + 1; l < outputs.size(); ++l)
      again = again || outputs[l].token * dout + outputs[l].channel == idx;
    if (again) r.push_back(Y[idx]);
    else r.push_back(std::move(Y[idx]));
  }
  return r;
}

template <class Ring>
std::vector<typename Ring::Elem> generators(const Ring& R, const Model& m) {
  std::vector<typename Ring::Elem> X;
  X.reserve(m.num_inputs());
  for (std::size_t v = 0; v < m.num_inputs(); ++v) X.push_back(R.gen(static_cast<slong>(v)));
  return X;
}

// Words of one exponent in a lexicographic ring: `fields` fields of values up
// to `max`, one guard bit each, at least MPOLY_MIN_BITS, never straddling a
// word (FLINT's layout); -1 beyond one word per field.
slong exponent_words(slong fields, ulong max) {
  const ulong bits = std::max<ulong>(MPOLY_MIN_BITS, FLINT_BIT_COUNT(max) + 1);
  if (bits > FLINT_BITS) return -1;
  return (fields - 1) / static_cast<slong>(FLINT_BITS / bits) + 1;
}

}  // namespace

Packing choose_packing(slong nvars, ulong degree) {
  Packing best;
  const ulong base = degree + 1;
  const slong unpacked = exponent_words(nvars, degree);
  best.words = unpacked;
  ulong span = base;  // base^g
  for (slong g = 2; g <= nvars && degree > 0 && unpacked > 0; ++g) {
    if (span > (~ulong{0} >> 1) / base) break;
    span *= base;
    const slong fields = (nvars + g - 1) / g;
    // unpack's table: fields x span exponents of `unpacked` words, at most 2^20 words
    if (static_cast<double>(fields) * static_cast<double>(span) * static_cast<double>(unpacked) > 0x1p20) break;
    const slong w = exponent_words(fields, span - 1);
    if (w > 0 && w < best.words) best = {g, base, fields, w, span};
  }
  return best;
}

namespace {

// Variable v = g*j + q lies in field j as the digit of weight B^(c_j-1-q),
// c_j the field's variable count: the first variable is the most significant
// digit, so lexicographic order on the packed fields is lexicographic order
// on the variables (no digit reaches B: each exponent is at most the degree
// bound), and the packed terms are already in the unpacked ring's order.
slong digits_in(const Packing& pk, slong j, slong nvars) { return std::min(pk.group, nvars - pk.group * j); }

// Back from the packed ring (coefficients taken over, no sorting).
FmpqMpoly unpack_poly(const PolyRing& R, FmpqMpoly&& p, const Packing& pk, slong nvars, ulong degree) {
  FmpqMpoly r(R.ctx);
  fmpz_mpoly_struct* z = p.get()->zpoly;
  const fmpz_mpoly_ctx_struct* pzc = p.c()->zctx;
  fmpz_mpoly_struct* rz = r.get()->zpoly;
  const fmpz_mpoly_ctx_struct* zc = R.ctx->get()->zctx;
  const slong len = z->length;
  if (len == 0) return r;
  const flint_bitcnt_t bits = mpoly_fix_bits(std::max<ulong>(MPOLY_MIN_BITS, FLINT_BIT_COUNT(degree) + 1), zc->minfo);
  const slong N = static_cast<slong>(mpoly_words_per_exp(bits, zc->minfo));
  const slong pN = static_cast<slong>(mpoly_words_per_exp(z->bits, pzc->minfo));
  fmpz_mpoly_fit_length_reset_bits(rz, len, bits, zc);
  std::vector<ulong> pe(static_cast<std::size_t>(pk.fields));
  // Each field's value f < B^g stands for the same exponent words wherever it
  // occurs: with a table of them (at most 2^20 words, choose_packing) a
  // term's exponent is the OR of one row per field (the fields' variables
  // occupy disjoint bits).
  const std::size_t Nu = static_cast<std::size_t>(N);
  const auto table = packed_value_table(pk, nvars, Nu, [&](ulong* row, const std::vector<ulong>& e, slong, slong) {
    mpoly_set_monomial_ui(row, e.data(), bits, zc->minfo);
  });
  for (slong t = 0; t < len; ++t) {
    mpoly_get_monomial_ui(pe.data(), z->exps + pN * t, z->bits, pzc->minfo);
    ulong* out = rz->exps + N * t;
    std::fill(out, out + N, 0);
    for (slong j = 0; j < pk.fields; ++j) {
      const ulong* row = table.data() + packed_row(pk, j, pe[static_cast<std::size_t>(j)]) * Nu;
      for (slong w = 0; w < N; ++w) out[w] |= row[w];
    }
    fmpz_swap(rz->coeffs + t, z->coeffs + t);
  }
  _fmpz_mpoly_set_length(rz, len, zc);
  fmpq_swap(r.get()->content, p.get()->content);  // same terms, same lead: still canonical
  return r;
}

}  // namespace

std::vector<ulong> packed_value_table(
    const Packing& pk, slong nvars, std::size_t width,
    const std::function<void(ulong* row, const std::vector<ulong>& e, slong v0, slong c)>& fill) {
  std::vector<ulong> table(static_cast<std::size_t>(pk.fields) * pk.span * width, 0);
  std::vector<ulong> e(static_cast<std::size_t>(nvars), 0);
  for (slong j = 0; j < pk.fields; ++j) {
    const slong c = digits_in(pk, j, nvars), v0 = pk.group * j;
    ulong cspan = 1;
    for (slong q = 0; q < c; ++q) cspan *= pk.base;
    for (ulong f = 0; f < cspan; ++f) {
      ulong x = f;
      for (slong q = c; q-- > 0; x /= pk.base) e[static_cast<std::size_t>(v0 + q)] = x % pk.base;
      fill(table.data() + packed_row(pk, j, f) * width, e, v0, c);
    }
    for (slong q = 0; q < c; ++q) e[static_cast<std::size_t>(v0 + q)] = 0;
  }
  return table;
}

void packed_field_overflow(const Packing& pk, ulong f) {
  throw Error("internal error: a packed exponent field of " + std::to_string(f) + " exceeds its " +
                  std::to_string(pk.group) + " base-" + std::to_string(pk.base) + " digits",
              ExitCode::internal);
}

std::vector<PackedExpansion> expand_packed(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs) {
  const slong nvars = static_cast<slong>(m.num_inputs());
  auto plain = [&] {
    std::vector<PackedExpansion> r;
    for (auto& y : expand_in(R, m, outputs, generators(R, m))) r.push_back({std::move(y), Packing{}, nvars, 0});
    return r;
  };
  // Only a lexicographic ring gets the packed terms in its own order; in a
  // degree order they would need sorting, which costs more than it saves.
  if (fmpq_mpoly_ctx_ord(R.ctx->get()) != ORD_LEX) return plain();
  // The degree of every polynomial the forward pass makes (not only the
  // outputs'): packing is exact only if no exponent reaches the base.
  DegreeRing D;
  expand_in(D, m, outputs, std::vector<long>(m.num_inputs(), 1));
  const ulong degree = static_cast<ulong>(std::max(D.max_seen, 1L));
  const Packing pk = choose_packing(nvars, degree);
  if (pk.group < 2) return plain();
  // Fewer words per exponent: FLINT's products and sums run on shorter exponents.
  PolyRing P(pk.fields, ORD_LEX);
  P.watch = R.watch;
  std::vector<FmpqMpoly> X;
  X.reserve(m.num_inputs());
  for (slong v = 0; v < nvars; ++v) {
    const slong j = v / pk.group, c = digits_in(pk, j, nvars);
    FmpqMpoly x = P.gen(j);
    ulong power = 1;
    for (slong q = v % pk.group + 1; q < c; ++q) power *= pk.base;
    fmpq_mpoly_pow_ui(x.get(), x.get(), power, P.ctx->get());
    X.push_back(std::move(x));
  }
  std::vector<PackedExpansion> r;
  for (auto& y : expand_in(P, m, outputs, std::move(X))) r.push_back({std::move(y), pk, nvars, degree});
  return r;
}

FmpqMpoly unpack(const PolyRing& R, PackedExpansion&& e) {
  if (e.packing.group < 2) return std::move(e.poly);
  return unpack_poly(R, std::move(e.poly), e.packing, e.nvars, e.degree);
}

std::vector<FmpqMpoly> expand(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs) {
  std::vector<FmpqMpoly> r;
  for (auto& e : expand_packed(R, m, outputs)) r.push_back(unpack(R, std::move(e)));
  return r;
}

std::vector<NmodMpoly> expand_mod(const ModPolyRing& R, const Model& m, const std::vector<Entry>& outputs) {
  return expand_in(R, m, outputs, generators(R, m));
}

double value_bits_bound(const Model& m, const Entry& e, const std::vector<Fmpq>& point) {
  HeightRing H;
  std::vector<HeightRing::Elem> X;
  X.reserve(point.size());
  for (const auto& v : point) X.push_back(H.scalar(v));
  auto y = expand_in(H, m, {e}, std::move(X));
  return y.at(0).h == -HUGE_VAL ? 0 : std::max(0.0, y[0].h) + y[0].d;
}

double coefficient_height_log2(const Model& m, const Entry& e) {
  HeightRing H;
  // Each input variable: the polynomial x, ||x||_1 = 1, no denominator.
  auto y = expand_in(H, m, {e}, std::vector<HeightRing::Elem>(m.num_inputs(), HeightRing::Elem{0, 0}));
  return y.at(0).h == -HUGE_VAL ? 0 : std::max(0.0, y[0].h);
}

namespace {

template <class GetExp>
void token_degrees(PolyStats& s, slong len, std::size_t tokens, std::size_t width, GetExp get_exp) {
  s.token_degree.assign(tokens, 0);
  std::vector<ulong> e(tokens * width);
  for (slong t = 0; t < len; ++t) {
    get_exp(e.data(), t);
    slong tot = 0;
    for (std::size_t i = 0; i < tokens; ++i) {
      slong di = 0;
      for (std::size_t c = 0; c < width; ++c) di += static_cast<slong>(e[i * width + c]);
      s.token_degree[i] = std::max(s.token_degree[i], di);
      tot += di;
    }
    s.degree = std::max(s.degree, tot);
  }
}

}  // namespace

PolyStats poly_stats(const FmpqMpoly& p, std::size_t tokens, std::size_t width) {
  check_exponents_fit(p, "polynomial statistics");
  PolyStats s;
  s.terms = p.length();
  token_degrees(s, s.terms, tokens, width,
                [&](ulong* e, slong t) { fmpq_mpoly_get_term_exp_ui(e, p.get(), t, p.c()); });
  // p = content * zpoly, so over the common denominator the numerators are
  // num(content) * zpoly's coefficients; the largest has bits(num * max|z|)
  // (adding the two bit counts would overstate it by up to one bit).
  const fmpz_mpoly_struct* z = p.get()->zpoly;
  Fmpz big;
  for (slong t = 0; t < z->length; ++t)
    if (fmpz_cmpabs(z->coeffs + t, big.get()) > 0) fmpz_abs(big.get(), z->coeffs + t);
  fmpz_mul(big.get(), big.get(), fmpq_numref(p.get()->content));
  s.height_bits = fmpz_bits(big.get());
  return s;
}

PolyStats poly_stats(const NmodMpoly& p, std::size_t tokens, std::size_t width) {
  check_exponents_fit(p, "polynomial statistics");
  PolyStats s;
  s.terms = p.length();
  token_degrees(s, s.terms, tokens, width,
                [&](ulong* e, slong t) { nmod_mpoly_get_term_exp_ui(e, p.get(), t, p.c()); });
  s.height_bits = s.terms ? FLINT_BIT_COUNT(p.ctx()->modulus() - 1) : 0;
  return s;
}

PolyFormat parse_poly_format(const std::string& s) {
  if (s == "text") return PolyFormat::text;
  if (s == "json") return PolyFormat::json;
  if (s == "sympy") return PolyFormat::sympy;
  if (s == "singular") return PolyFormat::singular;
  if (s == "latex") return PolyFormat::latex;
  throw InputError("--format: expected text, json, sympy, singular or latex, got \"" + s + "\"");
}

namespace {

// Writes one term given its coefficient as a decimal string ("-3", "5/2").
void write_term(std::ostream& os, bool first, std::string coeff, const ulong* e, slong nv, std::size_t width,
                PolyFormat f) {
  bool neg = !coeff.empty() && coeff[0] == '-';
  if (neg) coeff.erase(0, 1);
  if (f == PolyFormat::json) {
    os << (first ? "" : ",") << "[\"" << (neg ? "-" : "") << coeff << "\",[";
    for (slong v = 0; v < nv; ++v) os << (v ? "," : "") << e[v];
    os << "]]";
    return;
  }
  if (first) os << (neg ? "-" : "");
  else os << (neg ? " - " : " + ");
  bool any_var = false;
  for (slong v = 0; v < nv; ++v) any_var = any_var || e[v];
  bool unit = coeff == "1" && any_var;
  const std::string mul = f == PolyFormat::latex ? " " : "*";
  if (!unit) {
    auto slash = coeff.find('/');
    if (coeff[0] == '(')  // a Gaussian coefficient, written for the format already
      os << coeff;
    else if (f == PolyFormat::latex && slash != std::string::npos)
      os << "\\frac{" << coeff.substr(0, slash) << "}{" << coeff.substr(slash + 1) << "}";
    else if (f == PolyFormat::sympy && slash != std::string::npos)
      os << "Rational(" << coeff.substr(0, slash) << ", " << coeff.substr(slash + 1) << ")";
    else
      os << coeff;
  }
  bool need_sep = !unit;
  for (slong v = 0; v < nv; ++v) {
    if (!e[v]) continue;
    if (need_sep) os << mul;
    need_sep = true;
    std::size_t i = static_cast<std::size_t>(v) / width, c = static_cast<std::size_t>(v) % width;
    if (f == PolyFormat::latex) {
      os << "x_{" << i << "," << c << "}";
      if (e[v] > 1) os << "^{" << e[v] << "}";
    } else {
      os << "x" << i << "_" << c;
      if (e[v] > 1) os << (f == PolyFormat::sympy ? "**" : "^") << e[v];
    }
  }
}

template <class GetTerm>
void write_terms(std::ostream& os, slong len, slong nv, std::size_t width, PolyFormat f, GetTerm get) {
  if (f == PolyFormat::json) os << "[";
  if (len == 0 && f != PolyFormat::json) os << "0";
  std::vector<ulong> e(nv);
  std::string coeff;
  for (slong t = 0; t < len; ++t) {
    get(t, e.data(), coeff);
    write_term(os, t == 0, coeff, e.data(), nv, width, f);
  }
  if (f == PolyFormat::json) os << "]";
}

}  // namespace

void write_poly(std::ostream& os, const FmpqMpoly& p, std::size_t width, PolyFormat f) {
  check_exponents_fit(p, "writing the polynomial");
  Fmpq c;
  write_terms(os, p.length(), p.ctx()->nvars(), width, f, [&](slong t, ulong* e, std::string& s) {
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_get_term_exp_ui(e, p.get(), t, p.c());
    s = c.str();
  });
}

void write_poly_terms(std::ostream& os, slong len, slong nv, std::size_t width, PolyFormat f,
                      const std::function<void(slong, ulong*, std::string&)>& get) {
  write_terms(os, len, nv, width, f, get);
}

void write_poly(std::ostream& os, const NmodMpoly& p, std::size_t width, PolyFormat f) {
  check_exponents_fit(p, "writing the polynomial");
  write_terms(os, p.length(), p.ctx()->nvars(), width, f, [&](slong t, ulong* e, std::string& s) {
    s = std::to_string(nmod_mpoly_get_term_coeff_ui(p.get(), t, p.c()));
    nmod_mpoly_get_term_exp_ui(e, p.get(), t, p.c());
  });
}

}  // namespace netpoly
