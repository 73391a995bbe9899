// Expansion into exact polynomials (expand.hpp): the spec example by hand,
// cross-checks of the expansion against the forward pass in every domain,
// the degree laws of math.md §1, statistics and output formats.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "model/forward.hpp"
#include "netpoly/model.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/presets.hpp"
#include "runtime/random.hpp"
#include "domains/structure_rings.hpp"
#include "expansion/packing.hpp"

using namespace netpoly;

namespace {

const std::string kData = std::string(NETPOLY_SOURCE_DIR) + "/tests/data/";
const ulong kP = n_nextprime(UWORD(1) << 62, 1);

using Exps = std::vector<ulong>;

// Coefficient map of a polynomial: exponent vector -> coefficient.
std::map<Exps, Fmpq> terms_of(const FmpqMpoly& p) {
  std::map<Exps, Fmpq> r;
  const slong nv = p.ctx()->nvars();
  for (slong t = 0; t < p.length(); ++t) {
    Exps e(nv);
    Fmpq c;
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_get_term_exp_ui(e.data(), p.get(), t, p.c());
    r[e] = c;
  }
  return r;
}

// Total degrees of the terms.
std::set<ulong> degrees_of(const FmpqMpoly& p) {
  std::set<ulong> r;
  for (const auto& [e, c] : terms_of(p)) {
    ulong s = 0;
    for (ulong x : e) s += x;
    r.insert(s);
  }
  return r;
}

Fmpq coeff(const FmpqMpoly& p, const Exps& e) {
  Fmpq c;
  fmpq_mpoly_get_coeff_fmpq_ui(c.get(), p.get(), const_cast<ulong*>(e.data()), p.c());
  return c;
}

// The polynomial reduced mod p, term by term (a second path to expand_mod).
NmodMpoly reduce(const ModPolyRing& R, const FmpqMpoly& p) {
  NmodMpoly r(R.ctx);
  Exps e(p.ctx()->nvars());
  for (slong t = 0; t < p.length(); ++t) {
    Fmpq c;
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_get_term_exp_ui(e.data(), p.get(), t, p.c());
    nmod_mpoly_push_term_ui_ui(r.get(), R.base.scalar(c), e.data(), r.c());
  }
  nmod_mpoly_sort_terms(r.get(), r.c());
  nmod_mpoly_combine_like_terms(r.get(), r.c());
  return r;
}

Fmpq eval(const FmpqMpoly& p, std::vector<Fmpq>& x) {
  std::vector<fmpq*> ptr;
  for (auto& v : x) ptr.push_back(v.get());
  Fmpq r;
  REQUIRE(fmpq_mpoly_evaluate_all_fmpq(r.get(), p.get(), ptr.data(), p.c()) != 0);
  return r;
}

std::vector<Fmpq> random_point(SplitMix64& g, std::size_t n) {
  std::vector<Fmpq> x;
  for (std::size_t k = 0; k < n; ++k) x.emplace_back(static_cast<slong>(g.symmetric(4)), 1 + g.below(3));
  return x;
}

PresetOptions preset(const char* arch, std::size_t L, std::size_t d, std::size_t H, std::size_t N, std::size_t k,
                     bool res, std::uint64_t seed = 1) {
  PresetOptions o;
  o.shape.arch = parse_arch(arch);
  o.shape.layers = L;
  o.shape.width = d;
  o.shape.heads = H;
  o.shape.tokens = N;
  o.shape.degree = k;
  o.shape.residual = res;
  o.seed = seed;
  o.range = 50;  // makes vanishing weight rows (and so lost degrees) unlikely
  return o;
}

std::vector<Model> preset_models() {
  std::vector<Model> r;
  for (std::uint64_t seed : {1u, 2u, 3u})
    for (const auto& o : {preset("attention", 1, 2, 1, 2, 0, false, seed), preset("attention", 2, 2, 2, 3, 0, false, seed),
                          preset("attention", 1, 4, 2, 2, 0, false, seed), preset("attention", 1, 3, 1, 3, 0, true, seed),
                          preset("attention", 2, 2, 1, 2, 0, true, seed), preset("mixer", 2, 2, 0, 2, 0, false, seed),
                          preset("mixer", 3, 2, 0, 2, 0, false, seed), preset("mixer", 3, 2, 0, 3, 0, true, seed),
                          preset("mlp", 3, 3, 0, 1, 0, false, seed), preset("mlp", 3, 2, 0, 1, 0, true, seed),
                          preset("product", 2, 2, 0, 1, 2, false, seed), preset("product", 2, 2, 0, 2, 3, false, seed),
                          preset("product", 2, 2, 0, 2, 2, true, seed)})
      r.push_back(make_preset(o));
  return r;
}

// Expansion over Q, expansion mod p, and the forward pass over Q, mod p and
// in doubles must all tell the same story.
void check_domains_agree(const Model& m, std::uint64_t seed) {
  INFO("model " << m.name);
  const slong nv = static_cast<slong>(m.num_inputs());
  auto outs = resolve_outputs(m, std::nullopt, true);
  PolyRing R(nv);
  ModPolyRing RM(nv, kP);
  auto polys = expand(R, m, outs);
  auto mpolys = expand_mod(RM, m, outs);
  REQUIRE(polys.size() == outs.size());
  REQUIRE(mpolys.size() == outs.size());
  for (std::size_t k = 0; k < outs.size(); ++k) CHECK(reduce(RM, polys[k]) == mpolys[k]);
  // One entry alone (the last layer's cheaper evaluation order) gives the same polynomial.
  for (std::size_t k : {std::size_t{0}, outs.size() - 1}) {
    CHECK(expand(R, m, {outs[k]})[0] == polys[k]);
    CHECK(expand_mod(RM, m, {outs[k]})[0] == mpolys[k]);
  }

  RationalRing Q;
  ModpRing P(kP);
  DoubleRing D;
  auto nq = prepare(Q, m);
  auto np = prepare(P, m);
  auto nd = prepare(D, m);
  const std::size_t dout = m.output_width();
  SplitMix64 g(seed);
  for (int t = 0; t < 3; ++t) {
    auto x = random_point(g, m.num_inputs());
    std::vector<ulong> xp;
    std::vector<double> xd;
    for (const auto& v : x) {
      xp.push_back(P.scalar(v));
      xd.push_back(v.to_double());
    }
    auto yq = forward(Q, nq, x);
    auto yp = forward(P, np, xp);
    auto yd = forward(D, nd, xd);
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const std::size_t idx = outs[k].token * dout + outs[k].channel;
      INFO("entry " << outs[k].token << "," << outs[k].channel);
      const Fmpq& exact = yq[idx];
      CHECK(eval(polys[k], x) == exact);
      CHECK(yp[idx] == P.scalar(exact));
      CHECK(nmod_mpoly_evaluate_all_ui(mpolys[k].get(), xp.data(), mpolys[k].c()) == yp[idx]);
      const double e = exact.to_double();
      CHECK(std::abs(yd[idx] - e) <= 1e-9 * std::max(std::abs(e), 1e-300));
    }
  }
}

}  // namespace

TEST_CASE("the spec example expands to the hand-derived polynomial", "[expand]") {
  // Variables a = x0_0, b = x0_1 (token 0), c = x1_0, e = x1_1 (token 1).
  // Q x0 = (a - 2b, b); K x_j = (2u + v, u + v) and V x_j = (u, 3u - v) for x_j = (u, v);
  // O V x_j = (u + (3u - v), u/2 + 2(3u - v)) = (4u - v, 13u/2 - 2v).
  // <Q x0, K x_j> = (a - 2b)(2u + v) + b(u + v) = 2au + av - 3bu - bv;
  //   j = 0: 2a^2 - 2ab - b^2;   j = 1: 2ac + ae - 3bc - be.
  // y[0][0] = (2a^2 - 2ab - b^2)(4a - b) + (2ac + ae - 3bc - be)(4c - e)
  //         = 8a^3 - 10a^2b - 2ab^2 + b^3 + 8ac^2 + 2ace - ae^2 - 12bc^2 - bce + be^2
  // y[0][1] = (2a^2 - 2ab - b^2)(13a/2 - 2b) + (2ac + ae - 3bc - be)(13c/2 - 2e)
  //         = 13a^3 - 17a^2b - 5/2 ab^2 + 2b^3 + 13ac^2 + 5/2 ace - 2ae^2 - 39/2 bc^2 - 1/2 bce + 2be^2
  Model m = read_model(kData + "attention-example.json");
  PolyRing R(4);
  auto y = expand(R, m, {{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  // exponent vectors over (a, b, c, e)
  const std::map<Exps, Fmpq> y00 = {
      {{3, 0, 0, 0}, 8},  {{2, 1, 0, 0}, -10}, {{1, 2, 0, 0}, -2}, {{0, 3, 0, 0}, 1},  {{1, 0, 2, 0}, 8},
      {{1, 0, 1, 1}, 2},  {{1, 0, 0, 2}, -1},  {{0, 1, 2, 0}, -12}, {{0, 1, 1, 1}, -1}, {{0, 1, 0, 2}, 1}};
  const std::map<Exps, Fmpq> y01 = {{{3, 0, 0, 0}, 13},
                                    {{2, 1, 0, 0}, -17},
                                    {{1, 2, 0, 0}, Fmpq(-5, 2)},
                                    {{0, 3, 0, 0}, 2},
                                    {{1, 0, 2, 0}, 13},
                                    {{1, 0, 1, 1}, Fmpq(5, 2)},
                                    {{1, 0, 0, 2}, -2},
                                    {{0, 1, 2, 0}, Fmpq(-39, 2)},
                                    {{0, 1, 1, 1}, Fmpq(-1, 2)},
                                    {{0, 1, 0, 2}, 2}};
  CHECK(terms_of(y[0]) == y00);
  CHECK(terms_of(y[1]) == y01);
  // Token 1 is token 0 with the tokens swapped (attention is permutation-equivariant).
  auto swap = [](std::map<Exps, Fmpq> t) {
    std::map<Exps, Fmpq> r;
    for (auto& [e, c] : t) r[{e[2], e[3], e[0], e[1]}] = c;
    return r;
  };
  CHECK(terms_of(y[2]) == swap(y00));
  CHECK(terms_of(y[3]) == swap(y01));
  // The model's output entry is y[0][0].
  auto outs = resolve_outputs(m, std::nullopt, false);
  REQUIRE(outs.size() == 1);
  CHECK(terms_of(expand(R, m, outs)[0]) == y00);
}

TEST_CASE("expansion agrees with the forward pass in every domain, for every preset", "[expand]") {
  std::uint64_t seed = 100;
  for (const auto& m : preset_models()) check_domains_agree(m, ++seed);
}

TEST_CASE("expansion does not depend on the thread count, nor on asking one entry or all", "[expand]") {
  // With threads, the products of a layer run side by side (forward.hpp's
  // tasks); a single asked entry takes the attention layer's few-entries path
  // (w = O M first), all entries the whole-M path: two computations.
  const unsigned saved = thread_count();
  for (const auto& m : preset_models()) {
    INFO("model " << m.name);
    const slong nv = static_cast<slong>(m.num_inputs());
    auto outs = resolve_outputs(m, std::nullopt, true);
    PolyRing R(nv);
    ModPolyRing RM(nv, kP);
    set_thread_count(1);
    auto all1 = expand(R, m, outs);
    auto mod1 = expand_mod(RM, m, outs);
    set_thread_count(2);
    auto all2 = expand(R, m, outs);
    auto mod2 = expand_mod(RM, m, outs);
    REQUIRE(all1.size() == outs.size());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      CHECK(all1[k] == all2[k]);
      CHECK(mod1[k] == mod2[k]);
      for (unsigned t : {1u, 2u}) {
        set_thread_count(t);
        CHECK(expand(R, m, {outs[k]})[0] == all1[k]);
        CHECK(expand_mod(RM, m, {outs[k]})[0] == mod1[k]);
      }
    }
  }
  set_thread_count(saved);
}

TEST_CASE("expansion agrees with the forward pass on hand-made models", "[expand]") {
  // rational weights, a residual token_mix with W2, a permute layer, a residual
  // channel_mix with rectangular W (3 x 2) and W2 (2 x 3), a da = 1 attention head
  check_domains_agree(read_model(kData + "mixed.json"), 1);
  // a rectangular product block with a 2^200 weight, then a 1 x 3 channel_mix
  check_domains_agree(read_model(kData + "product-rect.json"), 2);
  // a token_mix with W2 and no activation, then a rectangular channel_mix without W2
  check_domains_agree(parse_model(R"({"format": "netpoly-model/1", "input": {"tokens": 3, "width": 2}, "layers": [
      {"type": "token_mix", "W": [[1, "1/2", 0], [0, -1, "3/4"], [2, 0, 1]], "W2": [[0, 1, 1], ["-1/3", 0, 2], [1, 1, 1]]},
      {"type": "channel_mix", "W": [[1, 2], ["2/9", -1], [0, 5]], "activation": "square"},
      {"type": "permute", "perm": [8, 7, 6, 5, 4, 3, 2, 1, 0], "residual": true}]})",
                                  "inline"),
                      3);
}

TEST_CASE("a model without layers is the identity", "[expand]") {
  Model m;
  m.tokens = 2;
  m.width = 2;
  PolyRing R(4);
  auto y = expand(R, m, resolve_outputs(m, std::nullopt, true));
  REQUIRE(y.size() == 4);
  for (slong v = 0; v < 4; ++v) CHECK(y[v] == R.gen(v));
}

TEST_CASE("degree laws: attention x3, square x2, product xk", "[expand]") {
  struct Case {
    PresetOptions o;
    ulong degree;
  };
  const std::vector<Case> cases = {
      {preset("attention", 1, 2, 1, 2, 0, false), 3},  {preset("attention", 2, 2, 1, 2, 0, false), 9},
      {preset("attention", 2, 4, 2, 2, 0, false), 9},  {preset("mixer", 1, 2, 0, 2, 0, false), 2},
      {preset("mixer", 2, 2, 0, 2, 0, false), 4},      {preset("mixer", 3, 2, 0, 2, 0, false), 8},
      {preset("mlp", 2, 3, 0, 1, 0, false), 4},        {preset("mlp", 4, 2, 0, 1, 0, false), 16},
      {preset("product", 1, 2, 0, 1, 3, false), 3},    {preset("product", 2, 2, 0, 1, 3, false), 9},
      {preset("product", 3, 2, 0, 2, 2, false), 8},
      // degree-k attention blocks: k^L (AO eq. (2); even k with learned values C)
      {preset("attention", 1, 2, 1, 2, 2, false), 2},  {preset("attention", 2, 2, 1, 2, 2, false), 4},
      {preset("attention", 1, 2, 1, 3, 4, false), 4},  {preset("attention", 2, 2, 1, 2, 4, false), 16},
      {preset("attention", 1, 2, 1, 2, 5, false), 5},  {preset("attention", 2, 2, 1, 2, 5, false), 25},
  };
  for (const auto& c : cases) {
    Model m = make_preset(c.o);
    INFO(m.name);
    PolyRing R(static_cast<slong>(m.num_inputs()));
    auto outs = resolve_outputs(m, std::nullopt, true);
    for (const auto& p : expand(R, m, outs)) {
      // Without residuals every term has exactly the full degree.
      CHECK(degrees_of(p) == std::set<ulong>{c.degree});
      PolyStats s = poly_stats(p, m.tokens, m.width);
      CHECK(s.degree == static_cast<slong>(c.degree));
    }
    auto e = estimate_expansion(m);
    CHECK(e.degree == c.degree);
    CHECK(e.homogeneous);
  }
}

TEST_CASE("residual networks keep the lower-degree terms", "[expand]") {
  struct Case {
    PresetOptions o;
    std::set<ulong> degrees;
  };
  const std::vector<Case> cases = {
      // Y = X + A(X): degrees 1 and 3.
      {preset("attention", 1, 2, 1, 2, 0, true), {1, 3}},
      // Y2 = Y1 + A(Y1) with Y1 of degrees {1, 3}: A is cubic, so degrees 3, 5, 7, 9 join 1, 3.
      {preset("attention", 2, 2, 1, 2, 0, true), {1, 3, 5, 7, 9}},
      // Y = X + (W X)^2: {1, 2}; then Y + (Y W^T)^2: {1, 2, 3, 4}.
      {preset("mixer", 2, 2, 0, 2, 0, true), {1, 2, 3, 4}},
      {preset("mlp", 2, 2, 0, 1, 0, true), {1, 2, 3, 4}},
      {preset("mlp", 3, 2, 0, 1, 0, true), {1, 2, 3, 4, 5, 6, 7, 8}},
      // X + (X W1^T)(X W2^T)(X W3^T): {1, 3}.
      {preset("product", 1, 2, 0, 1, 3, true), {1, 3}},
  };
  for (const auto& c : cases) {
    Model m = make_preset(c.o);
    INFO(m.name);
    PolyRing R(static_cast<slong>(m.num_inputs()));
    auto outs = resolve_outputs(m, std::nullopt, true);
    auto ps = expand(R, m, outs);
    for (std::size_t k = 0; k < outs.size(); ++k) {
      CHECK(degrees_of(ps[k]) == c.degrees);
      // The degree-1 part of y[i][c] is exactly x_i_c: every layer adds its input
      // and contributes nothing linear itself.
      Exps e(m.num_inputs(), 0);
      e[var_index(m, outs[k].token, outs[k].channel)] = 1;
      CHECK(coeff(ps[k], e) == Fmpq(1));
      std::size_t linear = 0;
      for (const auto& [ex, co] : terms_of(ps[k])) {
        ulong s = 0;
        for (ulong v : ex) s += v;
        linear += s == 1;
      }
      CHECK(linear == 1);
    }
    auto est = estimate_expansion(m);
    CHECK(est.degree == *c.degrees.rbegin());
    CHECK_FALSE(est.homogeneous);
  }
}

TEST_CASE("the size estimate bounds the actual expansion", "[expand]") {
  for (const auto& m : preset_models()) {
    INFO(m.name);
    auto e = estimate_expansion(m);
    PolyRing R(static_cast<slong>(m.num_inputs()));
    for (const auto& p : expand(R, m, resolve_outputs(m, std::nullopt, true))) {
      CHECK(static_cast<double>(p.length()) <= e.terms * (1 + 1e-9));
      CHECK(poly_stats(p, m.tokens, m.width).degree <= static_cast<slong>(e.degree));
    }
  }
  Model big = make_preset(preset("attention", 3, 4, 1, 8, 0, false));  // degree 27 in 32 variables
  CHECK_THROWS_AS(check_expansion_size(big, 5e7), LimitError);
  // N = 2, d = 2, one attention layer: y_i = sum_j <Q x_i, K x_j> O V x_j has
  // token-degree vectors 3 e_i (j = i) and e_i + 2 e_j (j != i): C(3+1, 1) = 4
  // cubic monomials in token i's two variables, and 2 x C(2+1, 1) = 6 for
  // x_i x_j^2; 10 in all (the expansion has exactly 10 terms per entry),
  // below the 20 cubic monomials of four variables.
  CHECK_NOTHROW(check_expansion_size(read_model(kData + "attention-example.json"), 10));
  CHECK_THROWS_AS(check_expansion_size(read_model(kData + "attention-example.json"), 9), LimitError);
  CHECK(estimate_expansion(read_model(kData + "attention-example.json")).terms == 10);
}

TEST_CASE("expand_mod rejects a prime that divides a denominator", "[expand]") {
  Model m = read_model(kData + "attention-example.json");  // has 1/2
  ModPolyRing R2(4, 2);
  CHECK_THROWS_AS(expand_mod(R2, m, {{0, 1}}), DomainError);
  ModPolyRing R3(4, 3);
  CHECK_NOTHROW(expand_mod(R3, m, {{0, 1}}));
}

TEST_CASE("resolve_outputs: requested entry, the model's output, or all", "[expand]") {
  Model m = read_model(kData + "product-rect.json");  // 2 tokens, output width 1, no output field
  CHECK(resolve_outputs(m, std::nullopt, false) == std::vector<Entry>{{0, 0}, {1, 0}});
  CHECK(resolve_outputs(m, Entry{1, 0}, false) == std::vector<Entry>{{1, 0}});
  CHECK_THROWS_AS(resolve_outputs(m, Entry{0, 1}, false), InputError);  // the output width is 1, not 2
  CHECK_THROWS_AS(resolve_outputs(m, Entry{2, 0}, true), InputError);
  Model a = read_model(kData + "attention-example.json");
  CHECK(resolve_outputs(a, std::nullopt, false) == std::vector<Entry>{{0, 0}});
  CHECK(resolve_outputs(a, std::nullopt, true).size() == 4);
  CHECK(var_index(a, 1, 0) == 2);
  CHECK(var_name(2, 3) == "x1_1");
  CHECK(var_name(3, 5) == "x1_2");
}

TEST_CASE("poly_stats on the spec example", "[expand]") {
  Model m = read_model(kData + "attention-example.json");
  PolyRing R(4);
  auto y = expand(R, m, {{0, 0}, {0, 1}, {1, 1}});
  PolyStats s = poly_stats(y[0], 2, 2);
  CHECK(s.terms == 10);
  CHECK(s.degree == 3);
  CHECK(s.token_degree == std::vector<slong>{3, 2});
  CHECK(s.height_bits == 4);  // max |coefficient| 12: 4 bits
  // y[0][1] over the common denominator 2: 26, -34, -5, 4, 26, 5, -4, -39, -1, 4 -> 39: 6 bits
  CHECK(poly_stats(y[1], 2, 2).height_bits == 6);
  CHECK(poly_stats(y[2], 2, 2).token_degree == std::vector<slong>{2, 3});
  // A polynomial with a non-trivial content: 6 y[0][0] has max |coefficient| 72: 7 bits.
  FmpqMpoly six(R.ctx);
  fmpq_mpoly_scalar_mul_si(six.get(), y[0].get(), 6, R.ctx->get());
  CHECK(poly_stats(six, 2, 2).height_bits == 7);
  PolyStats z = poly_stats(R.zero(), 2, 2);
  CHECK(z.terms == 0);
  CHECK(z.degree == -1);
  CHECK(z.height_bits == 0);
  ModPolyRing RM(4, 101);
  auto ym = expand_mod(RM, m, {{0, 0}});
  PolyStats sm = poly_stats(ym[0], 2, 2);
  CHECK(sm.terms == 10);
  CHECK(sm.degree == 3);
  CHECK(sm.height_bits == 7);  // residues below 101 need 7 bits
}

TEST_CASE("write_poly formats", "[expand]") {
  Model m = read_model(kData + "attention-example.json");
  PolyRing R(4);
  auto y = expand(R, m, {{0, 1}});
  auto show = [&](const FmpqMpoly& p, PolyFormat f) {
    std::ostringstream os;
    write_poly(os, p, 2, f);
    return os.str();
  };
  // Terms in degrevlex order (x0_0 > x0_1 > x1_0 > x1_1).
  CHECK(show(y[0], PolyFormat::text) ==
        "13*x0_0^3 - 17*x0_0^2*x0_1 - 5/2*x0_0*x0_1^2 + 2*x0_1^3 + 13*x0_0*x1_0^2 - 39/2*x0_1*x1_0^2 + "
        "5/2*x0_0*x1_0*x1_1 - 1/2*x0_1*x1_0*x1_1 - 2*x0_0*x1_1^2 + 2*x0_1*x1_1^2");
  const std::string sy = show(y[0], PolyFormat::sympy);
  CHECK_THAT(sy, Catch::StartsWith("13*x0_0**3 - 17*x0_0**2*x0_1 - Rational(5, 2)*x0_0*x0_1**2 + 2*x0_1**3"));
  CHECK_THAT(show(y[0], PolyFormat::latex), Catch::StartsWith("13 x_{0,0}^{3} - 17 x_{0,0}^{2} x_{0,1} - \\frac{5}{2} x_{0,0} x_{0,1}^{2}"));
  CHECK_THAT(show(y[0], PolyFormat::json), Catch::StartsWith(R"([["13",[3,0,0,0]],["-17",[2,1,0,0]],["-5/2",[1,2,0,0]],)"));
  CHECK(show(y[0], PolyFormat::singular) == show(y[0], PolyFormat::text));
  // Zero, constants and unit coefficients.
  CHECK(show(R.zero(), PolyFormat::text) == "0");
  CHECK(show(R.zero(), PolyFormat::json) == "[]");
  FmpqMpoly p = R.gen(3);
  fmpq_mpoly_sub_si(p.get(), p.get(), 1, R.ctx->get());
  fmpq_mpoly_neg(p.get(), p.get(), R.ctx->get());
  CHECK(show(p, PolyFormat::text) == "-x1_1 + 1");
  CHECK(show(p, PolyFormat::json) == R"([["-1",[0,0,0,1]],["1",[0,0,0,0]]])");
  ModPolyRing RM(4, 7);
  auto ym = expand_mod(RM, m, {{0, 1}});
  std::ostringstream os;
  write_poly(os, ym[0], 2, PolyFormat::text);
  // 13 = 6, -17 = 4, -5/2 = -5 * 4 = 1 (mod 7)
  CHECK_THAT(os.str(), Catch::StartsWith("6*x0_0^3 + 4*x0_0^2*x0_1 + x0_0*x0_1^2"));
  CHECK(parse_poly_format("sympy") == PolyFormat::sympy);
  CHECK_THROWS_AS(parse_poly_format("maple"), InputError);
}

TEST_CASE("dot (PolyRing::dot_balanced or whole products) equals the sum of its products for any count and thread count; pieces of terms are canonical", "[expand]") {
  // Factors: products of output entries of attention (1,3,1,4) (a few hundred
  // to a thousand terms, so every product has tens of thousands of term pairs
  // and the threaded paths run), some scaled by rationals so the contents
  // differ. With 2 or 3 threads, n = 1..5 products take both of dot's threaded
  // paths: whole products side by side (n a multiple of the thread count) and
  // products cut into equal shares of term pairs (otherwise).
  const unsigned saved = thread_count();
  Model m = make_preset(preset("attention", 1, 3, 1, 4, 0, false, 7));
  PolyRing R(static_cast<slong>(m.num_inputs()));
  auto y = expand(R, m, resolve_outputs(m, std::nullopt, true));
  REQUIRE(y.size() == 12);
  std::vector<FmpqMpoly> a, b;
  const Fmpq scale[] = {Fmpq(1), Fmpq(-5, 7), Fmpq(1, 3), Fmpq(2), Fmpq(-1, 11)};
  for (std::size_t k = 0; k < 5; ++k) {
    FmpqMpoly big = R.mul(y[k], y[k + 5]);
    FmpqMpoly s = R.zero();
    R.axpy(s, scale[k], big);
    a.push_back(std::move(s));
    b.push_back(y[(k + 7) % 12]);
    CHECK(static_cast<double>(a.back().length()) * static_cast<double>(b.back().length()) > 0x1p13);
  }
  for (std::size_t n = 1; n <= 5; ++n) {
    set_thread_count(1);
    FmpqMpoly want = R.zero();
    for (std::size_t k = 0; k < n; ++k) R.addmul(want, a[k], b[k]);
    std::vector<FmpqMpoly> fa, fb;
    for (std::size_t k = 0; k < n; ++k) {
      // the longer factor first and second, so both sides get cut
      fa.push_back(k % 2 ? b[k] : a[k]);
      fb.push_back(k % 2 ? a[k] : b[k]);
    }
    for (unsigned t : {1u, 2u, 3u}) {
      INFO(n << " products, " << t << " threads");
      set_thread_count(t);
      FmpqMpoly got = R.zero();
      detail::dot(R, got, fa, fb);
      CHECK(got == want);
      FmpqMpoly acc = y[0];  // into a nonzero sum as well
      detail::dot(R, acc, fa, fb);
      FmpqMpoly want2 = y[0];
      R.add(want2, want);
      CHECK(acc == want2);
    }
  }
  set_thread_count(saved);
  // terms(p, lo, hi) over a partition of p's terms: canonical pieces summing to p.
  const FmpqMpoly& p = a[1];
  const slong len = p.length();
  for (slong cuts : {1, 2, 3, 7}) {
    FmpqMpoly sum = R.zero();
    for (slong c = 0; c < cuts; ++c) {
      FmpqMpoly piece = R.terms(p, len * c / cuts, len * (c + 1) / cuts);
      CHECK(piece.length() == len * (c + 1) / cuts - len * c / cuts);
      CHECK(fmpq_mpoly_is_canonical(piece.get(), R.ctx->get()));
      R.add(sum, piece);
    }
    CHECK(sum == p);
  }
  CHECK(R.terms(p, 3, 3).length() == 0);
}

TEST_CASE("choose_packing: words per exponent by hand", "[expand]") {
  // FLINT packs each field in max(8, bits(max) + 1) bits, 64 / bits fields per word.
  // 12 variables of degree <= 9, lexicographic: 12 fields of 8 bits = 2 words;
  // pairs as base-10 digits: 6 fields up to 99 (7 bits + 1) = 1 word.
  Packing p = choose_packing(12, 9);
  CHECK(p.group == 2);
  CHECK(p.base == 10);
  CHECK(p.fields == 6);
  CHECK(p.words == 1);
  CHECK(p.span == 100);
  // 24 variables, degree 9: 3 words unpacked; pairs: 12 fields of 8 bits = 2
  // words; triples (999: 11 bits, 5 a word) and larger groups stay at 2.
  p = choose_packing(24, 9);
  CHECK(p.group == 2);
  CHECK(p.fields == 12);
  CHECK(p.words == 2);
  // 8 variables of degree <= 27: one word already, nothing to gain.
  p = choose_packing(8, 27);
  CHECK(p.group == 1);
  CHECK(p.words == 1);
  // 16 variables, degree 64: 2 words; pairs up to 65^2 - 1 = 4224 need 14
  // bits (4 a word, 8 fields: 2 words), and no grouping gets below 2.
  p = choose_packing(16, 64);
  CHECK(p.group == 1);
  CHECK(p.words == 2);
}

TEST_CASE("the degree ring bounds every polynomial of the forward pass", "[expand]") {
  // attention triples the degree per layer, a square doubles it, a degree-k
  // product multiplies it by k; no intermediate exceeds the layer's output.
  struct Case {
    PresetOptions o;
    long degree;
  };
  for (const Case& c : {Case{preset("attention", 2, 2, 1, 3, 0, false), 9}, Case{preset("attention", 2, 2, 1, 2, 0, true), 9},
                        Case{preset("mixer", 3, 2, 0, 2, 0, false), 8}, Case{preset("product", 2, 2, 0, 2, 3, false), 9},
                        Case{preset("mlp", 3, 2, 0, 1, 0, true), 8}}) {
    Model m = make_preset(c.o);
    INFO(m.name);
    DegreeRing D;
    auto net = prepare(D, m);
    auto y = forward(D, net, std::vector<long>(m.num_inputs(), 1));
    CHECK(D.max_seen == c.degree);
    // and it is the degree the expansion has
    PolyRing R(static_cast<slong>(m.num_inputs()));
    auto p = expand(R, m, resolve_outputs(m, std::nullopt, false))[0];
    CHECK(fmpq_mpoly_total_degree_si(p.get(), p.c()) == c.degree);
  }
  DegreeRing D;
  long r = D.zero();
  D.axpy(r, 0, 5);  // a zero weight adds nothing
  CHECK(r == -1);
  CHECK(D.mul(-1, 4) == -1);  // zero times anything
  CHECK(D.max_seen == 0);
  CHECK(D.mul(DegreeRing::kCap, DegreeRing::kCap - 1) == DegreeRing::kCap);  // saturates, no overflow
  CHECK(D.max_seen == DegreeRing::kCap);
}

TEST_CASE("a lexicographic ring expands through packed variables to the same polynomial", "[expand]") {
  // Every preset (9, 12 and 16 variables among them: packing with a last field
  // of fewer variables, and none where it saves nothing), over the degree-order
  // ring (never packed) and the lexicographic one: the same terms, and the
  // packed result is canonical (sorted without a sort: packed lex = lex).
  std::size_t packed = 0;
  auto check = [&](const Model& m) {
    INFO("model " << m.name);
    const slong nv = static_cast<slong>(m.num_inputs());
    auto outs = resolve_outputs(m, std::nullopt, true);
    PolyRing Rd(nv), Rl(nv, ORD_LEX);
    auto yd = expand(Rd, m, outs), yl = expand(Rl, m, outs);
    REQUIRE(yd.size() == yl.size());
    for (std::size_t k = 0; k < yd.size(); ++k) {
      CHECK(fmpq_mpoly_is_canonical(yl[k].get(), Rl.ctx->get()));
      CHECK(terms_of(yl[k]) == terms_of(yd[k]));
    }
    ulong deg = 1;
    for (const auto& y : yd) deg = std::max<ulong>(deg, static_cast<ulong>(fmpq_mpoly_total_degree_si(y.get(), y.c())));
    packed += choose_packing(nv, deg).group > 1;
  };
  for (const auto& m : preset_models()) check(m);
  check(make_preset(preset("attention", 2, 3, 1, 4, 0, false)));  // 12 variables, pairs
  check(make_preset(preset("attention", 1, 3, 1, 3, 0, false)));  // 9 variables: 4 pairs and a single
  check(make_preset(preset("attention", 2, 2, 1, 3, 0, true)));   // residual: degrees 1, 3 and 9
  CHECK(packed >= 3);
}

// The watch of an expansion: its first progress line comes at once (a
// terminal shows what runs before the first product ends), and with
// stop_after (a default run's limit past the estimate) it stops the
// expansion between two products with a LimitError naming the flag that
// runs it to the end; without it, it never stops on time.
TEST_CASE("an expansion watch: a first line at once, and a stop past stop_after", "[expand]") {
  AnalysisContext run;
  std::vector<std::string> lines;
  run.progress = [&](const std::string& l) { lines.push_back(l); };
  const auto w = expansion_watch(run, "y0_0", 17, 0.001);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "expanding y0_0: about 17 s estimated");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  try {
    w->after_product(0);
    FAIL("no LimitError");
  } catch (const LimitError& e) {
    CHECK_THAT(e.what(), Catch::Contains("gave up the expansion of y0_0") && Catch::Contains("--methods"));
  }
  const auto never = expansion_watch(run, "y0_0", 17, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK_NOTHROW(never->after_product(0));
  // Through a ring: an expansion watched with a tiny stop_after stops.
  PolyRing R(4);
  R.watch = expansion_watch(run, "y0_0", 0, 1e-9);
  const Model m = make_preset(PresetOptions{.shape = {.arch = parse_arch("attention"), .layers = 2, .width = 2,
                                                      .heads = 1, .tokens = 2},
                                            .seed = 1});
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK_THROWS_AS(expand_packed(R, m, {{0, 0}}), LimitError);
}
