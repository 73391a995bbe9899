// netpoly check PATH...: run the claims of .np files (proofs/README.md).
#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"

namespace netpoly::cli {

namespace {

struct CheckCliOptions {
  std::vector<std::string> paths;
  bool json = false;
  CheckOptions check;
};

void run_check(const CheckCliOptions& o) {
  if (!(o.check.budget > 0)) throw InputError("--budget: must be positive");
  if (!(o.check.max_terms > 0)) throw InputError("--max-terms: must be positive");
  if (o.check.jobs < 1 || o.check.jobs > 256) throw InputError("--jobs: must be in [1, 256]");
  const auto t0 = std::chrono::steady_clock::now();
  // Every file is parsed (and every model file read) before any claim runs.
  const auto files = load_claim_paths(o.paths);
  const auto claims = select_claims(files, o.check.filter);
  if (claims.empty())
    throw InputError(o.check.filter.empty() ? "no claims in the given files"
                                            : "--filter \"" + o.check.filter + "\": no claim title contains it");
  std::vector<ClaimResult> results;
  if (o.json) {
    results = run_claims(claims, o.check);
  } else {
    std::cout << "netpoly check: " << claims.size() << (claims.size() == 1 ? " claim" : " claims") << " in "
              << files.size() << (files.size() == 1 ? " file" : " files") << "\n"
              << std::flush;
    results = run_claims(claims, o.check, [](std::size_t, const ClaimResult& r) {
      write_claim_text(std::cout, r);
      std::cout << std::flush;
    });
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int code = check_exit_code(results, o.check.strict);
  if (o.json) {
    nlohmann::json j;
    j["claims"] = nlohmann::json::array();
    for (const auto& r : results) j["claims"].push_back(claim_json(r));
    std::size_t pass = 0, prob = 0, fail = 0, inc = 0, err = 0;
    for (const auto& r : results) {
      if (r.error)
        ++err;
      else if (r.verdict == Verdict::pass)
        ++pass;
      else if (r.verdict == Verdict::pass_probabilistic)
        ++prob;
      else if (r.verdict == Verdict::fail)
        ++fail;
      else
        ++inc;
    }
    j["summary"] = {{"claims", results.size()}, {"passed", pass + prob}, {"passed_probabilistic", prob},
                    {"failed", fail},           {"inconclusive", inc},   {"errors", err},
                    {"seconds", secs},          {"exit_code", code}};
    std::cout << j.dump(1) << "\n";
  } else {
    std::cout << summary_line(results, secs) << "\n";
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
}

}  // namespace

void setup_check(CLI::App& app) {
  auto o = std::make_shared<CheckCliOptions>();
  auto* s = app.add_subcommand("check", "run the claims of .np files: PASS / FAIL / INCONCLUSIVE per claim");
  s->add_option("paths", o->paths, ".np files, or directories (every *.np inside, sorted)")->required();
  s->add_option("--filter", o->check.filter, "run only claims whose title contains TEXT (case-insensitive)");
  s->add_flag("--json", o->json, "machine-readable report");
  s->add_option("--jobs", o->check.jobs, "claims run in parallel (results still print in file order)")
      ->capture_default_str();
  s->add_option("--budget", o->check.budget,
                "seconds per rank method (estimated up front); a quantity that cannot be made exact within it "
                "stays a bracket")
      ->capture_default_str();
  s->add_option("--max-terms", o->check.max_terms, "refuse expansions estimated larger than this")
      ->capture_default_str();
  s->add_option("--counterexamples", o->check.counterexamples_dir,
                "write each failing claim's first counterexample (model files, polynomial files, a summary) here");
  s->add_flag("--strict", o->check.strict, "a PASS (probabilistic) counts as not passed (exit code 1)");
  s->callback([o]() { run_check(*o); });
}

}  // namespace netpoly::cli
