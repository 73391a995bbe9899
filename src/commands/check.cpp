// netpoly check PATH...: run the claims of .np files (proofs/README.md).
//
// Interruption (SIGINT, SIGTERM): the claims in flight are dropped (nothing of
// a half-run claim can be kept), what finished stays printed (and, with
// --json, a valid report of the finished claims with "interrupted": true is
// printed), and the process exits with 130. With --journal FILE every finished
// claim is also appended to FILE as one JSON line; a rerun with --resume skips
// the claims found there (same file, title, clauses, content of the files the
// claim reads, --budget and --max-terms).

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "netpoly/commands.hpp"
#include "netpoly/claim_bounds.hpp"
#include "netpoly/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "netpoly/io.hpp"
#include "netpoly/limits.hpp"

namespace netpoly::cli {

namespace {


// ------------------------------------------------------------------ journal
// A claim's identity in the journal: its file and title, and a fingerprint of
// its clauses and of the options that change its result.
std::string fingerprint(const Claim& c, const CheckOptions& o) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  auto mix = [&](const std::string& s) {
    for (unsigned char ch : s) {
      h ^= ch;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;
    h *= 1099511628211ULL;
  };
  mix(c.title);
  for (const auto& cl : c.clauses) mix(cl.text);
  // The content of every file the claim reads: a verdict on model("net.json")
  // is not reused after net.json changed.
  for (const auto& path : c.reads) {
    mix(path);
    try {
      mix(read_text_file(path, "the model file"));
    } catch (const Error&) {
      mix("\x01unreadable");  // the claim will report it; never a reused verdict
    }
  }
  char b[64];
  std::snprintf(b, sizeof b, "%.17g/%.17g", o.budget, o.max_terms);
  mix(b);
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::string journal_key(const std::string& file, const std::string& title, const std::string& fp) {
  return file + "\n" + title + "\n" + fp;
}

struct JournalEntry {
  ClaimResult result;  // what the report and the exit code need
  nlohmann::json json;  // claim_json as first printed
  std::string text;     // write_claim_text as first printed
};

ClaimResult result_from_json(const nlohmann::json& j) {
  ClaimResult r;
  r.file = j.at("file").get<std::string>();
  r.loc.file = r.file;
  r.loc.line = j.at("line").get<int>();
  r.title = j.at("title").get<std::string>();
  const std::string v = j.at("verdict").get<std::string>();
  r.verdict = Verdict::inconclusive;
  if (v == "ERROR") {
    r.error = true;
    r.error_message = j.value("error", std::string("error"));
  } else if (v == verdict_name(Verdict::pass)) {
    r.verdict = Verdict::pass;
  } else if (v == verdict_name(Verdict::pass_probabilistic)) {
    r.verdict = Verdict::pass_probabilistic;
  } else if (v == verdict_name(Verdict::fail)) {
    r.verdict = Verdict::fail;
  } else if (v != verdict_name(Verdict::inconclusive)) {
    throw InputError("unknown verdict \"" + v + "\"");
  }
  r.instances = j.at("instances").get<std::size_t>();
  r.passed = j.at("passed").get<std::size_t>();
  r.passed_probabilistic = j.at("passed_probabilistic").get<std::size_t>();
  r.failed = j.at("failed").get<std::size_t>();
  r.inconclusive = j.at("inconclusive").get<std::size_t>();
  r.skipped = j.at("skipped").get<std::size_t>();
  r.failure_probability = j.value("failure_probability", 0.0);
  r.seconds = j.at("seconds").get<double>();
  if (j.contains("bounds_used"))
    for (const auto& [id, u] : j["bounds_used"].items())
      r.bounds_used[id] = {u.at("evaluations").get<std::size_t>(), u.at("vacuous").get<std::size_t>()};
  return r;
}

// The journal's entries (later lines win). The Journal has already cut a torn
// last line (a killed writer); anything else malformed is an error.
std::map<std::string, JournalEntry> read_journal(const Journal& jf) {
  std::map<std::string, JournalEntry> out;
  std::size_t n = 0;
  for (const auto& l : jf.lines()) {
    ++n;
    try {
      auto j = nlohmann::json::parse(l);
      JournalEntry e;
      e.json = j.at("result");
      e.result = result_from_json(e.json);
      e.text = j.at("text").get<std::string>();
      out[journal_key(j.at("file").get<std::string>(), j.at("title").get<std::string>(),
                      j.at("fingerprint").get<std::string>())] = std::move(e);
    } catch (const std::exception& x) {
      throw InputError(jf.path() + ":" + std::to_string(n) + ": not a netpoly check journal line (" + x.what() +
                       "); remove the file or drop --resume");
    }
  }
  return out;
}

// ------------------------------------------------------------------ interruption
// SIGINT/SIGTERM and the limits stop the process through limits.hpp: the stop
// report takes the output lock (so that no claim is half printed), prints what
// finished, and the process exits with 130 (or 3 at a limit).
struct Report {
  std::mutex mu;  // output, journal and the state below
  std::vector<ClaimResult> done;
  std::vector<nlohmann::json> done_json;
  std::size_t total = 0;
  std::chrono::steady_clock::time_point t0;
};

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

// Stopped early (SIGINT, SIGTERM, --max-memory): print what finished.
void install_stop_report(const CheckCliOptions& o, Report& rep) {
  set_stop_report([&](int code) {
    std::lock_guard<std::mutex> lock(rep.mu);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - rep.t0).count();
    const bool interrupted = code == static_cast<int>(ExitCode::interrupted);
    if (o.json) {
      nlohmann::json j = report_json(rep.done, rep.done_json, secs, code);
      j[interrupted ? "interrupted" : "stopped"] = true;
      std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << (interrupted ? "INTERRUPTED  " : "STOPPED  ") << summary_line(rep.done, secs) << "; "
                << rep.total - rep.done.size() << " of " << rep.total << " not run\n";
    }
    std::cout.flush();
  });
  {
    std::string hint = "claims finished (the claims in flight were dropped); ";
    if (!o.journal.empty())
      hint += "their results are in the journal " + o.journal + "; rerun the same command with --resume to skip them";
    else
      hint += "nothing was kept for a rerun: add --journal FILE to keep finished claims, then --resume to skip them "
              "(or --filter TEXT to run only some)";
    install_interrupt_handler("check", hint);
    set_stop_hint(hint);
  }
}

// The summary (text or JSON) and the exit status of a finished run.
// `--coverage`: every id bound(...) accepts, with the evaluations that checked
// it over all claims; the ids no evaluation reached.
std::vector<std::string> write_coverage(const std::vector<ClaimResult>& results, bool json_mode, nlohmann::json* j) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> total;
  for (const auto& r : results)
    for (const auto& [id, n] : r.bounds_used) {
      total[id].first += n.first;
      total[id].second += n.second;
    }
  std::vector<std::string> missing;
  nlohmann::json cov = nlohmann::json::array();
  std::ostringstream os;
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
      what = std::to_string(n - vac) + (n - vac == 1 ? " evaluation" : " evaluations") + (vac ? " (and " + std::to_string(vac) + " vacuous)" : "");
    }
    char b[64];
    std::snprintf(b, sizeof b, "  %-28s ", id.c_str());
    os << b << what << "\n";
    cov.push_back({{"id", id}, {"evaluations", n}, {"vacuous", vac}});
  }
  os << (missing.empty() ? "every bound id is checked\n"
                         : std::to_string(missing.size()) + " bound id(s) checked by no instance\n");
  if (json_mode && j) (*j)["coverage"] = cov;
  if (!json_mode) std::cout << os.str();
  return missing;
}

void finish_check(const CheckCliOptions& o, Report& rep) {
  const auto t0 = rep.t0;
  const std::vector<ClaimResult>& results = rep.done;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int code = check_exit_code(results, o.check.strict);
  std::vector<std::string> missing;
  if (o.json) {
    nlohmann::json j = report_json(results, rep.done_json, secs, code);
    if (o.coverage) missing = write_coverage(results, true, &j);
    std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << summary_line(results, secs) << "\n";
    if (o.coverage) missing = write_coverage(results, false, nullptr);
  }
  std::cout.flush();
  if (code == 2) {
    for (const auto& r : results)
      if (r.error) throw InputError(r.error_message);
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
    throw CheckFailed("not every claim passed (" + why + ")");
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + ("\"" + m + "\"");
    throw CheckFailed("--coverage: " + std::to_string(missing.size()) + " bound id(s) checked by no instance: " + list);
  }
}

}  // namespace

void run_check(const CheckCliOptions& o) {
  limit_option(o.check.budget, "--budget", false);
  limit_option(o.check.max_terms, "--max-terms", false);
  if (o.check.jobs < 1 || o.check.jobs > 256) throw InputError("--jobs: must be in [1, 256]");
  if (o.resume && o.journal.empty()) throw InputError("--resume needs --journal FILE");
  Limits lim;
  if (!o.max_memory.empty()) lim.max_memory_bytes = parse_memory_size(o.max_memory, "--max-memory");
  start_watchdog(lim, "check");
  const auto t0 = std::chrono::steady_clock::now();
  // Every file is parsed (and every model file read) before any claim runs.
  const auto files = load_claim_paths(o.paths);
  const auto claims = select_claims(files, o.check.filter);
  if (claims.empty())
    throw InputError(o.check.filter.empty() ? "no claims in the given files"
                                            : "--filter \"" + o.check.filter + "\": no claim title contains it");
  // Finished claims from an earlier run, and the file new ones go to (locked
  // against a second run for as long as this one lasts).
  std::map<std::string, JournalEntry> journal;
  std::unique_ptr<Journal> jout;
  if (!o.journal.empty()) jout = std::make_unique<Journal>(o.journal, o.resume);
  if (o.resume) journal = read_journal(*jout);
  std::vector<const JournalEntry*> cached(claims.size(), nullptr);
  std::vector<std::string> fps(claims.size());
  std::vector<const Claim*> todo;
  std::vector<std::size_t> todo_index;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    fps[i] = fingerprint(*claims[i], o.check);
    auto it = journal.find(journal_key(claims[i]->loc.file, claims[i]->title, fps[i]));
    if (it != journal.end()) {
      cached[i] = &it->second;
    } else {
      todo.push_back(claims[i]);
      todo_index.push_back(i);
    }
  }
  const std::size_t from_journal = claims.size() - todo.size();

  Report rep;
  rep.total = claims.size();
  rep.t0 = t0;
  // Appends claim i's result (under rep.mu): printed, journaled, remembered.
  auto emit = [&](std::size_t i, const ClaimResult& r, const JournalEntry* old) {
    nlohmann::json j = old ? old->json : claim_json(r);
    if (old) j["from_journal"] = true;
    std::string text;
    if (old) {
      text = old->text;
    } else {
      std::ostringstream os;
      write_claim_text(os, r);
      text = os.str();
    }
    if (!o.json) {
      std::cout << text;
      if (old) std::cout << "    (result from the journal " << o.journal << ")\n";
      std::cout << std::flush;
    }
    if (!old && jout) {
      nlohmann::json line = {{"file", claims[i]->loc.file}, {"title", claims[i]->title},
                             {"fingerprint", fps[i]},       {"result", j},
                             {"text", text}};
      jout->append(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    rep.done.push_back(r);
    rep.done_json.push_back(std::move(j));
  };
  std::size_t next_cached = 0;  // claims before this index are emitted
  auto emit_cached_before = [&](std::size_t end) {
    for (; next_cached < end; ++next_cached)
      if (cached[next_cached]) emit(next_cached, cached[next_cached]->result, cached[next_cached]);
  };

  install_stop_report(o, rep);
  auto clear_stop_report = [&] { set_stop_report({}); };

  try {
    {
      std::lock_guard<std::mutex> lock(rep.mu);
      if (!o.json) {
        std::cout << "netpoly check: " << claims.size() << (claims.size() == 1 ? " claim" : " claims") << " in "
                  << files.size() << (files.size() == 1 ? " file" : " files");
        if (from_journal) std::cout << " (" << from_journal << " finished earlier, from the journal " << o.journal << ")";
        std::cout << "\n" << std::flush;
      }
    }
    run_claims(todo, o.check, [&](std::size_t k, const ClaimResult& r) {
      std::lock_guard<std::mutex> lock(rep.mu);
      emit_cached_before(todo_index[k]);
      emit(todo_index[k], r, nullptr);
      next_cached = std::max(next_cached, todo_index[k] + 1);
    });
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
