// netpoly check PATH...: run the claims of .np files (proofs/README.md).
//
// Interruption (SIGINT, SIGTERM): the claims in flight are dropped (nothing of
// a half-run claim can be kept), what finished stays printed (and, with
// --json, a valid report of the finished claims with "interrupted": true is
// printed), and the process exits with 130. With --journal FILE every finished
// claim is also appended to FILE as one JSON line; a rerun with --resume skips
// the claims whose entries hold up (claim_journal.hpp: same build, claim text,
// model files, --budget and --max-terms, and a verdict that follows from the
// entry's own counts and report); an entry that does not is named, with why,
// and its claim runs again.

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>

#include "check_coverage.hpp"
#include "commands/commands.hpp"
#include "claims/eval/claim_bounds.hpp"
#include "claims/report/claim_journal.hpp"
#include "runtime/sha256.hpp"
#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "runtime/io.hpp"
#include "runtime/limits.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::cli {

namespace {


// ------------------------------------------------------------------ the report
// SIGINT/SIGTERM and the limits stop the process through limits.hpp: the stop
// report takes the output lock (so that no claim is half printed), prints what
// finished, and the process exits with 130 (or 3 at a limit).
struct Report {
  std::mutex mu;  // output, journal and the state below
  std::vector<ClaimResult> done;        // in file order
  std::vector<nlohmann::json> done_json;
  std::vector<std::string> texts;       // each done claim's text as printed
  std::vector<const Claim*> claims;     // every selected claim, in file order
  std::chrono::steady_clock::time_point t0;
  std::string started;                  // ISO 8601 UTC, for --junit
  bool stopped = false;                 // --fail-fast: a claim did not pass
  std::string hint;                     // what an interruption keeps (after "K of N claims finished")
  const std::vector<ClaimFile>* files = nullptr;  // every file loaded (--coverage looks up titles in all)
  std::optional<StatementRegistry> registry;      // --coverage: docs/statements.md next to the paths
  std::string registry_note;                      // why there is none
};

// The interruption's message names how many claims finished (kept current as they do).
void update_stop_hint(const Report& rep) {
  const std::string h = std::to_string(rep.done.size()) + " of " + std::to_string(rep.claims.size()) + " " + rep.hint;
  install_interrupt_handler("check", h);
  set_stop_hint(h);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json report_json(const std::vector<ClaimResult>& results, const std::vector<nlohmann::json>& claims_json,
                           double secs, int code) {
  nlohmann::json j;
  j["claims"] = claims_json;
  const auto [pass, prob, fail, inc, err] = count_verdicts(results);
  j["summary"] = {{"claims", results.size()}, {"passed", pass + prob}, {"passed_probabilistic", prob},
                  {"failed", fail},           {"inconclusive", inc},   {"errors", err},
                  {"seconds", secs},          {"exit_code", code}};
  if (prob) j["summary"]["failure_probability"] = failure_probability(results);
  return j;
}

// The claims not run, for --json: file, line, title.
nlohmann::json not_run_json(const Report& rep) {
  nlohmann::json a = nlohmann::json::array();
  for (std::size_t i = rep.done.size(); i < rep.claims.size(); ++i)
    a.push_back({{"file", rep.claims[i]->loc.file}, {"line", rep.claims[i]->loc.line}, {"title", rep.claims[i]->title}});
  return a;
}

// --junit FILE: the finished claims, and the claims not run (skipped, for `why`).
void write_junit_file(const CheckCliOptions& o, const Report& rep, const std::string& why) {
  if (o.junit.empty()) return;
  CheckRun run;
  run.results = rep.done;
  run.texts = rep.texts;
  for (std::size_t i = rep.done.size(); i < rep.claims.size(); ++i) run.not_run.push_back(rep.claims[i]);
  run.not_run_reason = why;
  run.seconds = seconds_since(rep.t0);
  run.strict = o.check.strict;
  run.timestamp = rep.started;
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", o.check.budget);
  run.properties = {{"netpoly.version", NETPOLY_VERSION}, {"budget", b}};
  std::snprintf(b, sizeof b, "%.17g", o.check.max_terms);
  run.properties.emplace_back("max_terms", b);
  run.properties.emplace_back("strict", o.check.strict ? "true" : "false");
  std::ostringstream os;
  write_junit(os, run);
  write_file_atomic(o.junit, os.str());
}

// --annotations github: workflow commands on stdout (on stderr with --json, whose stdout is one document).
void annotate(const CheckCliOptions& o, const std::string& line) {
  if (o.annotations.empty() || line.empty()) return;
  (o.json ? std::cerr : std::cout) << line << "\n";
}

// Nothing ran: a claim file did not load, or no claim was selected.
void report_load_error(const CheckCliOptions& o, const std::string& message,
                       std::chrono::steady_clock::time_point t0) {
  annotate(o, github_error(message));
  if (!o.junit.empty()) {
    std::ostringstream os;
    write_junit_error(os, message, seconds_since(t0));
    write_file_atomic(o.junit, os.str());
  }
}

// Stopped early (SIGINT, SIGTERM, --max-memory): print what finished.
void install_stop_report(const CheckCliOptions& o, Report& rep) {
  set_stop_report([&](int code) {
    std::lock_guard<std::mutex> lock(rep.mu);
    const double secs = seconds_since(rep.t0);
    const bool interrupted = code == static_cast<int>(ExitCode::interrupted);
    if (o.json) {
      nlohmann::json j = report_json(rep.done, rep.done_json, secs, code);
      j[interrupted ? "interrupted" : "stopped"] = true;
      j["not_run"] = not_run_json(rep);
      std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << (interrupted ? "INTERRUPTED  " : "STOPPED  ") << summary_line(rep.done, secs) << "; "
                << rep.claims.size() - rep.done.size() << " of " << rep.claims.size() << " not run\n";
    }
    std::cout.flush();
    try {
      write_junit_file(o, rep, interrupted ? "not run: the run was interrupted" : "not run: the run was stopped at a limit");
    } catch (const std::exception& e) {
      std::cerr << "netpoly: --junit " << o.junit << ": " << e.what() << "\n";
    }
  });
  rep.hint = "claims finished (the claims in flight were dropped); ";
  if (!o.journal.empty())
    rep.hint += "their results are in the journal " + o.journal + "; rerun the same command with --resume to skip them";
  else
    rep.hint += "nothing was kept for a rerun: add --journal FILE to keep finished claims, then --resume to skip them "
                "(or --filter TEXT to run only some)";
  update_stop_hint(rep);
}

// The summary (text or JSON) and the exit status of a finished run.
void finish_check(const CheckCliOptions& o, Report& rep) {
  const std::vector<ClaimResult>& results = rep.done;
  const double secs = seconds_since(rep.t0);
  const int code = check_exit_code(results, o.check.strict);
  const std::size_t not_run = rep.claims.size() - results.size();
  CoverageProblems missing;
  const bool coverage = (o.coverage || !o.statements.empty()) && !rep.stopped;
  if (o.json) {
    nlohmann::json j = report_json(results, rep.done_json, secs, code);
    if (rep.stopped) {
      j["fail_fast"] = true;
      j["not_run"] = not_run_json(rep);
      j["summary"]["not_run"] = not_run;
    }
    if (coverage) missing = write_coverage(results, *rep.files, rep.registry, rep.registry_note, &j);
    std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    // The coverage report first: the summary is the last line, what a CI log shows at its end.
    if (coverage) {
      missing = write_coverage(results, *rep.files, rep.registry, rep.registry_note, nullptr);
      std::cout << "\n";
    }
    std::cout << summary_line(results, secs);
    if (rep.stopped)
      std::cout << "; --fail-fast: " << not_run << " of " << rep.claims.size() << " claims not run";
    std::cout << "\n";
  }
  std::cout.flush();
  write_junit_file(o, rep, "not run: --fail-fast stopped at the first claim that did not pass");
  if (code == 2) {
    for (const auto& r : results)
      if (r.error && !r.error_limit) throw InputError(r.error_message);
  }
  if (code == 3) {  // the wall clock's safety net: the machine, not the mathematics (exit 3)
    for (const auto& r : results)
      if (r.error && r.error_limit) throw MachineLimit(r.error_message);
  }
  if (code != 0) {
    std::size_t fail = 0, inc = 0, prob = 0;
    for (const auto& r : results) {
      fail += r.verdict == Verdict::fail;
      inc += r.verdict == Verdict::inconclusive;
      prob += r.verdict == Verdict::pass_probabilistic;
    }
    std::string why = std::to_string(fail) + " failed, " + std::to_string(inc) + " inconclusive";
    if (o.check.strict && prob) why += ", " + std::to_string(prob) + " only probabilistic (--strict)";
    if (rep.stopped) why += "; --fail-fast: " + std::to_string(not_run) + " not run";
    throw CheckFailed("not every claim passed (" + why + ")");
  }
  if (!missing.empty()) throw CheckFailed(missing.message());
}

// Claims finished in an earlier run (--journal FILE --resume), by index; the rest to run.
struct Plan {
  std::unique_ptr<Journal> out;
  std::vector<std::optional<ClaimResult>> cached;
  std::vector<std::string> fps;
  std::vector<std::string> distrusted;  // "JOURNAL:LINE (claim "T", FILE:LINE): why", for the report
  std::vector<const Claim*> todo;
  std::vector<std::size_t> todo_index;
};

// The journal's entry for claim c that holds up (the latest), or why none does
// ("" when the journal has no entry of c at all). Two entries that hold up but
// disagree (verdict or counts) are both set aside: one of them was not written
// by a run, and which one cannot be told.
std::optional<ClaimResult> resumed(const std::vector<ClaimJournalEntry>& journal, const Claim& c,
                                   const std::string& fp, std::string& why) {
  const ClaimJournalEntry* reported = nullptr;  // whose reason is given: the latest of the same text, else the latest
  const ClaimJournalEntry* kept = nullptr;
  std::optional<ClaimResult> out;
  const std::string sha = sha256_hex(c.source);
  auto outcome = [](const ClaimResult& r) {
    return std::make_tuple(r.error, r.error ? Verdict::inconclusive : r.verdict, r.instances, r.passed,
                           r.passed_probabilistic, r.failed, r.inconclusive, r.skipped);
  };
  for (auto it = journal.rbegin(); it != journal.rend(); ++it) {
    if (it->file != c.loc.file || it->title != c.title) continue;
    ClaimResult r;
    const std::string w = judge_claim_entry(*it, c, fp, r);
    if (w.empty() && !out) {
      out = std::move(r);
      kept = &*it;
    } else if (w.empty() && outcome(r) != outcome(*out)) {
      why = "lines " + std::to_string(it->line) + " and " + std::to_string(kept->line) +
            ": two entries of the claim disagree (" + (r.error ? "ERROR" : verdict_name(r.verdict)) + ", " +
            (out->error ? "ERROR" : verdict_name(out->verdict)) + "), neither is trusted";
      return std::nullopt;
    }
    if (!w.empty() && (!reported || (reported->claim_sha256 != sha && it->claim_sha256 == sha))) {
      reported = &*it;
      why = "line " + std::to_string(it->line) + ": " + w;
    }
  }
  if (out) why.clear();
  return out;
}

void plan_run(const CheckCliOptions& o, const std::vector<const Claim*>& claims, Plan& p) {
  // The file new results go to, locked against a second run for as long as this one lasts.
  if (!o.journal.empty()) p.out = std::make_unique<Journal>(o.journal, o.resume);
  std::vector<ClaimJournalEntry> journal;
  if (o.resume) journal = read_claim_journal(p.out->lines(), o.journal);
  p.cached.resize(claims.size());
  p.fps.resize(claims.size());
  // --fail-fast: nothing after the first claim the journal says did not pass needs to run.
  std::size_t end = claims.size();
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const Claim& c = *claims[i];
    p.fps[i] = claim_fingerprint(c, o.check);
    std::string why;
    if (o.resume) p.cached[i] = resumed(journal, c, p.fps[i], why);
    if (!why.empty() && !p.cached[i])
      p.distrusted.push_back(o.journal + " " + why + " (claim \"" + c.title + "\", " + c.loc.str() + ")");
    if (p.cached[i]) {
      if (o.fail_fast && end == claims.size() && !claim_passed(*p.cached[i], o.check.strict)) end = i;
    } else if (i < end) {
      p.todo.push_back(claims[i]);
      p.todo_index.push_back(i);
    }
  }
}

// --coverage: the statements registry (--statements FILE, else docs/statements.md
// in the first path's directory or the nearest one above it), read before
// anything runs so that a malformed one stops the run at once.
void load_registry(const CheckCliOptions& o, Report& rep) {
  std::string path = o.statements;
  if (path.empty()) {
    path = find_statements_file(o.paths.at(0));
    if (path.empty()) {
      rep.registry_note = "no docs/statements.md next to " + o.paths[0] +
                          " or above it: statements not listed (give --statements FILE)";
      return;
    }
  }
  rep.registry = read_statements(path);
}

}  // namespace

void run_check(const CheckCliOptions& options) {
  CheckCliOptions o = options;
  // The run limits through the option table (scope kCheck): those not given keep check's defaults.
  SepOptions given;
  set_options_from_text(given, o.limits);
  for (const auto& [name, text] : o.limits) {
    if (name == "budget") o.check.budget = given.budget;
    if (name == "max_terms") o.check.max_terms = given.max_terms;
  }
  if (o.check.jobs < 1 || o.check.jobs > 256) throw InputError("--jobs: must be in [1, 256]");
  if (o.resume && o.journal.empty()) throw InputError("--resume needs --journal FILE");
  if (!o.annotations.empty() && o.annotations != "github")
    throw InputError("--annotations: expected github, got '" + o.annotations + "'");
  Limits lim;
  if (given.max_memory > 0) lim.max_memory_bytes = given.max_memory;
  start_watchdog(lim, "check");
  Report rep;
  rep.t0 = std::chrono::steady_clock::now();
  rep.started = utc_now();
  // Every file is parsed (and every model file read) before any claim runs.
  std::vector<ClaimFile> files;
  try {
    files = load_claim_paths(o.paths);
    rep.claims = select_claims(files, o.check.filter);
    if (rep.claims.empty())
      throw InputError(o.check.filter.empty() ? "no claims in the given files"
                                              : "--filter \"" + o.check.filter + "\": no claim title contains it");
    rep.files = &files;
    if (o.coverage || !o.statements.empty()) load_registry(o, rep);
  } catch (const InputError& e) {
    report_load_error(o, e.what(), rep.t0);
    throw;
  }
  const auto& claims = rep.claims;
  // The report's place is checked (and holds every claim as not run) before anything runs.
  write_junit_file(o, rep, "not run: the run did not finish");
  Plan plan;
  plan_run(o, claims, plan);
  std::size_t from_journal = 0;
  for (const auto& c : plan.cached) from_journal += c.has_value();

  // Appends claim i's result (under rep.mu): printed, annotated, journaled, remembered.
  // A result from the journal is printed as this netpoly prints it (never the text the journal holds).
  auto emit = [&](std::size_t i, const ClaimResult& r_in, bool old) {
    ClaimResult r = r_in;
    if (!old && plan.out) r.fingerprint = plan.fps[i];  // the result names its claim (--resume checks it)
    nlohmann::json j = claim_json(r);
    if (old) j["from_journal"] = true;
    std::ostringstream os;
    write_claim_text(os, r);
    // A verdict taken from the journal says so in the text, and so in JUnit's system-out.
    if (old) os << "    (result from the journal " << printable(o.journal) << ", not run again)\n";
    std::string text = os.str();
    if (!o.json) std::cout << text;
    annotate(o, github_annotation(r, o.check.strict));
    std::cout << std::flush;
    if (!old && plan.out) plan.out->append(claim_journal_line(*claims[i], plan.fps[i], r));
    rep.done.push_back(r);
    rep.done_json.push_back(std::move(j));
    rep.texts.push_back(std::move(text));
    if (o.fail_fast && !claim_passed(r, o.check.strict)) rep.stopped = true;
    update_stop_hint(rep);
  };
  std::size_t next_cached = 0;  // claims before this index are emitted
  auto emit_cached_before = [&](std::size_t end) {
    for (; next_cached < end && !rep.stopped; ++next_cached)
      if (plan.cached[next_cached]) emit(next_cached, *plan.cached[next_cached], true);
  };

  install_stop_report(o, rep);
  auto clear_stop_report = [&] { set_stop_report({}); };

  try {
    {
      std::lock_guard<std::mutex> lock(rep.mu);
      if (!o.json) {
        std::cout << "netpoly check: " << claims.size() << (claims.size() == 1 ? " claim" : " claims") << " in "
                  << files.size() << (files.size() == 1 ? " file" : " files");
        if (from_journal)
          std::cout << " (" << from_journal << " finished earlier, from the journal " << printable(o.journal) << ")";
        std::cout << "\n";
      }
      // Entries that did not hold up: their claims run again (on stderr with --json, whose stdout is one document).
      for (const auto& d : plan.distrusted)
        (o.json ? std::cerr : std::cout) << "journal entry not trusted, claim run again: " << printable(d) << "\n";
      std::cout << std::flush;
    }
    run_claims(
        plan.todo, o.check,
        [&](std::size_t k, const ClaimResult& r) {
          std::lock_guard<std::mutex> lock(rep.mu);
          emit_cached_before(plan.todo_index[k]);
          if (rep.stopped) return;
          emit(plan.todo_index[k], r, false);
          next_cached = std::max(next_cached, plan.todo_index[k] + 1);
        },
        [&](const ClaimResult& r) { return o.fail_fast && !claim_passed(r, o.check.strict); });
    std::lock_guard<std::mutex> lock(rep.mu);
    emit_cached_before(claims.size());
  } catch (...) {
    clear_stop_report();
    throw;
  }
  clear_stop_report();

  finish_check(o, rep);
}

}  // namespace netpoly::cli
