// The subcommands as library calls: each takes its options (what the
// command line gives, as text where the command line parses it) and does what
// `netpoly COMMAND` does, printing to standard output. The command-line front
// end (src/cli/) only declares the flags and calls these; tests call them too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netpoly/claims.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/network.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/request.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/shape.hpp"
#include "netpoly/table.hpp"

namespace netpoly::cli {

// `bounds`: the shape asked for (netpoly/bounds.hpp's request) and how to print it.
struct BoundsOptions : BoundsRequest {
  bool json = false;
};

struct CheckCliOptions {  // `check`: the claims subsystem (claims.hpp) with journal and report
  std::vector<std::string> paths;
  bool json = false;
  std::string journal;
  bool resume = false;
  bool coverage = false;  // end with every bound id and every statement of the registry, and what checked it
  std::string statements;  // --statements FILE: the registry (default: docs/statements.md next to the paths)
  // The run limits given (--budget, --max-terms, --max-memory), (name, text)
  // by the option table's names (scope kCheck); the others keep check's defaults.
  std::vector<std::pair<std::string, std::string>> limits;
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
  // The run limits given (--budget, --max-terms, --max-memory, --threads),
  // (name, text) by the option table's names (scope kExpand).
  std::vector<std::pair<std::string, std::string>> limits;
};

// `eval`: the model's values at the points of a file (netpoly/evaluate.hpp).
struct EvalOptions {
  std::string model, points;
  std::string modulus_text;  // --modulus P: the values mod the prime P instead of exactly
  bool json = false;
};

// `jacobian`: the dimension of the model's function family (netpoly/jacobian.hpp).
struct JacobianOptions {
  std::string model;
  std::string output;  // --output TOKEN,CHANNEL
  bool all = false;    // --all: every output entry
  std::string seed;    // --seed S: reproduce a run (default: drawn)
  bool json = false;
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
  bool all = false, all_balanced = false, all_balanced_entries = false, json = false;
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

// `table`: the sweep (netpoly/table.hpp's request, made into its spec by
// sweep_spec) and what the command does with its rows.
struct TableOptions : SweepRequest {
  std::string format, out, shard = "1/1", plot;
  std::string bounds;   // --bounds "LV Thm 3,NB Thm 5.5": the bound columns (default: every bound)
  std::string columns;  // --columns "L,d,H,sep": the md and LaTeX columns before the bounds (default: all)
  std::vector<std::string> merge;
  bool resume = false;
  unsigned jobs = 1;
};

void run_make(const MakeOptions& o);
void run_expand(const ExpandOptions& o);
void run_eval(const EvalOptions& o);
void run_jacobian(const JacobianOptions& o);
void run_seprank(const SeprankOptions& o);
// What run_seprank analyses, without printing, threads or the watchdog (a
// claim's counterexample is re-checked with these): the analysis options
// through the option table; a model's (output, partition) pairs, checked as
// the command checks them (o.model is not read); and the flags that give `o`
// after the model on the command line ("--partition A=0 --budget 60").
SepOptions seprank_options(const SeprankOptions& o);
using SeprankPairs = SepPairs;
// The request the flags make (netpoly/request.hpp), assembled by request_pairs.
SepRequest seprank_request(const SeprankOptions& o);
SeprankPairs seprank_pairs(const SeprankOptions& o, const Model& m, const SepOptions& sep);
std::string seprank_flags(const SeprankOptions& o);
void run_bounds(const BoundsOptions& o);
void run_check(const CheckCliOptions& o);
void run_table(const TableOptions& o);

// ------------------------------------------------------------ option parsing
// Parses "i,c" into an output entry; throws InputError naming the option.
Entry parse_entry(const std::string& s, const std::string& option);


// Parses a non-negative decimal integer option (digits only: no sign, no
// spaces, no wrap-around) in [lo, hi]; throws InputError naming the flag.
std::uint64_t parse_u64(const std::string& s, const std::string& flag, std::uint64_t lo = 0,
                        std::uint64_t hi = UINT64_MAX);

// Sets FLINT's thread count (0 = all cores).
void set_threads(unsigned n);

}  // namespace netpoly::cli
