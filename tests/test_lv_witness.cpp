// LV Lemma 6's witness (lv_witness.hpp): the sub-matrix against the closed
// form derived below by hand from the weights, its rank, and the printed last
// layer's rank bound.
//
// Derivation (repaired reading, lv_witness.hpp). Every template has the
// marker 1, so layer 1's scores are 1 and every position outputs, per head,
// v = [a, 1 - a, 1] with a = (V_α + i V_β)/N on the head's A part (tokens:
// template α once, template R + β once, the marker-only template N - 2
// times; W^V's 1/N summed over N tokens gives the marker 1). Let
// s_h = sum over head h's A part of a_r^2 and S = sum_h s_h
//   = (|V_α|^2 - |V_β|^2 + 2 i <V_α, V_β>) / N^2 = 2 i G_{αβ} / N^2
// (unit rows). The non-marker coordinates of v^(h) sum to c = (d_a - 1)/2.
//  * L = 2: the last layer's scores are s_h, its value i * marker_h = i,
//    summed over N positions and the heads into segment 0: E = i N S = -2 G / N.
//  * L >= 3: y^(2) = N sum_h s_h v^(h) (κ_2 = N, β_2 = 0); a middle layer
//    maps y = κ S^β sum_h s_h v^(h) to κ' = N c^2 κ^3, β' = 3 β + 2 (its score
//    is (sum of non-marker coordinates)^2 = (κ c S^(β+1))^2); the last layer
//    gives E = N (κ c S^(β+1))^2 * i κ S^β S = i N c^2 κ^3 S^(3β+3), and
//    3β + 3 = 3^(L-2) = λ.
// So E = i N c^2 κ^3 (2i / N^2)^λ G^λ (L >= 3), a constant times G^{⊙λ}.
#include <catch2/catch.hpp>

#include "netpoly/error.hpp"
#include "model/gauss.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/model.hpp"

using namespace netpoly;

namespace {

struct Cq {
  Fmpq re, im;
};
Cq cmul(const Cq& a, const Cq& b) {
  Cq r;
  Fmpq t;
  fmpq_mul(r.re.get(), a.re.get(), b.re.get());
  fmpq_mul(t.get(), a.im.get(), b.im.get());
  fmpq_sub(r.re.get(), r.re.get(), t.get());
  fmpq_mul(r.im.get(), a.re.get(), b.im.get());
  fmpq_mul(t.get(), a.im.get(), b.re.get());
  fmpq_add(r.im.get(), r.im.get(), t.get());
  return r;
}
Cq real(const Fmpq& x) { return {x, Fmpq()}; }
Cq cpow(Cq a, std::size_t e) {
  Cq r = real(Fmpq(1));
  for (std::size_t k = 0; k < e; ++k) r = cmul(r, a);
  return r;
}

// The constant of the derivation above.
Cq closed_form_constant(const LvWitnessShape& s) {
  const LvWitnessDims D = lv_witness_dims(s);
  const Fmpq N(static_cast<slong>(s.tokens)), c(static_cast<slong>(D.c));
  const Cq iN{Fmpq(), N};
  Cq S_over_G{Fmpq(), Fmpq(2, static_cast<ulong>(s.tokens * s.tokens))};  // 2 i / N^2
  if (s.layers == 2) return cmul(iN, S_over_G);
  Fmpq kappa = N, t;
  std::size_t beta = 0;
  for (std::size_t l = 2; l + 2 <= s.layers; ++l) {  // l = 2 .. L-2: κ_{l+1}, β_{l+1}
    fmpq_pow_si(t.get(), kappa.get(), 3);
    fmpq_mul(t.get(), t.get(), c.get());
    fmpq_mul(t.get(), t.get(), c.get());
    fmpq_mul(kappa.get(), t.get(), N.get());
    beta = 3 * beta + 2;
  }
  REQUIRE(3 * beta + 3 == D.lambda);
  Fmpq k3;
  fmpq_pow_si(k3.get(), kappa.get(), 3);
  fmpq_mul(k3.get(), k3.get(), c.get());
  fmpq_mul(k3.get(), k3.get(), c.get());
  return cmul(cmul(iN, real(k3)), cpow(S_over_G, D.lambda));
}

}  // namespace

TEST_CASE("lv-witness: the sub-matrix is the closed form Const * (V V^T)^{⊙λ}, entry by entry (rational V)") {
  for (auto [L, d, H, N] : std::vector<std::array<std::size_t, 4>>{
           {2, 3, 1, 2}, {2, 5, 1, 4}, {2, 6, 2, 2}, {3, 5, 1, 2}, {3, 6, 2, 4}, {3, 7, 1, 2}, {4, 5, 1, 2}}) {
    LvWitnessShape s;
    s.layers = L, s.width = d, s.heads = H, s.tokens = N, s.rational_v = true;
    CAPTURE(L, d, H, N);
    const LvWitnessDims D = lv_witness_dims(s);
    const LvTemplates T = lv_templates(s);
    const auto E = lv_witness_entries(s);
    const Cq k = closed_form_constant(s);
    REQUIRE(E.size() == D.R * D.R);
    for (std::size_t a = 0; a < D.R; ++a) {
      // V's rows are unit vectors.
      Fmpq n2, t;
      for (const auto& v : T.vnum[a]) {
        fmpq_mul(t.get(), v.get(), v.get());
        fmpq_add(n2.get(), n2.get(), t.get());
      }
      REQUIRE(n2 == Fmpq(1));
      for (std::size_t b = 0; b < D.R; ++b) {
        Fmpq g;
        for (std::size_t r = 0; r < D.dprime; ++r) {
          fmpq_mul(t.get(), T.vnum[a][r].get(), T.vnum[b][r].get());
          fmpq_add(g.get(), g.get(), t.get());
        }
        const Cq want = cmul(k, cpow(real(g), D.lambda));
        CHECK(E[a * D.R + b].first == want.re);
        CHECK(E[a * D.R + b].second == want.im);
      }
    }
  }
}

TEST_CASE("lv-witness: full rank ((d' λ)) with the paper's Ω rows (mod p) and with rational rows (exact)") {
  for (auto [L, d, H] : std::vector<std::array<std::size_t, 3>>{{2, 5, 1}, {2, 9, 3}, {3, 5, 1}, {3, 6, 2}, {3, 7, 1}, {4, 5, 1}}) {
    for (bool rational : {false, true}) {
      LvWitnessShape s;
      s.layers = L, s.width = d, s.heads = H, s.tokens = 2, s.rational_v = rational;
      CAPTURE(L, d, H, rational);
      const LvWitnessRank r = lv_witness_rank(s);
      CHECK(r.eq28_holds);
      CHECK(r.rank_modp == r.dims.R);
      if (r.dims.lambda <= 3) CHECK(r.numeric_rank == r.dims.R);  // higher powers are ill-conditioned in doubles
      CHECK(r.exact == rational);
      if (!rational) CHECK(r.prime % 4 == 1);
    }
  }
}

// As printed, the last layer reads head 0's marker and writes head h into
// segment h, so output (0, 0) is N (head 0's score) i y_marker0: for L = 2,
// i N s_0 with s_0 = (n0_α - n0_β + 2 i <V0_α, V0_β>) / N^2 (V0: head 0's c
// columns, n0 their squared norms): a sum of two rank-1 matrices and one of
// rank <= c, so rank <= c + 2 < d' = H c once (H - 1) c > 2.
TEST_CASE("lv-witness: the printed last layer loses rank for L = 2 when (H - 1)(d_a - 1)/2 > 2") {
  LvWitnessShape s;
  s.layers = 2, s.width = 15, s.heads = 3, s.tokens = 2, s.rational_v = true, s.printed_last = true;
  const LvWitnessRank r = lv_witness_rank(s);
  CHECK(r.dims.R == 6);
  CHECK(r.exact);
  CHECK(r.rank_modp == 4);  // c + 2 = 2 + 2, not 6
  CHECK_FALSE(r.eq28_holds);
  s.printed_last = false;
  CHECK(lv_witness_rank(s).rank_modp == 6);
}

TEST_CASE("lv-witness: shapes outside Lemma 6 are input errors") {
  LvWitnessShape s;
  s.layers = 2, s.width = 8, s.heads = 2, s.tokens = 2;  // d_a = 4 even
  CHECK_THROWS_AS(lv_witness_dims(s), InputError);
  s.width = 6, s.tokens = 3;  // N odd
  CHECK_THROWS_AS(lv_witness_dims(s), InputError);
  s.tokens = 2, s.layers = 1;
  CHECK_THROWS_AS(lv_witness_dims(s), InputError);
  s.layers = 6, s.width = 21, s.heads = 1;  // ((10 81)) rows
  CHECK_THROWS_AS(lv_witness_dims(s), LimitError);
}

TEST_CASE("lv-witness: the model is Gaussian, reads back, and its round trip is exact") {
  LvWitnessShape s;
  s.layers = 3, s.width = 5, s.heads = 1, s.tokens = 2;
  const Model m = make_lv_witness(s);
  CHECK(m.gaussian());
  CHECK(m.layers.size() == 3);
  validate_model(m, "witness");
  CHECK(parse_model(write_model(m), "witness") == m);
}
