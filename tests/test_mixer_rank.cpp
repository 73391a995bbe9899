// The mixer bound (src/analysis/engines/mixer_rank.hpp, docs/math.md §4.3): its ring
// on polynomials worked by hand, its soundness on random and structured
// mixers (zeros, rank-one and repeated weights, residuals, biases, expansion
// factors, permutations; every token partition and some variable
// partitions: never below the certified exact rank, never above support),
// and the depth-2 closed form (d + 2)(d + 3)/2 - 1 against exact ranks.
#include <catch2/catch.hpp>

#include <tuple>

#include "analysis/engines/mixer_rank.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "random_models.hpp"
#include "runtime/random.hpp"

using namespace netpoly;
using json = nlohmann::json;

namespace {

// One method's value on every partition (one analysis; nullopt: no value).
std::vector<std::optional<std::size_t>> method_values(const Model& m, const std::vector<Partition>& parts,
                                                      Method method) {
  SepOptions o;
  o.methods = {method};
  std::vector<std::optional<std::size_t>> out;
  for (const auto& r : analyse_network(m, {{0, 0}}, parts, o)) out.push_back(r.runs.at(0).value);
  return out;
}

// The certified exact rank on every partition (the exact method).
std::vector<std::size_t> exact_ranks(const Model& m, const std::vector<Partition>& parts) {
  SepOptions o;
  o.methods = {Method::exact};
  std::vector<std::size_t> out;
  for (const auto& r : analyse_network(m, {{0, 0}}, parts, o)) {
    REQUIRE(r.status == BracketStatus::exact);
    out.push_back(*r.lower.value);
  }
  return out;
}

// Every split of the tokens (A = a nonempty set with token 0; A = all
// tokens included); with one or two tokens also two random splits of the
// variables, which cut tokens in two.
std::vector<Partition> every_split(const Model& m, SplitMix64& g) {
  std::vector<Partition> out;
  const std::size_t N = m.tokens, d = m.width;
  for (std::size_t bits = 1; bits < (std::size_t{1} << N); bits += 2) {
    std::vector<std::size_t> A;
    for (std::size_t t = 0; t < N; ++t)
      if (bits & (std::size_t{1} << t)) A.push_back(t);
    out.push_back(partition_from_tokens(A, N, d));
  }
  if (N <= 2 && N * d >= 2)
    for (int k = 0; k < 2; ++k) {
      std::vector<std::size_t> vars;
      for (std::size_t v = 0; v < N * d; ++v)
        if (g.below(2)) vars.push_back(v);
      if (!vars.empty() && vars.size() < N * d) out.push_back(partition_from_vars(vars, N, d));
    }
  return out;
}

// Random mixers whose weights follow one of five structures: small integers
// with zeros, mostly zeros, rank one (u v^T), repeated rows, all equal.
struct MixerGen {
  SplitMix64 g;
  int structure = 0;
  explicit MixerGen(std::uint64_t seed) : g(seed), structure(static_cast<int>(g.below(5))) {}
  json entry() {
    if (structure == 1 && g.below(10) < 6) return 0;
    if (g.below(10) == 0) return 0;
    return g.symmetric(3);
  }
  json matrix(std::size_t rows, std::size_t cols) {
    json M = json::array();
    std::vector<std::int64_t> u(rows), v(cols);
    for (auto& x : u) x = g.symmetric(2);
    for (auto& x : v) x = g.symmetric(2);
    json first = json::array();
    for (std::size_t j = 0; j < cols; ++j) first.push_back(entry());
    for (std::size_t i = 0; i < rows; ++i) {
      json row = json::array();
      for (std::size_t j = 0; j < cols; ++j) {
        if (structure == 2) row.push_back(u[i] * v[j]);
        else if (structure == 3) row.push_back(g.below(3) ? first[j] : entry());
        else if (structure == 4) row.push_back(1);
        else row.push_back(entry());
      }
      M.push_back(row);
    }
    return M;
  }
  json bias(std::size_t n) {
    json b = json::array();
    for (std::size_t i = 0; i < n; ++i) b.push_back(entry());
    return b;
  }
  // L mixing layers (token or channel, squared or linear, one matrix or an
  // expansion W2 sigma2(W X)), permutations between them, residuals where the
  // width allows, biases on a quarter; total degree at most max_degree.
  json model(std::size_t max_layers, std::size_t max_tokens, std::size_t max_width, std::size_t max_degree) {
    const std::size_t N = 1 + g.below(max_tokens), d0 = 1 + g.below(max_width);
    std::size_t d = d0, degree = 1;
    json layers = json::array();
    const std::size_t L = 1 + g.below(max_layers);
    bool token = g.below(4) != 0;
    for (std::size_t l = 0; l < L; ++l, token = g.below(4) ? !token : token) {
      if (g.below(6) == 0) {
        std::vector<std::size_t> perm(N * d);
        for (std::size_t t = 0; t < perm.size(); ++t) perm[t] = t;
        for (std::size_t t = perm.size(); t > 1; --t) std::swap(perm[t - 1], perm[g.below(t)]);
        layers.push_back({{"type", "permute"}, {"perm", perm}});
      }
      json Ly;
      const bool sq = degree * 2 <= max_degree && g.below(5) != 0;
      const bool two = g.below(3) == 0;
      std::size_t dout = d;
      if (token) {
        const std::size_t h = two ? N * (1 + g.below(2)) : N;
        Ly = {{"type", "token_mix"}, {"W", matrix(h, N)}};
        if (two) Ly["W2"] = matrix(N, h);
        if (g.below(4) == 0) Ly["b"] = bias(h);
      } else {
        const std::size_t h = two ? d * (1 + g.below(2)) : d + (g.below(4) == 0 ? 1 : 0);
        dout = two ? d : h;
        Ly = {{"type", "channel_mix"}, {"W", matrix(h, d)}};
        if (two) Ly["W2"] = matrix(d, h);
        if (g.below(4) == 0) Ly["b"] = bias(h);
      }
      Ly["activation"] = sq ? "square" : "none";
      if (dout == d && g.below(3) == 0) Ly["residual"] = true;
      degree *= sq ? 2 : 1;
      d = dout;
      layers.push_back(Ly);
    }
    return {{"format", "netpoly-model/1"},
            {"input", {{"tokens", N}, {"width", d0}}},
            {"layers", layers},
            {"output", {{"token", 0}, {"channel", 0}}}};
  }
};

// Mixers from `seeds`: mixer <= support on every split, mixer >= the exact
// rank; returns the mixers, the pairs checked, and the pairs where the bound
// is the exact rank while support is above it (where a bound too small by
// one would fail).
std::tuple<int, int, int> check_random_mixers(std::uint64_t first, int count, std::size_t max_layers,
                                        std::size_t max_tokens, std::size_t max_width, std::size_t max_degree,
                                        double max_terms) {
  int mixers = 0, pairs = 0, sharp = 0;
  for (int s = 0; s < count; ++s) {
    MixerGen G(first + static_cast<std::uint64_t>(s));
    const json j = G.model(max_layers, max_tokens, max_width, max_degree);
    INFO(j.dump());
    const Model m = parse_model(j.dump(), "random mixer");
    if (estimate_expansion(m).terms > max_terms) continue;
    const auto parts = every_split(m, G.g);
    const auto mix = method_values(m, parts, Method("mixer"));
    const auto sup = method_values(m, parts, Method::support);
    const auto exact = exact_ranks(m, parts);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      INFO(parts[k].label());
      REQUIRE(mix[k]);
      REQUIRE(sup[k]);
      CHECK(*mix[k] <= *sup[k]);
      CHECK(*mix[k] >= exact[k]);
      sharp += *mix[k] == exact[k] && *sup[k] > exact[k] ? 1 : 0;
      ++pairs;
    }
    ++mixers;
  }
  return {mixers, pairs, sharp};
}

Model l2_mixer(std::size_t N, std::size_t d, std::uint64_t seed = 1, bool residual = false) {
  NetworkShape s;
  s.arch = Arch::mixer;
  s.layers = 2;
  s.tokens = N;
  s.width = d;
  s.residual = residual;
  return make_preset(preset_options(s, seed, 0, WeightDist::generic));
}

std::size_t closed_form_l2(std::size_t d) { return (d + 2) * (d + 3) / 2 - 1; }

}  // namespace

TEST_CASE("mixer ring: blocks, linear forms and squares worked by hand", "[mixer]") {
  const Partition P = partition_from_tokens({0}, 2, 2);  // x0_0, x0_1 in A; x1_0, x1_1 in B
  const mixer_rank::RankRing R(P);
  auto rank_at = [](const mixer_rank::RankRing::Elem& e, std::size_t a, std::size_t b) {
    for (const auto& k : e.blocks)
      if (k.a == a && k.b == b) return k.r.str();
    return std::string("0");
  };
  // a = x0_0 + x0_1 + x1_0: one linear form per side.
  auto a = R.variable(0);
  R.add(a, R.variable(1));
  R.add(a, R.variable(2));
  CHECK(a.mA == 1);
  CHECK(a.mB == 1);
  CHECK(rank_at(a, 1, 0) == "1");
  // a^2: (2,0), (1,1), (0,2) of rank 1 each; a * a as two objects: the same here.
  const auto sq = R.mul(a, a);
  CHECK(rank_at(sq, 2, 0) == "1");
  CHECK(rank_at(sq, 1, 1) == "1");
  CHECK(rank_at(sq, 0, 2) == "1");
  // u = a^2 + (x0_1 + x1_1)^2: the (2,0) block is capped by D(m_B, 0) = 1,
  // (1,1) has rank 2 (two forms a side).
  auto c = R.variable(1);
  R.add(c, R.variable(3));
  auto u = sq;
  R.add(u, R.mul(c, c));
  CHECK(u.mA == 2);
  CHECK(rank_at(u, 2, 0) == "1");
  CHECK(rank_at(u, 1, 1) == "2");
  // u^2: (2,2) = 1 * 1 + 2 * 3 / 2 = 4, capped by D(2, 2) = 3 on either side.
  const auto y = R.mul(u, u);
  CHECK(rank_at(y, 4, 0) == "1");
  CHECK(rank_at(y, 3, 1) == "2");
  CHECK(rank_at(y, 2, 2) == "3");
  CHECK(mixer_rank::sym_dim(0, 0).str() == "1");
  CHECK(mixer_rank::sym_dim(0, 3).str() == "0");
  CHECK(mixer_rank::sym_dim(4, 2).str() == "10");
}

TEST_CASE("mixer ring: a value and its copy share their linear forms (a residual branch)", "[mixer]") {
  // s = x0_1 + x1_0 (A = token 0) is one form a side; z = x0_0 + s^2 lies in
  // the polynomials of {x0_0, s_A} and {s_B}: m_A(z) = 2, m_B(z) = 1.
  // y = z + u with u a copy of z (a residual branch beside the mixing one):
  // the same names, so m_A(y) = 2, m_B(y) = 1 (counts added would give 4, 2).
  const Partition P = partition_from_tokens({0}, 2, 2);  // x0_0, x0_1 in A; x1_0, x1_1 in B
  const mixer_rank::RankRing R(P);
  auto s = R.variable(1);
  R.add(s, R.variable(2));
  auto z = R.variable(0);
  R.add(z, R.mul(s, s));
  CHECK(z.mA == 2);
  CHECK(z.mB == 1);
  const auto u = z;
  auto y = z;
  R.add(y, u);
  CHECK(y.mA == 2);
  CHECK(y.mB == 1);
  // The caps repeat: t = x0_0 + x1_0 + x1_1 has one form a side. After x1_1
  // the (0,1) block has ranks 1 + 1, capped by D(m_A, 0) = 1; only then does
  // the span cap (sum_a r_a1 = 1) bring m_B from 2 (its variables) to 1.
  auto t = R.variable(0);
  R.add(t, R.variable(2));
  R.add(t, R.variable(3));
  CHECK(t.mA == 1);
  CHECK(t.mB == 1);
}

TEST_CASE("mixer at depth 2 with residuals: the exact rank on every N and d measured, both partitions", "[mixer]") {
  // Residual depth-2 mixers (issue 42; docs/findings.md): with the linear
  // forms named, a value's residual copy shares its forms with its mixing
  // branch; the bound meets the exact rank (counts alone gave 13 against 9
  // at N = 4, d = 2). From N = 4 on it is (d + 2)(d + 3)/2 - 1, as without
  // residuals.
  for (std::size_t N = 2; N <= 6; ++N)
    for (std::size_t d = 1; d <= 3; ++d)
      for (const char* part : {"half", "interleaved"}) {
        if (N * d > 15) continue;
        INFO("N = " << N << ", d = " << d << ", " << part);
        const Model m = l2_mixer(N, d, 2, true);
        const std::vector<Partition> P{parse_partition(part, N, d)};
        const auto mix = method_values(m, P, Method("mixer"));
        const auto sup = method_values(m, P, Method::support);
        REQUIRE(mix[0]);
        CHECK(*mix[0] == exact_ranks(m, P)[0]);
        CHECK(*mix[0] <= *sup[0]);
        if (N >= 4 && std::string(part) == "half") CHECK(*mix[0] == closed_form_l2(d));
      }
}

TEST_CASE("mixer at depth 2: (d + 2)(d + 3)/2 - 1 for every N, the exact rank, below support", "[mixer]") {
  // The rows (2,4,2) 9, (2,4,4) 20, (2,6,4) 20, (2,8,4) 20, (2,4,8) 54
  // and more; the exact rank certified where the expansion is small.
  for (std::size_t N = 2; N <= 8; ++N)
    for (std::size_t d = 1; d <= 8; ++d) {
      if (N * d > 32) continue;
      INFO("N = " << N << ", d = " << d);
      const Model m = l2_mixer(N, d);
      const std::vector<Partition> half{parse_partition("half", N, d)};
      const auto mix = method_values(m, half, Method("mixer"));
      const auto sup = method_values(m, half, Method::support);
      REQUIRE(mix[0]);
      CHECK(*mix[0] == closed_form_l2(d));
      CHECK(*mix[0] <= *sup[0]);
      if (N * d <= 12) CHECK(exact_ranks(m, half)[0] == closed_form_l2(d));
    }
  const Model m = l2_mixer(4, 4);
  CHECK(method_values(m, {parse_partition("half", 4, 4)}, Method::support)[0] == std::optional<std::size_t>(54));
}

TEST_CASE("mixer's bound in the default plan closes a depth-2 mixer by the black-box", "[mixer][blackbox]") {
  const Model m = l2_mixer(8, 4);
  SepOptions o;
  o.max_terms = 0;  // no expansion: the black-box against the mixer bound
  const auto r = analyse_network(m, {{0, 0}}, {parse_partition("half", 8, 4)}, o)[0];
  CHECK(r.status == BracketStatus::exact);
  CHECK(r.upper.value == std::optional<std::size_t>(20));
  CHECK(r.upper.method == "mixer");
}

TEST_CASE("mixer on random and structured mixers: never below the exact rank, never above support, every split",
          "[mixer][differential]") {
  const auto [mixers, pairs, sharp] = check_random_mixers(42000, 240, 3, 4, 3, 8, 4e3);
  CHECK(mixers >= 200);
  CHECK(pairs >= 600);
  CHECK(sharp >= 40);
}

TEST_CASE("mixer asked by name on random models of every layer kind: never below the exact rank", "[mixer][differential]") {
  // The ring's rules hold for any sum, scaling and product, so the bound is
  // sound on attention, product layers and branches too (it is offered by
  // default for mixers only, including NB eq. (3)'s branches).
  int pairs = 0, offered = 0;
  for (int s = 1; s <= 120; ++s) {
    const json j = test_models::random_model(static_cast<std::uint64_t>(61000 + s));
    INFO(j.dump());
    const Model m = parse_model(j.dump(), "random");
    if (m.num_inputs() < 2 || estimate_expansion(m).terms > 4e3) continue;
    std::string why;
    offered += mixer_rank::is_mixer(m, why) ? 1 : 0;
    const std::vector<Partition> half{parse_partition("half", m.tokens, m.width)};
    const auto mix = method_values(m, half, Method("mixer"));
    REQUIRE(mix[0]);
    CHECK(*mix[0] >= exact_ranks(m, half)[0]);
    CHECK(*mix[0] <= *method_values(m, half, Method::support)[0]);
    ++pairs;
  }
  CHECK(pairs >= 80);
  CHECK(offered >= 5);
}

TEST_CASE("mixer is offered by default for permuted mixers (NB eq. (3), branches) and not for attention", "[mixer]") {
  NetworkShape s;
  s.arch = Arch::mixer;
  s.layers = 2;
  s.tokens = 4;
  s.width = 3;
  PresetOptions o = preset_options(s, 1, 0, WeightDist::generic);
  o.permuted = true;
  std::string why;
  CHECK(mixer_rank::is_mixer(make_preset(o), why));
  s.arch = Arch::attention;
  CHECK_FALSE(mixer_rank::is_mixer(make_preset(preset_options(s)), why));
  CHECK(why.find("attention") != std::string::npos);
}

TEST_CASE("mixer on larger random mixers: never below the exact rank, never above support", "[mixer][slow]") {
  const auto [mixers, pairs, sharp] = check_random_mixers(77000, 1200, 4, 5, 3, 8, 2e4);
  CHECK(mixers >= 1000);
  CHECK(pairs >= 3000);
  CHECK(sharp >= 200);
}
