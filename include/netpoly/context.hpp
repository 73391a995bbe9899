// What an analysis may spend and how it is stopped, given to it rather than
// read from process globals: the time left of the caller's budget, the memory
// limit and the resident set, the thread count, and a cancellation test.
// The command-line tool passes the process's (--budget, --max-memory,
// --threads, its watchdog); a library caller (the Python module) builds its
// own.
#pragma once
#include <functional>
#include <limits>
#include <string>

namespace netpoly {

struct AnalysisContext {
  // Seconds left of the caller's budget (infinity: none).
  std::function<double()> budget_left = [] { return std::numeric_limits<double>::infinity(); };
  // Bytes the work may occupy in all (0: no limit), and whether that is the
  // default limit (messages name --max-memory or the default).
  double max_memory_bytes = 0;
  bool memory_default = false;
  std::function<double()> resident_bytes = [] { return 0.0; };
  unsigned threads = 1;
  // Polled between method runs and black-box rounds; true stops the analysis
  // with Interrupted (what finished is kept by the caller's progress callback).
  std::function<bool()> cancelled = [] { return false; };
  // A line of progress from a long method (a black-box round: points, blocks
  // open, time); the CLI shows it on a terminal, a library caller may ignore it.
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  // Decide on nominal costs only (a claim's analyses: check's verdicts must
  // not turn on the machine's speed or load). Every estimate is a fixed
  // function of the work (analysis/nominal.hpp: operations of the forward
  // pass, points, n^3 of a rank, at fixed rates), time spent is the sum of
  // the estimates of the work done, and no measured time decides anything:
  // budget_left() is then a safety net of the caller's, which stops the work
  // with MachineLimit, never with a bracket.
  bool nominal = false;
  // With `nominal`: the scheduler charges each method's nominal cost (its
  // estimate, or what it kept: MethodRun::nominal_seconds) and each
  // expansion's estimate here after it ran, so that a caller's budget_left()
  // can be over nominal seconds too (a claim's call and the claim itself).
  std::function<void(double)> charge = [](double) {};

  // Throws Interrupted when cancelled.
  void check_cancelled() const;
  // Throws LimitError when the resident set plus `bytes` of work would pass
  // the memory limit (the message names `what` and the flag that raises it).
  void check_memory(double bytes, const std::string& what) const;

  // The process's limits: --budget and --max-memory (runtime/limits), the
  // resident set, --threads.
  static AnalysisContext process();
};

// The memory limit in force when no --max-memory is given: half of the
// machine's memory (or of the cgroup's limit when that is smaller), so that no
// input can drive a command into the kernel's out-of-memory killer.
double default_memory_limit();

// Current resident set size in bytes (Linux /proc/self/statm; 0 if unknown).
double resident_bytes();

}  // namespace netpoly
