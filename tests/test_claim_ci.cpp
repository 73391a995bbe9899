// Claim results for CI (claim_ci.cpp): what each verdict becomes in JUnit XML
// and in GitHub annotations, and the escaping of both. The reports as a
// whole are validated against tests/data/junit.xsd by tests/scripts/check_ci.sh.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"

using namespace netpoly;

namespace {

ClaimResult result(Verdict v, const std::string& title = "t") {
  ClaimResult r;
  r.file = "proofs/a.np";
  r.loc = {"proofs/a.np", 3, 1};
  r.title = title;
  r.verdict = v;
  r.instances = 1;
  return r;
}

// A FAIL whose counterexample fails at line 9.
ClaimResult failed() {
  ClaimResult r = result(Verdict::fail);
  InstanceReport rep;
  rep.kind = "counterexample";
  rep.index = 2;
  rep.bindings = {{"n", "4"}};
  rep.checks.push_back({{"proofs/a.np", 8, 3}, "check n >= 1", Verdict::pass, "", {}});
  rep.checks.push_back({{"proofs/a.np", 9, 3}, "check n < 3", Verdict::fail, "", {{"n", "4"}}});
  r.report = rep;
  return r;
}

}  // namespace

TEST_CASE("ci: each verdict's outcome, and the line it points at", "[claims][ci]") {
  const ClaimOutcome f = claim_outcome(failed(), false);
  CHECK(!f.passed);
  CHECK(f.kind == "FAIL");
  CHECK(f.line == 9);  // the failing check, not the claim's line 3
  CHECK(f.reason == "counterexample (instance 2): n = 4; line 9: check n < 3 -> FAIL");
  CHECK_THAT(f.details, Catch::Contains("counterexample (instance 2):"));
  ClaimResult p = result(Verdict::pass_probabilistic);
  p.failure_probability = 2.5e-13;
  CHECK(claim_outcome(p, false).passed);
  CHECK(!claim_outcome(p, true).passed);
  CHECK(claim_outcome(p, false).reason == "passed with failure probability <= 2.5e-13");
  ClaimResult e = result(Verdict::inconclusive);
  e.error = true;
  e.error_message = "proofs/a.np:7:12: variable x9 out of range";
  CHECK(!claim_outcome(e, false).passed);
  CHECK(claim_outcome(e, false).kind == "ERROR");
  CHECK(claim_outcome(e, false).line == 7);
  CHECK(claim_outcome(result(Verdict::pass), true).passed);
  CHECK(claim_outcome(result(Verdict::inconclusive), false).reason == "not decided");
}

TEST_CASE("ci: GitHub annotations escape their properties and message", "[claims][ci]") {
  ClaimResult f = failed();
  f.title = "50%: a, b";
  const std::string a = github_annotation(f, false);
  // one line; ':' and ',' in the title escaped; '%' first
  CHECK(a.find('\n') == std::string::npos);
  CHECK(a.rfind("::error file=proofs/a.np,line=9,title=FAIL%3A 50%25%3A a%2C b::counterexample (instance 2): n = 4;", 0) ==
        0);
  CHECK_THAT(a, Catch::Contains("%0A"));  // the counterexample's lines
  f.title = "\x1b[31mred\tt\xef\xbb\xbf";  // ESC, TAB and U+FEFF reached the log raw before (issue 38)
  CHECK(github_annotation(f, false).rfind("::error file=proofs/a.np,line=9,title=FAIL%3A \\x1b[31mred\\tt\\uFEFF::", 0) == 0);
  CHECK(github_annotation(result(Verdict::pass), false).empty());
  ClaimResult p = result(Verdict::pass_probabilistic);
  CHECK(github_annotation(p, false).rfind("::notice ", 0) == 0);
  CHECK(github_annotation(p, true).rfind("::error ", 0) == 0);
  ClaimResult e = result(Verdict::inconclusive);
  e.error = true;
  e.error_message = "x";
  CHECK(github_annotation(e, false).rfind("::error file=proofs/a.np,line=3,", 0) == 0);
  CHECK(github_error("./p/m.np:4:30: expected a number") ==
        "::error file=p/m.np,line=4,title=netpoly check::./p/m.np:4:30: expected a number");
  CHECK(github_error("no claims in the given files") == "::error title=netpoly check::no claims in the given files");
}

TEST_CASE("ci: JUnit test cases per verdict, XML escaped", "[claims][ci]") {
  CheckRun run;
  ClaimResult pass = result(Verdict::pass, "a < b & \"c\" \x01");
  run.results = {pass, failed()};
  run.texts = {"PASS  a < b\n", "FAIL  t\n    counterexample\n"};
  Claim later;
  later.title = "later";
  later.loc = {"proofs/b.np", 5, 1};
  run.not_run = {&later};
  run.not_run_reason = "not run: --fail-fast";
  run.timestamp = "2024-01-02T03:04:05";
  std::ostringstream os;
  write_junit(os, run);
  const std::string x = os.str();
  CHECK_THAT(x, Catch::Contains("<testsuites name=\"netpoly check\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""));
  CHECK_THAT(x, Catch::Contains("name=\"a &lt; b &amp; &quot;c&quot; \\x01\" classname=\"proofs.a\" file=\"proofs/a.np\" line=\"3\""));
  CHECK(x.find('\x01') == std::string::npos);
  CHECK_THAT(x, Catch::Contains("<failure type=\"FAIL\" message=\"counterexample (instance 2): n = 4; line 9: check n &lt; 3 -&gt; FAIL\">FAIL  t\n    counterexample\n</failure>"));
  CHECK_THAT(x, Catch::Contains("<testsuite name=\"proofs/b.np\" id=\"1\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""));
  CHECK_THAT(x, Catch::Contains("<skipped message=\"not run: --fail-fast\"/>"));
  CHECK_THAT(x, Catch::Contains("timestamp=\"2024-01-02T03:04:05\""));
}
