// Reports of claim results (claim_report.cpp): text, JSON, counts, the
// summary line and the exit status of `netpoly check`.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "netpoly/claims.hpp"

namespace netpoly {

void write_claim_text(std::ostream& os, const ClaimResult& r);
// How many claims ended in each verdict (pass counts the probabilistic passes separately).
struct VerdictCounts {
  std::size_t pass = 0, prob = 0, fail = 0, inc = 0, err = 0;
};
VerdictCounts count_verdicts(const std::vector<ClaimResult>& rs);
// That some PASS (probabilistic) of these is wrong: at most the sum of theirs (a union bound).
double failure_probability(const std::vector<ClaimResult>& rs);
std::string summary_line(const std::vector<ClaimResult>& rs, double seconds);
nlohmann::json claim_json(const ClaimResult& r);
// 0 when every claim passed (PASS, or PASS (probabilistic) unless strict);
// 2 when a claim stopped on an input error; else 1 (a FAIL or an INCONCLUSIVE).
int check_exit_code(const std::vector<ClaimResult>& rs, bool strict);

}  // namespace netpoly
