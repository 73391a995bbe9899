// The journal of `netpoly check --journal FILE` (claim_journal.cpp): one JSON
// line per finished claim, and its judgement on --resume. An entry is reused
// only when it holds up, as `table --resume` judges its rows: written by this
// build, for the same claim text (SHA-256 of the claim as it is in its file),
// options and model files, and with a verdict that follows from its own
// counts and report. An entry that does not hold up is run again.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "claims/syntax/claim_parser.hpp"
#include "netpoly/claims.hpp"

namespace netpoly {

// A journal line as read; `result` is not judged yet.
struct ClaimJournalEntry {
  std::size_t line = 0;  // 1-based, in the journal
  std::string file;      // the claim file's path, byte for byte (not UTF-8 paths too)
  std::string title;
  std::string fingerprint;  // claim_fingerprint
  std::string claim_sha256;  // of Claim::source
  std::string build;         // netpoly_build() of the run that wrote it
  nlohmann::json result;     // claim_json of the result
};

// What a claim's result depends on besides its text: the options (--budget,
// --max-terms) and the content of every file it reads (SHA-256).
std::string claim_fingerprint(const Claim& c, const CheckOptions& o);

// The journal line (without its newline) for claim c's result.
std::string claim_journal_line(const Claim& c, const std::string& fingerprint, const ClaimResult& r);

// The lines of a journal (a torn last line already cut). A line that is not
// an entry (not JSON, no file, title, fingerprint or result) is an InputError
// naming `path` and the line.
std::vector<ClaimJournalEntry> read_claim_journal(const std::vector<std::string>& lines, const std::string& path);

// Whether entry e holds for claim c (whose fingerprint is fp): "" and the
// result in `out`, else why not ("written by netpoly X, this is netpoly Y",
// "the claim's text changed", "verdict PASS, but 5 of its 12 instances
// failed", ...).
std::string judge_claim_entry(const ClaimJournalEntry& e, const Claim& c, const std::string& fp, ClaimResult& out);

// The result a claim_json document describes (strictly: every count a
// non-negative integer, every verdict one of the four, ...); InputError
// otherwise. `file` is the claim file's path (claim_json may hold it lossily).
ClaimResult claim_from_json(const nlohmann::json& j, const std::string& file);

// "" when r's verdict follows from its own counts and report (c: the claim
// it is a result of; with an `exists`, a PASS may have failed instances).
std::string claim_result_problem(const ClaimResult& r, const Claim& c);

}  // namespace netpoly
