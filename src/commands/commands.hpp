// The subcommands as library calls: each takes its options (what the
// command line gives, as text where the command line parses it) and does what
// `netpoly COMMAND` does, printing to standard output. The command-line front
// end (src/cli/) only declares the flags and calls these; tests call them too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netpoly/claims.hpp"
#include "bounds/lv_witness.hpp"
#include "netpoly/network.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/shape.hpp"
#include "netpoly/table.hpp"

namespace netpoly::cli {

struct BoundsOptions {
  std::string arch;
  NetworkShape params;
  bool json = false;
  std::size_t max_exact_digits = 10000;
  bool tokens_given = false, degree_given = false, heads_given = false;
};

struct CheckCliOptions {  // `check`: the claims subsystem (claims.hpp) with journal and report
  std::vector<std::string> paths;
  bool json = false;
  std::string journal;
  bool resume = false;
  bool coverage = false;  // end with every bound id and every statement of the registry, and what checked it
  std::string statements;  // --statements FILE: the registry (default: docs/statements.md next to the paths)
  std::string max_memory;
  std::string junit;        // --junit FILE: JUnit XML of the run
  std::string annotations;  // --annotations github: workflow commands per claim that does not pass
  bool fail_fast = false;   // stop at the first claim that does not pass
  CheckOptions check;
};

struct ExpandOptions {
  std::string model;
  std::string output;
  bool all = false, stats = false, json = false;
  bool estimate = false;  // --estimate: the expansion's estimate only, no expansion
  std::string format = "text";
  ulong modulus = 0;
  std::string modulus_text;
  double max_terms = 5e7;
  unsigned threads = 0;
  std::string max_memory;
  double budget = 0;
};

struct MakeOptions {
  PresetOptions preset;
  std::string out = "-";
  std::string seed;
  std::string weights;  // --weights; empty keeps preset.weights
  bool tokens_given = false;
  // make lv-witness: LV Lemma 6's weights (lv_witness.hpp), not a random preset.
  bool lv_witness = false;
  LvWitnessShape witness;
  std::string templates;  // --templates FILE: the template vectors as JSON
};

struct SeprankOptions {
  std::string model;
  std::string output;
  bool all = false, all_balanced = false, json = false;
  std::vector<std::string> partitions;
  std::string templates_file;  // --templates-file: the templates option as rows, from a file
  // The analysis options given, (name, text) in the option table's names
  // (netpoly/options.hpp); run_seprank checks each through the table.
  std::vector<std::pair<std::string, std::string>> options;
  // --merge SHARD...: sum the shards of --blocks runs (with the model, their
  // layout is recomputed from it and compared: seprank_shard.cpp); -o:
  // where the shard (--blocks) or the merged bracket goes (default: stdout).
  std::vector<std::string> merge;
  std::string out;
};

struct TableOptions {
  std::string arch = "attention";
  std::string layers = "1", width = "2", heads = "1", tokens = "", degree;  // degree: 2 (product), 3 (attention)
  bool residual = false;
  std::uint64_t seeds = 1;
  std::int64_t range = 0;           // 0: the --weights distribution's default
  std::string weights = "generic";  // small | wide | generic
  std::string partition = "half";
  std::string methods;
  double budget = 0, max_terms = 5e7;
  // The analysis options given (the option table's kTable ones: max_points,
  // tables' default 1,024), (name, text) as for seprank.
  std::vector<std::pair<std::string, std::string>> options;
  std::string format, out, shard = "1/1", plot, param_budget;
  std::string bounds;  // --bounds "LV Thm 3,NB Thm 5.5": the bound columns (default: every bound)
  std::string columns;  // --columns "L,d,H,sep": the md and LaTeX columns before the bounds (default: all)
  std::uint64_t max_depth = 6, max_width = 16;  // equal-budget shapes
  std::string param_count;                       // --param-count: how an equal budget counts (bounds.hpp)
  std::vector<std::string> merge;
  bool resume = false;
  unsigned jobs = 1, threads = 0;
  std::string max_memory;
};

void run_make(const MakeOptions& o);
void run_expand(const ExpandOptions& o);
void run_seprank(const SeprankOptions& o);
// What run_seprank analyses, without printing, threads or the watchdog (a
// claim's counterexample is re-checked with these): the analysis options
// through the option table; a model's (output, partition) pairs, checked as
// the command checks them (o.model is not read); and the flags that give `o`
// after the model on the command line ("--partition A=0 --budget 60").
SepOptions seprank_options(const SeprankOptions& o);
struct SeprankPairs {
  std::vector<Entry> outputs;
  std::vector<Partition> partitions;
};
SeprankPairs seprank_pairs(const SeprankOptions& o, const Model& m, const SepOptions& sep);
std::string seprank_flags(const SeprankOptions& o);
void run_bounds(const BoundsOptions& o);
// The shape `bounds` speaks of, checked as the command checks it (InputError);
// and its bounds' JSON, as `bounds --json` prints it (Python's netpoly.bounds).
NetworkShape bounds_shape(const BoundsOptions& o);
std::string bounds_json_for(const BoundsOptions& o);
void run_check(const CheckCliOptions& o);
void run_table(const TableOptions& o);
// The sweep a table's options describe, checked as `table` checks them
// (InputError naming the flag); Python's netpoly.table builds it the same way.
SweepSpec table_spec(const TableOptions& o);
// What a rendering of rows of these shapes shows (--bounds, --columns),
// checked as `table` checks them (InputError naming the flag); Python's
// Rows.to_latex / to_markdown build it the same way.
TableView table_view(const TableOptions& o, const std::vector<NetworkShape>& shapes, bool equal_budgets);

// ------------------------------------------------------------ option parsing
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

// Sets the analysis options given as (name, text) in the option table's names
// (netpoly/options.hpp), each checked by the table and named as the CLI spells it.
void set_options_from_text(SepOptions& sep, const std::vector<std::pair<std::string, std::string>>& given);

// Sets FLINT's thread count (0 = all cores).
void set_threads(unsigned n);

}  // namespace netpoly::cli
