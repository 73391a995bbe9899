// `netpoly check --coverage` (internal to src/commands): the bound ids and
// the statements of the registry (docs/statements.md) against a run.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/claims.hpp"
#include "claims/report/statements.hpp"

namespace netpoly::cli {

// What --coverage found wrong; empty when every bound id and every checkable
// statement is covered.
struct CoverageProblems {
  std::vector<std::string> bound_ids;   // ids no evaluation reached
  std::vector<std::string> statements;  // "ID: why" for each failing statement
  bool empty() const { return bound_ids.empty() && statements.empty(); }
  std::string message() const;          // the CheckFailed text
};

// Prints (text) or adds to `j` (JSON: "coverage" and "statements") the
// coverage of the run: every bound id with its evaluations, and, with a
// registry, every statement with the claims that check it.
CoverageProblems write_coverage(const std::vector<ClaimResult>& results, const std::vector<ClaimFile>& files,
                                const std::optional<StatementRegistry>& registry, const std::string& registry_note,
                                nlohmann::json* j);

}  // namespace netpoly::cli
