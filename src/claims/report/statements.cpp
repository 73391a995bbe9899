// The registry of statements (docs/statements.md): its parser, where it is
// found, and each statement against the claims of the files checked.
#include "claims/report/statements.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "netpoly/error.hpp"
#include "runtime/io.hpp"

namespace netpoly {

namespace {

// The keys of an entry, in the order the format fixes.
const std::vector<std::string> kKeys = {"source",   "statement", "quantifier", "status", "reason",
                                        "needs",    "proposal",  "claims",     "unquantified", "related", "notes"};
const std::vector<std::string> kQuantifiers = {"every weight assignment", "almost every weight assignment",
                                               "there exist weights", "none"};

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::string quoted_list(const std::vector<std::string>& xs) {
  std::string r;
  for (const auto& x : xs) r += (r.empty() ? "" : ", ") + x;
  return r;
}

// Parses an entry's lines (its heading at `e.line`) into `e`.
class EntryParser {
 public:
  EntryParser(const std::string& path, StatementEntry& e) : path_(path), e_(e) {}

  void line(const std::string& raw, int n) {
    if (trim(raw).empty()) return;
    if (raw.rfind("  - ", 0) == 0) return item(raw, n);
    if (raw.rfind("- ", 0) != 0)
      fail(n, "expected '- key: value' or '  - \"TITLE\"' inside the entry " + e_.id + ", got '" + trim(raw) + "'");
    const auto colon = raw.find(':');
    if (colon == std::string::npos) fail(n, "expected '- key: value', got '" + trim(raw) + "'");
    const std::string key = trim(raw.substr(2, colon - 2)), value = trim(raw.substr(colon + 1));
    const auto at = std::find(kKeys.begin(), kKeys.end(), key);
    if (at == kKeys.end()) fail(n, "unknown key '" + key + "' (expected one of " + quoted_list(kKeys) + ")");
    const int k = static_cast<int>(at - kKeys.begin());
    if (k == last_key_) fail(n, "the key '" + key + "' appears twice in " + e_.id);
    if (k < last_key_) fail(n, "the key '" + key + "' comes after '" + kKeys[last_key_] + "' (keys in the order " + quoted_list(kKeys) + ")");
    last_key_ = k;
    list_ = nullptr;
    if (key == "claims" || key == "related") {
      if (!value.empty()) fail(n, "'- " + key + ":' is followed by one '  - \"TITLE\"' line per claim, not by text");
      list_ = key == "claims" ? &e_.claims : &e_.related;
      list_key_ = key;
      return;
    }
    if (value.empty()) fail(n, "the key '" + key + "' has no value");
    if (key == "source") e_.source = value;
    else if (key == "statement") e_.statement = value;
    else if (key == "quantifier") e_.quantifier = value;
    else if (key == "status") e_.status = value;
    else if (key == "reason") e_.reason = value;
    else if (key == "proposal") e_.proposal = value;
    else if (key == "notes") e_.notes = value;
    else if (key == "unquantified") e_.unquantified = value;
    else if (key == "needs") {
      std::stringstream ss(value);
      for (std::string x; std::getline(ss, x, ',');)
        if (!trim(x).empty()) e_.needs.push_back(trim(x));
    }
    if (key == "quantifier" && std::find(kQuantifiers.begin(), kQuantifiers.end(), value) == kQuantifiers.end())
      fail(n, "quantifier '" + value + "' (expected one of " + quoted_list(kQuantifiers) + ")");
    if (key == "status" && value != kStatusChecked && value != kStatusNoClaim && value != kStatusNotCheckable)
      fail(n, "status '" + value + "' (expected checked, 'checkable, no claim yet' or 'not checkable')");
  }

  // The entry is complete: the keys its status needs, and none it forbids.
  void finish() {
    const int n = e_.line;
    const std::pair<const char*, const std::string*> required[] = {
        {"source", &e_.source}, {"statement", &e_.statement}, {"quantifier", &e_.quantifier}, {"status", &e_.status}};
    for (const auto& [k, v] : required)
      if (v->empty()) fail(n, "the entry " + e_.id + " has no '- " + k + ":' line");
    const bool checked = e_.status == kStatusChecked, no_claim = e_.status == kStatusNoClaim,
               never = e_.status == kStatusNotCheckable;
    if (checked && e_.claims.empty()) fail(n, e_.id + " is 'checked' but lists no claim ('- claims:' and its titles)");
    if (!checked && !e_.claims.empty()) fail(n, e_.id + " lists claims but is '" + e_.status + "' (related claims go under '- related:')");
    if (checked && !e_.related.empty()) fail(n, e_.id + " is 'checked': its claims go under '- claims:', not '- related:'");
    if (never && e_.reason.empty()) fail(n, e_.id + " is 'not checkable' but gives no '- reason:'");
    if (!never && !e_.reason.empty()) fail(n, e_.id + " has a '- reason:' but is '" + e_.status + "'");
    if (!no_claim && (!e_.needs.empty() || !e_.proposal.empty()))
      fail(n, e_.id + " has '- needs:' or '- proposal:' but is '" + e_.status + "'");
    const bool weights = e_.quantifier == "every weight assignment" || e_.quantifier == "almost every weight assignment";
    if (!e_.unquantified.empty() && !(checked && weights))
      fail(n, e_.id + " has '- unquantified:' but is not a checked statement about every (or almost every) weight assignment");
  }

 private:
  void item(const std::string& raw, int n) {
    if (!list_) fail(n, "a '  - \"TITLE\"' line belongs under '- claims:' or '- related:'");
    const std::string t = trim(raw.substr(4));
    if (t.size() < 2 || t.front() != '"' || t.back() != '"')
      fail(n, "expected a claim title in double quotes under '- " + list_key_ + ":', got '" + t + "'");
    list_->push_back({t.substr(1, t.size() - 2), n});
  }
  [[noreturn]] void fail(int n, const std::string& what) const {
    throw InputError(path_ + ":" + std::to_string(n) + ": " + what);
  }

  const std::string& path_;
  StatementEntry& e_;
  int last_key_ = -1;
  std::vector<StatementClaim>* list_ = nullptr;
  std::string list_key_;
};

}  // namespace

StatementRegistry parse_statements(const std::string& text, const std::string& path) {
  StatementRegistry reg;
  reg.path = path;
  std::map<std::string, int> seen;
  std::string paper;
  std::unique_ptr<EntryParser> cur;
  auto close = [&] {
    if (cur) cur->finish();
    cur.reset();
  };
  std::stringstream ss(text);
  int n = 0;
  bool fence = false;  // inside ``` ... ``` (examples, never entries)
  for (std::string raw; std::getline(ss, raw);) {
    ++n;
    if (raw.rfind("```", 0) == 0) fence = !fence;
    if (fence) continue;
    if (raw.rfind("#", 0) == 0) {
      close();
      if (raw.rfind("### ", 0) == 0) {
        StatementEntry e;
        e.id = trim(raw.substr(4));
        e.paper = paper;
        e.line = n;
        if (e.id.empty()) throw InputError(path + ":" + std::to_string(n) + ": a '### ' heading without an id");
        if (auto it = seen.find(e.id); it != seen.end())
          throw InputError(path + ":" + std::to_string(n) + ": the id '" + e.id + "' is already used at line " +
                           std::to_string(it->second) + " (ids are unique)");
        seen[e.id] = n;
        reg.entries.push_back(std::move(e));
        cur = std::make_unique<EntryParser>(reg.path, reg.entries.back());
      } else if (raw.rfind("## ", 0) == 0) {
        const std::string h = trim(raw.substr(3));
        paper = h.find(':') == std::string::npos ? "" : trim(h.substr(0, h.find(':')));
      }
      continue;
    }
    if (cur) cur->line(raw, n);
  }
  close();
  if (reg.entries.empty())
    throw InputError(path + ": no statements (each is a '### ID' section; the format is at the top of docs/statements.md)");
  return reg;
}

StatementRegistry read_statements(const std::string& path) {
  return parse_statements(read_text_file(path, "the statements registry"), path);
}

std::string find_statements_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(path), ec);
  if (ec) return "";
  if (!fs::is_directory(p, ec)) p = p.parent_path();
  for (; !p.empty(); p = p.parent_path()) {
    const fs::path f = p / "docs" / "statements.md";
    if (fs::is_regular_file(f, ec)) {
      // Named relative to the working directory when it is below it (as printed paths are).
      const fs::path rel = fs::relative(f, fs::current_path(ec), ec);
      return !ec && !rel.empty() && rel.string().rfind("..", 0) != 0 ? rel.string() : f.string();
    }
    // A repository's root is as far as it goes (a worktree's .git is a file).
    if (p == p.root_path() || fs::exists(p / ".git", ec)) break;
  }
  return "";
}

bool claim_language_has(const std::string& need) {
  const auto sp = need.find(' ');
  const FunctionInfo* f = find_claim_function(need.substr(0, sp));
  if (!f) return false;
  if (sp == std::string::npos) return true;
  const std::string opt = trim(need.substr(sp + 1));
  return std::find(f->named.begin(), f->named.end(), opt) != f->named.end();
}

const char* statement_state_name(StatementState s) {
  switch (s) {
    case StatementState::checked: return "checked";
    case StatementState::missing_claims: return "claims not found";
    case StatementState::blocked: return "blocked";
    case StatementState::no_claim: return "no claim yet";
    case StatementState::not_checkable: return "not checkable";
    case StatementState::unquantified: return "no claim under its quantifier";
  }
  return "?";
}

bool statement_state_fails(StatementState s) {
  return s == StatementState::missing_claims || s == StatementState::no_claim ||
         s == StatementState::unquantified;
}

namespace {

// The first weight quantifier among a claim's clauses, as text ("" when none).
std::string claim_weights_text(const Claim& c) {
  for (const auto& k : c.clauses)
    if (k.kind == Clause::Kind::weights) return weight_quantifier_text(k.weights);
  return "";
}

}  // namespace

std::vector<StatementCoverage> statement_coverage(const StatementRegistry& reg, const std::vector<ClaimFile>& files,
                                                  const std::vector<ClaimResult>& results) {
  std::map<std::string, const Claim*> by_title;  // the first claim of each title, in path order
  for (const auto& f : files)
    for (const auto& c : f.claims) by_title.emplace(c.title, &c);
  std::map<std::pair<std::string, std::string>, const ClaimResult*> run;  // (file, title) -> result
  for (const auto& r : results) run[{r.file, r.title}] = &r;
  std::vector<StatementCoverage> out;
  for (const auto& e : reg.entries) {
    StatementCoverage c;
    c.entry = &e;
    for (const auto& t : e.claims) {
      StatementClaimRef ref;
      ref.title = t.title;
      if (auto it = by_title.find(t.title); it != by_title.end()) {
        ref.found = true;
        ref.file = it->second->loc.file;
        ref.line = it->second->loc.line;
        auto r = run.find({ref.file, t.title});
        ref.verdict = r == run.end() ? "not run" : r->second->error ? "ERROR" : verdict_name(r->second->verdict);
        ref.weights = claim_weights_text(*it->second);
      }
      c.claims.push_back(std::move(ref));
    }
    for (const auto& x : e.needs)
      if (!claim_language_has(x)) c.blocked_on.push_back(x);
    if (e.status == kStatusChecked) {
      const bool all = std::all_of(c.claims.begin(), c.claims.end(), [](const auto& r) { return r.found; });
      c.state = all ? StatementState::checked : StatementState::missing_claims;
      const bool every = e.quantifier == "every weight assignment";
      if (every || e.quantifier == "almost every weight assignment") {
        c.unmatched = std::none_of(c.claims.begin(), c.claims.end(), [&](const auto& r) {
          return r.weights == "every weight" || (!every && r.weights == "almost every weight");
        });
        c.drawn_only = c.unmatched && std::all_of(c.claims.begin(), c.claims.end(),
                                                  [](const auto& r) { return r.weights.empty(); });
        if (c.unmatched && all && e.unquantified.empty()) c.state = StatementState::unquantified;
      }
    } else if (e.status == kStatusNoClaim) {
      c.state = c.blocked_on.empty() ? StatementState::no_claim : StatementState::blocked;
    } else {
      c.state = StatementState::not_checkable;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace netpoly
