// What the check_journal fuzz target checks (fuzz_check_journal.cpp), shared
// with its regression test (tests/test_claim_journal.cpp runs every seed and
// every file of tests/data/fuzz-regressions/check_journal/ through it).
//
// The input is a check journal (JSON lines) for the two claims below, read
// and judged as `check --resume` does: read_claim_journal, then
// judge_claim_entry against each claim. In the input, @BUILD@, @SHA_PLAIN@,
// @SHA_SOME@, @FP_PLAIN@ and @FP_SOME@ stand for this build and the claims'
// hashes and fingerprints, so that the fuzzer reaches the judgement. A
// netpoly::Error is the documented answer to a malformed journal; an entry
// that is accepted must hold up by checks made here independently of the
// judgement (its verdict recomputed from its counts, its counterexample
// failing, its identity the claim's), and print as text and strict JSON.
#pragma once
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "claims/report/claim_journal.hpp"
#include "claims/syntax/claim_parser.hpp"
#include "claims/report/claim_report.hpp"
#include "netpoly/error.hpp"
#include "runtime/sha256.hpp"
#include "netpoly/version.hpp"

namespace netpoly::fuzz_journal {

struct CheckFailed : std::logic_error {
  using std::logic_error::logic_error;
};

inline void expect(bool ok, const std::string& what) {
  if (!ok) throw CheckFailed(what);
}

// The claims the journal is about: "plain" (no exists: its verdict is the
// worst instance's) and "some" (an exists: one witness suffices).
inline const char* const kJournalClaims =
    "claim \"plain\"\n  for n in 1..3\n  check n + n == 2 * n\n\n"
    "claim \"some\"\n  exists n in 1..3\n  check n == 2\n";

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t k = s.find(from); k != std::string::npos; k = s.find(from, k + to.size())) s.replace(k, from.size(), to);
}

// Returns how many (entry, claim) pairs were accepted.
inline std::size_t check_journal_input(const std::uint8_t* data, std::size_t size) {
  static const ClaimFile file = parse_claims(kJournalClaims, "claims.np", ".");
  static const CheckOptions options;
  std::string text(reinterpret_cast<const char*>(data), size);
  const Claim& plain = file.claims.at(0);
  const Claim& some = file.claims.at(1);
  replace_all(text, "@BUILD@", netpoly_build());
  replace_all(text, "@SHA_PLAIN@", sha256_hex(plain.source));
  replace_all(text, "@SHA_SOME@", sha256_hex(some.source));
  replace_all(text, "@FP_PLAIN@", claim_fingerprint(plain, options));
  replace_all(text, "@FP_SOME@", claim_fingerprint(some, options));
  std::vector<std::string> lines;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l) && lines.size() < 64;) lines.push_back(l);
  std::vector<ClaimJournalEntry> entries;
  try {
    entries = read_claim_journal(lines, "fuzz.jsonl");
  } catch (const Error&) {
    return 0;
  }
  std::size_t accepted = 0;
  for (const auto& e : entries) {
    for (const Claim* c : {&plain, &some}) {
      ClaimResult r;
      const std::string why = judge_claim_entry(e, *c, claim_fingerprint(*c, options), r);
      if (!why.empty()) continue;
      ++accepted;
      // Accepted: it is this claim's, and it holds up.
      expect(e.build == netpoly_build() && e.claim_sha256 == sha256_hex(c->source), "accepted another build or text");
      expect(r.title == c->title && r.file == c->loc.file && r.loc.line == c->loc.line, "accepted another claim");
      if (!r.error) {
        expect(r.passed + r.passed_probabilistic + r.failed + r.inconclusive == r.instances, "counts do not add up");
        if (c == &plain) {
          const Verdict want = r.failed ? Verdict::fail
                               : r.inconclusive ? Verdict::inconclusive
                               : r.passed_probabilistic ? Verdict::pass_probabilistic
                               : r.passed ? Verdict::pass
                                          : Verdict::inconclusive;
          expect(r.verdict == want, "a verdict that its counts contradict");
          expect(!r.report || r.verdict != Verdict::pass, "a PASS of a claim without exists that has a report");
        }
        if (r.verdict == Verdict::pass) expect(r.passed > 0, "a PASS without a passed instance");
        if (r.verdict == Verdict::fail) {
          bool failing = false;
          if (r.report)
            for (const auto& ch : r.report->checks) failing = failing || ch.verdict == Verdict::fail;
          expect(failing, "a FAIL without a failing check");
        }
      }
      // It prints, as text and as strict UTF-8 JSON, and reads back the same.
      std::ostringstream os;
      write_claim_text(os, r);
      const nlohmann::json j = claim_json(r);
      try {
        (void)j.dump();
      } catch (const nlohmann::json::exception& x) {
        throw CheckFailed(std::string("an accepted entry is not strict UTF-8 JSON: ") + x.what());
      }
      expect(claim_json(claim_from_json(j, c->loc.file)) == j, "an accepted entry does not read back the same");
    }
  }
  return accepted;
}

}  // namespace netpoly::fuzz_journal
