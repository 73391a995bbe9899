// Subcommands: each file has an options struct, setup_…(CLI::App&) and run_…(opts).
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "netpoly/network.hpp"

namespace netpoly::cli {

void setup_make(CLI::App& app);
void setup_expand(CLI::App& app);
void setup_seprank(CLI::App& app);
void setup_bounds(CLI::App& app);
void setup_check(CLI::App& app);
void setup_table(CLI::App& app);

// Parses "i,c" into an output entry; throws InputError naming the option.
Entry parse_entry(const std::string& s, const std::string& option);

// Parses "1..3,5" into [1, 2, 3, 5]; throws InputError naming the option.
std::vector<std::uint64_t> parse_list(const std::string& s, const std::string& option);

// Checks a numeric limit (--max-terms, --budget): NaN and negative values are
// an InputError naming the flag, and so is 0 unless `zero_ok` (where 0 means
// "no limit"). Infinity is accepted: no limit.
double limit_option(double v, const std::string& flag, bool zero_ok);

// Parses a non-negative decimal integer option (digits only: no sign, no
// spaces, no wrap-around) in [lo, hi]; throws InputError naming the flag.
std::uint64_t parse_u64(const std::string& s, const std::string& flag, std::uint64_t lo = 0,
                        std::uint64_t hi = UINT64_MAX);

// Sets FLINT's thread count (0 = all cores).
void set_threads(unsigned n);

}  // namespace netpoly::cli
