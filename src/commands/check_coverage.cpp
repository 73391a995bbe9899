// netpoly check --coverage: every bound id bound(...) accepts with the
// evaluations that checked it, and every statement of the registry
// (docs/statements.md) with the claims that check it or why it cannot be.
#include "check_coverage.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "claims/eval/claim_bounds.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::cli {

namespace {

std::string padded(const std::string& s, std::size_t w) {
  // Pads by characters as printed (UTF-8 continuation bytes take no column).
  std::size_t cols = 0;
  for (unsigned char ch : s) cols += (ch & 0xC0) != 0x80;
  return s + (cols < w ? std::string(w - cols, ' ') : std::string(" "));
}

// "a, b, c"; beyond `most` items, "a, b, ... and 7 more".
std::string joined(const std::vector<std::string>& xs, std::size_t most = SIZE_MAX) {
  std::string r;
  for (std::size_t k = 0; k < xs.size() && k < most; ++k) r += (r.empty() ? "" : ", ") + xs[k];
  if (xs.size() > most) r += " and " + std::to_string(xs.size() - most) + " more";
  return r;
}

// The bound ids: text into `os`, JSON into `j["coverage"]`; the ids no evaluation reached.
std::vector<std::string> bound_coverage(const std::vector<ClaimResult>& results, std::ostream& os, nlohmann::json* j) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> total;
  for (const auto& r : results)
    for (const auto& [id, n] : r.bounds_used) {
      total[id].first += n.first;
      total[id].second += n.second;
    }
  std::vector<std::string> missing;
  nlohmann::json cov = nlohmann::json::array();
  os << "\ncoverage: bound(...) / log3bound(...) evaluations per bound id\n";
  for (const auto& id : claim_bound_ids()) {
    const auto [n, vac] = total.count(id) ? total[id] : std::pair<std::size_t, std::size_t>{0, 0};
    std::string what;
    if (n == 0) {
      missing.push_back(id);
      what = "NOT CHECKED (no instance evaluates it)";
    } else if (vac == n) {
      what = std::to_string(n) + (n == 1 ? " evaluation, every one" : " evaluations, every one") +
             " vacuous (a lower bound <= 1 at every checked size)";
    } else {
      what = std::to_string(n - vac) + (n - vac == 1 ? " evaluation" : " evaluations") +
             (vac ? " (and " + std::to_string(vac) + " vacuous)" : "");
    }
    os << "  " << padded(id, 28) << what << "\n";
    cov.push_back({{"id", id}, {"evaluations", n}, {"vacuous", vac}});
  }
  os << (missing.empty() ? "every bound id is checked\n"
                         : std::to_string(missing.size()) + " bound id(s) checked by no instance\n");
  if (j) (*j)["coverage"] = cov;
  return missing;
}

struct Counts {
  std::size_t all = 0, checked = 0, blocked = 0, no_claim = 0, missing = 0, never = 0, unquantified = 0;
  void add(StatementState s) {
    ++all;
    switch (s) {
      case StatementState::checked: ++checked; break;
      case StatementState::blocked: ++blocked; break;
      case StatementState::no_claim: ++no_claim; break;
      case StatementState::missing_claims: ++missing; break;
      case StatementState::not_checkable: ++never; break;
      case StatementState::unquantified: ++checked, ++unquantified; break;
    }
  }
  std::string text() const {
    std::string s = std::to_string(all) + " statements: " + std::to_string(checked) + " checked, " +
                    std::to_string(blocked) + " blocked on a missing function, " + std::to_string(no_claim) +
                    " checkable without a claim, " + std::to_string(never) + " not checkable";
    if (missing) s += ", " + std::to_string(missing) + " naming claims not found";
    if (unquantified)
      s += ", " + std::to_string(unquantified) + " about every weight with no claim under its quantifier and no reason";
    return s;
  }
  nlohmann::json json() const {
    return {{"statements", all},         {"checked", checked},        {"blocked", blocked},
            {"no_claim", no_claim},       {"missing_claims", missing}, {"not_checkable", never},
            {"unquantified", unquantified}};
  }
};

// The claim clause that matches a statement's quantifier: "every weight" or "almost every weight".
std::string quantifier_clause(const StatementEntry& e) {
  return e.quantifier == "every weight assignment" ? "every weight" : "almost every weight";
}

// One statement: its line(s) of text and its JSON; the problem, if it fails.
std::string statement_text(const StatementCoverage& c, std::size_t width, std::ostream& os, nlohmann::json& js) {
  const StatementEntry& e = *c.entry;
  js = {{"id", e.id},         {"paper", e.paper},   {"line", e.line},       {"status", e.status},
        {"quantifier", e.quantifier}, {"state", statement_state_name(c.state)}};
  os << "  " << padded(printable(e.id), width);
  std::string problem;
  switch (c.state) {
    case StatementState::checked:
    case StatementState::unquantified:
      os << "checked by " << c.claims.size() << (c.claims.size() == 1 ? " claim" : " claims");
      if (c.drawn_only)
        os << ", on drawn weights only";
      else if (c.unmatched)
        os << ", not under `for " << quantifier_clause(e) << "` (its claims: `for almost every weight`)";
      if (c.state == StatementState::unquantified) {
        os << ": NO CLAIM UNDER `for " << quantifier_clause(e) << "` AND NO REASON (`- unquantified:`)";
        problem = e.id + ": about " + e.quantifier + ", no claim under `for " + quantifier_clause(e) +
                  "` and no reason why (- unquantified:)";
      } else if (c.unmatched) {
        os << ": " << printable(e.unquantified);
      } else if (!e.unquantified.empty()) {
        os << ": STALE `- unquantified:` (a claim is under `for " << quantifier_clause(e) << "`)";
        problem = e.id + ": a claim is under `for " + quantifier_clause(e) + "`, remove its '- unquantified:' reason";
      }
      os << "\n";
      break;
    case StatementState::missing_claims: {
      std::size_t n = 0;
      for (const auto& r : c.claims) n += !r.found;
      os << "CLAIMS NOT FOUND (" << n << " of " << c.claims.size() << " titles are in no file checked)\n";
      problem = e.id + ": " + std::to_string(n) + " claim title(s) not found";
      break;
    }
    case StatementState::blocked:
      os << "checkable, blocked on " << joined(c.blocked_on) << " (not in the claim language yet)\n";
      js["blocked_on"] = c.blocked_on;
      break;
    case StatementState::no_claim:
      os << "CHECKABLE, NO CLAIM"
         << (e.needs.empty() ? "" : " (its needs: " + joined(e.needs) + " exist now)") << "\n";
      problem = e.id + ": checkable, no claim" + (e.needs.empty() ? "" : " (" + joined(e.needs) + " exist now)");
      break;
    case StatementState::not_checkable:
      os << "not checkable: " << printable(e.reason) << "\n";
      js["reason"] = e.reason;
      break;
  }
  js["quantifier_unmatched"] = c.unmatched;
  js["drawn_only"] = c.drawn_only;
  if (!e.unquantified.empty()) js["unquantified"] = e.unquantified;
  if (!e.needs.empty()) js["needs"] = e.needs;
  if (!e.proposal.empty()) js["proposal"] = e.proposal;
  nlohmann::json claims = nlohmann::json::array();
  for (const auto& r : c.claims) {
    nlohmann::json x = {{"title", r.title}, {"found", r.found}};
    if (r.found) {
      x["file"] = r.file;
      x["line"] = r.line;
      x["verdict"] = r.verdict;
      x["weights"] = r.weights.empty() ? "drawn" : r.weights;
      os << "      " << padded(r.verdict, 22) << printable(r.file) << ":" << r.line << "  " << printable(r.title) << "\n";
    } else {
      os << "      " << padded("NOT FOUND", 22) << "\"" << printable(r.title) << "\"\n";
    }
    claims.push_back(std::move(x));
  }
  if (e.status == kStatusChecked) js["claims"] = claims;
  return problem;
}

std::vector<std::string> statements_coverage(const StatementRegistry& reg, const std::vector<ClaimFile>& files,
                                             const std::vector<ClaimResult>& results, std::ostream& os,
                                             nlohmann::json* j) {
  const auto cov = statement_coverage(reg, files, results);
  Counts total;
  std::vector<std::string> papers;
  std::map<std::string, Counts> by_paper;
  for (const auto& c : cov) {
    total.add(c.state);
    if (!by_paper.count(c.entry->paper)) papers.push_back(c.entry->paper);
    by_paper[c.entry->paper].add(c.state);
  }
  os << "\ncoverage: the statements of " << printable(reg.path) << " (" << total.text() << ")\n";
  std::vector<std::string> problems;
  nlohmann::json entries = nlohmann::json::array();
  std::string paper = "\x01";
  std::size_t width = 0;  // the ids' column: the longest id's, at most 40 characters
  for (const auto& c : cov) width = std::max(width, std::min<std::size_t>(c.entry->id.size() + 1, 40));
  for (const auto& c : cov) {
    if (c.entry->paper != paper) {
      paper = c.entry->paper;
      os << (paper.empty() ? std::string("(no paper)") : printable_line_start(paper)) << "\n";
    }
    nlohmann::json js;
    const std::string p = statement_text(c, width, os, js);
    if (!p.empty()) problems.push_back(p);
    entries.push_back(std::move(js));
  }
  nlohmann::json per = nlohmann::json::object();
  for (const auto& p : papers) {
    os << "  " << padded(p.empty() ? "(no paper)" : printable(p), 6) << by_paper[p].text() << "\n";
    per[p] = by_paper[p].json();
  }
  os << (problems.empty() ? "every checkable statement has a claim\n"
                          : std::to_string(problems.size()) + " statement(s) not covered: " + joined(problems, 10) + "\n");
  std::vector<std::string> unmatched;
  std::size_t drawn = 0, unreasoned = 0;
  for (const auto& c : cov)
    if (c.unmatched) {
      unmatched.push_back(c.entry->id);
      drawn += c.drawn_only;
      unreasoned += c.state == StatementState::unquantified;
    }
  if (!unmatched.empty())
    os << unmatched.size() << " statement(s) about every (or almost every) weight assignment have no claim under "
       << "the matching weight quantifier (" << drawn << " checked on drawn weights only; "
       << unmatched.size() - unreasoned << " with the reason why): " << joined(unmatched, 10) << "\n";
  if (j) {
    nlohmann::json s = {{"file", reg.path}, {"entries", entries}, {"summary", total.json()}, {"papers", per}};
    s["problems"] = problems;
    s["quantifier_unmatched"] = unmatched;
    (*j)["statements"] = s;
  }
  return problems;
}

}  // namespace

std::string CoverageProblems::message() const {
  std::string m = "--coverage: ";
  if (!bound_ids.empty()) {
    std::string list;
    for (const auto& x : bound_ids) list += (list.empty() ? "" : ", ") + ("\"" + x + "\"");
    m += std::to_string(bound_ids.size()) + " bound id(s) checked by no instance: " + list;
  }
  if (!statements.empty())
    m += std::string(bound_ids.empty() ? "" : "; ") + std::to_string(statements.size()) +
         " statement(s) not covered: " + joined(statements, 10);
  return m;
}

CoverageProblems write_coverage(const std::vector<ClaimResult>& results, const std::vector<ClaimFile>& files,
                                const std::optional<StatementRegistry>& registry, const std::string& registry_note,
                                nlohmann::json* j) {
  std::ostringstream os;
  CoverageProblems p;
  p.bound_ids = bound_coverage(results, os, j);
  if (registry) {
    p.statements = statements_coverage(*registry, files, results, os, j);
  } else {
    os << "\ncoverage: " << printable(registry_note) << "\n";
    if (j) (*j)["statements"] = {{"file", nullptr}, {"note", registry_note}};
  }
  if (!j) std::cout << os.str();
  return p;
}

}  // namespace netpoly::cli
