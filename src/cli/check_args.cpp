// netpoly check: its command-line options (the work is run_check, src/commands/check_command.cpp).
#include "setup.hpp"

namespace netpoly::cli {

void setup_check(CLI::App& app) {
  auto o = std::make_shared<CheckCliOptions>();
  auto* s = app.add_subcommand("check", "run the claims of .np files: PASS / FAIL / INCONCLUSIVE per claim");
  s->add_option("paths", o->paths, ".np files, or directories (every *.np inside, sorted)")->required();
  s->add_option("--filter", o->check.filter, "run only claims whose title contains TEXT (case-insensitive)");
  s->add_flag("--json", o->json, "machine-readable report");
  s->add_flag("--coverage", o->coverage,
              "end with every bound id and how many evaluations checked it, and every statement of the registry "
              "(docs/statements.md next to the paths) with its claims or why it cannot be checked (exit 1 if a bound "
              "id or a checkable statement is checked by none)");
  s->add_option("--statements", o->statements,
                "the statements registry for --coverage (implies it; default: docs/statements.md in the first "
                "path's directory or the nearest one above it)");
  s->add_option("--jobs", o->check.jobs, "claims run in parallel (results still print in file order)")
      ->capture_default_str();
  // The run limits (--budget, --max-terms, --max-memory), from the option table (scope kCheck).
  auto limits = add_analysis_flags(s, kCheck);
  s->add_option("--counterexamples", o->check.counterexamples_dir,
                "write each failing claim's first counterexample (model files, polynomial files, a summary) here");
  s->add_flag("--strict", o->check.strict, "a PASS (probabilistic) counts as not passed (exit code 1)");
  s->add_option("--journal", o->journal,
                "append each finished claim's result to FILE (JSON lines); without --resume FILE starts empty");
  s->add_option("--junit", o->junit,
                "write a JUnit XML report to FILE (a test case per claim; a failing claim's failure carries its "
                "counterexample), for CI test reporters");
  s->add_option("--annotations", o->annotations,
                "print CI annotations for claims that do not pass: github (::error file=...,line=...::...; on stderr "
                "with --json)")
      ->check(CLI::IsMember({"github"}));
  s->add_flag("--fail-fast", o->fail_fast,
              "stop at the first claim (in file order) that does not pass; the rest are reported as not run");
  s->add_flag("--resume", o->resume,
              "skip the claims already in the --journal FILE (same file, title, clauses, --budget, --max-terms)");
  s->callback([o, limits]() {
    o->limits = limits();
    run_check(*o);
  });
}

}  // namespace netpoly::cli
