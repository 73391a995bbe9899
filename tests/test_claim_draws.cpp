// Identities for every weight (proofs/README.md, *Identities for every
// weight*): a check that reads a network's weights, expansion or degree under
// a weight quantifier runs exactly at two draws of integer weights in
// [0, 2^24), PASS (probabilistic) with Schwartz–Zippel's bound where its
// relations are identities or degrees at most a number.
//
// The network, by hand: attention with N = 2 tokens, width d = 1, one head,
// one layer. With the 1 x 1 weights q, k, v, o, eq. (3) gives
//   y_0 = sum_j (q x_0)(k x_j) o v x_j = q k o v x_0 (x_0^2 + x_1^2),
// a polynomial of degree 4 in the weights and 3 in the inputs, with 2 terms.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "claims/syntax/claim_parser.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"

using namespace netpoly;
namespace fs = std::filesystem;

namespace {

struct Run {
  ClaimResult r;
  std::string error;
};

Run run(const std::string& body, const std::string& dir) {
  const std::string text = "claim \"t\"\n  for net in attention(layers = 1, width = 1, tokens = 2, seed = 1)\n" + body;
  try {
    ClaimFile f = parse_claims(text, "t.np", dir);
    CheckOptions o;
    o.weight_counterexamples_default = dir + "/cex";
    return {run_claim(f.claims.at(0), o), ""};
  } catch (const InputError& e) {
    return {{}, e.what()};
  }
}

const std::string kProduct =
    "matmul(matmul(weights(net, 1, \"O\", 1), weights(net, 1, \"V\", 1)), "
    "matmul(weights(net, 1, \"K\", 1), weights(net, 1, \"Q\", 1)))[0][0]";
const std::string kShape = "poly(\"x0_0^3 + x0_0*x1_0^2\", tokens = 2, width = 1)";

// Two draws, each wrong with probability <= D / 2^24.
double eps(double D) { return std::pow(D / std::ldexp(1.0, 24), 2); }

}  // namespace

TEST_CASE("identities under a weight quantifier run at drawn weights", "[claims][draws]") {
  const fs::path dir = fs::temp_directory_path() / ("netpoly-draws-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  SECTION("the layer written out is an identity of degree 4 in the weights: PASS (probabilistic), (4/2^24)^2") {
    const Run x = run("  for every weight\n  check net[0, 0] == " + kProduct + " * " + kShape + "\n", dir.string());
    REQUIRE(x.error.empty());
    CHECK(x.r.verdict == Verdict::pass_probabilistic);
    CHECK(x.r.failure_probability == Approx(eps(4)).epsilon(1e-6));
  }
  SECTION("twice the layer is no identity: FAIL at a draw, which is written as the counterexample") {
    const Run x = run("  for every weight\n  check net[0, 0] == 2 * " + kProduct + " * " + kShape + "\n", dir.string());
    REQUIRE(x.error.empty());
    CHECK(x.r.verdict == Verdict::fail);
    REQUIRE(x.r.report);
    CHECK(x.r.report->checks.at(0).counterexample);
    CHECK(fs::exists(x.r.report->checks.at(0).counterexample_file));
  }
  SECTION("a let after the quantifier that reads the weights is evaluated at each draw") {
    const Run x = run("  for every weight\n  let c = " + kProduct + "\n  check net[1, 0] == c * poly(\"x1_0^3 + x1_0*x0_0^2\", tokens = 2, width = 1)\n",
                      dir.string());
    REQUIRE(x.error.empty());
    CHECK(x.r.verdict == Verdict::pass_probabilistic);
  }
  SECTION("a degree at most a number: PASS (probabilistic) at 3, FAIL at 2 (the draw has degree 3)") {
    const Run a = run("  for every weight\n  check degree(net) <= 3\n", dir.string());
    CHECK(a.r.verdict == Verdict::pass_probabilistic);
    CHECK(a.r.failure_probability == Approx(eps(4)).epsilon(1e-6));
    const Run b = run("  for every weight\n  check degree(net) <= 2\n", dir.string());
    CHECK(b.r.verdict == Verdict::fail);
  }
  SECTION("degree == 3 is false at the zero weights: INCONCLUSIVE for every weight, PASS for almost every") {
    const Run a = run("  for every weight\n  check degree(net) == 3\n", dir.string());
    CHECK(a.r.verdict == Verdict::inconclusive);
    REQUIRE(a.r.report);
    CHECK(a.r.report->checks.at(0).note.find("write `<=`") != std::string::npos);
    const Run b = run("  for almost every weight\n  check degree(net) == 3\n", dir.string());
    CHECK(b.r.verdict == Verdict::pass_probabilistic);
  }
  SECTION("a terms count is no identity: it holds at the draws (2 terms) but stays INCONCLUSIVE") {
    const Run a = run("  for every weight\n  check terms(net) <= 2\n", dir.string());
    CHECK(a.r.verdict == Verdict::inconclusive);
  }
  SECTION("a for after the quantifier may not read the weights: an input error naming its line") {
    const Run a = run("  for every weight\n  for i in 0..degree(net)\n  check i >= 0\n", dir.string());
    CHECK(a.r.error);
    CHECK(a.r.error_message.find("t.np:4:") != std::string::npos);
    CHECK(a.r.error_message.find("`for`") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("networks bound before the quantifier are drawn layer by layer alike", "[claims][draws]") {
  // product(degree = 2, layers = 2): each block squares the degree, so the
  // network's degree is 2 x its one-block prefix's (4 = 2 x 2) at generic weights.
  const std::string text =
      "claim \"t\"\n  for net in product(degree = 2, layers = 2, width = 2, seed = 1)\n"
      "  let f = prefix(net, 1)\n  for almost every weight\n  check degree(net) == 2 * degree(f)\n"
      "  check degree(f) == 2\n";
  ClaimFile f = parse_claims(text, "t.np", ".");
  const ClaimResult r = run_claim(f.claims.at(0), CheckOptions{});
  CHECK(r.verdict == Verdict::pass_probabilistic);
}
