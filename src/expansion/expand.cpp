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
#include "runtime/number_text.hpp"
#include "domains/structure_rings.hpp"
#include "expansion/packing.hpp"
#include "expansion/expand_in.hpp"

namespace netpoly {

using expansion_detail::expand_in;
using expansion_detail::generators;

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

namespace {

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

}  // namespace netpoly
