// Reports of claim results (claim_report.cpp): text, JSON, counts, the
// summary line and the exit status of `netpoly check`.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "claims/syntax/claim_parser.hpp"
#include "netpoly/claims.hpp"

namespace netpoly {

// write_claim_text and claim_json are public (netpoly/claims.hpp).
// How many claims ended in each verdict (pass counts the probabilistic passes separately).
struct VerdictCounts {
  std::size_t pass = 0, prob = 0, fail = 0, inc = 0, err = 0;
};
VerdictCounts count_verdicts(const std::vector<ClaimResult>& rs);
// That some PASS (probabilistic) of these is wrong: at most the sum of theirs (a union bound).
double failure_probability(const std::vector<ClaimResult>& rs);
std::string summary_line(const std::vector<ClaimResult>& rs, double seconds);
// 0 when every claim passed (PASS, or PASS (probabilistic) unless strict);
// 2 when a claim stopped on an input error; else 1 (a FAIL or an INCONCLUSIVE).
int check_exit_code(const std::vector<ClaimResult>& rs, bool strict);
// An instance report as printed under its claim.
std::string format_instance(const InstanceReport& r, const std::string& indent);

// ------------------------------------------------------------------ CI (claim_ci.cpp)
// Whether a claim counts as passed for the exit code: PASS, or PASS
// (probabilistic) unless strict.
bool claim_passed(const ClaimResult& r, bool strict);

// What a claim's verdict says, for a CI report.
struct ClaimOutcome {
  bool passed = true;   // claim_passed
  std::string kind;     // "PASS", "PASS (probabilistic)", "FAIL", "INCONCLUSIVE", "ERROR"
  std::string reason;   // one line: the counterexample and its failing check, what was not decided,
                        // the error, or the failure probability of a probabilistic pass
  std::string details;  // the counterexample (example) as printed, several lines; "" when none
  int line = 0;         // where to point: the deciding check's line, the error's, else the claim's
};
ClaimOutcome claim_outcome(const ClaimResult& r, bool strict);

// A run of `netpoly check` as CI reports read it.
struct CheckRun {
  std::vector<ClaimResult> results;   // finished claims (run, or from the journal), in file order
  std::vector<std::string> texts;     // each one's text as printed
  std::vector<const Claim*> not_run;  // claims not run (--fail-fast, an interruption), in file order
  std::string not_run_reason;
  double seconds = 0;
  bool strict = false;
  std::string timestamp;  // the start, ISO 8601 UTC (utc_now(); "" = now)
  std::vector<std::pair<std::string, std::string>> properties;  // of every suite: version, options
};

// Now, as ISO 8601 UTC without a zone ("2026-11-25T22:40:46"), JUnit's timestamp.
std::string utc_now();

// JUnit XML (the format Jenkins, GitLab and GitHub test reporters read; its
// schema is tests/data/junit.xsd): <testsuites>, one <testsuite> per file,
// one <testcase> per claim (name: the title; classname: the path with dots;
// file, line, time). A claim that does not pass has a <failure> (type: its
// verdict; message: the one-line reason; content: the claim's text, with its
// counterexample), an input error an <error>, a claim not run a <skipped>;
// every finished claim's text is its <system-out>.
void write_junit(std::ostream& os, const CheckRun& run);
// For a run that stopped before any claim ran (a claim file that does not
// parse): one test case with the <error>.
void write_junit_error(std::ostream& os, const std::string& message, double seconds);

// GitHub workflow commands (one line): "::error file=F,line=L,title=FAIL: T::reason%0Acounterexample ..."
// for a claim that does not pass (pointing at its deciding check), "::notice
// ..." for a PASS (probabilistic) that counts as passed, "" for a PASS.
std::string github_annotation(const ClaimResult& r, bool strict);
// An error before any claim ran ("FILE:LINE:COL: ..." gives the place).
std::string github_error(const std::string& message);

}  // namespace netpoly
