// The check journal (claim_journal.cpp) and strings from outside on terminal
// lines and in XML (text_escape.cpp): hand-worked cases, published SHA-256
// vectors, real claim results read back through the journal, and the
// check_journal fuzz target's seeds (fuzz/seeds/check_journal/).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../fuzz/fuzz_check_journal.hpp"
#include "claims/report/claim_journal.hpp"
#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "runtime/sha256.hpp"
#include "runtime/text_escape.hpp"
#include "netpoly/version.hpp"

using namespace netpoly;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string text_of(const ClaimResult& r) {
  std::ostringstream os;
  write_claim_text(os, r);
  return os.str();
}

// Claim c's result written to a journal line and judged against c.
std::string judged(const Claim& c, const ClaimResult& r, ClaimResult& back, const std::string& edit_from = "",
                   const std::string& edit_to = "") {
  const CheckOptions o;
  std::string line = claim_journal_line(c, claim_fingerprint(c, o), r);
  if (!edit_from.empty()) {
    const auto k = line.find(edit_from);
    REQUIRE(k != std::string::npos);
    line.replace(k, edit_from.size(), edit_to);
  }
  const auto entries = read_claim_journal({line}, "j.jsonl");
  REQUIRE(entries.size() == 1);
  return judge_claim_entry(entries[0], c, claim_fingerprint(c, o), back);
}

}  // namespace

TEST_CASE("sha256: the FIPS 180-4 example vectors", "[journal]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("printable: control characters, separators and invalid UTF-8 shown escaped", "[journal][text]") {
  CHECK(printable("plain title, § ≤ 3 \\sigma") == "plain title, § ≤ 3 \\sigma");
  CHECK(printable("a\rb\nc\td") == "a\\rb\\nc\\td");
  CHECK(printable("x\r::error::y") == "x\\r::error::y");
  CHECK(printable("\x1b[31mred\x7f") == "\\x1b[31mred\\x7f");
  CHECK(printable(std::string("nul\0end", 7)) == "nul\\x00end");
  CHECK(printable("\xc2\x85next \xe2\x80\xa8line \xe2\x80\xa9par \xe2\x80\xaeltr") == "\\u0085next \\u2028line \\u2029par \\u202Eltr");
  CHECK(printable("\xef\xbf\xbe\xef\xbf\xbf") == "\\uFFFE\\uFFFF");
  // invisible format characters (category Cf): U+FEFF, zero-width space/joiners, word joiner, a tag (issue 38)
  CHECK(printable("\xef\xbb\xbfPASS \xe2\x80\x8bx\xe2\x80\x8d\xe2\x81\xa0\xf3\xa0\x81\x81") ==
        "\\uFEFFPASS \\u200Bx\\u200D\\u2060\\U000E0041");
  CHECK(printable("bad\xff\xfe.np") == "bad\\xff\\xfe.np");
  CHECK(printable("\xc0\xaf overlong, \xed\xa0\x80 surrogate, \xe2\x82 cut") ==
        "\\xc0\\xaf overlong, \\xed\\xa0\\x80 surrogate, \\xe2\\x82 cut");
  CHECK(printable("\xf0\x9f\x99\x82") == "\xf0\x9f\x99\x82");
  CHECK(printable_line_start("::error::x") == "\\x3a:error::x");
  CHECK(printable_line_start("##[error]x") == "\\x23#[error]x");
  CHECK(printable_line_start("#:x") == "#:x");
  // Nothing printable() gives starts a new line.
  for (int c = 0; c < 256; ++c) {
    const std::string s = printable(std::string(1, static_cast<char>(c)) + "::error::x");
    CHECK(s.find_first_of("\r\n") == std::string::npos);
  }
}

TEST_CASE("xml_text: XML 1.0's characters kept, the rest shown escaped", "[journal][text]") {
  CHECK(xml_text("a < b & \"c\" 'd' > e") == "a &lt; b &amp; &quot;c&quot; &apos;d&apos; &gt; e");
  CHECK(xml_text("line\nnext\ttab\rcr") == "line\nnext\ttab&#13;cr");
  CHECK(xml_text("\x01\x1b") == "\\x01\\x1b");
  CHECK(xml_text("\xef\xbf\xbe \xef\xbf\xbf \xef\xbf\xbd") == "\\uFFFE \\uFFFF \xef\xbf\xbd");
  CHECK(xml_text("bad\xff.np") == "bad\\xff.np");
  CHECK(is_utf8("§ ≤ \xf0\x9f\x99\x82"));
  CHECK_FALSE(is_utf8("bad\xff"));
  CHECK_FALSE(is_utf8("\xed\xa0\x80"));
  CHECK_FALSE(is_utf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
}

TEST_CASE("journal: real results read back as they were, and are judged to hold", "[journal]") {
  const std::string dir = std::string(NETPOLY_SOURCE_DIR) + "/tests/data/claims/";
  const auto files = load_claim_paths({dir + "false.np", dir + "probabilistic.np", dir + "inconclusive.np",
                                       dir + "runtime-error.np", dir + "pass/lemmas.np"});
  CheckOptions o;
  int n = 0;
  for (const auto& f : files)
    for (const auto& c : f.claims) {
      INFO(c.title);
      const ClaimResult r = run_claim(c, o);
      const ClaimResult again = claim_from_json(claim_json(r), c.loc.file);
      CHECK(claim_json(again) == claim_json(r));
      CHECK(text_of(again) == text_of(r));
      ClaimResult back;
      CHECK(judged(c, r, back) == "");
      CHECK(text_of(back) == text_of(r));
      ++n;
    }
  CHECK(n >= 7);
}

TEST_CASE("journal: an entry that does not hold up is named with why", "[journal]") {
  const ClaimFile f = parse_claims(
      "claim \"plain\"\n  for n in 1..3\n  check n + n == 3 * n\n\nclaim \"some\"\n  exists n in 1..3\n  check n == 2\n",
      "c.np", ".");
  const Claim& plain = f.claims[0];
  const Claim& some = f.claims[1];
  const CheckOptions o;
  const ClaimResult fail = run_claim(plain, o);
  REQUIRE(fail.verdict == Verdict::fail);
  ClaimResult back;
  CHECK(judged(plain, fail, back, "\"title\":\"plain\",\"verdict\":\"FAIL\"", "\"title\":\"plain\",\"verdict\":\"PASS\"") ==
        "verdict PASS, but its counts say FAIL (3 instances: 0 passed, 0 passed (probabilistic), 3 failed, 0 inconclusive)");
  CHECK(judged(plain, fail, back, "\"build\":\"", "\"build\":\"x") ==
        "written by netpoly x" + netpoly_build() + ", this is netpoly " + netpoly_build());
  CHECK(judged(plain, fail, back, "\"failed\":3", "\"failed\":3.0").rfind("its result is malformed (result.failed", 0) == 0);
  CHECK(judged(plain, fail, back, "\"failed\":3", "\"failed\":-3").rfind("its result is malformed (result.failed", 0) == 0);
  CHECK(judged(plain, fail, back, "\"line\":1,", "\"line\":2,") == "its result is at line 2, the claim at line 1");
  CHECK(judged(plain, fail, back, "\"notes\":[]", "\"notes\":[],\"extra\":1") ==
        "its result holds what this netpoly does not write");
  // With an exists, a PASS may have failed instances (the values before its witness).
  const ClaimResult pass = run_claim(some, o);
  REQUIRE(pass.verdict == Verdict::pass);
  REQUIRE(pass.failed == 1);
  CHECK(judged(some, pass, back) == "");
  CHECK(judged(some, pass, back, "\"passed\":1", "\"passed\":0").rfind("its counts do not add up", 0) == 0);
  // A claim whose text changed.
  ClaimFile g = f;
  g.claims[0].source += "  check n >= 1\n";
  CHECK(judged(plain, fail, back).empty());
  const std::string line = claim_journal_line(plain, claim_fingerprint(plain, o), fail);
  const auto e = read_claim_journal({line}, "j.jsonl");
  CHECK(judge_claim_entry(e[0], g.claims[0], claim_fingerprint(g.claims[0], o), back) == "the claim's text changed since");
}

TEST_CASE("journal: a claim file's path that is not UTF-8 is kept byte for byte", "[journal]") {
  const std::string path = "bad\xff\xfe.np";
  const ClaimFile f = parse_claims("claim \"t\"\n  check 1 + 1 == 3\n", path, ".");
  const ClaimResult r = run_claim(f.claims[0], CheckOptions());
  const std::string line = claim_journal_line(f.claims[0], claim_fingerprint(f.claims[0], CheckOptions()), r);
  CHECK(is_utf8(line));
  const auto e = read_claim_journal({line}, "j.jsonl");
  CHECK(e.at(0).file == path);
  ClaimResult back;
  CHECK(judge_claim_entry(e[0], f.claims[0], claim_fingerprint(f.claims[0], CheckOptions()), back) == "");
  CHECK(back.file == path);
}

TEST_CASE("journal: the check_journal fuzz target's seeds", "[journal][reliability]") {
  const fs::path seeds = fs::path(NETPOLY_SOURCE_DIR) / "fuzz/seeds/check_journal";
  int n = 0;
  for (const auto& s : fs::directory_iterator(seeds)) {
    INFO(s.path().string());
    const std::string bytes = slurp(s.path());
    std::size_t accepted = 0;
    CHECK_NOTHROW(accepted = fuzz_journal::check_journal_input(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                               bytes.size()));
    // The genuine entries (their placeholders filled in) reach the judgement and hold up; the edited ones do not.
    const std::string name = s.path().filename().string();
    if (name == "both-genuine.jsonl") CHECK(accepted == 2);
    if (name == "plain-pass-with-a-failure.jsonl" || name == "some-pass-edited-to-fail.jsonl") CHECK(accepted == 0);
    ++n;
  }
  CHECK(n >= 3);
}
