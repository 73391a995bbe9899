// The analysis options, declared once (issue 31): name, type, range,
// default, help, which front ends take it, and the field of SepOptions it
// sets. The CLI's flags (`--max-points`), Python's keyword arguments
// (`max_points=`), the claim language's named arguments (`max_points = ...`)
// and the claims' cache key are all made from this table, with the same
// defaults and the same validation: a front end only converts its native
// value to JSON (`OptionValue`) and calls `set_option`, which checks it and
// names the option the way the front end spells it.
//
// Adding an option: one entry in src/analysis/options.cpp (and the field it
// sets), plus its case in tests/test_options.cpp and the parity test.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "netpoly/seprank.hpp"

namespace netpoly {

enum class OptionType {
  flag,     // true / false (CLI: --NAME, or --no-NAME when the default is true)
  count,    // a whole number in [lo, hi]
  seconds,  // a positive number of seconds, or inf (no limit)
  real,     // a count written as a number: a whole number >= 1 (5e7 too), or inf
  seed,     // a whole number in [0, 2^64)
  prime,    // a prime below 2^63
  methods,  // a comma list (or a list) of method names
  memory,   // bytes, or text with a unit: 512M, 8G
  templates,  // a count of templates per token, or explicit template vectors (rows of rationals)
  share,      // "i/n": share i of n (1 <= i <= n)
};

// Which front end takes an option (a bit each).
enum OptionScope : unsigned {
  kCli = 1,     // netpoly seprank --NAME
  kPython = 2,  // Network.seprank(NAME=...) and netpoly.seprank(poly, NAME=...)
  kClaims = 4,  // sep(...; NAME = ...) and `using NAME = ...`
  kEvery = kCli | kPython | kClaims,
  kTable = 8,    // netpoly table --NAME and netpoly.table(NAME=...) (its rows' analysis; not in kEvery)
  kCheck = 16,   // netpoly check --NAME and netpoly.check(NAME=...): the run limits of a claim
  kExpand = 32,  // netpoly expand --NAME and Network.expand(NAME=...)
  kLimits = kTable | kCheck | kExpand,  // the commands that take the run limits besides seprank
};

// How a front end spells an option, for messages: "--max-points", "max_points=", "max_points =".
enum class Spelling { cli, python, claims };

using OptionValue = nlohmann::json;  // a front end's value, converted by its type (see set_option)

struct OptionSpec {
  std::string name;  // snake_case: Python's keyword and the claims' argument; the CLI's flag is --kebab-case
  OptionType type;
  double lo = 0, hi = 0;     // counts: the range
  std::string default_text;  // what the default is, for help texts
  std::string help;
  unsigned scope = kEvery;
  // Sets the field from a value already checked against the type and range.
  std::function<void(SepOptions&, const OptionValue&)> set;
  // The field's value (for the cache key and the defaults): JSON of the same shape.
  std::function<OptionValue(const SepOptions&)> get;
  // Where a command reads the option its own way, the table says so: its
  // default and help there (by the command's scope bit; the others use
  // default_text and help).
  struct ForCommand {
    unsigned scope;
    std::string default_text, help;
  };
  std::vector<ForCommand> for_command = {};
  // The default and help a command's front end shows (scope: one bit).
  const std::string& default_for(unsigned scope) const;
  const std::string& help_for(unsigned scope) const;
};

// The table, in the order help texts list it.
const std::vector<OptionSpec>& analysis_options();
// nullptr when there is no such option.
const OptionSpec* find_option(const std::string& name);
// The option's name as a front end writes it: --max-points, max_points.
std::string option_spelling(const OptionSpec& o, Spelling s);
// "max_points, budget, ..." of the options a front end takes.
std::string option_names(unsigned scope, Spelling s);

// Checks v against the option's type and range (InputError naming the option
// as `s` spells it, and what was expected) and sets it in `so`.
void set_option(SepOptions& so, const OptionSpec& o, const OptionValue& v, Spelling s);
// By name; an unknown name (or one this front end does not take) is an
// InputError listing the valid names.
void set_option(SepOptions& so, const std::string& name, const OptionValue& v, Spelling s, unsigned scope);
// The CLI's text for an option: numbers in decimal (digits only for whole
// numbers), "inf", sizes with units, comma lists; the same checks follow.
OptionValue option_from_text(const OptionSpec& o, const std::string& text, Spelling s = Spelling::cli);
// Sets the options given as (name, text) in the table's names, each checked
// by the table and named as the CLI spells it (the CLI's flags, a claim's
// re-check of `netpoly seprank FILE FLAGS`).
void set_options_from_text(SepOptions& sep, const std::vector<std::pair<std::string, std::string>>& given);

// The defaults that depend on what was given, applied once by the analysis
// (analyse_network, analyse_polynomial): without max_points (0) the black-box
// refines while the bracket is open, and without a budget (inf) its next
// round is estimated within kDefaultRefineSeconds (an estimate's cap, not a
// watchdog).
SepOptions resolved(const SepOptions& so);

// Every option's value, in table order: the claims' cache key and the
// options echoed in a result.
nlohmann::json options_json(const SepOptions& so);

}  // namespace netpoly
