// The dimension of a function family (netpoly/jacobian.hpp), on families
// whose dimension is worked by hand. Each is the image of a polynomial map
// weights -> coefficients; its dimension is the rank of that map's
// Jacobian at generic weights.
#include <catch2/catch.hpp>
#include <string>

#include "netpoly/jacobian.hpp"
#include "netpoly/model.hpp"
#include "netpoly/presets.hpp"

using namespace netpoly;

namespace {

Model model(const std::string& layers, std::size_t tokens, std::size_t width) {
  return parse_model("{\"format\": \"netpoly-model/1\", \"input\": {\"tokens\": " + std::to_string(tokens) +
                         ", \"width\": " + std::to_string(width) + "}, \"layers\": [" + layers + "]}",
                     "test");
}

}  // namespace

TEST_CASE("function-family dimensions worked by hand", "[jacobian]") {
  SECTION("a linear map y = W x, d = 3: y_0 = sum_j W_0j x_j has the 3 coefficients W_00..W_02: dimension 3") {
    const Model m = model(R"({"type": "channel_mix", "W": [[1,2,3],[4,5,6],[7,8,9]]})", 1, 3);
    const JacobianResult r = jacobian_rank(m, {{0, 0}}, 7);
    CHECK(r.weights == 9);
    CHECK(r.rank == 3);
    // upper: min(9 weights, the 4 monomials of degree <= 1 in 3 variables)
    CHECK(r.upper == 4);
    CHECK(r.failure_probability < 1e-9);
    // every output together: its 9 coefficients are the 9 weights, and the ends meet (min(9, 3 x 4) = 9)
    const JacobianResult all = jacobian_rank(m, {{0, 0}, {0, 1}, {0, 2}}, 7);
    CHECK(all.rank == 9);
    CHECK(all.upper == 9);
    CHECK(all.failure_probability == 0);
  }
  SECTION("attention, d = 1, N = 2: y_0 = q k o v x0 (x0^2 + x1^2), one coefficient q k o v: dimension 1") {
    const Model m = make_preset(preset_options(NetworkShape{.arch = Arch::attention, .layers = 1, .width = 1, .heads = 1, .tokens = 2}));
    const JacobianResult r = jacobian_rank(m, {{0, 0}}, 3);
    CHECK(r.weights == 4);
    CHECK(r.rank == 1);
    CHECK(r.upper == 4);  // min(4 weights, 10 monomials of degree <= 3 in 2 variables)
  }
  SECTION("sigma2 MLP, d = 1, hidden 2: y = a (b x)^2 + c (e x)^2 = (a b^2 + c e^2) x^2: dimension 1 of 4 weights") {
    const Model m = model(R"({"type": "channel_mix", "W": [[1],[2]], "W2": [[1, 1]], "activation": "square"})", 1, 1);
    const JacobianResult r = jacobian_rank(m, {{0, 0}}, 11);
    CHECK(r.weights == 4);
    CHECK(r.rank == 1);
  }
  SECTION("two tokens mixed linearly, then squared per channel: y_0 = (a x0 + b x1)^2 spans the 3 coefficients a^2, 2ab, b^2 "
          "only along a 2-dimensional cone (the squares): dimension 2") {
    const Model m = model(R"({"type": "token_mix", "W": [[1, 2], [3, 4]], "activation": "square"})", 2, 1);
    const JacobianResult r = jacobian_rank(m, {{0, 0}}, 5);
    CHECK(r.weights == 4);
    CHECK(r.rank == 2);
    CHECK(r.upper == 4);  // min(4 weights, 6 monomials of degree <= 2 in 2 variables)
  }
  SECTION("the seed reproduces the run; another seed draws another prime") {
    const Model m = make_preset(preset_options(NetworkShape{.arch = Arch::attention, .layers = 1, .width = 2, .heads = 1, .tokens = 2}));
    const JacobianResult a = jacobian_rank(m, {{0, 0}}, 42), b = jacobian_rank(m, {{0, 0}}, 42), c = jacobian_rank(m, {{0, 0}}, 43);
    CHECK(a.prime == b.prime);
    CHECK(a.rank == b.rank);
    CHECK(a.prime != c.prime);
    CHECK(a.rank == c.rank);
  }
}
