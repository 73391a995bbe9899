// The forward pass (forward.hpp): hand-worked layers first, then identities
// (multi-head = sum of heads, need-masks change nothing), then agreement of
// the number domains (exact rationals, mod p, doubles) on random inputs.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "model/forward.hpp"
#include "netpoly/model.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/rings.hpp"
#include "analysis/engines/support.hpp"
#include "runtime/random.hpp"
#include "domains/batch_rings.hpp"

using namespace netpoly;

namespace {

const std::string kData = std::string(NETPOLY_SOURCE_DIR) + "/tests/data/";

std::vector<Fmpq> qs(std::initializer_list<Fmpq> v) { return std::vector<Fmpq>(v); }

std::vector<Fmpq> run_q(const Model& m, const std::vector<Fmpq>& x, const Need& need = {}) {
  RationalRing R;
  return forward(R, prepare(R, m), x, need);
}

Model model(const std::string& json) { return parse_model(json, "inline"); }

std::string net(std::size_t N, std::size_t d, const std::string& layers) {
  return R"({"format": "netpoly-model/1", "input": {"tokens": )" + std::to_string(N) + R"(, "width": )" +
         std::to_string(d) + R"(}, "layers": [)" + layers + "]}";
}

// Random rational point: numerators in [-4, 4], denominators in [1, 3].
std::vector<Fmpq> random_point(SplitMix64& g, std::size_t n) {
  std::vector<Fmpq> x;
  for (std::size_t k = 0; k < n; ++k) x.emplace_back(static_cast<slong>(g.symmetric(4)), 1 + g.below(3));
  return x;
}

const ulong kP = n_nextprime(UWORD(1) << 62, 1);

std::vector<PresetOptions> presets() {
  std::vector<PresetOptions> r;
  auto add = [&](const char* arch, std::size_t L, std::size_t d, std::size_t H, std::size_t N, std::size_t k,
                 bool res) {
    PresetOptions o{.shape = {.arch = parse_arch(arch), .layers = L, .width = d, .heads = H, .tokens = N, .degree = k, .residual = res}};
    r.push_back(o);
  };
  add("attention", 1, 2, 1, 2, 0, false);
  add("attention", 2, 4, 2, 3, 0, false);
  add("attention", 2, 2, 1, 3, 0, true);
  add("mixer", 3, 2, 0, 3, 0, false);
  add("mixer", 4, 3, 0, 2, 0, true);
  add("mlp", 3, 3, 0, 1, 0, false);
  add("mlp", 3, 3, 0, 1, 0, true);
  add("product", 2, 3, 0, 2, 3, false);
  add("product", 2, 2, 0, 1, 2, true);
  // NB eq. (3): permutations and sums of branches
  add("mixer", 3, 2, 0, 3, 0, true);
  r.back().permuted = true;
  add("mlp", 2, 3, 0, 1, 0, false);
  r.back().permuted = true;
  return r;
}

}  // namespace

TEST_CASE("attention on the spec example, by hand", "[forward]") {
  // Q = [[1,-2],[0,1]], K = [[2,1],[1,1]], V = [[1,0],[3,-1]], O = [[1,1],[1/2,2]];
  // x0 = (1, 2), x1 = (-1, 3); y_i = sum_j <Q x_i, K x_j> O V x_j.
  //   Q x0 = (-3, 2), Q x1 = (-7, 3); K x0 = (4, 3), K x1 = (1, 2)
  //   V x0 = (1, 1) -> O V x0 = (2, 5/2);  V x1 = (-1, -6) -> O V x1 = (-7, -25/2)
  //   <Qx0,Kx0> = -6, <Qx0,Kx1> = 1, <Qx1,Kx0> = -19, <Qx1,Kx1> = -1
  //   y0 = -6 (2, 5/2) + 1 (-7, -25/2)  = (-19, -55/2)
  //   y1 = -19 (2, 5/2) - 1 (-7, -25/2) = (-31, -35)
  Model m = read_model(kData + "attention-example.json");
  auto x = qs({1, 2, -1, 3});
  CHECK(run_q(m, x) == qs({-19, Fmpq(-55, 2), -31, -35}));
  // With a residual connection the input is added.
  m.layers[0].residual = true;
  CHECK(run_q(m, x) == qs({-18, Fmpq(-51, 2), -32, -32}));
  // Only y[1][0] asked: the rest stays zero (and the fast path gives the same value).
  m.layers[0].residual = false;
  CHECK(run_q(m, x, Need{0, 0, 1, 0}) == qs({0, 0, -31, 0}));
}

TEST_CASE("token_mix, channel_mix, product and permute, by hand", "[forward]") {
  SECTION("token_mix: Y = W2 (W X)^2, N = 2, d = 1") {
    // W X = (1*1 + 2*2, 3*1 - 1*2) = (5, 1); squared (25, 1); W2 -> (25 + 1, 2*1) = (26, 2)
    Model m = model(net(2, 1, R"({"type": "token_mix", "W": [[1, 2], [3, -1]], "W2": [[1, 1], [0, 2]], "activation": "square"})"));
    CHECK(run_q(m, qs({1, 2})) == qs({26, 2}));
    m.layers[0].residual = true;
    CHECK(run_q(m, qs({1, 2})) == qs({27, 4}));
    // Without W2 and without activation: Y = W X.
    Model p = model(net(2, 1, R"({"type": "token_mix", "W": [[1, 2], [3, -1]]})"));
    CHECK(run_q(p, qs({1, 2})) == qs({5, 1}));
  }
  SECTION("token_mix mixes tokens channel by channel, N = 2, d = 2") {
    // X = [[1, 10], [2, 20]]; W = [[0, 1], [1, 1]] -> [[2, 20], [3, 30]]
    Model m = model(net(2, 2, R"({"type": "token_mix", "W": [[0, 1], [1, 1]]})"));
    CHECK(run_q(m, qs({1, 10, 2, 20})) == qs({2, 20, 3, 30}));
  }
  SECTION("channel_mix: Y = (X W^T)^2 W2^T with rectangular W (3 x 2) and W2 (1 x 3)") {
    // x = (3, -1): W x = (3, 2, -2); squared (9, 4, 4); W2 -> 9 - 4 + 4/2 = 7
    Model m = model(net(1, 2, R"({"type": "channel_mix", "W": [[1, 0], [1, 1], [0, 2]], "W2": [[1, -1, "1/2"]], "activation": "square"})"));
    CHECK(m.output_width() == 1);
    CHECK(run_q(m, qs({3, -1})) == qs({7}));
    // Two tokens are mixed independently: second token (1, 1): W x = (1, 2, 2) -> (1, 4, 4) -> 1 - 4 + 2 = -1
    Model m2 = model(net(2, 2, R"({"type": "channel_mix", "W": [[1, 0], [1, 1], [0, 2]], "W2": [[1, -1, "1/2"]], "activation": "square"})"));
    CHECK(run_q(m2, qs({3, -1, 1, 1})) == qs({7, -1}));
  }
  SECTION("product: Y = (X W1^T) * (X W2^T)") {
    // x = (2, 1): W1 x = (3, 1), W2 x = (4, 3) -> (12, 3)
    Model m = model(net(1, 2, R"({"type": "product", "Ws": [[[1, 1], [1, -1]], [[2, 0], [0, 3]]]})"));
    CHECK(run_q(m, qs({2, 1})) == qs({12, 3}));
    // Rectangular: one output channel, three factors: (x0 + x1)(x0)(x1) = 3 * 2 * 1 = 6
    Model r = model(net(1, 2, R"({"type": "product", "Ws": [[[1, 1]], [[1, 0]], [[0, 1]]]})"));
    CHECK(run_q(r, qs({2, 1})) == qs({6}));
  }
  SECTION("permute: vec(Y)[t] = vec(X)[perm[t]]") {
    Model m = model(net(2, 2, R"({"type": "permute", "perm": [3, 1, 0, 2]})"));
    CHECK(run_q(m, qs({10, 11, 12, 13})) == qs({13, 11, 10, 12}));
    m.layers[0].residual = true;
    CHECK(run_q(m, qs({10, 11, 12, 13})) == qs({23, 22, 22, 25}));
  }
  SECTION("layers compose in order") {
    // permute then token_mix: X = [[1], [2]] -> [[2], [1]] -> W X = (2 + 2*1, 3*2 - 1) = (4, 5)
    Model m = model(net(2, 1, R"({"type": "permute", "perm": [1, 0]}, {"type": "token_mix", "W": [[1, 2], [3, -1]]})"));
    CHECK(run_q(m, qs({1, 2})) == qs({4, 5}));
  }
}

TEST_CASE("biases: each layer kind's affine maps, by hand", "[forward][bias]") {
  SECTION("channel_mix: Y = (X W^T + b)^2 W2^T + b2") {
    // x = (2, 1): W x + b = (2 + 1, 3 - 1) = (3, 2); squared (9, 4); W2 -> 9 + 2*4 = 17; + b2 = 20.
    // At x = 0 only the biases remain: (1, -1)^2 = (1, 1) -> 1 + 2 + 3 = 6.
    Model m = model(net(1, 2, R"({"type": "channel_mix", "W": [[1, 0], [1, 1]], "b": [1, -1], "activation": "square", "W2": [[1, 2]], "b2": [3]})"));
    CHECK(run_q(m, qs({2, 1})) == qs({20}));
    CHECK(run_q(m, qs({0, 0})) == qs({6}));
  }
  SECTION("token_mix: Y = W2 (W X + b 1^T) + b2 1^T, one bias per token") {
    // X = (1, 2): W X = (5, 1); + b = (6, 1); W2 -> (7, 2); + b2 = (7, 5/2).
    Model m = model(net(2, 1, R"({"type": "token_mix", "W": [[1, 2], [3, -1]], "b": [1, 0], "W2": [[1, 1], [0, 2]], "b2": [0, "1/2"]})"));
    CHECK(run_q(m, qs({1, 2})) == qs({7, Fmpq(5, 2)}));
    // d = 2: token i's bias is added to every channel. X = [[1, 10], [2, 20]], W = I, b = (1, 2).
    Model w = model(net(2, 2, R"({"type": "token_mix", "W": [[1, 0], [0, 1]], "b": [1, 2]})"));
    CHECK(run_q(w, qs({1, 10, 2, 20})) == qs({2, 11, 4, 22}));
  }
  SECTION("attention: q = Q x + bQ, k = K x + bK, v = V x + bV, y_i = sum_j <q_i, k_j> O v_j + bO") {
    // The spec example's weights, x0 = (1, 2), x1 = (-1, 3), bQ = (1, 0), bK = (0, -1), bV = (2, 0), bO = (0, 1):
    //   q0 = (-3, 2) + bQ = (-2, 2), q1 = (-7, 3) + bQ = (-6, 3); k0 = (4, 3) + bK = (4, 2), k1 = (1, 1)
    //   v0 = (1, 1) + bV = (3, 1) -> O v0 = (4, 7/2); v1 = (-1, -6) + bV = (1, -6) -> O v1 = (-5, -23/2)
    //   <q0,k0> = -4, <q0,k1> = 0, <q1,k0> = -18, <q1,k1> = -3
    //   y0 = -4 (4, 7/2) + bO = (-16, -13); y1 = -18 (4, 7/2) - 3 (-5, -23/2) + bO = (-57, -55/2)
    const Model m = read_model(kData + "biases.json");
    Model a;
    a.tokens = 2;
    a.width = 2;
    a.layers = {m.layers[2]};
    auto x = qs({1, 2, -1, 3});
    CHECK(run_q(a, x) == qs({-16, -13, -57, Fmpq(-55, 2)}));
    // the path for few outputs (needed <= d) gives the same entries
    CHECK(run_q(a, x, Need{0, 0, 1, 0}) == qs({0, 0, -57, 0}));
    CHECK(run_q(a, x, Need{0, 1, 0, 0}) == qs({0, -13, 0, 0}));
    // as a degree-5 block head (an extra score pair with its biases) the block path adds bO once:
    // extra pair Q = K = I, bQ = (0, 0), bK = (1, 0): S2[u][t] = <x_u, x_t + (1, 0)>:
    //   x0 + (1,0) = (2, 2), x1 + (1,0) = (0, 3); S2 = [[6, 6], [4, 9]]
    //   S1 = [[-4, 0], [-18, -3]]; P = S1 S2 = [[-24, -24], [-120, -135]]
    //   y0 = -24 (4, 7/2) - 24 (-5, -23/2) + bO = (24, 192 + 1) = (24, 193)
    //   y1 = -120 (4, 7/2) - 135 (-5, -23/2) + bO = (-480 + 675, -420 + 3105/2 + 1) = (195, 2267/2)
    auto& h = std::get<Attention<Fmpq>>(a.layers[0].op).heads[0];
    ScorePair<Fmpq> e;
    e.Q = Mat<Fmpq>(2, 2);
    e.K = Mat<Fmpq>(2, 2);
    e.Q(0, 0) = e.Q(1, 1) = e.K(0, 0) = e.K(1, 1) = Fmpq(1);
    e.bQ = Mat<Fmpq>(2, 1);
    e.bK = Mat<Fmpq>(2, 1);
    (*e.bK)(0, 0) = Fmpq(1);
    h.extra.push_back(e);
    CHECK(run_q(a, x) == qs({24, 193, 195, Fmpq(2267, 2)}));
  }
  SECTION("product: Y = (X W1^T + b1) * (X W2^T + b2)") {
    // x = (2, 1): (x0 + x1 + 1)(x0 - x1 + 2) = 4 * 3 = 12
    Model m = model(net(1, 2, R"({"type": "product", "Ws": [[[1, 1]], [[1, -1]]], "bs": [[1], [2]]})"));
    CHECK(run_q(m, qs({2, 1})) == qs({12}));
    CHECK(run_q(m, qs({0, 0})) == qs({2}));
  }
  SECTION("the structural rings see the degree-0 term") {
    // y = (x0 + x1 + 1)^2 with A = {x0}, B = {x1}: bidegrees (0,0), (1,0), (0,1), (2,0), (1,1), (0,2);
    // without the bias only the three of degree 2.
    const Model m = model(net(1, 2, R"({"type": "channel_mix", "W": [[1, 1]], "b": [1], "activation": "square"})"));
    const Partition P = parse_partition("A=x0_0", 1, 2);
    const Bidegrees want{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {2, 0}};
    CHECK(support_bidegrees(m, {0, 0}, P) == want);
    PolyRing R(2);
    CHECK(polynomial_bidegrees(expand(R, m, {{0, 0}})[0], P) == want);
    const Model h = model(net(1, 2, R"({"type": "channel_mix", "W": [[1, 1]], "activation": "square"})"));
    CHECK(support_bidegrees(h, {0, 0}, P) == Bidegrees{{0, 2}, {1, 1}, {2, 0}});
    // the term estimate counts every degree 0..2 (6 monomials in 2 variables), not only degree 2 (3)
    CHECK_FALSE(estimate_expansion(m).homogeneous);
    CHECK(estimate_expansion(m).terms >= 6);
    CHECK(estimate_expansion(h).terms == 3);
    // degrees and heights: 1 + 2 x0 + 2 x1 + x0^2 + 2 x0 x1 + x1^2 has l1 norm 9 <= 2^h
    CHECK(coefficient_height_log2(m, {0, 0}) >= std::log2(9.0) - 1e-12);
  }
}

TEST_CASE("sums of branches: NB eq. (3) and sums of permutations, by hand", "[forward][branches]") {
  SECTION("NB eq. (3): sigma2(W pi_o(X)) + pi_r(X), N = 2, d = 1") {
    // pi_o = pi_r = swap: pi(X) = (x1, x0); W pi(X) = (x1 + 2 x0, x0), squared; + (x1, x0):
    // y0 = (x1 + 2 x0)^2 + x1, y1 = x0^2 + x0. At (1, 2): (16 + 2, 1 + 1) = (18, 2); at (-1, 3): (1 + 3, 1 - 1).
    Model m = model(net(2, 1, R"({"type": "branches", "branches": [
        [{"type": "permute", "perm": [1, 0]}, {"type": "token_mix", "W": [[1, 2], [0, 1]], "activation": "square"}],
        [{"type": "permute", "perm": [1, 0]}]]})"));
    CHECK(run_q(m, qs({1, 2})) == qs({18, 2}));
    CHECK(run_q(m, qs({-1, 3})) == qs({4, 0}));
    CHECK(m.layers[0].degree() == 2);
    CHECK_FALSE(m.layers[0].homogeneous());  // degree 2 plus degree 1
  }
  SECTION("an empty branch is the identity; one branch is its layers") {
    Model id = model(net(2, 1, R"({"type": "branches", "branches": [[]]})"));
    CHECK(run_q(id, qs({5, 7})) == qs({5, 7}));
    Model two = model(net(2, 1, R"({"type": "branches", "branches": [[], []]})"));
    CHECK(run_q(two, qs({5, 7})) == qs({10, 14}));
    CHECK(two.layers[0].homogeneous());
  }
  SECTION("tests/data/branches.json: a sum of permutations, then a residual sum of two sub-networks") {
    // X = [[1, 2], [3, 4]]. Layer 0: X + swap channels = (1+2, 2+1, 3+4, 4+3) = (3, 3, 7, 7) = Z.
    // Layer 1, branch A: (W z)^2 per token, W = [[1, 2], [0, 1]]: (9, 3)^2 = (81, 9), (21, 7)^2 = (441, 49).
    // Branch B: swap tokens (7, 7, 3, 3), then token_mix [[1, 1], [0, 1]]: (7+3, 7+3, 3, 3) = (10, 10, 3, 3).
    // A + B + Z (residual) = (81+10+3, 9+10+3, 441+3+7, 49+3+7) = (94, 22, 451, 59).
    Model m = read_model(kData + "branches.json");
    CHECK(run_q(m, qs({1, 2, 3, 4})) == qs({94, 22, 451, 59}));
    // Asking for one output computes the same value.
    Need need(4, 0);
    need[2] = 1;
    CHECK(run_q(m, qs({1, 2, 3, 4}), need)[2] == Fmpq(451));
  }
}

// NB eq. (3) written out with matrices, independently of the forward pass:
// each layer is sigma2(W pi_o(X)) (tokens, odd layers) or sigma2(pi_o(X) W^T)
// (channels, even layers) plus pi_r(X) with residuals, read off the preset.
std::vector<Fmpq> nb_eq3(const Model& m, std::vector<Fmpq> x) {
  const std::size_t N = m.tokens, d = m.width;
  auto fma = [](Fmpq& s, const Fmpq& a, const Fmpq& b) {
    Fmpq t;
    fmpq_mul(t.get(), a.get(), b.get());
    fmpq_add(s.get(), s.get(), t.get());
  };
  auto square = [](const Fmpq& s) {
    Fmpq t;
    fmpq_mul(t.get(), s.get(), s.get());
    return t;
  };
  auto perm = [](const Permute& p, const std::vector<Fmpq>& v) {
    std::vector<Fmpq> r(v.size());
    for (std::size_t t = 0; t < v.size(); ++t) r[t] = v[p.perm[t]];
    return r;
  };
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const auto& L = m.layers[l];
    std::vector<Layer<Fmpq>> main{L};
    std::optional<Permute> pi_r;
    if (const auto* b = std::get_if<Branches<Fmpq>>(&L.op)) {
      main = b->branches[0];
      if (b->branches.size() == 2) {
        REQUIRE(b->branches[1].size() == 1);
        pi_r = std::get<Permute>(b->branches[1][0].op);
      }
    }
    std::vector<Fmpq> z = x;
    for (const auto& sub : main) {
      if (const auto* p = std::get_if<Permute>(&sub.op)) {
        z = perm(*p, z);
      } else if (const auto* t = std::get_if<TokenMix<Fmpq>>(&sub.op)) {
        std::vector<Fmpq> y(N * d);
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t c = 0; c < d; ++c) {
            Fmpq s;
            for (std::size_t k = 0; k < N; ++k) fma(s, t->W(i, k), z[k * d + c]);
            y[i * d + c] = square(s);
          }
        z = y;
      } else {
        const auto& W = std::get<ChannelMix<Fmpq>>(sub.op).W;
        std::vector<Fmpq> y(N * d);
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t c = 0; c < d; ++c) {
            Fmpq s;
            for (std::size_t k = 0; k < d; ++k) fma(s, W(c, k), z[i * d + k]);
            y[i * d + c] = square(s);
          }
        z = y;
      }
    }
    if (pi_r) {
      auto r = perm(*pi_r, x);
      for (std::size_t k = 0; k < z.size(); ++k) fmpq_add(z[k].get(), z[k].get(), r[k].get());
    }
    x = z;
  }
  return x;
}

TEST_CASE("permuted presets are NB eq. (3) with the unpermuted weights", "[forward][branches]") {
  SplitMix64 g(7);
  for (const char* arch : {"mixer", "mlp"})
    for (bool residual : {false, true})
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        PresetOptions o{.shape = {.arch = parse_arch(arch), .layers = 3, .width = 3, .tokens = 3, .residual = residual},
                        .seed = seed};
        o.permuted = true;
        const Model m = make_preset(o);
        INFO(m.name << " seed " << seed);
        o.permuted = false;
        const Model plain = make_preset(o);
        // The same weights, in the same order; and permutations that move something.
        std::vector<Mat<Fmpq>> wa, wb;
        for (const auto& l : m.layers) l.for_each_matrix([&](const Mat<Fmpq>& W) { wa.push_back(W); });
        for (const auto& l : plain.layers) l.for_each_matrix([&](const Mat<Fmpq>& W) { wb.push_back(W); });
        CHECK(wa == wb);
        CHECK(m != plain);
        for (int trial = 0; trial < 3; ++trial) {
          auto x = random_point(g, m.num_inputs());
          CHECK(run_q(m, x) == nb_eq3(m, x));
        }
      }
}

TEST_CASE("multi-head attention is the sum of its heads", "[forward]") {
  PresetOptions o{.shape = {.arch = Arch::attention, .layers = 1, .width = 4, .heads = 2, .tokens = 3}, .seed = 3};
  Model m = make_preset(o);
  Model h0 = m, h1 = m;
  std::get<Attention<Fmpq>>(h0.layers[0].op).heads.pop_back();
  std::get<Attention<Fmpq>>(h1.layers[0].op).heads.erase(std::get<Attention<Fmpq>>(h1.layers[0].op).heads.begin());
  SplitMix64 g(99);
  for (int t = 0; t < 3; ++t) {
    auto x = random_point(g, m.num_inputs());
    auto y = run_q(m, x), a = run_q(h0, x), b = run_q(h1, x);
    for (std::size_t k = 0; k < y.size(); ++k) {
      Fmpq s;
      fmpq_add(s.get(), a[k].get(), b[k].get());
      CHECK(y[k] == s);
    }
  }
}

TEST_CASE("asking for fewer outputs changes no value", "[forward]") {
  // The last layer computes only the entries in `need`; attention switches to
  // a cheaper evaluation order when at most d entries are asked.
  std::vector<Model> models = {read_model(kData + "attention-example.json"), read_model(kData + "mixed.json"),
                               read_model(kData + "product-rect.json")};
  for (auto o : presets()) {
    o.seed = 4;
    models.push_back(make_preset(o));
  }
  // Token mix and channel mix with W2 as the last layer (need propagates through W2).
  models.push_back(model(net(3, 2, R"({"type": "token_mix", "W": [[1, 2, 0], [3, -1, 1], [0, 0, 2]], "W2": [[1, 0, 1], [0, 2, 0], [1, 1, 0]], "activation": "square"})")));
  models.push_back(model(net(2, 2, R"({"type": "channel_mix", "W": [[1, 0], [1, 1], [0, 2]], "W2": [[1, 0, "1/2"], [0, 1, 0]], "activation": "square", "residual": true})")));
  ModpRing R(kP);
  SplitMix64 g(5);
  for (const auto& m : models) {
    INFO(m.name);
    auto net_p = prepare(R, m);
    std::vector<ulong> x(m.num_inputs());
    for (auto& v : x) v = g.below(kP);
    auto full = forward(R, net_p, x);
    const std::size_t n = full.size();
    REQUIRE(n == m.tokens * m.output_width());
    // each entry alone
    for (std::size_t k = 0; k < n; ++k) {
      Need need(n, 0);
      need[k] = 1;
      auto y = forward(R, net_p, x, need);
      for (std::size_t t = 0; t < n; ++t) CHECK(y[t] == (t == k ? full[t] : 0));
    }
    // every other entry (more than d entries when N > 2: the full attention order)
    Need need(n, 0);
    for (std::size_t k = 0; k < n; k += 2) need[k] = 1;
    auto y = forward(R, net_p, x, need);
    for (std::size_t t = 0; t < n; ++t) CHECK(y[t] == (need[t] ? full[t] : 0));
    // all entries explicitly
    CHECK(forward(R, net_p, x, Need(n, 1)) == full);
  }
}

TEST_CASE("rationals, residues mod p and doubles agree on every preset", "[forward]") {
  RationalRing Q;
  ModpRing P(kP);
  DoubleRing D;
  std::vector<Model> models = {read_model(kData + "attention-example.json"), read_model(kData + "mixed.json"),
                               read_model(kData + "biases.json")};
  for (auto o : presets())
    for (std::uint64_t seed : {1u, 2u}) {
      o.seed = seed;
      models.push_back(make_preset(o));
    }
  SplitMix64 g(17);
  for (const auto& m : models) {
    INFO(m.name);
    auto nq = prepare(Q, m);
    auto np = prepare(P, m);
    auto nd = prepare(D, m);
    for (int t = 0; t < 2; ++t) {
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
      REQUIRE(yq.size() == yp.size());
      REQUIRE(yq.size() == yd.size());
      for (std::size_t k = 0; k < yq.size(); ++k) {
        CHECK(yp[k] == P.scalar(yq[k]));
        const double e = yq[k].to_double();
        CHECK(std::abs(yd[k] - e) <= 1e-9 * std::max(std::abs(e), 1e-300));
      }
    }
  }
}

TEST_CASE("ModpRing rejects weights whose denominator vanishes mod p", "[forward]") {
  ModpRing P(7);
  CHECK(P.scalar(Fmpq(3, 2)) == 5);   // 3 * 2^-1 = 3 * 4 = 12 = 5 mod 7
  CHECK(P.scalar(Fmpq(-1)) == 6);
  CHECK_THROWS_AS(P.scalar(Fmpq(1, 14)), DomainError);
  Model m = read_model(kData + "mixed.json");  // has 5/7
  CHECK_THROWS_AS(prepare(P, m), DomainError);
  CHECK_NOTHROW(prepare(ModpRing(11), m));
}

TEST_CASE("BatchF64Ring: residues in doubles agree with nmod arithmetic, edge values included", "[forward]") {
  if (!BatchF64Ring::supported()) {
    WARN("this CPU lacks AVX2/FMA: BatchF64Ring is not used here, nothing to test");
    return;
  }
  CHECK_THROWS_AS(BatchF64Ring(UWORD(1) << 50, 4), InternalError);  // 2^50 is too large (and not prime)
  // Primes from tiny to the largest below 2^50 (2^50 - 27), where a b reaches 2^100.
  for (ulong p : {UWORD(3), UWORD(65521), UWORD(2147483647), UWORD(562949953421231), UWORD(1125899906842597)}) {
    INFO("p = " << p);
    nmod_t mod;
    nmod_init(&mod, p);
    SplitMix64 g(p);
    // Edge residues first, then random ones; 4k + 3 of them, so both the
    // four-lane loop and the scalar tail run.
    std::vector<ulong> vals = {0, 1, 2, p - 1, p - 2, p / 2, (p + 1) / 2};
    while (vals.size() % 4 != 3 || vals.size() < 203) vals.push_back(g.below(p));
    const std::size_t n = vals.size();
    for (std::size_t shift : {0u, 1u, 3u}) {  // pair every value with several others
      std::vector<ulong> a = vals, b(n);
      for (std::size_t i = 0; i < n; ++i) b[i] = vals[(i * 7 + shift) % n];
      BatchF64Ring R(p, n);
      const BatchF64Ring::Elem fa(a.begin(), a.end()), fb(b.begin(), b.end());
      const auto m = R.mul(fa, fb);
      auto am = fb;
      R.addmul(am, fa, fb);  // b + a b
      auto ad = fa;
      R.add(ad, fb);
      auto ax = fb;
      const ulong s = vals[(shift + 3) % n];
      R.axpy(ax, static_cast<double>(s), fa);  // b + s a
      for (std::size_t i = 0; i < n; ++i) {
        INFO("a = " << a[i] << ", b = " << b[i] << ", s = " << s);
        CHECK(m[i] == static_cast<double>(nmod_mul(a[i], b[i], mod)));
        CHECK(am[i] == static_cast<double>(nmod_add(b[i], nmod_mul(a[i], b[i], mod), mod)));
        CHECK(ad[i] == static_cast<double>(nmod_add(a[i], b[i], mod)));
        CHECK(ax[i] == static_cast<double>(nmod_add(b[i], nmod_mul(s, a[i], mod), mod)));
      }
    }
  }
}

TEST_CASE("BatchF64Ring::lincomb equals the nmod sum term by term, lazy sums included", "[forward]") {
  // Second method: the sum r + sum_k s_k x_k accumulated with nmod_add and
  // nmod_mul. Primes where lazy_terms() is large (3, 65521, a 23-bit one),
  // 2 at the edge (a 26-bit prime: (p-1)^2 about 2^52), and where it is 0
  // (31 and 50 bits, where remainder_terms() unreduced remainders add up);
  // term counts around both so the partial reductions run; edge residues
  // p - 1 everywhere in one case, and in another every product = (p-1)/2
  // mod p, whose remainder is the largest in magnitude (about p/2) the
  // rounding to the nearest quotient leaves.
  if (!BatchF64Ring::supported()) {
    WARN("this CPU lacks AVX2/FMA: BatchF64Ring is not used here, nothing to test");
    return;
  }
  for (ulong p : {UWORD(3), UWORD(65521), UWORD(8388593), UWORD(67108859), UWORD(2147483647),
                  UWORD(1125899906842597)}) {
    const std::size_t n = 23;  // five four-lane steps and a tail of 3
    BatchF64Ring R(p, n);
    const std::size_t lazy = R.lazy_terms(), rem = R.remainder_terms();
    INFO("p = " << p << ", lazy_terms = " << lazy << ", remainder_terms = " << rem);
    CHECK(rem >= 7);
    CHECK(static_cast<long double>(rem + 1) * p <= 0x1p53L);
    if (p < (UWORD(1) << 23)) CHECK(lazy >= 2);
    if (p > (UWORD(1) << 27)) CHECK(lazy == 0);
    // (p-1) + lazy (p-1)^2 < 2^53: the accumulation is exact
    if (lazy) CHECK(static_cast<long double>(p - 1) * (p - 1) * lazy + (p - 1) < 0x1p53L);
    nmod_t mod;
    nmod_init(&mod, p);
    SplitMix64 g(p + 1);
    std::vector<std::size_t> counts = {1, 2, 5, 127, 300};
    if (lazy && lazy < 5000) {
      counts.push_back(lazy);
      counts.push_back(lazy + 1);
      counts.push_back(2 * lazy + 3);
    }
    if (!lazy && rem < 5000)
      for (std::size_t K : {rem, rem + 1, 2 * rem + 3}) counts.push_back(K);
    for (std::size_t K : counts)
      for (int mode : {0, 1, 2}) {
        const bool edge = mode == 1, half = mode == 2;
        std::vector<BatchF64Ring::Elem> xs(K, BatchF64Ring::Elem(n));
        std::vector<double> sc(K);
        std::vector<const BatchF64Ring::Elem*> px;
        BatchF64Ring::Elem r(n);
        std::vector<ulong> want(n);
        for (std::size_t i = 0; i < n; ++i) {
          want[i] = edge ? p - 1 : g.below(p);
          r[i] = static_cast<double>(want[i]);
        }
        for (std::size_t k = 0; k < K; ++k) {
          const ulong s = edge ? p - 1 : 1 + g.below(p - 1);
          sc[k] = static_cast<double>(s);
          for (std::size_t i = 0; i < n; ++i) {
            const ulong x = edge ? p - 1 : half ? nmod_mul((p - 1) / 2, n_invmod(s, p), mod) : g.below(p);
            xs[k][i] = static_cast<double>(x);
            want[i] = nmod_add(want[i], nmod_mul(s, x, mod), mod);
          }
          px.push_back(&xs[k]);
        }
        R.lincomb(r, sc, px);
        INFO("K = " << K << (edge ? ", every residue p - 1" : half ? ", every product (p-1)/2" : ""));
        for (std::size_t i = 0; i < n; ++i) CHECK(r[i] == static_cast<double>(want[i]));
      }
  }
}

TEST_CASE("BatchF64Ring and BatchModpRing give the same forward pass on every preset", "[forward]") {
  if (!BatchF64Ring::supported()) {
    WARN("this CPU lacks AVX2/FMA: BatchF64Ring is not used here, nothing to test");
    return;
  }
  std::vector<Model> models = {read_model(kData + "attention-example.json"), read_model(kData + "biases.json")};
  for (auto o : presets()) models.push_back(make_preset(o));
  SplitMix64 g(99);
  // 2^50 - 27 (the large black-box primes' range: every term reduced) and a
  // small prime = 1 mod 120 (the small-prime phase: lazy sums in lincomb)
  for (const ulong p : {UWORD(1125899906842597), UWORD(6251881)})
  for (const auto& m : models) {
    INFO(m.name << ", p = " << p);
    for (std::size_t n : {1u, 6u, 33u}) {
      BatchModpRing RN(p, n);
      BatchF64Ring RF(p, n);
      std::vector<BatchModpRing::Elem> xn(m.num_inputs());
      std::vector<BatchF64Ring::Elem> xf(m.num_inputs());
      for (std::size_t v = 0; v < m.num_inputs(); ++v)
        for (std::size_t j = 0; j < n; ++j) {
          const ulong x = g.below(p);
          xn[v].push_back(x);
          xf[v].push_back(static_cast<double>(x));
        }
      const auto yn = forward(RN, prepare(RN, m), xn);
      const auto yf = forward(RF, prepare(RF, m), xf);
      REQUIRE(yn.size() == yf.size());
      for (std::size_t k = 0; k < yn.size(); ++k)
        for (std::size_t j = 0; j < n; ++j) CHECK(static_cast<double>(yn[k][j]) == yf[k][j]);
    }
  }
}

// ---------------------------------------------------------------- degree-k attention blocks
namespace {

using QMat = std::vector<std::vector<Fmpq>>;  // row-major, an independent evaluator's matrices

QMat to_q(const Mat<Fmpq>& m) {
  QMat r(m.rows, std::vector<Fmpq>(m.cols));
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) r[i][j] = m(i, j);
  return r;
}
QMat mul(const QMat& a, const QMat& b) {
  QMat r(a.size(), std::vector<Fmpq>(b[0].size()));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b[0].size(); ++j)
      for (std::size_t k = 0; k < b.size(); ++k) {
        Fmpq t;
        fmpq_mul(t.get(), a[i][k].get(), b[k][j].get());
        fmpq_add(r[i][j].get(), r[i][j].get(), t.get());
      }
  return r;
}
QMat tr(const QMat& a) {
  QMat r(a[0].size(), std::vector<Fmpq>(a.size()));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) r[j][i] = a[i][j];
  return r;
}
void add_to(QMat& a, const QMat& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) fmpq_add(a[i][j].get(), a[i][j].get(), b[i][j].get());
}

// AO eq. (2) as docs/model-format.md reads it, written with matrices: per head
// Y_h = (X Q_1^T K_1 X^T) ... (X Q_m^T K_m X^T) (X V^T O^T  or  C), summed;
// a residual adds X.
QMat block_by_matrices(const Attention<Fmpq>& a, const QMat& X, bool residual) {
  QMat Y(X.size(), std::vector<Fmpq>(X[0].size()));
  for (const auto& h : a.heads) {
    auto score = [&](const Mat<Fmpq>& Q, const Mat<Fmpq>& K) { return mul(mul(X, tr(to_q(Q))), tr(mul(X, tr(to_q(K))))); };
    QMat P = score(h.Q, h.K);
    for (const auto& e : h.extra) P = mul(P, score(e.Q, e.K));
    add_to(Y, mul(P, h.C ? to_q(*h.C) : mul(mul(X, tr(to_q(h.V))), tr(to_q(h.O)))));
  }
  if (residual) add_to(Y, X);
  return Y;
}

}  // namespace

TEST_CASE("degree-k attention blocks equal their matrix formula, every k and depth", "[forward][degree-k]") {
  SplitMix64 g(2026);
  for (std::uint64_t k : {2, 3, 4, 5, 6, 7})
    for (std::size_t L : {1, 2})
      for (std::size_t H : {1, 2})
        for (bool res : {false, true}) {
          PresetOptions o{.shape = {.arch = Arch::attention, .layers = L, .width = 2 * H, .heads = H, .tokens = 3,
                                    .degree = k, .residual = res},
                          .seed = k * 10 + L};
          const Model m = make_preset(o);
          INFO("k = " << k << ", L = " << L << ", H = " << H << ", residual " << res);
          const std::vector<Fmpq> x = random_point(g, m.tokens * m.width);
          QMat X(m.tokens, std::vector<Fmpq>(m.width));
          for (std::size_t t = 0; t < m.tokens; ++t)
            for (std::size_t c = 0; c < m.width; ++c) X[t][c] = x[t * m.width + c];
          for (const auto& l : m.layers) X = block_by_matrices(std::get<Attention<Fmpq>>(l.op), X, l.residual);
          const std::vector<Fmpq> y = run_q(m, x);
          for (std::size_t t = 0; t < m.tokens; ++t)
            for (std::size_t c = 0; c < m.width; ++c) CHECK(y[t * m.width + c] == X[t][c]);
          CHECK(m.layers[0].degree() == static_cast<double>(k));
        }
}

TEST_CASE("degree 3 is LV's attention: the same model file as before, and the default", "[forward][degree-k]") {
  PresetOptions a{.shape = {.arch = Arch::attention, .layers = 2, .width = 4, .heads = 2, .tokens = 3}};
  PresetOptions b = a;
  b.shape.degree = 3;
  CHECK(write_model(make_preset(a)) == write_model(make_preset(b)));
  const std::string text = write_model(make_preset(a));
  CHECK(text.find("\"degree\"") == std::string::npos);  // degree-3 files are written as they always were
  CHECK(text.find("\"name\": \"attention-L2-d4-H2-N3\"") != std::string::npos);
  // A degree-4 file round-trips through the reader and keeps its degree.
  b.shape.degree = 4;
  const Model m4 = make_preset(b);
  CHECK(parse_model(write_model(m4), "round trip") == m4);
  CHECK(write_model(m4).find("\"degree\": 4") != std::string::npos);
}
