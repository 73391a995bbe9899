// Model files (netpoly-model/1): the reader, the writer, and every rejection
// rule of docs/model-format.md with the message it must give.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/model.hpp"
#include "netpoly/presets.hpp"

using namespace netpoly;

namespace {

const std::string kData = std::string(NETPOLY_SOURCE_DIR) + "/tests/data/";

// The example of model-format.md, verbatim.
const std::string kSpecExample = R"({
  "format": "netpoly-model/1",
  "name": "attention-L1-d2-H1-N2",
  "input": {"tokens": 2, "width": 2},
  "layers": [
    {"type": "attention", "residual": false,
     "heads": [{"Q": [[1, -2], [0, 1]], "K": [[2, 1], [1, 1]],
                "V": [[1, 0], [3, -1]], "O": [[1, 1], ["1/2", 2]]}]}
  ],
  "output": {"token": 0, "channel": 0}
})";

Fmpz z(const std::string& s) {
  Fmpz r;
  REQUIRE(r.set_str(s));
  return r;
}

// A 2-token, width-2 model with the given layers (JSON text of the list's items).
std::string with_layers(const std::string& layers, const std::string& tail = "") {
  return R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}, "layers": [)" + layers + "]" + tail +
         "}";
}

// One well-formed attention layer (d = 2, da = 2) with a replaceable field.
std::string att(const std::string& q = "[[1, -2], [0, 1]]", const std::string& o = R"([[1, 1], ["1/2", 2]])",
                const std::string& extra = "") {
  return R"({"type": "attention", "heads": [{"Q": )" + q + R"(, "K": [[2, 1], [1, 1]], "V": [[1, 0], [3, -1]], "O": )" +
         o + extra + "}]}";
}

}  // namespace

TEST_CASE("the spec example parses into the documented network", "[model]") {
  Model m = parse_model(kSpecExample, "spec.json");
  CHECK(m.name == "attention-L1-d2-H1-N2");
  CHECK(m.tokens == 2);
  CHECK(m.width == 2);
  REQUIRE(m.layers.size() == 1);
  CHECK_FALSE(m.layers[0].residual);
  const auto* a = std::get_if<Attention<Fmpq>>(&m.layers[0].op);
  REQUIRE(a != nullptr);
  REQUIRE(a->heads.size() == 1);
  const auto& h = a->heads[0];
  CHECK(h.Q.rows == 2);
  CHECK(h.Q.cols == 2);
  CHECK(h.Q(0, 1) == Fmpq(-2));
  CHECK(h.K(0, 0) == Fmpq(2));
  CHECK(h.V(1, 0) == Fmpq(3));
  CHECK(h.V(1, 1) == Fmpq(-1));
  CHECK(h.O(1, 0) == Fmpq(1, 2));
  CHECK(h.O(1, 1) == Fmpq(2));
  REQUIRE(m.output.has_value());
  CHECK(*m.output == Entry{0, 0});
  CHECK(m.output_width() == 2);
  CHECK(parameter_count(m) == 16);
  // The same file from disk.
  CHECK(read_model(kData + "attention-example.json") == m);
}

TEST_CASE("biases: every optional bias field is read where the format puts it", "[model][bias]") {
  const Model m = read_model(kData + "biases.json");
  REQUIRE(m.layers.size() == 4);
  const auto& tm = std::get<TokenMix<Fmpq>>(m.layers[0].op);
  REQUIRE(tm.b.has_value());
  REQUIRE(tm.b2.has_value());
  CHECK(tm.b->rows == 2);
  CHECK(tm.b->cols == 1);
  CHECK((*tm.b2)(1, 0) == Fmpq(1, 2));
  const auto& cm = std::get<ChannelMix<Fmpq>>(m.layers[1].op);
  CHECK(cm.b->rows == 3);
  CHECK((*cm.b)(2, 0) == Fmpq(1, 3));
  CHECK((*cm.b2)(0, 0) == Fmpq(3));
  const auto& h = std::get<Attention<Fmpq>>(m.layers[2].op).heads[0];
  CHECK((*h.bQ)(0, 0) == Fmpq(1));
  CHECK((*h.bK)(1, 0) == Fmpq(-1));
  CHECK((*h.bV)(0, 0) == Fmpq(2));
  CHECK((*h.bO)(1, 0) == Fmpq(1));
  const auto& pr = std::get<Product<Fmpq>>(m.layers[3].op);
  REQUIRE(pr.bs.size() == 2);
  CHECK((*pr.bs[1])(1, 0) == Fmpq(-1, 2));
  // Biases are parameters: 4+2+4+2 (token_mix) + 6+3+6+2 (channel_mix) + 16+8 (attention) + 8+4 (product).
  CHECK(parameter_count(m) == 65);
  for (const auto& l : m.layers) {
    CHECK(l.has_bias());
    CHECK_FALSE(l.homogeneous());  // a bias adds a degree-0 term
  }
  // Without biases the same layers are linear and homogeneous, as before.
  const Model plain = parse_model(kSpecExample, "spec");
  CHECK_FALSE(plain.layers[0].has_bias());
  CHECK(plain.layers[0].homogeneous());
  // The writer prints each bias after its matrix, as a flat list.
  const std::string text = write_model(m);
  CHECK_THAT(text, Catch::Contains(R"("b2": [0, "1/2"])"));
  CHECK_THAT(text, Catch::Contains(R"("bs": [[1, 0], [2, "-1/2"]])"));
  CHECK_THAT(text, Catch::Contains(R"("bO": [0, 1])"));
  CHECK(parse_model(text, "back") == m);
  // A sum of branches has a bias when one of its layers has.
  const Model br = parse_model(with_layers(R"({"type": "branches", "branches": [[], [{"type": "channel_mix", "W": [[1, 0], [0, 1]], "b": [0, 1]}]]})"), "br");
  CHECK(br.layers[0].has_bias());
  CHECK_FALSE(br.layers[0].homogeneous());
}

TEST_CASE("parse_rational accepts integers and p/q with q > 0, canonicalised", "[model]") {
  Fmpq r;
  CHECK(parse_rational("-7", r));
  CHECK(r == Fmpq(-7));
  CHECK(parse_rational("+3", r));
  CHECK(r == Fmpq(3));
  CHECK(parse_rational("6/4", r));
  CHECK(r == Fmpq(3, 2));
  CHECK(parse_rational("-6/4", r));
  CHECK(r == Fmpq(-3, 2));
  CHECK(parse_rational("0/5", r));
  CHECK(r.is_zero());
  for (const char* bad : {"", "-", "1/", "/2", "1/0", "1/-2", "1/+2", "1.5", "1e3", " 1", "1 ", "0x10", "1/2/3", "a"}) {
    INFO(bad);
    CHECK_FALSE(parse_rational(bad, r));
  }
}

TEST_CASE("hand-made models load with every layer type", "[model]") {
  Model m = read_model(kData + "mixed.json");
  REQUIRE(m.layers.size() == 4);
  const auto& tm = std::get<TokenMix<Fmpq>>(m.layers[0].op);
  CHECK(m.layers[0].residual);
  CHECK(tm.activation == Activation::square);
  CHECK(tm.W(0, 1) == Fmpq(1, 2));
  REQUIRE(tm.W2.has_value());
  CHECK((*tm.W2)(0, 0) == Fmpq(2, 3));
  CHECK(std::get<Permute>(m.layers[1].op).perm == std::vector<std::size_t>{3, 1, 0, 2});
  const auto& cm = std::get<ChannelMix<Fmpq>>(m.layers[2].op);
  CHECK(cm.W.rows == 3);
  CHECK(cm.W.cols == 2);
  REQUIRE(cm.W2.has_value());
  CHECK(cm.W2->rows == 2);
  CHECK(cm.W2->cols == 3);
  CHECK((*cm.W2)(1, 1) == Fmpq(5, 7));
  CHECK((*cm.W2)(0, 2) == Fmpq(-3, 4));
  const auto& at = std::get<Attention<Fmpq>>(m.layers[3].op);
  CHECK(at.heads[0].Q.rows == 1);  // da = 1: rectangular heads
  CHECK(at.heads[0].O.cols == 1);
  CHECK(m.output_width() == 2);

  Model p = read_model(kData + "product-rect.json");
  CHECK(p.output_width() == 1);
  CHECK_FALSE(p.output.has_value());
  const auto& pr = std::get<Product<Fmpq>>(p.layers[0].op);
  REQUIRE(pr.Ws.size() == 3);
  CHECK(pr.Ws[2](0, 0) == Fmpq(z("1606938044258990275541962092341162602522202993782792835301376")));  // 2^200
}

TEST_CASE("write then read gives the same network", "[model]") {
  std::vector<Model> models = {parse_model(kSpecExample, "spec"), read_model(kData + "mixed.json"),
                               read_model(kData + "product-rect.json"), read_model(kData + "branches.json"),
                               read_model(kData + "biases.json")};
  for (const char* arch : {"attention", "mixer", "mlp", "product"})
    for (bool residual : {false, true})
      for (std::uint64_t seed : {1u, 5u}) {
        PresetOptions o;
        o.shape.arch = parse_arch(arch);
        o.shape.layers = 2;
        o.shape.width = 4;
        o.shape.heads = 2;
        o.shape.tokens = 3;
        o.shape.degree = 3;
        o.shape.residual = residual;
        o.seed = seed;
        o.range = seed == 5 ? (INT64_C(1) << 40) : 3;  // large weights too
        models.push_back(make_preset(o));
      }
  // NB eq. (3) presets: sums of branches with permutations (nested lists of layers).
  for (const char* arch : {"mixer", "mlp"})
    for (bool residual : {false, true}) {
      PresetOptions o;
      o.shape.arch = parse_arch(arch);
      o.shape.layers = 3;
      o.shape.width = 3;
      o.shape.tokens = 2;
      o.shape.residual = residual;
      o.permuted = true;
      models.push_back(make_preset(o));
    }
  // WS's expansion factor: two-layer mixing blocks W2 sigma2(W X), W of γ N (γ d) rows.
  for (const char* arch : {"mixer", "mlp"}) {
    PresetOptions o;
    o.shape.arch = parse_arch(arch);
    o.shape.layers = 3;
    o.shape.width = 3;
    o.shape.tokens = 2;
    o.expansion = 2;
    models.push_back(make_preset(o));
  }
  models.push_back(read_model(kData + "token-mix-hidden.json"));
  // A model without layers and without a name.
  Model empty;
  empty.tokens = 1;
  empty.width = 3;
  models.push_back(empty);
  for (const auto& m : models) {
    INFO(m.name);
    std::string text = write_model(m);
    Model back = parse_model(text, "roundtrip");
    CHECK(back == m);
    CHECK(write_model(back) == text);  // the writer is deterministic
    CHECK_NOTHROW(validate_model(m, "in-memory"));
  }
}

TEST_CASE("presets are deterministic in the seed and have the documented shapes", "[model]") {
  PresetOptions o{.shape = {.arch = Arch::attention, .layers = 2, .width = 4, .heads = 2, .tokens = 3}, .seed = 11};
  Model a = make_preset(o), b = make_preset(o);
  CHECK(a == b);
  o.seed = 12;
  CHECK_FALSE(make_preset(o) == a);
  CHECK(a.name == "attention-L2-d4-H2-N3");
  CHECK(parameter_count(a) == 2 * 2 * 4 * (2 * 4));  // L * H * 4 matrices of da x d = 2 x 4
  const auto& h = std::get<Attention<Fmpq>>(a.layers[0].op).heads[1];
  CHECK(h.Q.rows == 2);
  CHECK(h.O.rows == 4);
  CHECK(h.O.cols == 2);
  // Weights lie in [-range, range].
  for (const auto& m : {h.Q, h.K, h.V, h.O})
    for (const auto& w : m.a) CHECK(fmpz_cmpabs(w.num(), Fmpz(3).get()) <= 0);

  PresetOptions mx{.shape = {.arch = Arch::mixer, .layers = 3, .width = 2, .tokens = 3}};
  Model m = make_preset(mx);
  REQUIRE(m.layers.size() == 3);  // NB Def 3.2: token, channel, token
  CHECK(std::holds_alternative<TokenMix<Fmpq>>(m.layers[0].op));
  CHECK(std::holds_alternative<ChannelMix<Fmpq>>(m.layers[1].op));
  CHECK(std::holds_alternative<TokenMix<Fmpq>>(m.layers[2].op));
  CHECK(std::get<TokenMix<Fmpq>>(m.layers[0].op).activation == Activation::square);

  // With an expansion factor γ = 2 (WS): token blocks W (2 N x N) and W2 (N x 2 N), channel blocks
  // W (2 d x d) and W2 (d x 2 d): 2 (2 * 9) + 2 (2 * 4) = 52 weights for N = 3, d = 2, L = 2.
  PresetOptions ex{.shape = {.arch = Arch::mixer, .layers = 2, .width = 2, .tokens = 3}};
  ex.expansion = 2;
  const Model e = make_preset(ex);
  const auto& t = std::get<TokenMix<Fmpq>>(e.layers[0].op);
  CHECK(t.W.rows == 6);
  CHECK(t.W.cols == 3);
  REQUIRE(t.W2);
  CHECK(t.W2->rows == 3);
  CHECK(t.W2->cols == 6);
  CHECK(std::get<ChannelMix<Fmpq>>(e.layers[1].op).W.rows == 4);
  CHECK(parameter_count(e) == 52);
  CHECK(e.name == "mixer-p2-N3-d2-x2");
  PresetOptions ex_bad = o;  // attention has no mixing blocks
  ex_bad.expansion = 2;
  CHECK_THROWS_WITH(make_preset(ex_bad), Catch::Contains("--expansion"));

  PresetOptions ml{.shape = {.arch = Arch::mlp, .width = 3, .tokens = 5}};
  CHECK(make_preset(ml).tokens == 1);

  PresetOptions bad = o;
  bad.shape.heads = 3;  // does not divide 4
  CHECK_THROWS_AS(make_preset(bad), InputError);
  CHECK_THROWS_AS(parse_arch("cnn"), InputError);  // an unknown architecture is refused where it is named
  bad = o;
  bad.shape.layers = 0;
  CHECK_THROWS_AS(make_preset(bad), InputError);
  bad = o;
  bad.shape.arch = Arch::product;
  bad.shape.degree = 17;  // 0 is the default degree (2); beyond 16 is refused
  CHECK_THROWS_AS(make_preset(bad), InputError);
}

TEST_CASE("big integers survive a round trip", "[model]") {
  // 2^200 + 1 as a string; a JSON integer literal of 97 bits (beyond 64 bits:
  // the reader turns it into a big integer); the uint64 and int64 edges; a
  // rational with 200-bit numerator and denominator.
  const std::string two200p1 = "1606938044258990275541962092341162602522202993782792835301377";
  const std::string three130 = "1119130473102767721676281472237530963072945603535864870179883609";  // 3^130 > 2^200
  const std::string text = with_layers(
      R"({"type": "channel_mix", "W": [[")" + two200p1 + R"(", 123456789012345678901234567890],
                   [-98765432109876543210987654321, 18446744073709551615],
                   [-9223372036854775808, 9223372036854775808],
                   ["-)" + two200p1 + "/" + three130 + R"(", "-18446744073709551616"]]})");
  Model m = parse_model(text, "big.json");
  const auto& W = std::get<ChannelMix<Fmpq>>(m.layers[0].op).W;
  CHECK(W(0, 0) == Fmpq(z(two200p1)));
  CHECK(W(0, 1) == Fmpq(z("123456789012345678901234567890")));
  CHECK(W(1, 0) == Fmpq(z("-98765432109876543210987654321")));
  CHECK(W(1, 1) == Fmpq(z("18446744073709551615")));
  CHECK(W(2, 0) == Fmpq(z("-9223372036854775808")));
  CHECK(W(2, 1) == Fmpq(z("9223372036854775808")));
  Fmpq r;
  fmpq_set_fmpz_frac(r.get(), z("-" + two200p1).get(), z(three130).get());
  CHECK(W(3, 0) == r);
  CHECK(fmpz_bits(W(3, 0).den()) > 200);
  CHECK(W(3, 1) == Fmpq(z("-18446744073709551616")));

  std::string out = write_model(m);
  // Integers beyond a machine word are written as strings.
  CHECK_THAT(out, Catch::Contains("\"123456789012345678901234567890\""));
  CHECK_THAT(out, Catch::Contains("\"" + two200p1 + "\""));
  CHECK_THAT(out, Catch::Contains("\"-" + two200p1 + "/" + three130 + "\""));
  CHECK(parse_model(out, "big-out.json") == m);
}

TEST_CASE("read_model reports unreadable files", "[model]") {
  try {
    read_model(kData + "no-such-model.json");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("no-such-model.json"));
    CHECK_THAT(e.what(), Catch::Contains("cannot open"));
  }
  try {
    read_model(kData + "bad-row.json");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("bad-row.json: layers[0].heads[0].Q[1]: expected a row of 2 numbers"));
  }
}

TEST_CASE("validate_model rejects in-memory models that break the rules", "[model]") {
  Model m = parse_model(kSpecExample, "spec");
  Model bad = m;
  bad.output = Entry{2, 0};
  CHECK_THROWS_AS(validate_model(bad, "mem"), InputError);
  bad = m;
  ChannelMix<Fmpq> cm;
  cm.W = Mat<Fmpq>(3, 2);
  bad.layers.push_back({cm, true});  // residual across a width change
  bad.output.reset();
  try {
    validate_model(bad, "mem");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("mem: layers[1]"));
    CHECK_THAT(e.what(), Catch::Contains("residual"));
  }
}

TEST_CASE("malformed model files are rejected with the JSON path", "[model]") {
  struct Bad {
    std::string text;
    std::vector<std::string> must;  // substrings of the message
  };
  const std::string ok_layer = att();
  const std::vector<Bad> table = {
      // shapes
      {with_layers(att("[[1, -2], [0, 1, 5]]")), {"layers[0].heads[0].Q[1]", "expected a row of 2 numbers"}},
      {with_layers(att("[[1, -2], 3]")), {"layers[0].heads[0].Q[1]", "expected a row of 2 numbers", "an integer"}},
      {with_layers(att("[]")), {"layers[0].heads[0].Q", "non-empty matrix"}},
      {with_layers(att("7")), {"layers[0].heads[0].Q", "non-empty matrix"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[2, 1], [1, 1]], "V": [[1, 0]], "O": [[1], [1]]}]})"),
       {"layers[0].heads[0].K", "K is da x d: a 1 x 2 matrix", "got 2 rows"}},
      {with_layers(att("[[1, -2], [0, 1]]", "[[1, 1, 1], [1, 1, 1]]")),
       {"layers[0].heads[0].O[0]", "expected a row of 2 numbers", "O is d x da"}},
      {with_layers(R"({"type": "attention", "heads": []})"), {"layers[0].heads", "non-empty list of heads"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]})"),
       {"layers[0].W", "W is N x N: a 2 x 2 matrix", "got 3 rows"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0], [0, 1]], "W2": [[1, 0]]})"), {"layers[0].W2", "W2 is N x h"}},
      // with W2 (a two-layer token MLP) W is h x N: its rows must have N entries, and W2 N x h
      {with_layers(R"({"type": "token_mix", "W": [[1, 0, 0]], "W2": [[1], [1]]})"), {"layers[0].W", "W is h x N"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0], [0, 1], [1, 1]], "W2": [[1, 0], [0, 1]]})"),
       {"layers[0].W2", "W2 is N x h"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0, 2]]})"), {"layers[0].W[0]", "expected a row of 2 numbers"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0], [0, 1], [1, 1]], "W2": [[1, 0]]})"),
       {"layers[0].W2[0]", "expected a row of 3 numbers", "W2 is d' x h"}},
      {with_layers(R"({"type": "product", "Ws": [[[1, 0], [0, 1]], [[1, 0]]]})"),
       {"layers[0].Ws[1]", "all of the same d'"}},
      {with_layers(R"({"type": "product", "Ws": []})"), {"layers[0].Ws", "non-empty list of matrices"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0], [0, 1], [1, 1]]}, )" + ok_layer),
       {"layers[1].heads[0].Q[0]", "expected a row of 3 numbers"}},  // shapes follow the width
      // numbers
      {with_layers(att("[[1, -2], [0, 1]]", "[[1, 1], [0.5, 2]]")), {"layers[0].heads[0].O[1][0]", "floats are rejected"}},
      {with_layers(att("[[1, 1e3], [0, 1]]")), {"layers[0].heads[0].Q[0][1]", "floats are rejected"}},
      {with_layers(att("[[1, 12345678901234567890123.0], [0, 1]]")), {"layers[0].heads[0].Q[0][1]", "floats are rejected"}},
      {with_layers(att(R"([[1, "1/0"], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "q > 0", "\"1/0\""}},
      {with_layers(att(R"([[1, "1/-2"], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "q > 0", "\"1/-2\""}},
      {with_layers(att(R"([[1, "0.5"], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "\"0.5\""}},
      {with_layers(att(R"([[1, "x"], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "\"x\""}},
      {with_layers(att(R"([[1, null], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "got null"}},
      {with_layers(att(R"([[1, true], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "got a boolean"}},
      {with_layers(att(R"([[1, [2]], [0, 1]])")), {"layers[0].heads[0].Q[0][1]", "got a list of 1"}},
      // permutations
      {with_layers(R"({"type": "permute", "perm": [0, 0, 1, 2]})"), {"layers[0].perm[1]", "appears twice"}},
      {with_layers(R"({"type": "permute", "perm": [0, 1, 2, 4]})"), {"layers[0].perm[3]", "expected an integer in [0, 3]", "got 4"}},
      {with_layers(R"({"type": "permute", "perm": [0, 1, 2, -1]})"), {"layers[0].perm[3]", "got -1"}},
      {with_layers(R"({"type": "permute", "perm": [0, 1, 2]})"), {"layers[0].perm", "4 entries", "got a list of 3"}},
      {with_layers(R"({"type": "permute", "perm": [0, 1, 2, "3"]})"), {"layers[0].perm[3]", "got a string"}},
      // fields
      {with_layers(att("[[1, -2], [0, 1]]", "[[1, 1], [1, 2]]", R"(, "R": [[1]])")),
       {"layers[0].heads[0].R", "unknown field", "allowed here: C, K, O, Q, V, bK, bO, bQ, bV, extra"}},
      {with_layers(ok_layer, R"(, "extra": 1)"), {"extra", "unknown field"}},
      {with_layers(R"({"type": "permute", "perm": [0, 1, 2, 3], "activation": "none"})"),
       {"layers[0].activation", "unknown field"}},
      {with_layers(R"({"type": "conv", "W": [[1]]})"), {"layers[0].type", "unknown layer type \"conv\""}},
      {with_layers(R"({"type": 3})"), {"layers[0].type", "unknown layer type 3"}},
      {with_layers(R"({"W": [[1, 0], [0, 1]]})"), {"layers[0]", "missing required field \"type\""}},
      {with_layers(R"({"type": "attention"})"), {"layers[0]", "missing required field \"heads\""}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "V": [[1, 0]]}]})"),
       {"layers[0].heads[0]", "missing required field \"O\""}},
      // biases
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0], [0, 1], [1, 1]], "b": [1, 2]})"),
       {"layers[0].b", "b has one entry per row of W: a list of 3 numbers", "got 2"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0]], "b": 1})"), {"layers[0].b", "a list of 1 numbers", "got an integer"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0]], "b": [0.5]})"), {"layers[0].b[0]", "floats are rejected"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0]], "b2": [1]})"), {"layers[0].b2", "b2 is the bias of W2: give W2"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0]], "W2": [[1], [2], [3]], "b2": [1, 2]})"),
       {"layers[0].b2", "b2 has one entry per row of W2: a list of 3 numbers"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0], [0, 1]], "b": [1, 2, 3]})"), {"layers[0].b", "a list of 2 numbers", "got 3"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0], [0, 1]], "b2": [1, 2]})"), {"layers[0].b2", "give W2"}},
      {with_layers(att("[[1, -2], [0, 1]]", "[[1, 1], [1, 2]]", R"(, "bQ": [1])")),
       {"layers[0].heads[0].bQ", "bQ has one entry per row of Q (da): a list of 2 numbers", "got 1"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "V": [[1, 0]], "O": [[1], [0]], "bO": [1]}]})"),
       {"layers[0].heads[0].bO", "bO has one entry per row of O (d): a list of 2 numbers"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0], [0, 1]], "bV": [1]}]})"),
       {"layers[0].heads[0].bV", "unknown field"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0], [0, 1]], "extra": [{"Q": [[1, 0]], "K": [[1, 0]], "bK": [1, 2]}]}]})"),
       {"layers[0].heads[0].extra[0].bK", "a list of 1 numbers", "got 2"}},
      {with_layers(R"({"type": "product", "Ws": [[[1, 0]], [[0, 1]]], "bs": [[1]]})"),
       {"layers[0].bs", "a list of 2 biases (one per matrix of Ws)", "got a list of 1"}},
      {with_layers(R"({"type": "product", "Ws": [[[1, 0]], [[0, 1]]], "bs": [[1], [1, 2]]})"),
       {"layers[0].bs[1]", "one entry per row of its W (d'): a list of 1 numbers", "got 2"}},
      // sums of branches
      {with_layers(R"({"type": "branches", "branches": []})"), {"layers[0].branches", "non-empty list of branches"}},
      {with_layers(R"({"type": "branches", "branches": [[], {"type": "permute"}]})"),
       {"layers[0].branches[1]", "expected a list of layers, got an object"}},
      {with_layers(R"({"type": "branches", "branches": [[], [{"type": "channel_mix", "W": [[1, 0]]}]]})"),
       {"layers[0].branches[1]", "every branch must end at the same width", "width 2, this one at 1"}},
      {with_layers(R"({"type": "branches", "branches": [[{"type": "permute", "perm": [0, 1, 2, 2]}]]})"),
       {"layers[0].branches[0][0].perm[3]", "appears twice"}},
      {with_layers(R"({"type": "branches", "branches": [[{"type": "conv"}]]})"),
       {"layers[0].branches[0][0].type", "unknown layer type \"conv\"", "branches"}},
      {with_layers(R"({"type": "branches", "branches": [[{"type": "channel_mix", "W": [[1, 0]], "residual": true}]]})"),
       {"layers[0].branches[0][0]", "a residual layer must keep the width"}},
      {with_layers(R"({"type": "branches", "branches": [[]], "W": 1})"), {"layers[0].W", "unknown field"}},
      // degree-k attention blocks
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "V": [[1, 0]], "C": [[1, 0], [0, 1]]}]})"),
       {"layers[0].heads[0].V", "unknown field", "allowed here: C, K, Q, bK, bQ, extra"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0]]}]})"),
       {"layers[0].heads[0].C", "C is N x d"}},
      {with_layers(R"({"type": "attention", "degree": 5, "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0], [0, 1]]}]})"),
       {"layers[0].degree", "expected the heads' degree 2", "got 5"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0], [0, 1]], "extra": 3}]})"),
       {"layers[0].heads[0].extra", "expected a list"}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0], [0, 1]], "extra": [{"Q": [[1, 0]]}]}]})"),
       {"layers[0].heads[0].extra[0]", "missing required field \"K\""}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "C": [[1, 0], [0, 1]]}, {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1, 0]], "O": [[1], [0]]}]})"),
       {"layers[0].heads[1]", "same degree", "head 0 has degree 2", "this one 3"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0], [0, 1]], "activation": "relu"})"),
       {"layers[0].activation", "expected \"none\" or \"square\"", "relu"}},
      {with_layers(R"({"type": "token_mix", "W": [[1, 0], [0, 1]], "residual": 1})"),
       {"layers[0].residual", "expected true or false"}},
      {with_layers(R"(7)"), {"layers[0]", "expected a layer object"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}, "layers": {}})", {"layers", "expected a list of layers"}},
      // residual across a width change
      {with_layers(R"({"type": "channel_mix", "residual": true, "W": [[1, 0], [0, 1], [1, 1]]})"),
       {"layers[0]", "residual", "input width 2, output width 3"}},
      {with_layers(R"({"type": "product", "residual": true, "Ws": [[[1, 0]], [[0, 1]]]})"),
       {"layers[0]", "residual", "output width 1"}},
      // top level
      {R"({"format": "netpoly-model/2", "input": {"tokens": 2, "width": 2}, "layers": []})",
       {"format", "expected \"netpoly-model/1\"", "netpoly-model/2"}},
      {R"({"format": 1, "input": {"tokens": 2, "width": 2}, "layers": []})", {"format", "expected \"netpoly-model/1\""}},
      {R"({"input": {"tokens": 2, "width": 2}, "layers": []})", {"(top level)", "missing required field \"format\""}},
      {R"({"format": "netpoly-model/1", "layers": []})", {"missing required field \"input\""}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}})", {"missing required field \"layers\""}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2}, "layers": []})", {"input", "missing required field \"width\""}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 0, "width": 2}, "layers": []})",
       {"input.tokens", "expected an integer in [1, 65536]", "got 0"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": -1, "width": 2}, "layers": []})", {"input.tokens", "got -1"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2.0}, "layers": []})", {"input.width", "got a float"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": "2"}, "layers": []})", {"input.width", "got a string"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 100000000000000000000000, "width": 2}, "layers": []})",
       {"input.tokens", "expected an integer in [1, 65536]"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 65536, "width": 65536}, "layers": []})",
       {"input", "exceeds 2^20"}},
      {R"({"format": "netpoly-model/1", "input": [2, 2], "layers": []})", {"input", "expected an object, got a list of 2"}},
      {R"({"format": "netpoly-model/1", "name": 5, "input": {"tokens": 2, "width": 2}, "layers": []})",
       {"name", "expected a string"}},
      {R"([1, 2])", {"(top level)", "expected an object"}},
      {R"(null)", {"(top level)", "expected an object, got null"}},
      // output
      {with_layers(ok_layer, R"(, "output": {"token": 2, "channel": 0})"), {"output.token", "expected an integer in [0, 1]", "got 2"}},
      {with_layers(ok_layer, R"(, "output": {"token": 0, "channel": 2})"), {"output.channel", "got 2"}},
      {with_layers(R"({"type": "channel_mix", "W": [[1, 0]]})", R"(, "output": {"token": 0, "channel": 1})"),
       {"output.channel", "expected an integer in [0, 0]"}},  // the output width, not the input width
      {with_layers(ok_layer, R"(, "output": {"token": 0})"), {"output", "missing required field \"channel\""}},
      {with_layers(ok_layer, R"(, "output": {"token": 0, "channel": 0, "head": 1})"), {"output.head", "unknown field"}},
      // JSON itself
      {R"({"format": "netpoly-model/1", "format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}, "layers": []})",
       {"(top level): duplicate key \"format\""}},
      {with_layers(R"({"type": "attention", "heads": [{"Q": [[1, 0], [0, 1]], "Q": [[1, 0], [0, 1]]}]})"),
       {"layers[0].heads[0]: duplicate key \"Q\""}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2, "tokens": 3}, "layers": []})",
       {"input: duplicate key \"tokens\""}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}, "layers": [})", {"invalid JSON"}},
      {R"({"format": "netpoly-model/1", "input": {"tokens": 2, "width": 2}, "layers": []} x)", {"invalid JSON"}},
      {R"({"format": "netpoly-model/1", 'input': {}})", {"invalid JSON"}},
      {"", {"invalid JSON"}},
  };
  for (std::size_t k = 0; k < table.size(); ++k) {
    const Bad& b = table[k];
    INFO("case " << k << ": " << b.text);
    try {
      parse_model(b.text, "bad-model.json");
      FAIL("accepted a malformed model");
    } catch (const InputError& e) {
      const std::string msg = e.what();
      INFO("message: " << msg);
      CHECK(e.code() == ExitCode::input);
      CHECK(static_cast<int>(e.code()) == 2);
      CHECK(msg.rfind("bad-model.json: ", 0) == 0);  // names the file first
      for (const auto& s : b.must) CHECK_THAT(msg, Catch::Contains(s));
    } catch (const std::exception& e) {
      FAIL("wrong exception type: " << e.what());
    }
  }
}
