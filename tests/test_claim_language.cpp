// The claim language function by function, in the style of FLINT's tests of
// known answers: every function of the table (claim_functions()) has claims
// whose verdict is worked out by hand (the derivation next to each), one that
// holds and, where a wrong value is easy to state, one that does not; then
// every message of the parser's signature checks and of the evaluator's
// argument checks, each from a claim built to trigger it. A function added to
// the table without a case here fails the coverage test at the end.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "netpoly/claim_parser.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"

using namespace netpoly;

namespace {

struct Known {
  const char* function;  // the function the case is about
  const char* body;      // the claim's clauses
  Verdict verdict;
};

// Hand-derived verdicts. Shapes: attention params = 4 L d^2 (H d_a = d, four
// d x d_a / d_a x d matrices per head); mixer = token layers N^2 + channel
// layers d^2, alternating from a token layer; mlp L d^2; product L k d^2.
const std::vector<Known> kKnown = {
    // networks
    {"attention", "for net in attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check params(net) == 16", Verdict::pass},
    {"attention", "for net in attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check params(net) == 17", Verdict::fail},
    {"mixer", "for net in mixer(layers = 2, tokens = 3, width = 2)\n  check params(net) == 13", Verdict::pass},  // 9 + 4
    {"mlp", "for net in mlp(layers = 2, width = 3)\n  check params(net) == 18\n  check tokens(net) == 1", Verdict::pass},
    {"product", "for net in product(layers = 2, width = 2, degree = 3)\n  check params(net) == 24", Verdict::pass},
    // B = 48, N = 4, mixer: N^2 per token-mixing layer + d^2 per channel-mixing layer: L1 d5 (width capped
    // at 5, 16 params), L2 d5 (16 + 25), L3 d4 (32 + 16), L4 d2 (32 + 8): four shapes, each within 48
    {"equal_budget", "for net in equal_budget(arch = mixer, params = 48, tokens = 4, max_depth = 6, max_width = 5)\n  check params(net) <= 48",
     Verdict::pass},
    // a fifth layer (a third token-mixing one) would need 48 + 2 d^2 > 48 parameters
    {"equal_budget", "for net in equal_budget(arch = mixer, params = 48, tokens = 4, max_depth = 6)\n  check layers(net) <= 4",
     Verdict::pass},
    {"equal_budget", "exists net in equal_budget(arch = mixer, params = 48, tokens = 4, max_depth = 6)\n  check layers(net) == 4",
     Verdict::pass},
    {"equal_budget", "for net in equal_budget(arch = attention, params = 48, tokens = 4, max_depth = 3)\n  check width(net) == 2",
     Verdict::fail},  // depth 1 has d = 3 (36 params)
    {"model", "let net = model(\"../attention-example.json\")\n  check layers(net) == 1\n  check vars(net) == 4", Verdict::pass},
    {"permute",
     "let net = mixer(layers = 1, tokens = 2, width = 2)\n  let q = permute(net, [1, 0, 3, 2])\n"
     "  check layers(q) == 1\n  check params(q) == params(net)",
     Verdict::pass},  // a permute layer has no weights and is not counted as a layer
    // NB eq. (3) (permuted = true): each layer a sum of branches [pi_o, mixing] + [pi_r], counted as
    // one mixing layer with a residual; the weights are the unpermuted preset's (4 + 4 + 4 parameters)
    {"mixer",
     "let net = mixer(layers = 3, tokens = 2, width = 2, residual = true, permuted = true)\n"
     "  check layers(net) == 3\n  check residual(net) == 1\n  check params(net) == 12\n"
     "  check layers(prefix(net, 2)) == 2",
     Verdict::pass},
    // a sum of permutations and a residual sum of two sub-networks (tests/data/branches.json): two layers,
    // a residual, but no architecture of the papers
    {"model", "let net = model(\"../branches.json\")\n  check layers(net) == 2\n  check residual(net) == 1", Verdict::pass},
    // lists and matrices (matrices are lists of rows)
    {"sum", "check sum(k^2 for k in 1..4) == 30\n  check sum([]) == 0", Verdict::pass},  // 1 + 4 + 9 + 16
    {"sum", "check sum(k^2 for k in 1..4) == 31", Verdict::fail},
    // a function's name may name a value: sum(...) is still the function
    {"sum", "let sum = 5\n  check sum([sum, 1]) == 6\n  check sum(sum for sum in [1, 2]) == 3", Verdict::pass},
    {"prod", "check prod([1, 2, 3, 4]) == 24\n  check prod([]) == 1\n  check prod(k for k in 1..5) == 120", Verdict::pass},
    // [[1, 2], [3, 4]] [[5], [6]] = [[1*5 + 2*6], [3*5 + 4*6]] = [[17], [39]]
    {"matmul", "check matmul([[1, 2], [3, 4]], [[5], [6]]) == [[17], [39]]", Verdict::pass},
    {"matmul", "check matmul([[1, 2], [3, 4]], [[5], [6]]) == [[17], [40]]", Verdict::fail},
    // [[1, 2]] ⊗ B = [[1 B, 2 B]] with B = [[0, 1], [1, 0]]
    {"kron", "check kron([[1, 2]], [[0, 1], [1, 0]]) == [[0, 1, 0, 2], [1, 0, 2, 0]]", Verdict::pass},
    {"transpose", "check transpose([[1, 2, 3]]) == [[1], [2], [3]]", Verdict::pass},
    {"vec", "check vec([[1, 2], [3, 4]]) == [[1], [3], [2], [4]]", Verdict::pass},  // columns stacked
    {"vec", "check vec([[1, 2], [3, 4]]) == [[1], [2], [3], [4]]", Verdict::fail},  // that is the row order
    {"identity", "check matmul(identity(2), [[1, 2], [3, 4]]) == [[1, 2], [3, 4]]", Verdict::pass},
    {"symbols", "check symbols(1, 2) == [[poly(\"x0\", vars = 2), poly(\"x1\", vars = 2)]]", Verdict::pass},
    // (x0 + x1)^2 = x0^2 + 2 x0 x1 + x1^2: every term of degree 2
    {"symbols", "let X = symbols(1, 2)\n  check matmul(X, transpose(X)) == [[poly(\"x0^2 + x1^2\", vars = 2)]]", Verdict::pass},
    // symbols(r, c) has r c flat variables (it had 1 x 1, so a partition past x0 was refused): X[0][0] X[3][3]
    // + X[1][1] X[2][2] = x0 x15 + x5 x10, A = x0..x7 holds x0 and x5, B x15 and x10: two products, sep 2
    {"symbols",
     "let X = symbols(4, 4)\n  check vars(X[0][0]) == 16\n"
     "  check sep(X[0][0] * X[3][3] + X[1][1] * X[2][2]; A = x0..x7) == 2",
     Verdict::pass},
    // F + G has the variables of the larger side whichever is on the left (it kept the left's shape):
    // x3 (of 2 x 2 symbols) + x0 (of one variable) has 4 variables, and x0 + x3 too
    {"symbols",
     "let X = symbols(2, 2)\n  check vars(X[1][1] + poly(\"x0\", vars = 1)) == 4\n"
     "  check vars(poly(\"x0\", vars = 1) + X[1][1]) == 4\n  check vars(X[1][1] + poly(\"x0\", vars = 4)) == 4",
     Verdict::pass},
    {"homogeneous",
     "let f = poly(\"x0^2 + 3*x0*x1 + x1 + 5\", vars = 2)\n  check homogeneous(f, 2) == poly(\"x0^2 + 3*x0*x1\", vars = 2)\n"
     "  check homogeneous(f, 0) == 5\n  check homogeneous(f, 3) == 0",
     Verdict::pass},
    // Gaussian weights (tests/data/gaussian.json: y0_0 = (x00 + i x01)(x10 + i x11), test_gauss.cpp): sep 1 over C
    {"model", "let net = model(\"../gaussian.json\")\n  check sep(net; half) == 1\n  check layers(prefix(net, 1)) == 1",
     Verdict::pass},
    // over Q(i): (x0 + i x1)(x2 + i x3) is a product across A = {x0, x1} | B: sep 1 over C, while its real
    // part x0 x2 - x1 x3 has sep 2 (and so does the imaginary part x0 x3 + x1 x2)
    {"poly",
     "let f = poly(\"(x0 + I*x1)*(x2 + I*x3)\", vars = 4)\n  check sep(f; A = x0..x1) == 1\n"
     "  check sep(poly(\"x0*x2 - x1*x3\", vars = 4); A = x0..x1) == 2\n"
     "  check f == poly(\"x0*x2 - x1*x3\", vars = 4) + I * poly(\"x0*x3 + x1*x2\", vars = 4)\n"
     "  check terms(f) == 4\n  check I * I == 0 - 1",
     Verdict::pass},
    {"poly", "let f = poly(\"(x0 + I*x1)*(x2 + I*x3)\", vars = 4)\n  check sep(f; A = x0..x1) == 2", Verdict::fail},
    // a Gaussian network's output is a polynomial over Q(i) (tests/data/gaussian.json)
    {"model",
     "let net = model(\"../gaussian.json\")\n"
     "  check net[0, 0] == poly(\"(x0_0 + I*x0_1)*(x1_0 + I*x1_1)\", tokens = 2, width = 2)\n  check degree(net) == 2",
     Verdict::pass},
    {"homogeneous", "check homogeneous(poly(\"I*x0^2 + x1 + 2*I\", vars = 2), 0) == 2 * I", Verdict::pass},
    // LV Lemma 6, L = 2, d = 5, H = 1: d' = 2, λ = 1; V's rows (2, 1)/sqrt 5 and (1, 2)/sqrt 5 give
    // G = [[1, 4/5], [4/5, 1]], det 9/25 != 0: rank 2. Printed last layer, d = 15, H = 3: rank <= c + 2 = 4 < 6.
    {"lv_witness_rank", "check lv_witness_rank(layers = 2, width = 5, heads = 1, tokens = 2) == 2", Verdict::pass},
    {"lv_witness_rank",
     "check lv_witness_rank(layers = 2, width = 15, heads = 3, tokens = 2, v = rational, last = printed) == 6",
     Verdict::fail},
    {"prefix", "let net = mixer(layers = 3, tokens = 2, width = 2)\n  check layers(prefix(net, 2)) == 2", Verdict::pass},
    {"wide_sparse",
     "let net = mixer(layers = 2, tokens = 2, width = 3)\n  let w = wide_sparse(net)\n"
     "  check tokens(w) == 1\n  check width(w) == 6",
     Verdict::pass},  // one token of width N d
    {"layers", "for net in attention(layers = 2, width = 2, heads = 1, tokens = 2)\n  check layers(net) == 2", Verdict::pass},
    {"width", "for net in attention(layers = 1, width = 4, heads = 2, tokens = 2)\n  check width(net) == 4", Verdict::pass},
    {"heads", "for net in attention(layers = 1, width = 4, heads = 2, tokens = 2)\n  check heads(net) == 2", Verdict::pass},
    {"tokens", "for net in mixer(layers = 1, tokens = 5, width = 2)\n  check tokens(net) == 5", Verdict::pass},
    {"params", "for net in attention(layers = 2, width = 4, heads = 2, tokens = 3)\n  check params(net) == 128", Verdict::pass},
    {"nonzeros", "for net in mixer(layers = 1, tokens = 2, width = 2)\n  check 0 <= nonzeros(net) <= 4", Verdict::pass},
    {"block_degree", "for net in product(layers = 1, width = 2, degree = 4)\n  check block_degree(net) == 4", Verdict::pass},
    {"residual", "for net in mixer(layers = 1, tokens = 2, width = 2, residual = 1)\n  check residual(net) == 1", Verdict::pass},
    {"residual", "for net in mixer(layers = 1, tokens = 2, width = 2)\n  check residual(net) == 1", Verdict::fail},
    // polynomials: x0^3 x1 has degree 4, 3 in x0 alone; x0 x1 + x2 has 2 terms
    {"poly", "let p = poly(\"x0*x1 + x2\", vars = 3)\n  check terms(p) == 2", Verdict::pass},
    {"degree", "let p = poly(\"x0^3*x1\", vars = 2)\n  check degree(p) == 4\n  check degree(p; A = x0) == 3", Verdict::pass},
    {"degree", "let p = poly(\"x0^3*x1\", vars = 2)\n  check degree(p) == 3", Verdict::fail},
    {"terms", "let p = poly(\"(x0 + x1)^2\", vars = 2)\n  check terms(p) == 3", Verdict::pass},  // x0^2 + 2 x0 x1 + x1^2
    {"vars", "let p = poly(\"x0\", tokens = 2, width = 3)\n  check vars(p) == 6", Verdict::pass},
    {"random_poly", "for p in random_poly(vars = 3, terms = 2, degree = 2, seed = 1)\n  check vars(p) == 3", Verdict::pass},
    // partitions: x0 x1 + x2 x3 has sep <= 2 for every split (two products), and
    // exactly 2 for A = {x0, x2} (the 2 x 2 coefficient matrix is the identity)
    {"balanced", "let p = poly(\"x0*x1 + x2*x3\", vars = 4)\n  for P in balanced(p)\n  check sep(p; P) <= 2", Verdict::pass},
    {"splits", "let p = poly(\"x0*x1 + x2*x3\", vars = 4)\n  for P in splits(p)\n  check sep(p; P) <= 2", Verdict::pass},
    {"outputs", "let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  for o in outputs(net)\n  check vars(o) == 4",
     Verdict::pass},
    {"shuffle", "check len(shuffle(5, seed = 2)) == 5", Verdict::pass},
    // separation ranks: x0 x1 + x2 x3 = (x0 x1) 1 + 1 (x2 x3) has sep 2 for A = {x0, x1}; for
    // A = {x0, x2} its coefficient matrix (rows x0, x2; columns x1, x3) is the 2 x 2 identity: 2.
    // (x0 + x1)(x2 + x3) is one product: sep 1 for A = {x0, x1}.
    {"sep", "let p = poly(\"x0*x1 + x2*x3\", vars = 4)\n  check sep(p; A = x0, x2) == 2\n  check sep(p; A = x0, x1) == 2",
     Verdict::pass},
    {"sep", "let p = poly(\"(x0 + x1)*(x2 + x3)\", vars = 4)\n  check sep(p; A = x0, x1) == 2", Verdict::fail},
    // LV Claim 1: the grid rank is a lower bound
    {"grid", "let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check grid(net; half; templates = 3) <= sep(net; half)",
     Verdict::pass},
    {"max_sep", "let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check min_sep(net; half) <= max_sep(net; half)",
     Verdict::pass},
    {"min_sep", "let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check min_sep(net; half) <= sep(net; half)",
     Verdict::pass},
    {"sup_sep", "let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check inf_sep(net) <= sup_sep(net)", Verdict::pass},
    {"inf_sep", "let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check inf_sep(net) <= sep(net; half)", Verdict::pass},
    // bounds: LV Thm 3 at L = 1, d = 2, H = 1 is (d + H)^C(1) = 3^1 = 3; log3 of it is 1
    {"bound", "check bound(\"LV Thm 3\", arch = attention, layers = 1, width = 2, heads = 1, tokens = 2) == 3", Verdict::pass},
    {"bound", "check bound(\"LV Thm 3\", arch = attention, layers = 1, width = 2, heads = 1, tokens = 2) == 4", Verdict::fail},
    {"log3bound", "check 0 < log3bound(\"LV Thm 3\", arch = attention, layers = 1, width = 2, heads = 1, tokens = 2) < 2",
     Verdict::pass},
    // LV Thm 1's upper regime L < log3 d: 1 < log3 9 = 2 holds, 2 < 2 does not; the lower side
    // also needs L >= 2 and d_a odd (App. B.2): 2 < log3 11 with d_a = 11 holds, L = 1 does not
    {"regime", "check regime(\"LV Thm 1 (upper)\", arch = attention, layers = 1, width = 9, heads = 1, tokens = 2) == 1",
     Verdict::pass},
    {"regime", "check regime(\"LV Thm 1 (lower)\", arch = attention, layers = 2, width = 11, heads = 1, tokens = 2) == 1",
     Verdict::pass},
    {"regime", "check regime(\"LV Thm 1 (lower)\", arch = attention, layers = 1, width = 9, heads = 1, tokens = 2) == 1",
     Verdict::fail},
    {"regime", "check regime(\"LV Thm 1 (lower)\", arch = attention, layers = 2, width = 9, heads = 1, tokens = 2) == 1",
     Verdict::fail},
    // arithmetic
    {"len", "check len([1, 2, 3]) == 3", Verdict::pass},
    {"binom", "check binom(5, 2) == 10", Verdict::pass},
    {"binom", "check binom(5, 2) == 11", Verdict::fail},
    {"multiset", "check multiset(3, 2) == 6", Verdict::pass},  // binom(4, 2)
    {"min", "check min(3, [1, 2]) == 1", Verdict::pass},
    {"max", "check max(3, [1, 7]) == 7", Verdict::pass},
    {"log3", "check log3(27) == 3", Verdict::pass},
    {"log2", "check log2(8) == 3", Verdict::pass},
    {"log", "check log(100, 10) == 2", Verdict::pass},
    {"floor", "check floor(7/2) == 3", Verdict::pass},
    {"ceil", "check ceil(7/2) == 4", Verdict::pass},
    {"abs", "check abs(0 - 5) == 5", Verdict::pass},
};

ClaimResult run_body(const std::string& body) {
  const std::string text = "claim \"case\"\n  " + body + "\n";
  ClaimFile f = parse_claims(text, "case.np", std::string(NETPOLY_SOURCE_DIR) + "/tests/data/claims");
  REQUIRE(f.claims.size() == 1);
  return run_claim(f.claims[0], CheckOptions{});
}

std::string parse_message(const std::string& body) {
  try {
    parse_claims("claim \"case\"\n  " + body + "\n", "bad.np", ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string run_message(const std::string& body) {
  const ClaimResult r = run_body(body);
  return r.error ? r.error_message : "(no error)";
}

}  // namespace

TEST_CASE("claim functions: verdicts of known answer", "[claims][language]") {
  for (const auto& k : kKnown) {
    INFO(k.function << ": " << k.body);
    const ClaimResult r = run_body(k.body);
    INFO(r.error_message);
    CHECK_FALSE(r.error);
    CHECK(verdict_name(r.verdict) == std::string(verdict_name(k.verdict)));
  }
}

TEST_CASE("claim functions: every function of the table has a case of known answer", "[claims][language]") {
  std::set<std::string> covered;
  for (const auto& k : kKnown) covered.insert(k.function);
  for (const auto& f : claim_functions()) {
    INFO("no case of known answer for " << f.name);
    CHECK(covered.count(f.name) == 1);
    // A signature always comes with its behaviour.
    CHECK(((f.call != nullptr) != (f.generate != nullptr)));
  }
}

TEST_CASE("claim functions: the parser's signature messages", "[claims][language]") {
  struct Bad {
    const char* body;
    const char* message;
  };
  const std::vector<Bad> bad = {
      {"check binom(1) == 1", "expected 2 positional arguments for binom, got 1"},
      {"check min() == 1", "expected at least 1 positional argument for min, got 0"},
      {"check log(8) == 1", "expected 2 positional arguments for log, got 1"},
      {"check bound(\"LV Thm 3\", 1, 2) == 1", "expected 1 to 2 positional arguments for bound, got 3"},
      {"check sep(poly(\"x0\", vars = 1)) == 1", "expected a partition after ';'"},
      {"check floor(1; half) == 1", "expected '=' after the option name half"},  // floor takes no partition
      {"for n in mixer(colour = 2)\n  check 1 == 1", "got 'colour'"},
      {"for n in mixer(layers = 1, layers = 2)\n  check 1 == 1", "expected 'layers' only once"},
      {"for n in mixer(layers = 1, activation = cube)\n  check 1 == 1", "expected none or square for activation, got 'cube'"},
      {"let n = mixer(layers = 1, tokens = 2, width = 2)\n  check sep(n; half; methods = magic) == 1",
       "for methods, got 'magic'"},
      {"check model(3) == 1", "expected a string (in double quotes) as the first argument of model"},
      {"check bound(\"LV Thm 99\", arch = attention) == 1", "unknown id"},
      {"check bound(\"LV Thm 1\", arch = attention) == 1", "ambiguous"},
      {"check nosuch(1) == 1", "expected a known function"},
      {"check sep(poly(\"x0\", vars = 1); A = ) == 1", "expected a variable"},
      {"check 1 = 1", "expected a relation (== for equality)"},
      {"check (1 == 1", "expected ')'"},
      {"check poly(\"x0 +\", vars = 1) == 1", "expected a number"},
      {"check poly(\"y0\", vars = 1) == 1", "expected a variable x5 or x1_0, or I, in the polynomial, got 'y0'"},
      {"let = 3\n  check 1 == 1", "a name to bind"},
      {"for x 3\n  check 1 == 1", "expected 'in'"},
  };
  for (const auto& b : bad) {
    INFO(b.body);
    const std::string m = parse_message(b.body);
    CHECK_THAT(m, Catch::Contains(b.message));
    CHECK(m.rfind("bad.np:", 0) == 0);  // every message names the file and the position
  }
}

TEST_CASE("claim functions: the evaluator's argument messages", "[claims][language]") {
  struct Bad {
    const char* body;
    const char* message;
  };
  const std::vector<Bad> bad = {
      {"check layers(3) == 1", "expected a network for layers(...), got a number"},
      {"check binom(poly(\"x0\", vars = 1), 2) == 1", "expected a number for binom(...)"},
      {"check len(3) == 1", "len: expected a list"},
      {"check len(shuffle(1/2)) == 1", "expected an exact integer for shuffle(n)"},
      {"check len(shuffle(0 - 2)) == 1", "expected an integer >= 0 for shuffle(n)"},
      {"check min([]) == 1", "min of an empty list"},
      {"check degree(poly(\"x0 - x0\", vars = 1)) == 1", "degree of the zero polynomial"},
      {"check layers(mixer(layers = [1, 2], tokens = 2, width = 2)) == 1", "gives 2 values here"},
      {"let net = mixer(layers = 1, tokens = 2, width = 2)\n  check layers(permute(net, [0, 0, 1, 2])) == 1",
       "permute: the list is not a permutation"},
      {"let net = attention(layers = 1, width = 2, heads = 1, tokens = 2)\n  check width(wide_sparse(net)) == 1",
       "is an attention layer"},
      {"let p = poly(\"x0*x1\", vars = 2)\n  check sep(p; half; methods = blackbox) == 1", "needs a network"},
      {"check bound(\"LV Thm 3\", arch = mixer, layers = 1, width = 2, tokens = 2) == 1", "does not apply to mixer"},
      {"check layers(model(\"no-such-file.json\")) == 1", "no-such-file.json"},
      {"check matmul([[1, 2]], [[1, 2]]) == [[1]]", "matmul: a 1 x 2 matrix times a 1 x 2 one"},
      {"check sum(3) == 3", "sum: expected a list"},
      {"check transpose([[1, 2], [3]]) == [[1]]", "rows of 2 and 1 entries"},
      {"check sum(k for k in 3) == 3", "expected a list after 'in'"},
      {"check [1, 2] <= [1, 2]", "lists can only be compared with == and !="},
      {"check sum(k for half in 1..3) == 3", "not reserved"},
      {"let I = 3\n  check I == 3", "not reserved"},
      {"check layers(wide_sparse(model(\"../gaussian.json\"))) == 1", "Gaussian weights"},
      {"check bound(\"NB Thm 5.5\", model(\"../branches.json\")) >= 1", "is not known"},
      {"check bound(\"NB Thm 5.5\", mixer(layers = 1, tokens = 2, width = 2, permuted = true, perm_sum = 2)) >= 1",
       "is not known"},
      {"check layers(attention(layers = 1, width = 2, heads = 1, tokens = 2, permuted = true)) == 1", "permuted"},
  };
  for (const auto& b : bad) {
    INFO(b.body);
    std::string m;
    try {
      m = run_message(b.body);
    } catch (const InputError& e) {  // a model file is read when the claim file is loaded
      m = e.what();
    }
    CHECK_THAT(m, Catch::Contains(b.message));
  }
}

TEST_CASE("claim functions: binom and multiset and the lemmas of K refuse a non-integer (naming the line)", "[claims][language]") {
  // binom(5/2, 1) was [ceil(5/2), floor(5/2)] -> [binom(3, 1), binom(2, 1)] = [3, 2], an
  // inverted interval, so `<= 2` and `>= 3` both passed (issue 29, item 4).
  struct Bad {
    const char* body;
    const char* message;
  };
  const std::vector<Bad> bad = {
      {"check binom(5/2, 1) <= 2", "case.np:2:9: binom(n, k): n must be an integer, got 5/2"},
      {"check binom(5/2, 1) >= 3", "case.np:2:9: binom(n, k): n must be an integer, got 5/2"},
      {"check multiset(5/2, 1) >= 3", "case.np:2:9: multiset(n, k): n must be an integer, got 5/2"},
      {"check binom(log3(10), 1) >= 2", "case.np:2:9: binom(n, k): n is a real number known only as an enclosure"},
      {"check binom(5, 1/2) >= 2", "case.np:2:9: binom(n, k): k must be an exact integer >= 0"},
      {"check bound(\"NB Lemma 5.2 (iv)\", K = 5/2) >= 3", "case.np:2:9: bound(\"NB Lemma 5.2 (iv)\"): K must be an integer, got 5/2"},
      {"check bound(\"NB Lemma 5.4\", n = 2, K = 7/2) >= 3", "K must be an integer, got 7/2"},
  };
  for (const auto& b : bad) {
    INFO(b.body);
    CHECK_THAT(run_message(b.body), Catch::Contains(b.message));
  }
  // an integer written as a fraction, and floor/ceil of a real, are fine: binom(6/2, 1) = 3,
  // binom(floor(log3(10)), 2) = binom(2, 2) = 1
  CHECK(run_body("check binom(6/2, 1) == 3\n  check binom(floor(log3(10)), 2) == 1\n  check multiset(4/2, 2) == 3")
            .verdict == Verdict::pass);
}
