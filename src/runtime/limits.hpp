// Resource limits shared by every long command: --max-memory (checked against
// estimates before work and against the resident set size during it) and
// --budget (wall-clock seconds). Reaching one stops the process with exit
// code 3 and a message naming what was reached and the flag that raises it.
// Long commands write results atomically as they go, so what was written
// before the stop stays valid.
#pragma once
#include "netpoly/context.hpp"
#include <functional>
#include <string>

namespace netpoly {

struct Limits {
  double max_memory_bytes = 0;  // 0 = the default limit (start_watchdog fills it in)
  bool memory_default = false;  // set by start_watchdog when the limit is the default one
  double budget_seconds = 0;    // 0 = no limit
};


// Parses "512M", "8G", "1.5G", "100000" (bytes); throws InputError.
double parse_memory_size(const std::string& s, const std::string& option);

// Starts (or restarts) the watchdog thread for the given limits.
// `what` names the command in the message. A max_memory_bytes of 0 means the
// default limit (default_memory_limit()).
void start_watchdog(const Limits& l, const std::string& what);

// The limits in force (after start_watchdog).
const Limits& current_limits();

// Seconds left in the --budget (infinity when there is none).
double budget_left();

// Throws LimitError when the resident set plus an estimate of what the work
// adds exceeds the memory limit (--max-memory, or the default one).
void check_memory_estimate(double bytes, const std::string& what);
// The same against a given limit: `bytes` in all (resident + work).
void check_memory_estimate(double bytes, double limit, bool memory_default, const std::string& what);

// "512.0 KiB", "3.2 MiB", "1.50 GiB"; "8.04e+21 GiB" beyond 10^15 GiB.
std::string format_bytes(double bytes);

// x with `digits` decimals ("%.*f", digits in [0, 17]); beyond 10^15 in
// magnitude in scientific notation ("9.05e+30"), never cut by a buffer;
// "inf", "-inf", "nan" when not finite.
std::string format_fixed(double x, int digits);

// Gives freed heap memory back to the system (after a large computation was
// dropped, so that the resident set falls before the next one).
void release_memory();


// A note appended to the stop message (e.g. "finished rows are in FILE; rerun with --resume").
void set_stop_hint(const std::string& hint);

// What a command has finished, printed when the process is stopped early (a
// limit reached: code 3; SIGINT or SIGTERM: code 130) just before it exits.
// The command guards its output with its own lock and takes it here too, so
// nothing is printed half. Set it before the work starts and clear it (an
// empty function) before the objects it refers to go away.
void set_stop_report(std::function<void(int code)> report);

// SIGINT and SIGTERM stop the process within a second: the stop report runs,
// then "netpoly: WHAT: interrupted; HINT" on stderr, exit code 130. Installed
// whatever the inherited disposition (a background job of a script starts
// with SIGINT ignored, and must still stop). `hint` says what was kept.
void install_interrupt_handler(const std::string& what, const std::string& hint);

// Called once the command is done (before main returns): no stop can begin
// afterwards, so a watchdog or signal arriving during exit cannot turn a
// finished run into a stopped one (or read what exit destroys). If a stop is
// already under way, waits for its _exit.
void finish_process();

// Stops the process now: the stop report, then `message` on stderr, then
// _exit(code). Only the first caller proceeds (a second signal is ignored).
[[noreturn]] void stop_process(int code, const std::string& message);

}  // namespace netpoly
