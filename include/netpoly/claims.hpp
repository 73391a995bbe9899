// Claims: lemmas kept as executable checks in plain-text `.np` files
// (grammar and semantics: proofs/README.md), and `netpoly check`.
//
//   claim "NB Lemma 5.2 (iv): a Hadamard square has sep at most binom(k+1, 2)"
//     for f in random_poly(vars = 6, terms = 2..8, seed = 1..200)
//     let k = sep(f; A = x0..x2)
//     check sep(f * f; A = x0..x2) <= binom(k + 1, 2)
//
// Every quantity is an interval with a certification label
// (src/claims/quantities/claim_interval.hpp); a check is PASS only when the certified values decide
// it, PASS (probabilistic) when only black-box ranks back it, FAIL when the
// certified values contradict it, and INCONCLUSIVE otherwise.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "netpoly/model.hpp"

namespace netpoly {

// Where a claim (or a part of it) is written: file:line:column.
struct SrcLoc {
  std::string file;
  int line = 0, col = 0;
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

// A verdict (a check's, an instance's, a claim's).
enum class Verdict { pass, pass_probabilistic, inconclusive, fail };
const char* verdict_name(Verdict v);  // "PASS", "PASS (probabilistic)", "INCONCLUSIVE", "FAIL"

// One clause of a claim: the claim language's syntax tree, inside the
// library (src/claims/syntax/claim_parser.hpp); a claim is parsed and run whole.
struct Clause;

struct Claim {
  std::string title;
  SrcLoc loc;
  std::string base_dir;  // directory of the file, for model("...") paths
  std::vector<Clause> clauses;
  std::vector<std::string> reads;  // every file the claim reads (model("...")), filled by load_claim_paths
  std::string source;  // its text in the file: from its `claim` line up to the next claim's (the journal hashes it)
  // Out of line, where Clause is complete (src/claims/syntax/claim_parser.cpp).
  Claim();
  Claim(const Claim&);
  Claim(Claim&&) noexcept;
  Claim& operator=(const Claim&);
  Claim& operator=(Claim&&) noexcept;
  ~Claim();
};

struct ClaimFile {
  std::string path;
  std::vector<Claim> claims;
};

struct CheckOptions {
  double budget = 60;               // seconds per rank method (estimated up front; SepOptions::budget)
  double max_terms = 5e7;           // expansions estimated above this are refused (the quantity stays a bracket)
  std::string filter;               // run only claims whose title contains this (case-insensitive)
  unsigned jobs = 1;                // claims run in parallel
  std::string counterexamples_dir;  // where to write counterexamples ("" = nowhere, but see below)
  // A failed `for every weight` check's drawn network is always written: to
  // counterexamples_dir, or when that is empty, to this directory.
  std::string weight_counterexamples_default = "netpoly-counterexamples";
  bool strict = false;              // PASS (probabilistic) does not count as passed
};

// One evaluated check of a reported instance.
struct CheckReport {
  SrcLoc loc;
  std::string text;
  Verdict verdict = Verdict::inconclusive;
  std::string note;
  std::vector<std::pair<std::string, std::string>> values;  // expression text, value
  double failure_probability = 0;  // PASS (probabilistic): wrong with at most this probability
  // Under a weight quantifier: "every weight" | "almost every weight" ("" otherwise).
  std::string weights;
  // FAIL of a `for every weight` check: the drawn integer network (its
  // output set) whose certified sep contradicts the check, and the seprank
  // options that re-check it ("--partition A=0,1"); written out when the
  // claim fails (run_claim), the file's path then in `counterexample_file`.
  std::shared_ptr<const Model> counterexample;
  std::string recheck;
  std::string counterexample_file;
};

// A counterexample (FAIL), a witness (exists ... PASS) or an example (INCONCLUSIVE).
struct InstanceReport {
  std::string kind;                                           // "counterexample" | "witness" | "example"
  std::size_t index = 0;                                      // 1-based instance number
  std::vector<std::pair<std::string, std::string>> bindings;  // name, value
  std::vector<CheckReport> checks;
  std::string error;               // a resource limit that made the instance inconclusive
  std::vector<std::string> files;  // counterexample files written
};

struct QuantityStats {
  SrcLoc loc;
  std::string text;
  std::map<std::string, std::size_t> status;  // exact | bracket | probabilistic | numeric | enclosure
};

struct ClaimResult {
  std::string file;
  SrcLoc loc;
  std::string title;
  Verdict verdict = Verdict::inconclusive;
  bool error = false;  // an input error stopped the claim (exit code 2)
  std::string error_message;
  // The error was the wall clock's safety net (MachineLimit: the machine, not
  // the mathematics): exit code 3 instead of 2.
  bool error_limit = false;
  std::size_t instances = 0, passed = 0, passed_probabilistic = 0, failed = 0, inconclusive = 0, skipped = 0;
  // PASS (probabilistic): the verdict is wrong with at most this probability, a
  // union bound over the probabilistic checks it rests on (of a `for`: every
  // instance's; of an `exists`: its least doubtful witness's), each over the
  // black-box ranks' random primes and points. 0 otherwise.
  double failure_probability = 0;
  double seconds = 0;
  std::vector<QuantityStats> quantities;
  std::optional<InstanceReport> report;
  std::vector<std::string> notes;
  std::vector<std::string> shown;  // `show` lines: "bindings: expr = value, ..." (at most kMaxShown)
  // bound(...) / log3bound(...) evaluations by bound id (`check --coverage`):
  // how many, and how many of them were vacuous (a lower bound <= 1).
  std::map<std::string, std::pair<std::size_t, std::size_t>> bounds_used;
  // The fingerprint of the claim that produced this result (claim_journal.hpp:
  // its file, title, clauses, the files it reads, the options): `check
  // --journal` writes it into each result, and `--resume` trusts a result only
  // in the entry of that claim, so a result moved or swapped between entries
  // is run again. Empty for a result that was not journaled.
  std::string fingerprint;
};

inline constexpr std::size_t kMaxShown = 500;

// Runs one claim.
ClaimResult run_claim(const Claim& c, const CheckOptions& o);

// Files and directories (every *.np inside, recursively, sorted) to claim
// files, all parsed, and every model("...") file read, before anything runs.
// Throws InputError on the first problem.
std::vector<ClaimFile> load_claim_paths(const std::vector<std::string>& paths);

// The claims selected by --filter, in file order.
std::vector<const Claim*> select_claims(const std::vector<ClaimFile>& files, const std::string& filter);

// Runs claims with o.jobs threads; `done(i, result)` is called in order (i = 0, 1, ...)
// as soon as the results up to i are known. A result for which `stop_after`
// holds ends the run after it (in order: the claims before it all run; no
// claim after it starts once it is known, and those already running on other
// threads finish unreported). Returns the results reported, in order.
std::vector<ClaimResult> run_claims(const std::vector<const Claim*>& claims, const CheckOptions& o,
                                    const std::function<void(std::size_t, const ClaimResult&)>& done = {},
                                    const std::function<bool(const ClaimResult&)>& stop_after = {});

// A claim's result as `netpoly check` prints it, and as its --json writes it
// (claim_report.cpp).
void write_claim_text(std::ostream& os, const ClaimResult& r);
nlohmann::json claim_json(const ClaimResult& r);

}  // namespace netpoly
