// The registry of the seeds' statements (docs/statements.md, its format at
// the top of that file): every statement with its status and the claims that
// check it, or why it cannot be checked; `netpoly check --coverage` lists it
// against the claims of the files checked.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "claims/quantities/claim_interval.hpp"
#include "claims/syntax/claim_parser.hpp"
#include "netpoly/claims.hpp"

namespace netpoly {

struct StatementClaim {
  std::string title;  // byte for byte a claim's title
  int line = 0;       // of its `  - "TITLE"` line in the registry
};

struct StatementEntry {
  std::string id;     // the `### ID` heading
  std::string paper;  // the `## PAPER: ...` heading it is under ("LV"), "" before any
  int line = 0;       // of the heading
  std::string source, statement, quantifier, status, reason, proposal, notes;
  // `- unquantified:` (a checked statement about every / almost every weight
  // assignment): why no claim of it is under the matching weight quantifier.
  std::string unquantified;
  std::vector<std::string> needs;  // `needs:` split at commas
  std::vector<StatementClaim> claims, related;
};

struct StatementRegistry {
  std::string path;
  std::vector<StatementEntry> entries;
};

// The statuses and quantifiers the format allows.
inline constexpr const char* kStatusChecked = "checked";
inline constexpr const char* kStatusNoClaim = "checkable, no claim yet";
inline constexpr const char* kStatusNotCheckable = "not checkable";

// Parses a registry; `path` names it in messages. A malformed file is an
// InputError "path:line: ..." naming the line and what was expected.
StatementRegistry parse_statements(const std::string& text, const std::string& path);
StatementRegistry read_statements(const std::string& path);

// The registry next to a checked path: docs/statements.md in the path's
// directory (the path itself when it is one) or the nearest directory above
// it that has one, up to the repository's root (a directory with .git); ""
// when there is none.
std::string find_statements_file(const std::string& path);

// What a `needs:` name asks for: a function of the claim language ("det"),
// or a function and one of its named arguments ("mixer expansion"). True when
// the language has it now.
bool claim_language_has(const std::string& need);

// One statement against the claims of the files checked.
enum class StatementState {
  checked,         // `checked`, every listed claim found
  missing_claims,  // `checked`, but a listed title is in no file checked (a failure)
  blocked,         // `checkable, no claim yet` with `needs:` the language lacks
  no_claim,        // `checkable, no claim yet` that could be written today (a failure)
  not_checkable,
  // `checked` about every (almost every) weight assignment, no claim under
  // the matching weight quantifier and no `- unquantified:` reason (a failure)
  unquantified,
};
const char* statement_state_name(StatementState s);  // "checked", "missing claims", ...
bool statement_state_fails(StatementState s);        // missing_claims, no_claim, unquantified

struct StatementClaimRef {
  std::string title;
  bool found = false;
  std::string file;  // where the claim is (when found)
  int line = 0;
  std::string verdict;  // of this run: "PASS", ..., "ERROR", or "not run"
  // Its weight quantifier (the claim's first `for every weight` / `for almost
  // every weight` clause): "every weight", "almost every weight", or "" (the
  // drawn network's own weights).
  std::string weights;
};

struct StatementCoverage {
  const StatementEntry* entry = nullptr;
  StatementState state = StatementState::not_checkable;
  std::vector<StatementClaimRef> claims;  // the `claims:` titles, found or not
  std::vector<std::string> blocked_on;    // the `needs:` names the language lacks
  // A checked statement about every (almost every) weight assignment none of
  // whose claims is under `for every weight` (or, for almost every, either
  // quantifier): `unmatched`; `drawn_only` when moreover no claim has any
  // weight quantifier (they speak of drawn networks only). With the entry's
  // `- unquantified:` reason it is reported; without one the state is
  // `unquantified`, a failure.
  bool unmatched = false;
  bool drawn_only = false;
};

// Every entry of the registry against the claims of `files` (all of them,
// whatever --filter ran) and the results of this run.
std::vector<StatementCoverage> statement_coverage(const StatementRegistry& reg, const std::vector<ClaimFile>& files,
                                                  const std::vector<ClaimResult>& results);

}  // namespace netpoly
