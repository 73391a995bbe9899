// The canonical form (model.hpp) and net(X) (evaluate.hpp). Each rewrite is
// checked against the model it came from by the forward pass of the
// original layers (another structure, so another computation) at random
// rational points; the forms the tracer writes are checked to become the
// preset's layer kinds; net(X) against values worked by hand.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "netpoly/evaluate.hpp"
#include "netpoly/model.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "random_models.hpp"
#include "runtime/random.hpp"

using namespace netpoly;
using json = nlohmann::json;

namespace {

Model parse(const json& j) { return parse_model(j.dump(), "test"); }

std::vector<Point> random_points(SplitMix64& g, const Model& m, std::size_t n) {
  std::vector<Point> ps(n);
  for (auto& p : ps)
    for (std::size_t k = 0; k < m.num_inputs(); ++k)
      p.push_back({Fmpq(static_cast<slong>(g.symmetric(9)), static_cast<ulong>(1 + g.below(4))), Fmpq()});
  return ps;
}

// The canonical form computes what the model computes, at `n` random points.
void same_function(const Model& m, const Model& c, std::uint64_t seed, std::size_t n = 3) {
  SplitMix64 g(seed);
  const auto ps = random_points(g, m, n);
  CHECK(evaluate(c, ps) == evaluate(m, ps));
}

std::vector<std::string> kinds(const Model& m) {
  std::vector<std::string> k;
  for (const auto& l : m.layers) k.push_back(std::string(l.kind()) + (l.residual ? "+res" : ""));
  return k;
}

json mat(test_models::Gen& G, std::size_t r, std::size_t c) { return G.matrix(r, c); }

json eye(std::size_t n, std::size_t offset, std::size_t cols) {
  json M = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    json row = json::array();
    for (std::size_t j = 0; j < cols; ++j) row.push_back(j == i + offset ? 1 : 0);
    M.push_back(row);
  }
  return M;
}

// What the tracer writes for standard multi-head attention, H heads of
// width da on d = H da channels: qkv = a fused Linear d -> 3d (here as a
// channel MLP without activation, d -> 3d -> d -> 3d, as a split writes it),
// then per head a branch [selection of q, k, v of head h into 3 da
// channels, attention on 3 da channels reading them, the head's columns of
// the projection o], the heads summed; `residual`: plus the input.
json traced_mha(test_models::Gen& G, std::size_t d, std::size_t H, bool residual) {
  const std::size_t da = d / H;
  const json qkv = mat(G, 3 * d, d), o = mat(G, d, d);
  json heads = json::array();
  for (std::size_t h = 0; h < H; ++h) {
    json sel = json::array();  // 3 da x 3 d: q, k, v of head h
    for (std::size_t part = 0; part < 3; ++part)
      for (std::size_t r = 0; r < da; ++r) {
        json row = json::array();
        for (std::size_t j = 0; j < 3 * d; ++j) row.push_back(j == part * d + h * da + r ? 1 : 0);
        sel.push_back(row);
      }
    json oh = json::array();  // d x 3 da: head h's columns of o, then zeros
    for (std::size_t i = 0; i < d; ++i) {
      json row = json::array();
      for (std::size_t r = 0; r < 3 * da; ++r) row.push_back(r < da ? o[i][h * da + r] : json(0));
      oh.push_back(row);
    }
    json O = json::array();  // 3 da x da: the values into the first da channels
    for (std::size_t r = 0; r < 3 * da; ++r) {
      json row = json::array();
      for (std::size_t c = 0; c < da; ++c) row.push_back(r == c ? 1 : 0);
      O.push_back(row);
    }
    json att = {{"type", "attention"},
                {"heads", json::array({{{"Q", eye(da, 0, 3 * da)}, {"K", eye(da, da, 3 * da)},
                                        {"V", eye(da, 2 * da, 3 * da)}, {"O", O}}})}};
    heads.push_back(json::array({{{"type", "channel_mix"}, {"W", qkv}}, {{"type", "channel_mix"}, {"W", sel}},
                                 att, {{"type", "channel_mix"}, {"W", oh}}}));
  }
  json sum = {{"type", "branches"}, {"branches", heads}};
  if (!residual) return sum;
  return {{"type", "branches"}, {"branches", json::array({json::array({sum}), json::array()})}};
}

json doc(std::size_t N, std::size_t d, const json& layers) {
  return {{"format", "netpoly-model/1"}, {"name", "t"}, {"input", {{"tokens", N}, {"width", d}}}, {"layers", layers}};
}

}  // namespace

TEST_CASE("net(X) by hand: Q, Q(i), mod p", "[evaluate]") {
  // channel_mix W = [[1, 2]], square, then W2 = [[3]]: y = 3 (x0 + 2 x1)^2;
  // at x = (1/2, 1): 3 (5/2)^2 = 75/4; at x = (i, 0): 3 i^2 = -3.
  const Model m = parse(doc(1, 2, json::array({{{"type", "channel_mix"}, {"W", {{1, 2}}}, {"activation", "square"},
                                                 {"W2", {{3}}}}})));
  const auto v = evaluate(m, {{{Fmpq(1, 2), Fmpq()}, {Fmpq(1), Fmpq()}}, {{Fmpq(), Fmpq(1)}, {Fmpq(), Fmpq()}}});
  REQUIRE(v.size() == 2);
  CHECK(v[0] == Point{{Fmpq(75, 4), Fmpq()}});
  CHECK(v[1] == Point{{Fmpq(-3), Fmpq()}});
  // mod 13: 75/4 = 75 * 4^-1; 4 * 10 = 40 = 1 mod 13, so 75 * 10 = 750 = 9 mod 13.
  const ModValues r = evaluate_mod(m, {{{Fmpq(1, 2), Fmpq()}, {Fmpq(1), Fmpq()}}}, 13);
  CHECK(r.values == std::vector<std::vector<ulong>>{{9}});
  CHECK(r.sqrt_minus_one == 0);
  // A Gaussian point mod 13 (= 1 mod 4): i -> s with s^2 = 12; y = 3 s^2 = 36 = 10 mod 13.
  const ModValues g = evaluate_mod(m, {{{Fmpq(), Fmpq(1)}, {Fmpq(), Fmpq()}}}, 13);
  CHECK(g.sqrt_minus_one * g.sqrt_minus_one % 13 == 12);
  CHECK(g.values == std::vector<std::vector<ulong>>{{10}});
  CHECK_THROWS_AS(evaluate_mod(m, {{{Fmpq(), Fmpq(1)}, {Fmpq(), Fmpq()}}}, 7), InputError);  // 7 = 3 mod 4
  CHECK_THROWS_AS(evaluate_mod(m, {{{Fmpq(1, 2), Fmpq()}, {Fmpq(1), Fmpq()}}}, 2), DomainError);  // 2 | 2
  CHECK_THROWS_AS(evaluate_mod(m, {}, 15), InputError);                                            // not prime
  CHECK_THROWS_AS(evaluate(m, {{{Fmpq(1), Fmpq()}}}), InputError);                                 // 1 entry, not 2
}

TEST_CASE("points files: exact numbers, errors named by JSON path", "[evaluate]") {
  const Model m = parse(doc(2, 1, json::array({{{"type", "channel_mix"}, {"W", {{1}}}}})));
  const auto ps = parse_points(R"({"points": [[[1], ["-1/2"]], [["2+i"], ["123456789012345678901234567890"]]]})", "p.json", m);
  REQUIRE(ps.size() == 2);
  CHECK(ps[0][1] == Exact{Fmpq(-1, 2), Fmpq()});
  CHECK(ps[1][0] == Exact{Fmpq(2), Fmpq(1)});
  CHECK(parse_points("[]", "p.json", m).empty());
  auto refused = [&](const std::string& text, const std::string& what) {
    try {
      parse_points(text, "p.json", m);
      FAIL("accepted: " << text);
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  refused("[[[0.5], [1]]]", "p.json: $[0][0][0]: expected an exact number");
  refused("[[[1]]]", "$[0]: expected a 2 x 1 matrix");
  refused("[[[1, 2], [1]]]", "$[0][0]: expected a row of 1 numbers");
  refused(R"({"pts": []})", "$.pts: unknown key");
  refused("{", "p.json: not JSON");
}

TEST_CASE("canonical form: the tracer's multi-head attention is one attention layer", "[canonical]") {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    test_models::Gen G(seed);
    G.with_biases = false;
    const std::size_t H = 1 + seed % 2, d = 2 * H;
    const bool residual = seed % 3 == 0;
    const Model m = parse(doc(3, d, json::array({traced_mha(G, d, H, residual), traced_mha(G, d, H, true)})));
    const Model c = canonical_form(m);
    const std::string first = residual ? "attention+res" : "attention";
    CHECK(kinds(c) == std::vector<std::string>{first, "attention+res"});
    for (const auto& l : c.layers) CHECK(l.family_size() == H);  // H heads, each of width d / H
    same_function(m, c, seed);
    CHECK(canonical_form(c) == c);  // a canonical model stays as it is
  }
}

TEST_CASE("canonical form: each rewrite", "[canonical]") {
  test_models::Gen G(7);
  G.with_biases = false;
  SECTION("affine maps compose, and the identity is no layer") {
    // (x W1^T + b1) W2^T with W2 W1 = I and W2 b1 = 0: the identity.
    const Model m = parse(doc(2, 2, json::array({{{"type", "channel_mix"}, {"W", {{1, 1}, {0, 1}}}, {"b", {1, 1}}},
                                                  {{"type", "channel_mix"}, {"W", {{1, -1}, {0, 1}}}, {"b", {0, -1}}}})));
    CHECK(canonical_form(m).layers.empty());
    same_function(m, canonical_form(m), 1);
  }
  SECTION("a zero bias is no bias") {
    const Model m = parse(doc(2, 1, json::array({{{"type", "channel_mix"}, {"W", {{2}}}, {"b", {0}}, {"activation", "square"}}})));
    const Model c = canonical_form(m);
    CHECK_FALSE(c.layers[0].has_bias());
    same_function(m, c, 2);
  }
  SECTION("a sum of σ₂ MLPs is one MLP with all their hidden units, plus x a residual") {
    const json mlp1 = {{"type", "channel_mix"}, {"W", mat(G, 3, 2)}, {"W2", mat(G, 2, 3)}, {"activation", "square"}};
    const json mlp2 = {{"type", "channel_mix"}, {"W", mat(G, 2, 2)}, {"activation", "square"}};
    const Model m = parse(doc(2, 2, json::array({{{"type", "branches"},
                                                  {"branches", json::array({json::array({mlp1}), json::array({mlp2}),
                                                                            json::array()})}}})));
    const Model c = canonical_form(m);
    CHECK(kinds(c) == std::vector<std::string>{"channel_mix+res"});
    CHECK(std::get<ChannelMix<Fmpq>>(c.layers[0].op).W.rows == 5);
    same_function(m, c, 3);
  }
  SECTION("a projection after attention folds into O; a wider one before it into Q, K, V") {
    const json att = {{"type", "attention"},
                      {"heads", json::array({{{"Q", mat(G, 1, 3)}, {"K", mat(G, 1, 3)}, {"V", mat(G, 1, 3)}, {"O", mat(G, 3, 1)}}})}};
    const Model m = parse(doc(3, 2, json::array({{{"type", "channel_mix"}, {"W", mat(G, 3, 2)}, {"b", {1, 0, 2}}}, att,
                                                  {{"type", "channel_mix"}, {"W", mat(G, 2, 3)}, {"b", {1, -1}}}})));
    const Model c = canonical_form(m);
    CHECK(kinds(c) == std::vector<std::string>{"attention"});
    same_function(m, c, 4);
  }
  SECTION("an affine map before a product folds into every factor; after a square MLP into W2") {
    const Model m = parse(doc(2, 2, json::array({{{"type", "channel_mix"}, {"W", mat(G, 3, 2)}},
                                                  {{"type", "product"}, {"Ws", {mat(G, 2, 3), mat(G, 2, 3)}}},
                                                  {{"type", "channel_mix"}, {"W", mat(G, 2, 2)}, {"activation", "square"}},
                                                  {{"type", "channel_mix"}, {"W", mat(G, 1, 2)}}})));
    const Model c = canonical_form(m);
    CHECK(kinds(c) == std::vector<std::string>{"product", "channel_mix"});
    same_function(m, c, 5);
  }
  SECTION("what no layer expresses stays: NB eq. (3)'s permuted branches") {
    const Model m = parse(doc(2, 1, json::array({{{"type", "branches"},
                                                  {"branches", json::array({json::array({{{"type", "permute"}, {"perm", {1, 0}}},
                                                                                         {{"type", "token_mix"}, {"W", {{1, 2}, {0, 1}}}, {"activation", "square"}}}),
                                                                            json::array({{{"type", "permute"}, {"perm", {1, 0}}}})})}}})));
    CHECK(canonical_form(m) == m);
  }
}

TEST_CASE("canonical form: random models compute what they computed", "[canonical][random]") {
  // Every layer kind, biases, residuals and nested sums of branches
  // (random_models.hpp); a canonical model is its own canonical form.
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const Model m = parse(test_models::random_model(seed));
    const Model c = canonical_form(m);
    INFO("seed " << seed);
    same_function(m, c, seed, 2);
    CHECK(canonical_form(c) == c);
  }
}

TEST_CASE("canonical form: the analysis reads it, the generic shape does not", "[canonical][seprank]") {
  test_models::Gen G(11);
  G.with_biases = false;
  const Model m = parse(doc(4, 2, json::array({traced_mha(G, 2, 1, false), traced_mha(G, 2, 1, false)})));
  const Partition P = parse_partition("half", m.tokens, m.width);
  SepOptions o;
  o.methods = {Method("gram")};
  // gram applies to attention layers only: the traced layout has none at its top level, its canonical form two.
  const SepResult g = analyse_network(m, {Entry{0, 0}}, {P}, o).at(0);
  REQUIRE(g.upper.value.has_value());
  CHECK(g.upper.method == "gram");
  SepOptions ex;
  ex.methods = {Method::exact};
  const SepResult x = analyse_network(m, {Entry{0, 0}}, {P}, ex).at(0);
  REQUIRE(x.status == BracketStatus::exact);
  CHECK(*x.lower.value <= *g.upper.value);
  // The generic sep of the model's own shape: not rewritten (its family is the traced maps').
  o.generic = true;
  CHECK_THROWS_AS(analyse_network(m, {Entry{0, 0}}, {P}, o), InputError);
}

TEST_CASE("causal attention: by hand, and what its sep is at one layer", "[forward][causal]") {
  // The format's example (N = 2, d = 2; test_forward.cpp works it out):
  // unmasked y0 = -6 (2, 5/2) + 1 (-7, -25/2), y1 = (-31, -35). Causal: token 0
  // reads token 0 only, y0 = -6 (2, 5/2) = (-12, -15); token 1 reads both, as before.
  Model m = read_model(std::string(NETPOLY_SOURCE_DIR) + "/tests/data/attention-example.json");
  std::get<Attention<Fmpq>>(m.layers[0].op).causal = true;
  const Point x{{Fmpq(1), Fmpq()}, {Fmpq(2), Fmpq()}, {Fmpq(-1), Fmpq()}, {Fmpq(3), Fmpq()}};
  CHECK(evaluate(m, {x}).at(0) == Point{{Fmpq(-12), Fmpq()}, {Fmpq(-15), Fmpq()}, {Fmpq(-31), Fmpq()}, {Fmpq(-35), Fmpq()}});
  // The flag is written and read back.
  CHECK(write_model(m).find("\"causal\": true") != std::string::npos);
  CHECK(parse_model(write_model(m), "again") == m);

  // One layer, N = 3: y_0 is a function of x_0 alone, so sep(y_0; {0}, {1, 2}) = 1;
  // the last token reads every token, so y_2 is the unmasked layer's y_2.
  PresetOptions po = preset_options(NetworkShape{.arch = Arch::attention, .layers = 1, .width = 2, .heads = 1, .tokens = 3});
  const Model open = make_preset(po);
  po.causal = true;
  const Model causal = make_preset(po);
  const Partition P = parse_partition("A=0", 3, 2);
  SepOptions ex;
  ex.methods = {Method::exact};
  const SepResult first = analyse_network(causal, {Entry{0, 0}}, {P}, ex).at(0);
  REQUIRE(first.status == BracketStatus::exact);
  CHECK(*first.lower.value == 1);
  const SepResult last = analyse_network(causal, {Entry{2, 0}}, {P}, ex).at(0);
  const SepResult last_open = analyse_network(open, {Entry{2, 0}}, {P}, ex).at(0);
  CHECK(*last.lower.value == *last_open.lower.value);
  // gram's Gram form needs every token to read every token: it declines the mask.
  SepOptions gram;
  gram.methods = {Method("gram")};
  CHECK_THROWS_AS(analyse_network(causal, {Entry{2, 0}}, {P}, gram), InputError);
}
