// Subcommands: each file declares its flags (setup_…) over the options of
// src/commands/commands.hpp and calls its run_….
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>

#include "commands/commands.hpp"
#include "netpoly/options.hpp"

namespace netpoly::cli {

void setup_make(CLI::App& app);
void setup_expand(CLI::App& app);
void setup_eval(CLI::App& app);
void setup_jacobian(CLI::App& app);
void setup_seprank(CLI::App& app);
// The flags of the analysis options a command takes (netpoly/options.hpp:
// those of `scope`), made from the option table; the returned function gives
// the ones used, as (name, text), once the command line is parsed. The help
// and default are the table's for that command (OptionSpec::help_for).
std::function<std::vector<std::pair<std::string, std::string>>()> add_analysis_flags(CLI::App* s,
                                                                                   unsigned scope = kCli);
void setup_bounds(CLI::App& app);
void setup_check(CLI::App& app);
void setup_table(CLI::App& app);

}  // namespace netpoly::cli
