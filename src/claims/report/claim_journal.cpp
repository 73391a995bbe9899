// The check journal and its judgement on --resume (claim_journal.hpp).
#include "claims/report/claim_journal.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <set>

#include "claims/report/claim_report.hpp"
#include "netpoly/error.hpp"
#include "runtime/io.hpp"
#include "runtime/json_check.hpp"
#include "runtime/sha256.hpp"
#include "runtime/text_escape.hpp"
#include "netpoly/version.hpp"

namespace netpoly {

using json = nlohmann::json;

namespace {

// The longest time an entry may say its claim took (about 3 years): more was not measured by a run.
constexpr double kMaxJournalSeconds = 1e8;

// ------------------------------------------------------------------ strict reading
// Every value of an entry is checked for its type and range before it is used
// (a journal may have been edited by hand): a negative count or 3.5 is refused,
// never wrapped or truncated.
// The reader of every value is JsonCheck (json_check.hpp), the one strict
// reader of files netpoly wrote; the messages here carry the JSON path only
// (read_claim_journal and the judge add the file and line).
const JsonCheck kJournalJson{""};
// Claim texts, values and notes can be long (a polynomial printed whole).
constexpr std::size_t kMaxText = std::size_t(1) << 24;
constexpr std::size_t kMaxItems = std::size_t(1) << 20;

[[noreturn]] void bad(const std::string& path, const std::string& what) { kJournalJson.fail(path, what); }

std::string at(const std::string& path, const char* key) { return JsonCheck::join(path, key); }

const json& field(const json& o, const std::string& path, const char* key) { return kJournalJson.at(o, path, key); }

std::uint64_t count(const json& o, const std::string& path, const char* key, std::uint64_t lo = 0,
                    std::uint64_t hi = std::uint64_t(1) << 53) {
  return kJournalJson.count(field(o, path, key), at(path, key), lo, hi);
}

std::string text(const json& o, const std::string& path, const char* key) {
  return kJournalJson.text(field(o, path, key), at(path, key), kMaxText);
}

// A number in [0, hi] (a probability also > 0 and < 1: `open`).
double number(const json& o, const std::string& path, const char* key, double hi, bool open = false) {
  const json& v = field(o, path, key);
  if (!open) return kJournalJson.number(v, at(path, key), 0, hi);
  const double x = v.is_number() ? v.get<double>() : -1;
  if (!std::isfinite(x) || x <= 0 || x >= hi)
    bad(at(path, key), "expected a probability in (0, 1), got " + JsonCheck::kind(v));
  return x;
}

// What a value of a check is when this netpoly prints it: one line of text
// (describe(), a list of them, a polynomial, a network) that printable() leaves
// as it is; a value with a line break or a control character was not written
// by a run (it could only have come from editing the journal).
std::string value_text(const json& o, const std::string& path, const char* key) {
  std::string v = text(o, path, key);
  if (v.empty() || printable(v) != v) bad(at(path, key), "not a value as netpoly prints it: \"" + printable(clip(v, 40)) + "\"");
  return v;
}

const json& array(const json& o, const std::string& path, const char* key) {
  const json& v = field(o, path, key);
  if (!v.is_array()) bad(at(path, key), "expected a list, got " + JsonCheck::kind(v));
  return v;
}

std::vector<std::string> texts(const json& o, const std::string& path, const char* key) {
  return kJournalJson.texts(field(o, path, key), at(path, key), kMaxItems, kMaxText);
}

Verdict verdict_of(const std::string& v, const std::string& path) {
  for (Verdict x : {Verdict::pass, Verdict::pass_probabilistic, Verdict::inconclusive, Verdict::fail})
    if (v == verdict_name(x)) return x;
  bad(path, "unknown verdict \"" + printable(clip(v, 40)) + "\"");
}

CheckReport check_from_json(const json& c, const std::string& path, const std::string& file) {
  CheckReport ch;
  ch.loc = {file, static_cast<int>(count(c, path, "line", 1, INT_MAX)), 0};
  ch.text = text(c, path, "text");
  ch.verdict = verdict_of(text(c, path, "verdict"), at(path, "verdict"));
  ch.note = text(c, path, "note");
  for (const auto& x : array(c, path, "values"))
    ch.values.emplace_back(text(x, at(path, "values"), "expr"), value_text(x, at(path, "values"), "value"));
  if (ch.verdict == Verdict::pass_probabilistic) ch.failure_probability = number(c, path, "failure_probability", 1, true);
  if (c.contains("weights")) ch.weights = text(c, path, "weights");
  if (c.contains("counterexample")) ch.counterexample_file = text(c, path, "counterexample");
  return ch;
}

InstanceReport report_from_json(const json& p, const std::string& file) {
  const std::string path = "result.report";
  InstanceReport rep;
  rep.kind = text(p, path, "kind");
  rep.index = count(p, path, "instance", 1);
  for (const auto& b : array(p, path, "bindings"))
    rep.bindings.emplace_back(text(b, at(path, "bindings"), "name"), text(b, at(path, "bindings"), "value"));
  for (const auto& c : array(p, path, "checks")) rep.checks.push_back(check_from_json(c, at(path, "checks"), file));
  rep.files = texts(p, path, "files");
  if (p.contains("error")) rep.error = text(p, path, "error");
  return rep;
}

// Every call of the claim's expressions (depth bounded by the parser: kMaxClaimHeight).
void calls_of(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Expr::Kind::call) out.push_back(&e);
  for (const auto& k : e.kids) calls_of(*k, out);
  for (const auto& a : e.args) calls_of(*a.value, out);
  if (e.part) {
    for (const auto& k : e.part->items) calls_of(*k, out);
    if (e.part->value) calls_of(*e.part->value, out);
  }
}

std::vector<const Expr*> calls_of(const Claim& c) {
  std::vector<const Expr*> out;
  for (const auto& cl : c.clauses) {
    for (const auto& g : cl.gens) calls_of(*g, out);
    if (cl.value) calls_of(*cl.value, out);
    for (const auto& t : cl.cond.terms) calls_of(*t, out);
    for (const auto& a : cl.options) calls_of(*a.value, out);
    for (const auto& x : cl.shows) calls_of(*x, out);
  }
  return out;
}

bool has_clause(const Claim& c, Clause::Kind k) {
  for (const auto& cl : c.clauses)
    if (cl.kind == k) return true;
  return false;
}

// ------------------------------------------------------------------ instance counts
// How many values a generator gives, when that follows from its text alone: an
// integer literal (1), a range of integer literals a..b, a list of literals, a
// network preset (attention, mixer, mlp, product) whose parameters are
// literals but for its seed (a literal, a range or a list). -1 otherwise (a
// generator over another binding, a model file, random polynomials ...).
long long literal_count(const Expr& e) {
  auto integer = [](const Expr& x, long long& v) {
    if (x.kind != Expr::Kind::number || !x.number.is_integer() || !fmpz_fits_si(x.number.num())) return false;
    v = fmpz_get_si(x.number.num());
    return true;
  };
  long long a = 0, b = 0;
  switch (e.kind) {
    case Expr::Kind::number:
      return 1;
    case Expr::Kind::range:
      if (!integer(*e.kids[0], a) || !integer(*e.kids[1], b)) return -1;
      return b < a ? 0 : b - a < 1000000 ? b - a + 1 : -1;
    case Expr::Kind::list:
      for (const auto& k : e.kids)
        if (k->kind != Expr::Kind::number) return -1;
      return static_cast<long long>(e.kids.size());
    default:
      return -1;
  }
}

long long generator_count(const Expr& g) {
  static const std::set<std::string> presets = {"attention", "mixer", "mlp", "product"};
  if (g.kind != Expr::Kind::call) return literal_count(g);
  if (!presets.count(g.str)) return -1;
  long long n = 1;
  for (const auto& a : g.args) {
    if (a.name == "activation" || a.name == "weights") continue;
    // Only seeds vary: a preset skips the combinations of other parameters that make no network.
    const long long k = literal_count(*a.value);
    if (k < 0 || (k != 1 && a.name != "seed")) return -1;
    n *= k;
    if (n > 100000) return -1;  // more networks than a preset makes (it refuses them)
  }
  return n;
}

// The number of instances of a claim without `exists` or `assume` in which no
// instance stopped (a PASS): the product over its `for`s of their generators'
// counts; -1 when a generator's count does not follow from its text.
long long static_instances(const Claim& c) {
  long long n = 1;
  for (const auto& cl : c.clauses) {
    if (cl.kind == Clause::Kind::exists || cl.kind == Clause::Kind::assume) return -1;
    if (cl.kind != Clause::Kind::for_all) continue;
    long long k = 0;
    for (const auto& g : cl.gens) {
      const long long x = generator_count(*g);
      if (x < 0) return -1;
      k += x;
    }
    n *= k;
    if (n > (1LL << 40)) return -1;
  }
  return n;
}

// The quantities (`expr: N evaluations, ...`) against the claim: each is a call
// the claim makes, at its line, once; a PASS of a claim without `exists` (every
// instance ran every check) has each sep-like term of its checks among them
// (those always count their evaluations when the weights are the drawn ones),
// and, without a weight quantifier, is PASS (probabilistic) when one of them is probabilistic (conservative:
// a certified bound may have decided the check, which the entry cannot show,
// and the claim then runs again).
std::string quantities_problem(const ClaimResult& r, const Claim& c) {
  const auto calls = calls_of(c);
  std::set<std::string> seen;
  for (const auto& q : r.quantities) {
    const bool ours = std::any_of(calls.begin(), calls.end(), [&](const Expr* e) {
      return e->text == q.text && e->loc.line == q.loc.line;
    });
    if (!ours) return "its quantity \"" + q.text + "\" (line " + std::to_string(q.loc.line) + ") is not a call of the claim";
    if (!seen.insert(q.text).second) return "its quantity \"" + q.text + "\" is listed twice";
  }
  if (r.error || has_clause(c, Clause::Kind::exists) || r.instances == 0) return "";
  const std::string v = std::string("verdict ") + verdict_name(r.verdict);
  // (Not under a weight quantifier, whose certified bounds often decide checks on probabilistic seps.)
  if (r.verdict == Verdict::pass && !has_clause(c, Clause::Kind::weights))
    for (const auto& q : r.quantities)
      if (auto it = q.status.find("probabilistic"); it != q.status.end() && it->second)
        return v + ", but its quantity \"" + q.text + "\" is probabilistic (then it is PASS (probabilistic))";
  if (r.verdict != Verdict::pass && r.verdict != Verdict::pass_probabilistic) return "";
  if (has_clause(c, Clause::Kind::weights)) return "";
  static const std::set<std::string> sep_like = {"sep", "grid", "max_sep", "min_sep", "sup_sep", "inf_sep"};
  for (const auto& cl : c.clauses) {
    if (cl.kind != Clause::Kind::check) continue;
    for (const auto& t : cl.cond.terms)
      if (t->kind == Expr::Kind::call && sep_like.count(t->str) && !seen.count(t->text))
        return v + ", but the quantity \"" + t->text + "\" of its check (line " + std::to_string(cl.loc.line) +
               ") was never evaluated";
  }
  return "";
}

std::string journal_counts_text(const ClaimResult& r) {
  return std::to_string(r.instances) + " instances: " + std::to_string(r.passed) + " passed, " +
         std::to_string(r.passed_probabilistic) + " passed (probabilistic), " + std::to_string(r.failed) +
         " failed, " + std::to_string(r.inconclusive) + " inconclusive";
}

// A path as JSON can hold it: as it is when it is UTF-8, else its bytes in hex.
std::string hex(const std::string& s) {
  std::string o;
  char b[3];
  for (unsigned char c : s) {
    std::snprintf(b, sizeof b, "%02x", c);
    o += b;
  }
  return o;
}

std::string unhex(const std::string& s, const std::string& path) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    bad(path, "expected lowercase hex digits");
  };
  if (s.size() % 2) bad(path, "expected an even number of hex digits");
  std::string o;
  for (std::size_t i = 0; i < s.size(); i += 2) o += static_cast<char>(digit(s[i]) * 16 + digit(s[i + 1]));
  return o;
}

}  // namespace

// ------------------------------------------------------------------ writing
std::string claim_fingerprint(const Claim& c, const CheckOptions& o) {
  // Length-prefixed parts, so that no two lists of parts give the same bytes.
  std::string all;
  auto mix = [&](const std::string& s) { all += std::to_string(s.size()) + ":" + s; };
  mix(c.title);
  for (const auto& cl : c.clauses) mix(cl.text);
  // The content of every file the claim reads: a verdict on model("net.json")
  // is not reused after net.json changed.
  for (const auto& path : c.reads) {
    mix(path);
    try {
      mix(sha256_hex(read_text_file(path, "the model file")));
    } catch (const Error&) {
      mix("\x01unreadable");  // the claim will report it; never a reused verdict
    }
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.17g/%.17g", o.budget, o.max_terms);
  mix(b);
  return sha256_hex(all);
}

std::string claim_journal_line(const Claim& c, const std::string& fingerprint, const ClaimResult& r) {
  // The result names the claim it is of (judge_claim_entry compares it with its entry's).
  ClaimResult bound = r;
  bound.fingerprint = fingerprint;
  json line = {{"file", c.loc.file},
               {"title", c.title},
               {"fingerprint", fingerprint},
               {"claim_sha256", sha256_hex(c.source)},
               {"build", netpoly_build()},
               {"result", claim_json(bound)}};
  if (!is_utf8(c.loc.file)) line["file_hex"] = hex(c.loc.file);  // "file" is then only for reading
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ------------------------------------------------------------------ reading
std::vector<ClaimJournalEntry> read_claim_journal(const std::vector<std::string>& lines, const std::string& path) {
  std::vector<ClaimJournalEntry> out;
  for (std::size_t n = 1; n <= lines.size(); ++n) {
    try {
      // At most 32 levels (an entry is 5 deep), no key twice: JsonCheck::parse.
      const json j = JsonCheck("").parse(lines[n - 1]);
      ClaimJournalEntry e;
      e.line = n;
      e.file = j.contains("file_hex") ? unhex(text(j, "", "file_hex"), "file_hex") : text(j, "", "file");
      e.title = text(j, "", "title");
      e.fingerprint = text(j, "", "fingerprint");
      e.claim_sha256 = j.contains("claim_sha256") ? text(j, "", "claim_sha256") : "";
      e.build = j.contains("build") ? text(j, "", "build") : "";
      e.result = field(j, "", "result");
      out.push_back(std::move(e));
    } catch (const std::exception& x) {
      throw InputError(printable(path) + ":" + std::to_string(n) + ": not a netpoly check journal line (" +
                       printable(x.what()) + "); remove the file or drop --resume");
    }
  }
  return out;
}

ClaimResult claim_from_json(const json& j, const std::string& file) {
  const std::string path = "result";
  ClaimResult r;
  r.file = file;
  r.loc.file = file;
  r.loc.line = static_cast<int>(count(j, path, "line", 1, INT_MAX));
  r.title = text(j, path, "title");
  const std::string v = text(j, path, "verdict");
  if (v == "ERROR") {
    r.error = true;
    r.error_message = text(j, path, "error");
    if (j.contains("error_kind")) {
      if (text(j, path, "error_kind") != "limit") bad(at(path, "error_kind"), "expected \"limit\"");
      r.error_limit = true;
    }
  } else {
    r.verdict = verdict_of(v, at(path, "verdict"));
  }
  r.instances = count(j, path, "instances");
  r.passed = count(j, path, "passed");
  r.passed_probabilistic = count(j, path, "passed_probabilistic");
  r.failed = count(j, path, "failed");
  r.inconclusive = count(j, path, "inconclusive");
  r.skipped = count(j, path, "skipped");
  if (!r.error && r.verdict == Verdict::pass_probabilistic)
    r.failure_probability = number(j, path, "failure_probability", 1, true);
  r.seconds = number(j, path, "seconds", kMaxJournalSeconds);
  if (j.contains("fingerprint")) r.fingerprint = text(j, path, "fingerprint");
  for (const auto& q : array(j, path, "quantities")) {
    const std::string qp = at(path, "quantities");
    QuantityStats s;
    s.loc = {file, static_cast<int>(count(q, qp, "line", 1, INT_MAX)), 0};
    s.text = text(q, qp, "expr");
    const json& st = field(q, qp, "status");
    if (!st.is_object()) bad(at(qp, "status"), "expected an object");
    std::uint64_t total = 0;
    for (const auto& [name, n] : st.items()) {
      s.status[name] = count(st, at(qp, "status"), name.c_str());
      total += s.status[name];
    }
    if (total != count(q, qp, "evaluations")) bad(at(qp, "evaluations"), "not the sum of its status counts");
    r.quantities.push_back(std::move(s));
  }
  r.notes = texts(j, path, "notes");
  if (j.contains("shown")) r.shown = texts(j, path, "shown");
  if (j.contains("bounds_used")) {
    const json& u = field(j, path, "bounds_used");
    if (!u.is_object()) bad(at(path, "bounds_used"), "expected an object");
    for (const auto& [id, x] : u.items())
      r.bounds_used[id] = {count(x, at(path, "bounds_used"), "evaluations"),
                           count(x, at(path, "bounds_used"), "vacuous")};
  }
  if (j.contains("report")) r.report = report_from_json(field(j, path, "report"), file);
  return r;
}

// ------------------------------------------------------------------ judging
std::string claim_result_problem(const ClaimResult& r, const Claim& c) {
  if (r.error) return r.error_message.empty() ? "an ERROR without its message" : "";
  const std::string v = std::string("verdict ") + verdict_name(r.verdict);
  if (r.passed + r.passed_probabilistic + r.failed + r.inconclusive != r.instances)
    return "its counts do not add up (" + journal_counts_text(r) + ")";
  if (r.instances == 0 && r.verdict != Verdict::inconclusive) return v + " with no instance";
  if (!has_clause(c, Clause::Kind::exists)) {
    // Every instance must pass: the verdict is the worst instance's.
    const Verdict want = r.failed ? Verdict::fail
                         : r.inconclusive ? Verdict::inconclusive
                         : r.passed_probabilistic ? Verdict::pass_probabilistic
                         : r.passed ? Verdict::pass
                                    : Verdict::inconclusive;
    if (want != r.verdict) return v + ", but its counts say " + verdict_name(want) + " (" + journal_counts_text(r) + ")";
  } else if ((r.verdict == Verdict::pass && r.passed == 0) ||
             (r.verdict == Verdict::pass_probabilistic && r.passed_probabilistic == 0) ||
             (r.verdict == Verdict::fail && r.failed == 0)) {
    return v + ", but no instance has it (" + journal_counts_text(r) + ")";
  }
  if (auto why = quantities_problem(r, c); !why.empty()) return why;
  if (const long long n = static_instances(c);
      n > 0 && (r.verdict == Verdict::pass || r.verdict == Verdict::pass_probabilistic) &&
      r.instances != static_cast<std::uint64_t>(n))
    return v + " with " + std::to_string(r.instances) + " instances, but the claim has " + std::to_string(n);
  const auto& rep = r.report;
  if (rep && (rep->index == 0 || rep->index > r.instances))
    return "its " + rep->kind + " is instance " + std::to_string(rep->index) + " of " + std::to_string(r.instances);
  auto any = [&](Verdict x) {
    for (const auto& ch : rep->checks)
      if (ch.verdict == x) return true;
    return false;
  };
  switch (r.verdict) {
    case Verdict::fail:
      if (!rep || (rep->kind != "counterexample" && rep->kind != "example"))
        return v + " without its counterexample";
      if (!any(Verdict::fail)) return v + ", but no check of its counterexample failed";
      break;
    case Verdict::pass:
    case Verdict::pass_probabilistic:
      if (!rep) break;
      if (!has_clause(c, Clause::Kind::exists) || rep->kind != "witness") return v + " with a " + rep->kind + " (only an exists has a witness)";
      if (any(Verdict::fail) || any(Verdict::inconclusive) ||
          (r.verdict == Verdict::pass && any(Verdict::pass_probabilistic)))
        return v + ", but its witness has a check that is not " + verdict_name(r.verdict);
      break;
    case Verdict::inconclusive:
      if (rep && rep->kind != "example") return v + " with a " + rep->kind;
      break;
  }
  return "";
}

std::string judge_claim_entry(const ClaimJournalEntry& e, const Claim& c, const std::string& fp, ClaimResult& out) {
  if (e.build != netpoly_build())
    return e.build.empty() ? "written by a netpoly that did not record its build"
                           : "written by netpoly " + e.build + ", this is netpoly " + netpoly_build();
  if (e.file != c.loc.file || e.title != c.title) return "an entry of another claim";
  if (e.claim_sha256 != sha256_hex(c.source)) return "the claim's text changed since";
  if (e.fingerprint != fp) return "other options (--budget, --max-terms) or other model files";
  try {
    out = claim_from_json(e.result, c.loc.file);
  } catch (const InputError& x) {
    return std::string("its result is malformed (") + x.what() + ")";
  }
  if (out.title != c.title) return "its result is of the claim \"" + out.title + "\"";
  // Each result names the claim it is of: one moved or swapped from another
  // entry (its title and line adjusted) is another claim's, never this one's.
  if (out.fingerprint.empty()) return "its result does not name the claim it is of (no fingerprint)";
  if (out.fingerprint != e.fingerprint)
    return "its result is of another claim (its fingerprint " + out.fingerprint.substr(0, 12) +
           " is not its entry's " + e.fingerprint.substr(0, 12) + "): moved or swapped between entries";
  if (out.loc.line != c.loc.line)
    return "its result is at line " + std::to_string(out.loc.line) + ", the claim at line " +
           std::to_string(c.loc.line);
  // Nothing beyond what this netpoly writes (the file aside: a path that is not UTF-8 is kept lossily there).
  json again = claim_json(out), stored = e.result;
  const auto f = stored.find("file");
  if (f == stored.end() || !f->is_string() || (is_utf8(c.loc.file) && f->get<std::string>() != c.loc.file))
    return "its result names another file";
  again.erase("file");
  stored.erase("file");
  if (again != stored) return "its result holds what this netpoly does not write";
  if (auto why = claim_result_problem(out, c); !why.empty()) return why;
  return "";
}

}  // namespace netpoly
