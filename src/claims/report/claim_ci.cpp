// Claim results for continuous integration (claim_report.hpp): JUnit XML (one
// test case per claim, one suite per file; tests/data/junit.xsd is the schema
// it is checked against) and GitHub workflow annotations.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>
#include <unistd.h>

#include "netpoly/error.hpp"
#include "claims/report/claim_report.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly {

namespace {

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", std::max(0.0, s));
  return b;
}

// The first line, cut to n characters.
std::string first_line(const std::string& s, std::size_t n = 300) {
  std::string l = s.substr(0, s.find('\n'));
  return clip(l, n + 3);
}

// A claim file's path as CI tools resolve it against the checkout: "./x.np"
// -> "x.np", an absolute path inside the working directory made relative.
std::string ci_path(const std::string& file) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(file).lexically_normal();
  if (p.is_absolute()) {
    std::error_code ec;
    const fs::path rel = p.lexically_proximate(fs::current_path(ec));
    if (!ec && !rel.empty() && *rel.begin() != "..") p = rel;
  }
  return p.string();
}

// "proofs/a-b.np" -> "proofs.a-b" (JUnit readers split a class name at its last dot).
std::string class_name(const std::string& file) {
  std::string s = ci_path(file);
  if (s.size() > 3 && s.compare(s.size() - 3, 3, ".np") == 0) s.resize(s.size() - 3);
  std::replace(s.begin(), s.end(), '/', '.');
  return s.substr(std::min(s.find_first_not_of('.'), s.size()));
}

// The line of "FILE:LINE:COL: ..." when the message starts with the file.
int line_in(const std::string& msg, const std::string& file) {
  if (file.empty() || msg.rfind(file + ":", 0) != 0) return 0;
  return std::atoi(msg.c_str() + file.size() + 1);
}

// Where a message "FILE:LINE:COL: ..." says it is: the file (as ci_path
// gives it) and the line; line 0 (and no file) when it names no place.
struct Place {
  std::string file;
  int line = 0;
};
Place place_of(const std::string& message) {
  const auto colon = message.find(':');
  const int line = colon == std::string::npos ? 0 : std::atoi(message.c_str() + colon + 1);
  if (line <= 0) return {};
  return {ci_path(message.substr(0, colon)), line};
}

std::string host() {
  char b[256] = {0};
  if (gethostname(b, sizeof b - 1) != 0 || !b[0]) return "localhost";
  return b;
}

// The check of an instance report that decided it (the first of `v`), or nullptr.
const CheckReport* deciding(const InstanceReport& r, Verdict v) {
  for (const auto& c : r.checks)
    if (c.verdict == v) return &c;
  return nullptr;
}

// Each line of s as printable() shows it (ESC, TAB, bidi and invisible characters escaped), the
// line breaks kept (a workflow command's message encodes them as %0A).
std::string printable_lines(const std::string& s) {
  std::string o;
  for (std::size_t at = 0;;) {
    const std::size_t nl = s.find('\n', at);
    o += printable(std::string_view(s).substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) return o;
    o += '\n';
    at = nl + 1;
  }
}

// A GitHub workflow command's message (%, CR, LF escaped) and property values (also : and ,).
std::string gh_data(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '%') o += "%25";
    else if (c == '\r') o += "%0D";
    else if (c == '\n') o += "%0A";
    else o += c;
  }
  return o;
}

std::string gh_property(const std::string& s) {
  std::string o;
  for (char c : gh_data(s)) {
    if (c == ':') o += "%3A";
    else if (c == ',') o += "%2C";
    else o += c;
  }
  return o;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
  return b;
}

bool claim_passed(const ClaimResult& r, bool strict) {
  if (r.error) return false;
  return r.verdict == Verdict::pass || (r.verdict == Verdict::pass_probabilistic && !strict);
}

ClaimOutcome claim_outcome(const ClaimResult& r, bool strict) {
  ClaimOutcome o;
  o.line = r.loc.line;
  if (r.error) {
    o.passed = false;
    o.kind = "ERROR";
    o.reason = r.error_message;
    if (const int l = line_in(r.error_message, r.file)) o.line = l;
    return o;
  }
  o.kind = verdict_name(r.verdict);
  o.passed = claim_passed(r, strict);
  std::string details = r.report ? format_instance(*r.report, "") : "";
  switch (r.verdict) {
    case Verdict::pass:
      break;
    case Verdict::pass_probabilistic:
      o.reason = "passed with failure probability <= " + probability_str(r.failure_probability) +
                 (strict ? " (--strict: only probabilistic counts as not passed)" : "");
      break;
    case Verdict::fail: {
      // "counterexample (instance 3): n = 2; k = 3; line 17: check ... -> FAIL"
      const CheckReport* c = r.report ? deciding(*r.report, Verdict::fail) : nullptr;
      if (c) o.line = c->loc.line;
      o.reason = "false";
      if (r.report) {
        o.reason = r.report->kind + " (instance " + std::to_string(r.report->index) + ")";
        std::string sep = ": ";
        for (const auto& [name, value] : r.report->bindings) {
          o.reason += sep + name + " = " + first_line(value, 200);
          sep = "; ";
        }
        if (c) o.reason += sep + "line " + std::to_string(c->loc.line) + ": " + c->text + " -> FAIL";
      }
      o.details = details;
      break;
    }
    case Verdict::inconclusive: {
      const CheckReport* c = r.report ? deciding(*r.report, Verdict::inconclusive) : nullptr;
      if (c) o.line = c->loc.line;
      if (c)
        o.reason = "not decided: line " + std::to_string(c->loc.line) + ": " + c->text +
                   (c->note.empty() ? "" : " (" + c->note + ")");
      else if (r.report && !r.report->error.empty())
        o.reason = "not decided: " + r.report->error;
      else
        o.reason = "not decided" + (r.notes.empty() ? std::string() : ": " + r.notes.front());
      o.details = details;
      break;
    }
  }
  return o;
}

std::string github_annotation(const ClaimResult& r, bool strict) {
  const ClaimOutcome o = claim_outcome(r, strict);
  if (o.passed && r.verdict == Verdict::pass) return "";
  const char* level = o.passed ? "notice" : "error";
  std::string msg = o.reason;
  if (!o.details.empty()) {  // at most 40 lines of the counterexample or example, after its first
    std::string d = o.details.substr(o.details.find('\n') + 1);
    std::size_t pos = 0;
    for (int k = 0; k < 40 && pos != std::string::npos; ++k) pos = d.find('\n', pos + 1);
    if (pos != std::string::npos) d = d.substr(0, pos) + "\n...";
    msg += "\n" + d;
  }
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  // The title as printable() shows it (ESC, TAB, bidi and invisible characters escaped), then the
  // workflow command's own escaping.
  return std::string("::") + level + " file=" + gh_property(ci_path(r.file)) + ",line=" + std::to_string(std::max(1, o.line)) +
         ",title=" + gh_property(printable(o.kind + ": " + r.title)) + "::" + gh_data(printable_lines(msg));
}

std::string github_error(const std::string& message) {
  // "FILE:LINE:COL: ..." names where; anything else is a message without a place.
  const Place at = place_of(message);
  if (at.line <= 0) return "::error title=netpoly check::" + gh_data(printable_lines(message));
  return "::error file=" + gh_property(at.file) + ",line=" + std::to_string(at.line) + ",title=netpoly check::" +
         gh_data(printable_lines(message));
}

void write_junit(std::ostream& os, const CheckRun& run) {
  // One suite per file, in the order the files came.
  std::vector<std::string> files;
  std::map<std::string, std::vector<std::size_t>> done_in;
  std::map<std::string, std::vector<const Claim*>> skipped_in;
  auto add_file = [&](const std::string& f) {
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  };
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    add_file(ci_path(run.results[i].file));
    done_in[ci_path(run.results[i].file)].push_back(i);
  }
  for (const Claim* c : run.not_run) {
    add_file(ci_path(c->loc.file));
    skipped_in[ci_path(c->loc.file)].push_back(c);
  }
  std::size_t failures = 0, errors = 0;
  for (const auto& r : run.results) {
    const ClaimOutcome o = claim_outcome(r, run.strict);
    errors += r.error;
    failures += !r.error && !o.passed;
  }
  const std::string stamp = run.timestamp.empty() ? utc_now() : run.timestamp;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"netpoly check\" tests=\"" << run.results.size() + run.not_run.size() << "\" failures=\""
     << failures << "\" errors=\"" << errors << "\" skipped=\"" << run.not_run.size() << "\" time=\""
     << seconds(run.seconds) << "\">\n";
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const std::string& f = files[fi];
    std::size_t fail = 0, err = 0;
    double secs = 0;
    for (std::size_t i : done_in[f]) {
      const auto& r = run.results[i];
      err += r.error;
      fail += !r.error && !claim_passed(r, run.strict);
      secs += r.seconds;
    }
    os << "  <testsuite name=\"" << xml_text(f) << "\" id=\"" << fi << "\" tests=\""
       << done_in[f].size() + skipped_in[f].size() << "\" failures=\"" << fail << "\" errors=\"" << err
       << "\" skipped=\"" << skipped_in[f].size() << "\" time=\"" << seconds(secs) << "\" timestamp=\"" << stamp
       << "\" hostname=\"" << xml_text(host()) << "\" file=\"" << xml_text(f) << "\">\n";
    if (!run.properties.empty()) {
      os << "    <properties>\n";
      for (const auto& [k, v] : run.properties)
        os << "      <property name=\"" << xml_text(k) << "\" value=\"" << xml_text(v) << "\"/>\n";
      os << "    </properties>\n";
    }
    auto head = [&](const std::string& title, int line, double t) {
      os << "    <testcase name=\"" << xml_text(title) << "\" classname=\"" << xml_text(class_name(f)) << "\" file=\"" << xml_text(f)
         << "\" line=\"" << line << "\" time=\"" << seconds(t) << "\"";
    };
    for (std::size_t i : done_in[f]) {
      const auto& r = run.results[i];
      const ClaimOutcome o = claim_outcome(r, run.strict);
      head(r.title, r.loc.line, r.seconds);
      os << ">\n";
      const std::string& text = i < run.texts.size() ? run.texts[i] : "";
      if (r.error)
        os << "      <error type=\"ERROR\" message=\"" << xml_text(first_line(o.reason, 1000)) << "\">" << xml_text(text)
           << "</error>\n";
      else if (!o.passed)
        os << "      <failure type=\"" << xml_text(o.kind) << "\" message=\"" << xml_text(first_line(o.reason, 1000)) << "\">"
           << xml_text(text) << "</failure>\n";
      os << "      <system-out>" << xml_text(text) << "</system-out>\n";
      os << "    </testcase>\n";
    }
    for (const Claim* c : skipped_in[f]) {
      head(c->title, c->loc.line, 0);
      os << ">\n      <skipped message=\"" << xml_text(run.not_run_reason) << "\"/>\n    </testcase>\n";
    }
    os << "  </testsuite>\n";
  }
  os << "</testsuites>\n";
}

void write_junit_error(std::ostream& os, const std::string& message, double secs) {
  const Place at = place_of(message);
  const bool placed = at.line > 0;
  const std::string file = placed ? at.file : "netpoly check";
  const int line = at.line;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"netpoly check\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\""
     << seconds(secs) << "\">\n"
     << "  <testsuite name=\"" << xml_text(file) << "\" id=\"0\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\""
     << seconds(secs) << "\" timestamp=\"" << utc_now() << "\" hostname=\"" << xml_text(host()) << "\">\n"
     << "    <testcase name=\"the claim files load\" classname=\"" << xml_text(class_name(file)) << "\"";
  if (placed) os << " file=\"" << xml_text(file) << "\" line=\"" << line << "\"";
  os << " time=\"0.000\">\n      <error type=\"InputError\" message=\"" << xml_text(first_line(message, 1000)) << "\">"
     << xml_text(message) << "</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n";
}

}  // namespace netpoly
