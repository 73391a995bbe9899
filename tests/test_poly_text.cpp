// Polynomials from text (poly_text.hpp): hand-worked polynomials read as
// FLINT reads them, and what FLINT would abort on or expand without bound
// refused before it sees the text (issue 38, item 6).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/poly_text.hpp"

using namespace netpoly;

namespace {

const std::vector<std::string> kXY = {"x", "y"};

// The coefficient of x^a y^b.
std::string coeff(const FmpqMpoly& p, ulong a, ulong b) {
  ulong e[2] = {a, b};
  Fmpq c;
  fmpq_mpoly_get_coeff_fmpq_ui(c.get(), p.get(), e, p.c());
  return c.str();
}

}  // namespace

TEST_CASE("poly text: hand-worked polynomials", "[poly_text]") {
  const FmpqMpoly p = parse_poly_text("(x + y)^3 - y^3 + x*y/2 - 3/4", kXY, 5e7);
  CHECK(p.length() == 5);
  CHECK(coeff(p, 3, 0) == "1");
  CHECK(coeff(p, 2, 1) == "3");
  CHECK(coeff(p, 1, 2) == "3");
  CHECK(coeff(p, 1, 1) == "1/2");
  CHECK(coeff(p, 0, 0) == "-3/4");
  CHECK(coeff(p, 0, 3) == "0");
  const FmpqMpoly q = parse_poly_text("-(-x) * -y + x^4611686018427387903", kXY, 5e7);
  CHECK(coeff(q, 1, 1) == "-1");
  CHECK(coeff(q, 4611686018427387903ULL, 0) == "1");
}

TEST_CASE("poly text: exponents FLINT cannot hand back are refused before it reads them", "[poly_text]") {
  // 2^64: FLINT read it, and aborted the process when the term was read back.
  CHECK_THROWS_WITH(parse_poly_text("x^18446744073709551616 + y", kXY, 5e7),
                    Catch::Contains("character 3") && Catch::Contains("2^62"));
  CHECK_THROWS_AS(parse_poly_text("x^4611686018427387904", kXY, 5e7), InputError);
  CHECK_THROWS_AS(parse_poly_text("x^" + std::string(5000, '9'), kXY, 5e7), InputError);
  // each exponent fits, the product does not
  CHECK_THROWS_WITH(parse_poly_text("(x^4611686018427387903)^4", kXY, 5e7), Catch::Contains("degree"));
  CHECK_THROWS_WITH(parse_poly_text("x^4611686018427387903 * x^4611686018427387903", kXY, 5e7),
                    Catch::Contains("2^62"));
  CHECK_THROWS_WITH(parse_poly_text("x^2^3", kXY, 5e7), Catch::Contains("ambiguous"));
}

TEST_CASE("poly text: expansions beyond the limits are refused, not computed", "[poly_text]") {
  CHECK_THROWS_AS(parse_poly_text("(x + y + 1)^100000", kXY, 5e7), LimitError);  // 5e9 terms
  CHECK_THROWS_WITH(parse_poly_text("(x + y)^20", kXY, 10), Catch::Contains("max_terms"));
  CHECK(parse_poly_text("(x + y)^20", kXY, 21.5).length() == 21);  // binom(20 + 1, 1) terms: the estimate is exact
  CHECK_THROWS_WITH(parse_poly_text("2^1000000000 * x", kXY, 5e7), Catch::Contains("bits"));
  CHECK_THROWS_WITH(parse_poly_text("(x + 1)^100000", kXY, 5e7), Catch::Contains("bytes"));
  CHECK(parse_poly_text("(x + 1)^1000", kXY, 5e7).length() == 1001);
  CHECK_THROWS_AS(parse_poly_text(std::string(300, '(') + "x" + std::string(300, ')'), kXY, 5e7), InputError);
}

TEST_CASE("poly text: what is not a polynomial is an input error naming the character", "[poly_text]") {
  CHECK_THROWS_WITH(parse_poly_text("1/0", kXY, 5e7), Catch::Contains("division"));
  CHECK_THROWS_WITH(parse_poly_text("x/(y - y)", kXY, 5e7), Catch::Contains("division"));
  CHECK_THROWS_WITH(parse_poly_text("x + z", kXY, 5e7), Catch::Contains("character 5"));
  CHECK_THROWS_AS(parse_poly_text("x +", kXY, 5e7), InputError);
  CHECK_THROWS_AS(parse_poly_text("x^y", kXY, 5e7), InputError);
  CHECK_THROWS_AS(parse_poly_text("__import__('os')", kXY, 5e7), InputError);
}
