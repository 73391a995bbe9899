// The statements registry (docs/statements.md): its parser against the
// format at the top of that file (every rule a malformed line breaks, named
// by its line), where `check --coverage` finds it, and each statement's state
// against claim files; and the repository's own registry stays readable.
#include <catch2/catch.hpp>
#include <string>

#include "claims/syntax/claim_parser.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "claims/report/statements.hpp"

using namespace netpoly;

namespace {

const std::string kEntry =
    "## T: paper\n"
    "\n"
    "### T Lemma 1\n"        // line 3
    "- source: §1\n"         // 4
    "- statement: s.\n"      // 5
    "- quantifier: none\n"   // 6
    "- status: checked\n"    // 7
    "- claims:\n"            // 8
    "  - \"a claim\"\n";     // 9

std::string message(const std::string& text) {
  try {
    parse_statements(text, "reg.md");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("statements: an entry is parsed field by field", "[claims][statements]") {
  const auto reg = parse_statements(kEntry + "\n### T Def 1\n- source: §2\n- statement: d.\n- quantifier: none\n"
                                             "- status: not checkable\n- reason: a definition.\n- related:\n"
                                             "  - \"a claim\"\n- notes: n.\n",
                                    "reg.md");
  REQUIRE(reg.entries.size() == 2);
  const auto& e = reg.entries[0];
  CHECK(e.id == "T Lemma 1");
  CHECK(e.paper == "T");
  CHECK(e.line == 3);
  CHECK(e.source == "§1");
  CHECK(e.status == "checked");
  REQUIRE(e.claims.size() == 1);
  CHECK(e.claims[0].title == "a claim");
  CHECK(e.claims[0].line == 9);
  const auto& d = reg.entries[1];
  CHECK(d.reason == "a definition.");
  CHECK(d.notes == "n.");
  REQUIRE(d.related.size() == 1);
  CHECK(d.claims.empty());
}

TEST_CASE("statements: every malformed line is named", "[claims][statements]") {
  struct Bad {
    std::string text;
    const char* message;
  };
  const std::vector<Bad> bad = {
      {replaced(kEntry, "- quantifier: none\n- status: checked\n", "- status: checked\n- quantifier: none\n"),
       "reg.md:7: the key 'quantifier' comes after 'status'"},
      {replaced(kEntry, "- source: §1\n", "- source: §1\n- source: §2\n"), "reg.md:5: the key 'source' appears twice"},
      {replaced(kEntry, "- source: §1\n", "- origin: §1\n"), "reg.md:4: unknown key 'origin'"},
      {replaced(kEntry, "- status: checked\n", "- status: done\n"), "reg.md:7: status 'done'"},
      {replaced(kEntry, "- quantifier: none\n", "- quantifier: most weights\n"), "reg.md:6: quantifier 'most weights'"},
      {replaced(kEntry, "  - \"a claim\"\n", "  - a claim\n"), "reg.md:9: expected a claim title in double quotes"},
      {replaced(kEntry, "- claims:\n  - \"a claim\"\n", "- claims:\n"), "reg.md:3: T Lemma 1 is 'checked' but lists no claim"},
      {replaced(kEntry, "- claims:\n", "- claims: a claim\n"), "reg.md:8: '- claims:' is followed by one '  - \"TITLE\"' line"},
      {replaced(kEntry, "- source: §1\n", ""), "reg.md:3: the entry T Lemma 1 has no '- source:' line"},
      {replaced(kEntry, "- statement: s.\n", "- statement: s.\nsome prose\n"), "reg.md:6: expected '- key: value'"},
      {replaced(kEntry, "- status: checked\n- claims:\n  - \"a claim\"\n", "- status: not checkable\n"),
       "reg.md:3: T Lemma 1 is 'not checkable' but gives no '- reason:'"},
      {replaced(kEntry, "- status: checked\n", "- status: not checkable\n- reason: r.\n"),
       "reg.md:3: T Lemma 1 lists claims but is 'not checkable'"},
      {replaced(kEntry, "- status: checked\n- claims:\n  - \"a claim\"\n", "- status: checked\n- needs: det\n- claims:\n  - \"a claim\"\n"),
       "reg.md:3: T Lemma 1 has '- needs:' or '- proposal:' but is 'checked'"},
      {replaced(kEntry, "  - \"a claim\"\n", "  - \"a claim\"\n- unquantified: an identity.\n"),
       "reg.md:3: T Lemma 1 has '- unquantified:' but is not a checked statement about every (or almost every) weight"},
      {kEntry + "\n### T Lemma 1\n", "reg.md:11: the id 'T Lemma 1' is already used at line 3"},
      {"## T: nothing here\n\nprose\n", "reg.md: no statements"},
  };
  for (const auto& b : bad) {
    INFO(b.text);
    CHECK_THAT(message(b.text), Catch::Contains(b.message));
  }
  CHECK(message(kEntry) == "(no error)");
}

TEST_CASE("statements: each statement's state against the claims of the files checked", "[claims][statements]") {
  const std::string dir = std::string(NETPOLY_SOURCE_DIR) + "/tests/data/claims/statements";
  const auto reg = read_statements(dir + "/docs/statements.md");
  REQUIRE(reg.entries.size() == 5);  // the fenced "### not an entry" is an example, not an entry
  std::vector<ClaimFile> files = {parse_claim_file(dir + "/proofs/one.np")};
  ClaimResult ran;
  ran.file = files[0].claims[0].loc.file;
  ran.title = "one plus one";
  ran.verdict = Verdict::pass;
  const auto cov = statement_coverage(reg, files, {ran});
  REQUIRE(cov.size() == 5);
  CHECK(cov[0].state == StatementState::checked);  // T Lemma 1: its one claim exists
  CHECK(cov[0].claims[0].verdict == "PASS");
  CHECK(cov[0].claims[0].line == 2);
  CHECK(cov[1].state == StatementState::no_claim);  // T Lemma 2: checkable, no needs: a failure
  CHECK(cov[2].state == StatementState::blocked);   // T Lemma 3: frobnicate and mixer's colour do not exist
  CHECK(cov[2].blocked_on == std::vector<std::string>{"frobnicate", "mixer colour"});
  CHECK(cov[3].state == StatementState::not_checkable);
  CHECK(cov[4].state == StatementState::missing_claims);  // "two plus two" is in no file
  CHECK_FALSE(cov[4].claims[1].found);
  CHECK(statement_state_fails(cov[1].state));
  CHECK(statement_state_fails(cov[4].state));
  CHECK_FALSE(statement_state_fails(cov[2].state));
  // Not run (--filter): the claim exists, its verdict is "not run".
  CHECK(statement_coverage(reg, files, {})[0].claims[0].verdict == "not run");
}

// A checked statement about every (almost every) weight assignment whose
// claims carry no matching weight quantifier is unmatched, and checked on
// drawn weights only when no claim has a quantifier at all: `for every
// weight` matches both quantifiers (it is the stronger statement), `for
// almost every weight` only "almost every". Unmatched without a `-
// unquantified:` reason is a failure (state unquantified); with one, checked.
TEST_CASE("statements: a statement about every weight checked only on drawn weights needs a reason", "[claims][statements]") {
  auto entry = [](const std::string& id, const std::string& quantifier, const std::string& claim,
                  const std::string& reason = "") {
    return "### " + id + "\n- source: §1\n- statement: s.\n- quantifier: " + quantifier +
           "\n- status: checked\n- claims:\n  - \"" + claim + "\"\n" +
           (reason.empty() ? "" : "- unquantified: " + reason + "\n") + "\n";
  };
  const auto reg = parse_statements("## T: paper\n\n" + entry("T Thm 1", "every weight assignment", "every") +
                                        entry("T Thm 2", "every weight assignment", "drawn") +
                                        entry("T Thm 3", "every weight assignment", "almost") +
                                        entry("T Thm 4", "almost every weight assignment", "every") +
                                        entry("T Thm 5", "almost every weight assignment", "almost") +
                                        entry("T Thm 6", "almost every weight assignment", "drawn") +
                                        entry("T Thm 7", "none", "drawn") +
                                        entry("T Thm 8", "every weight assignment", "drawn", "an identity."),
                                    "reg.md");
  auto claim = [](const std::string& title, const std::string& clause) {
    return "claim \"" + title + "\"\n  for net in attention(layers = 1, width = 2, heads = 1, tokens = 2)\n" + clause +
           "  check sep(net; half) <= 3\n\n";
  };
  const std::vector<ClaimFile> files = {parse_claims(claim("every", "  for every weight\n") +
                                                         claim("almost", "  for almost every weight\n") +
                                                         claim("drawn", ""),
                                                     "t.np", ".")};
  const auto cov = statement_coverage(reg, files, {});
  REQUIRE(cov.size() == 8);
  // T Thm 3: every weight, its claim under almost every weight: unmatched, not drawn-only.
  const std::vector<bool> unmatched = {false, true, true, false, false, true, false, true};
  const std::vector<bool> drawn_only = {false, true, false, false, false, true, false, true};
  for (std::size_t i = 0; i < cov.size(); ++i) {
    INFO(cov[i].entry->id);
    // Unmatched without a reason fails; T Thm 8 gives its reason.
    const bool fails = unmatched[i] && i != 7;
    CHECK(cov[i].state == (fails ? StatementState::unquantified : StatementState::checked));
    CHECK(statement_state_fails(cov[i].state) == fails);
    CHECK(cov[i].unmatched == unmatched[i]);
    CHECK(cov[i].drawn_only == drawn_only[i]);
  }
  CHECK(cov[7].entry->unquantified == "an identity.");
  CHECK(cov[0].claims[0].weights == "every weight");
  CHECK(cov[2].claims[0].weights == "almost every weight");
  CHECK(cov[1].claims[0].weights.empty());
}

TEST_CASE("statements: a need is met when the language has the function (and its option)", "[claims][statements]") {
  CHECK(claim_language_has("sep"));
  CHECK(claim_language_has("mixer residual"));
  CHECK_FALSE(claim_language_has("mixer colour"));
  CHECK_FALSE(claim_language_has("frobnicate"));
}

TEST_CASE("statements: the registry is found next to the checked paths", "[claims][statements]") {
  const std::string dir = std::string(NETPOLY_SOURCE_DIR) + "/tests/data/claims/statements";
  const std::string want = "tests/data/claims/statements/docs/statements.md";
  auto ends_with = [](const std::string& s, const std::string& t) {
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
  };
  CHECK(ends_with(find_statements_file(dir + "/proofs"), want));          // the directory above
  CHECK(ends_with(find_statements_file(dir + "/proofs/one.np"), want));   // a file's directory, then above
  CHECK(ends_with(find_statements_file(dir), want));                      // the path itself
  // Above the test data: the repository's own registry, and no further than its root.
  CHECK(ends_with(find_statements_file(std::string(NETPOLY_SOURCE_DIR) + "/proofs"), "docs/statements.md"));
}

TEST_CASE("statements: the repository's registry parses and every title it names is a claim of proofs/", "[claims][statements]") {
  const auto reg = read_statements(std::string(NETPOLY_SOURCE_DIR) + "/docs/statements.md");
  CHECK(reg.entries.size() >= 115);
  const auto files = load_claim_paths({std::string(NETPOLY_SOURCE_DIR) + "/proofs"});
  for (const auto& c : statement_coverage(reg, files, {})) {
    INFO(c.entry->id << " (docs/statements.md:" << c.entry->line << ")");
    CHECK_FALSE(statement_state_fails(c.state));
  }
}
