// The generic separation rank of a shape (generic.hpp, docs/math.md): a
// degenerate draw whose sep is below the shape's gsep, where the generic
// analysis reports the bracket that contains gsep, and claims' weight
// quantifiers (`for every weight`, `for almost every weight`) with each verdict.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"

using namespace netpoly;

namespace {

// attention L = 2, d = 2, H = 1, N = 4: `netpoly make attention --layers 2
// --width 2 --heads 1 --tokens 4 --seed 1 --weights small` (weights in [-3, 3]).
PresetOptions shape_options(WeightDist w, std::uint64_t seed) {
  return preset_options({.arch = Arch::attention, .layers = 2, .width = 2, .heads = 1, .tokens = 4}, seed, 0, w);
}

const MethodRun* run_of(const SepResult& r, Method m) {
  for (const auto& x : r.runs)
    if (x.method == m && x.value) return &x;
  return nullptr;
}

}  // namespace

TEST_CASE("a degenerate draw: sep 0 where the shape's generic sep is 18, and the generic bracket", "[generic]") {
  const Model drawn = make_preset(shape_options(WeightDist::small, 1));
  const Entry e{0, 1};
  const Partition P = parse_partition("A=0,1", 4, 2);

  // This draw's y0_1 is the zero polynomial (expanded here), so its sep is 0.
  PolyRing R(static_cast<slong>(drawn.num_inputs()));
  CHECK(expand(R, drawn, {e})[0].is_zero());
  SepOptions plain;
  plain.blackbox_seed = 5;
  const SepResult d = analyse_network(drawn, {e}, {P}, plain).at(0);
  REQUIRE(d.upper.value);
  CHECK(*d.upper.value == 0);

  // gsep of the shape = 18, from two facts independent of the black-box:
  //  * upper: gram's weight-independent bound (details.generic_bound: the
  //    representation and monomial counts of the shape, docs/math.md §4.2)
  //    is 18, and it bounds sep for every weight assignment;
  //  * lower: the exact rank over Q of an independent draw with generic
  //    weights (seed 2, nonzero in [-2^10, 2^10]) is 18, and every draw's sep
  //    is at most gsep (lower semicontinuity).
  const Model generic_draw = make_preset(shape_options(WeightDist::generic, 2));
  SepOptions gram;
  gram.methods = {Method("gram")};
  const SepResult g = analyse_network(generic_draw, {e}, {P}, gram).at(0);
  const MethodRun* gr = run_of(g, Method("gram"));
  REQUIRE(gr);
  const std::size_t gram_generic = std::stoull(gr->details.at("generic_bound").get<std::string>());
  SepOptions exact;
  exact.methods = {Method::exact};
  const SepResult x = analyse_network(generic_draw, {e}, {P}, exact).at(0);
  REQUIRE(x.status == BracketStatus::exact);
  const std::size_t gsep = *x.lower.value;
  CHECK(gram_generic == gsep);
  CHECK(gsep == 18);

  // The generic analysis of the degenerate draw's shape (its weights play no
  // part). With support and the black-box only: a certified bracket containing
  // gsep, above the draw's sep, and the black-box's probabilistic value equal to gsep.
  SepOptions gen;
  gen.generic = true;
  gen.blackbox_seed = 11;
  gen.methods = {Method::support, Method::blackbox};
  const SepResult r = analyse_network(drawn, {e}, {P}, gen).at(0);
  CHECK(r.generic);
  CHECK(quantity_name(r) == "generic sep of this shape");
  REQUIRE(r.lower.value);
  REQUIRE(r.upper.value);
  CHECK(*r.lower.value > *d.upper.value);  // the draw's sep is below gsep
  CHECK(*r.lower.value <= gsep);
  CHECK(gsep <= *r.upper.value);
  CHECK(*r.upper.value > gsep);  // support alone does not close it (70, the test below)
  CHECK(r.status == BracketStatus::probabilistic);
  CHECK(*r.lower.value == gsep);
  CHECK(r.failure_probability > 0);
  CHECK(r.failure_probability < 1e-6);
  // The default generic plan adds gram's weight-independent bound: certified gsep = 18.
  SepOptions gen_default;
  gen_default.generic = true;
  gen_default.blackbox_seed = 11;
  const SepResult rd = analyse_network(drawn, {e}, {P}, gen_default).at(0);
  CHECK(rd.status == BracketStatus::exact);
  CHECK(*rd.lower.value == gsep);
  CHECK(*rd.upper.value == gsep);

  // The black-box's witness: an integer network whose own sep (exact, over Q)
  // is at least the witness value. It is what a failed "every weight" claim writes.
  const MethodRun* bb = run_of(r, Method::blackbox);
  REQUIRE(bb);
  REQUIRE(bb->witness);
  CHECK(bb->witness_value >= 1);
  SepOptions wo;
  wo.methods = {Method::exact};
  const SepResult w = analyse_network(*bb->witness, {e}, {P}, wo).at(0);
  REQUIRE(w.status == BracketStatus::exact);
  CHECK(*w.lower.value >= bb->witness_value);
  CHECK(*w.lower.value <= gsep);

  // The drawn network's exact rank is not an upper end for gsep: generic mode refuses exact.
  SepOptions bad = gen;
  bad.methods = {Method::exact};
  CHECK_THROWS_AS(analyse_network(drawn, {e}, {P}, bad), InputError);
}

namespace {

// Runs claim text (model paths relative to dir) and returns the one claim's result.
ClaimResult run_text(const std::string& text, const std::string& dir, const std::string& cex_dir = "") {
  const ClaimFile f = parse_claims(text, (std::filesystem::path(dir) / "t.np").string(), dir);
  REQUIRE(f.claims.size() == 1);
  CheckOptions o;
  o.counterexamples_dir = cex_dir;
  o.weight_counterexamples_default = (std::filesystem::path(dir) / "default-cex").string();
  return run_claim(f.claims[0], o);
}

}  // namespace

TEST_CASE("weight quantifiers in claims: every verdict", "[generic][claims]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("netpoly-test-generic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "att.json");
    f << write_model(make_preset(shape_options(WeightDist::small, 1)));
  }
  // gsep(y0_1; A = {0, 1}) = 18 (the test above); with the methods support
  // and blackbox the upper end is support's 70 (the test above: above 18;
  // PASS certified at 70 and only probabilistic at 69, below). The drawn
  // network's sep is 0.
  const std::string head = "  let net = model(\"att.json\")\n";
  const std::string sep = "sep(net[0, 1]; A = tokens 0, 1; methods = support, blackbox, seed = 3)";
  auto claim = [&](const std::string& quant, const std::string& check) {
    return "claim \"t\"\n" + head + "  for " + quant + " weight\n  check " + check + "\n";
  };
  SECTION("every: PASS certified from the weight-independent upper end") {
    const ClaimResult r = run_text(claim("every", sep + " <= 70"), dir.string());
    CHECK(r.verdict == Verdict::pass);
  }
  SECTION("every: PASS probabilistic when only the black-box's value decides it, with eps") {
    const ClaimResult r = run_text(claim("every", sep + " <= 69"), dir.string());
    CHECK(r.verdict == Verdict::pass_probabilistic);
    CHECK(r.failure_probability > 0);
    CHECK(r.failure_probability < 1e-6);
    const auto& j = claim_json(r);
    CHECK(j.at("failure_probability").get<double>() == r.failure_probability);
  }
  SECTION("every: FAIL certified with a counterexample model whose certified sep exceeds the bound") {
    const fs::path cex = dir / "cex";
    const ClaimResult r = run_text(claim("every", sep + " <= 5"), dir.string(), cex.string());
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.report);
    REQUIRE(r.report->checks.size() == 1);
    const CheckReport& c = r.report->checks[0];
    REQUIRE(!c.counterexample_file.empty());
    CHECK(fs::path(c.counterexample_file).parent_path() == cex);
    const Model m = read_model(c.counterexample_file);
    REQUIRE(m.output);
    CHECK(m.output->token == 0);
    CHECK(m.output->channel == 1);
    // Re-checked independently of the claim: its exact sep exceeds 5.
    SepOptions ex;
    ex.methods = {Method::exact};
    const SepResult s = analyse_network(m, {*m.output}, {parse_partition("A=0,1", 4, 2)}, ex).at(0);
    REQUIRE(s.status == BracketStatus::exact);
    CHECK(*s.lower.value > 5);
  }
  SECTION("every: of several pairs, the one that decides the FAIL is the counterexample (issue 38)") {
    // attention L2 d2 H1 N3, A = {0}: gsep(y0_0) = 16, gsep(y1_0) = 17, so
    // only y1_0 refutes "<= 16"; the first pair read (y0_0) does not.
    const std::string net3 = "  for n3 in attention(layers = 2, width = 2, heads = 1, tokens = 3)\n  for every weight\n";
    for (const std::string check : {"max_sep(n3; A = tokens 0) <= 16",
                                    "max(sep(n3[0, 0]; A = tokens 0), sep(n3[1, 0]; A = tokens 0)) <= 16"}) {
      INFO(check);
      const ClaimResult r = run_text("claim \"t\"\n" + net3 + "  check " + check + "\n", dir.string());
      CHECK(r.verdict == Verdict::fail);
      REQUIRE(r.report);
      const CheckReport& c = r.report->checks.at(0);
      REQUIRE(!c.counterexample_file.empty());
      const Model m = read_model(c.counterexample_file);
      REQUIRE(m.output);
      CHECK(*m.output == (Entry{1, 0}));
      CHECK(c.recheck.rfind("--partition A=0 ", 0) == 0);
      SepOptions ex;
      ex.methods = {Method::exact};
      const SepResult s = analyse_network(m, {*m.output}, {parse_partition("A=0", 3, 2)}, ex).at(0);
      REQUIRE(s.status == BracketStatus::exact);
      CHECK(*s.lower.value > 16);
    }
  }
  SECTION("every: FAIL without --counterexamples writes to the default directory") {
    const ClaimResult r = run_text(claim("every", sep + " < 1"), dir.string());
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.report);
    CHECK(fs::path(r.report->checks.at(0).counterexample_file).parent_path() == dir / "default-cex");
  }
  SECTION("every: a lower bound cannot pass for every weight (the zero weights); INCONCLUSIVE, saying why") {
    const ClaimResult r = run_text(claim("every", sep + " >= 5"), dir.string());
    CHECK(r.verdict == Verdict::inconclusive);
    REQUIRE(r.report);
    CHECK(r.report->checks.at(0).note.find("not decided") != std::string::npos);
  }
  SECTION("every: an equality a drawn network contradicts FAILS (its certified sep >= 18 is not 10)") {
    const ClaimResult r = run_text(claim("every", sep + " == 10"), dir.string());
    CHECK(r.verdict == Verdict::fail);
  }
  SECTION("almost every: PASS certified from the certified lower end") {
    const ClaimResult r = run_text(claim("almost every", sep + " >= 5"), dir.string());
    CHECK(r.verdict == Verdict::pass);
  }
  SECTION("almost every: PASS probabilistic for an equality, eps printed") {
    const ClaimResult r = run_text(claim("almost every", sep + " == 18"), dir.string());
    CHECK(r.verdict == Verdict::pass_probabilistic);
    CHECK(r.failure_probability > 0);
  }
  SECTION("almost every: FAIL certified from the weight-independent upper end") {
    const ClaimResult r = run_text(claim("almost every", sep + " >= 71"), dir.string());
    CHECK(r.verdict == Verdict::fail);
  }
  SECTION("almost every: INCONCLUSIVE when the bracket straddles the bound") {
    const ClaimResult r = run_text(claim("almost every", sep + " >= 40"), dir.string());
    CHECK(r.verdict == Verdict::inconclusive);
  }
  SECTION("negation keeps the label: != against the probabilistic value is at best probabilistic") {
    // gsep in [18, 70] holds 19; only the probabilistic value 18 says it differs
    const ClaimResult r = run_text(claim("almost every", sep + " != 19"), dir.string());
    CHECK(r.verdict == Verdict::pass_probabilistic);
  }
  SECTION("the drawn network's sep, without a quantifier, is 0") {
    const ClaimResult r = run_text("claim \"t\"\n" + head + "  check " + sep + " == 0\n", dir.string());
    CHECK(r.verdict == Verdict::pass);
  }
  SECTION("a degree under a quantifier runs at drawn weights (test_claim_draws.cpp); a polynomial has no weights") {
    const ClaimResult r = run_text(claim("every", "degree(net) <= 9"), dir.string());
    CHECK(r.verdict == Verdict::pass_probabilistic);
    const ClaimResult p = run_text("claim \"t\"\n  let f = poly(\"x0*x1\", vars = 2)\n  for every weight\n  check sep(f; A = x0) <= 1\n",
                                   dir.string());
    CHECK(p.error);
    CHECK(p.error_message.find("t.np:4:") != std::string::npos);
  }
  SECTION("the default generic plan (gram's weight-independent bound) certifies sep <= 18 for every weight") {
    const ClaimResult r =
        run_text(claim("every", "sep(net[0, 1]; A = tokens 0, 1) <= 18"), dir.string());
    CHECK(r.verdict == Verdict::pass);
    const ClaimResult f = run_text(claim("almost every", "sep(net[0, 1]; A = tokens 0, 1) == 18"), dir.string());
    CHECK(f.verdict == Verdict::pass);
  }
  SECTION("a method that speaks of one network is refused under a quantifier") {
    const ClaimResult r = run_text(claim("every", "sep(net[0, 1]; A = tokens 0, 1; methods = exact) <= 18"), dir.string());
    CHECK(r.error);
    CHECK(r.error_message.find("t.np:4:") != std::string::npos);
  }
  SECTION("parse errors name the line and column") {
    CHECK_THROWS_WITH(parse_claims("claim \"t\"\n  for every weight x\n  check 1 == 1\n", "t.np", "."),
                      Catch::Contains("t.np:2:"));
  }
  fs::remove_all(dir);
}
