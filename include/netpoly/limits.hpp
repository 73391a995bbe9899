// Resource limits shared by every long command: --max-memory (checked against
// estimates before work and against the resident set size during it) and
// --budget (wall-clock seconds). Reaching one stops the process with exit
// code 3 and a message naming what was reached and the flag that raises it.
// Long commands write results atomically as they go, so what was written
// before the stop stays valid.
#pragma once
#include <string>

namespace netpoly {

struct Limits {
  double max_memory_bytes = 0;  // 0 = no limit
  double budget_seconds = 0;    // 0 = no limit
};

// Parses "512M", "8G", "1.5G", "100000" (bytes); throws InputError.
double parse_memory_size(const std::string& s, const std::string& option);

// Starts (or restarts) the watchdog thread for the given limits.
// `what` names the command in the message.
void start_watchdog(const Limits& l, const std::string& what);

// The limits in force (after start_watchdog).
const Limits& current_limits();

// Seconds left in the --budget (infinity when there is none).
double budget_left();

// Throws LimitError when an estimate exceeds --max-memory.
void check_memory_estimate(double bytes, const std::string& what);

// Current resident set size in bytes (Linux /proc/self/statm; 0 if unknown).
double resident_bytes();

// A note appended to the stop message (e.g. "finished rows are in FILE; rerun with --resume").
void set_stop_hint(const std::string& hint);

}  // namespace netpoly
