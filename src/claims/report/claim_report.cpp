// Text and JSON reports of claim results (claim_report.hpp).
#include <iomanip>
#include <sstream>

#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly {

std::string format_instance(const InstanceReport& r, const std::string& indent) {
  std::ostringstream os;
  // Every string here may quote the claim file or a model file: printable() keeps each on its line.
  os << indent << printable(r.kind) << " (instance " << r.index << "):\n";
  for (const auto& [name, value] : r.bindings)
    os << indent << "  " << printable(name) << " = " << printable(value) << "\n";
  for (const auto& c : r.checks) {
    os << indent << "  line " << c.loc.line << ": " << printable(c.text) << "  -> " << verdict_name(c.verdict) << "\n";
    for (const auto& [expr, value] : c.values)
      os << indent << "      " << printable(expr) << " = " << printable(value) << "\n";
    if (!c.note.empty()) os << indent << "      (" << printable(c.note) << ")\n";
  }
  if (!r.error.empty()) os << indent << "  not decided: " << printable(r.error) << "\n";
  for (const auto& f : r.files) os << indent << "  written: " << printable(f) << "\n";
  return os.str();
}

namespace {

// "0.12 s", "42.0 s"; from a million seconds on in 3 significant digits ("1.2e+06 s"), never a long run of digits.
std::string seconds_text(double s) {
  std::ostringstream os;
  if (s >= 1e6)
    os << std::setprecision(3) << s << " s";
  else
    os << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return os.str();
}

std::string counts_text(const ClaimResult& r) {
  std::string s = std::to_string(r.instances) + (r.instances == 1 ? " instance: " : " instances: ");
  std::vector<std::string> parts;
  parts.push_back(std::to_string(r.passed) + " passed");
  if (r.passed_probabilistic) parts.push_back(std::to_string(r.passed_probabilistic) + " passed (probabilistic)");
  if (r.failed) parts.push_back(std::to_string(r.failed) + " failed");
  if (r.inconclusive) parts.push_back(std::to_string(r.inconclusive) + " inconclusive");
  if (r.skipped) parts.push_back(std::to_string(r.skipped) + " skipped by assume");
  for (std::size_t k = 0; k < parts.size(); ++k) s += (k ? ", " : "") + parts[k];
  return s;
}

std::string verdict_label(const ClaimResult& r) { return r.error ? "ERROR" : verdict_name(r.verdict); }

// "352 evaluations, all exact", "12 evaluations: 9 exact, 3 probabilistic"
std::string status_counts(const QuantityStats& q) {
  std::size_t n = 0;
  for (const auto& [st, k] : q.status) n += k;
  std::string s = std::to_string(n) + (n == 1 ? " evaluation" : " evaluations");
  if (q.status.size() == 1) return s + (n == 1 ? ", " : ", all ") + q.status.begin()->first;
  bool first = true;
  for (const auto& [st, k] : q.status) {
    s += (first ? ": " : ", ") + std::to_string(k) + " " + st;
    first = false;
  }
  return s;
}

}  // namespace

void write_claim_text(std::ostream& os, const ClaimResult& r) {
  // The title and everything below come from the claim file or quote it: printable().
  os << verdict_label(r) << "  " << printable(r.title) << "\n";
  const std::string in = "    ";
  if (r.error) {
    os << in << printable(r.error_message) << "\n";
    return;
  }
  os << in << printable(r.loc.file) << ":" << r.loc.line << ": " << counts_text(r) << " [" << seconds_text(r.seconds) << "]\n";
  if (r.verdict == Verdict::pass_probabilistic)
    os << in << "failure probability <= " << probability_str(r.failure_probability)
       << " (a union bound over the probabilistic checks it rests on, over the black-box ranks' random primes and "
          "points and the weights drawn for identities)\n";
  for (const auto& q : r.quantities) os << in << printable(q.text) << ": " << status_counts(q) << "\n";
  for (const auto& n : r.notes) os << in << "note: " << printable(n) << "\n";
  for (const auto& l : r.shown) os << in << "show: " << printable(l) << "\n";
  if (r.report) os << format_instance(*r.report, in);
}

double failure_probability(const std::vector<ClaimResult>& rs) {
  double p = 0;
  for (const auto& r : rs)
    if (!r.error && r.verdict == Verdict::pass_probabilistic) p += r.failure_probability;
  return p;
}

VerdictCounts count_verdicts(const std::vector<ClaimResult>& rs) {
  VerdictCounts c;
  for (const auto& r : rs) {
    if (r.error)
      ++c.err;
    else if (r.verdict == Verdict::pass)
      ++c.pass;
    else if (r.verdict == Verdict::pass_probabilistic)
      ++c.prob;
    else if (r.verdict == Verdict::fail)
      ++c.fail;
    else
      ++c.inc;
  }
  return c;
}

std::string summary_line(const std::vector<ClaimResult>& rs, double seconds) {
  const auto [pass, prob, fail, inc, err] = count_verdicts(rs);
  std::ostringstream os;
  os << rs.size() << (rs.size() == 1 ? " claim: " : " claims: ") << pass + prob << " passed";
  if (prob) os << " (" << prob << " probabilistic, failure probability <= " << probability_str(failure_probability(rs)) << ")";
  os << ", " << fail << " failed, " << inc << " inconclusive";
  if (err) os << ", " << err << (err == 1 ? " error" : " errors");
  os << " (" << seconds_text(seconds) << ")";
  return os.str();
}

nlohmann::json claim_json(const ClaimResult& r) {
  using json = nlohmann::json;
  json j;
  j["file"] = r.file;
  j["line"] = r.loc.line;
  j["title"] = r.title;
  j["verdict"] = r.error ? "ERROR" : verdict_name(r.verdict);
  if (r.error) j["error"] = r.error_message;
  if (r.error && r.error_limit) j["error_kind"] = "limit";
  j["instances"] = r.instances;
  j["passed"] = r.passed;
  j["passed_probabilistic"] = r.passed_probabilistic;
  j["failed"] = r.failed;
  j["inconclusive"] = r.inconclusive;
  j["skipped"] = r.skipped;
  if (!r.error && r.verdict == Verdict::pass_probabilistic) j["failure_probability"] = r.failure_probability;
  j["seconds"] = r.seconds;
  if (!r.fingerprint.empty()) j["fingerprint"] = r.fingerprint;
  json qs = json::array();
  for (const auto& q : r.quantities) {
    std::size_t n = 0;
    for (const auto& [st, k] : q.status) n += k;
    qs.push_back({{"expr", q.text}, {"line", q.loc.line}, {"evaluations", n}, {"status", q.status}});
  }
  j["quantities"] = qs;
  j["notes"] = r.notes;
  if (!r.shown.empty()) j["shown"] = r.shown;
  if (!r.bounds_used.empty()) {
    json u = json::object();
    for (const auto& [id, n] : r.bounds_used) u[id] = {{"evaluations", n.first}, {"vacuous", n.second}};
    j["bounds_used"] = u;
  }
  if (r.report) {
    const auto& p = *r.report;
    json b = json::array(), cs = json::array();
    for (const auto& [n, v] : p.bindings) b.push_back({{"name", n}, {"value", v}});
    for (const auto& c : p.checks) {
      json vals = json::array();
      for (const auto& [e, v] : c.values) vals.push_back({{"expr", e}, {"value", v}});
      cs.push_back({{"line", c.loc.line},
                    {"text", c.text},
                    {"verdict", verdict_name(c.verdict)},
                    {"note", c.note},
                    {"values", vals}});
      if (c.verdict == Verdict::pass_probabilistic) cs.back()["failure_probability"] = c.failure_probability;
      if (!c.weights.empty()) cs.back()["weights"] = c.weights;
      if (!c.counterexample_file.empty()) cs.back()["counterexample"] = c.counterexample_file;
    }
    j["report"] = {{"kind", p.kind}, {"instance", p.index}, {"bindings", b}, {"checks", cs}, {"files", p.files}};
    if (!p.error.empty()) j["report"]["error"] = p.error;
  }
  return j;
}

int check_exit_code(const std::vector<ClaimResult>& rs, bool strict) {
  bool err = false, limit = false, bad = false;
  for (const auto& r : rs) {
    err = err || (r.error && !r.error_limit);
    limit = limit || (r.error && r.error_limit);
    bad = bad || !claim_passed(r, strict);
  }
  return err ? 2 : limit ? 3 : bad ? 1 : 0;  // an input error first; the machine's limit before a failure
}

}  // namespace netpoly
