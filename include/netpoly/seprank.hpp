// Bracketing sep(y; A, B) for network outputs (docs/math.md §2). Each
// method (methods.hpp; one file each in src/analysis/methods/) gives one end
// of [lower, upper], or both, and says how; `netpoly seprank --help` and the
// claim language list them from the registry (the method table of
// docs/guide/seprank.md is checked against it, tests/test_seprank.cpp). The scheduler here runs the
// default plan or the methods asked for, and combines their ends.
#pragma once
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/bracket.hpp"
#include "netpoly/context.hpp"
#include "netpoly/methods.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/rings.hpp"

namespace netpoly {

// `netpoly seprank` with neither --budget nor --max-points refines the bracket
// (more black-box points) while the next step's estimate fits this many
// seconds; tables and claims keep their own per-row budget.
inline constexpr double kDefaultRefineSeconds = 600;

struct SepOptions {
  std::vector<Method> methods;  // empty: the default (what is affordable; stop when the bracket closes)
  double max_terms = 5e7;       // expansion refused above this estimate
  double budget = std::numeric_limits<double>::infinity();  // seconds per method (estimated up front)
  std::uint64_t seed = 1;        // projections, templates (choices that never change what is certified)
  // The black-box's seed: its points and, unless --prime, its prime (drawn at
  // random from [2^49, 2^50)). Empty: drawn from the operating system once per
  // analyse_network call, so that no model can be built against it, and
  // reported ("seed" in the details); set it (the CLI's --seed) to reproduce a
  // run. The black-box's probability statement is over this seed.
  std::optional<std::uint64_t> blackbox_seed;
  ulong prime = 0;              // 0: netpoly's first prime just above 2^62 (black-box: random, see above)
  std::size_t templates = 0;    // grid: templates per token (0: automatic)
  std::vector<std::vector<Fmpq>> template_vectors;  // grid: explicit templates (each of length d)
  // blackbox: largest number of points per side (per block when split); 0:
  // as many as the budget allows (resolved(): 2^20, the rounds bounded by the
  // budget's estimates)
  std::size_t max_points = 0;
  bool blackbox_split = true;     // blackbox: one matrix per block of A-degrees when there are several
  bool small_prime_first = true;  // blackbox: a small random prime first (certifies when it meets the upper bound)
  // The generic separation rank of the model's shape (generic.hpp): every
  // weight an indeterminate; weight-independent upper bounds and the
  // black-box at weights drawn at random mod its prime.
  bool generic = false;
  // Limits of the whole request, applied by the front end that runs it (the
  // process's memory limit, FLINT's threads, the pairs refused up front).
  double max_memory = 0;  // bytes; 0: half the machine's memory
  unsigned threads = 0;   // 0: all cores
  double max_pairs = 1e5;
  bool budget_is_default = false;  // budget is kDefaultRefineSeconds, set by resolved() (options.hpp)
  // The black-box's blocks across a cluster (docs/guide/slurm.md): --plan
  // describes them without computing; --blocks i/n computes share i of n
  // (1-based; 0/0: every block, the usual run) mod the small prime.
  bool plan = false;
  std::size_t share_index = 0, share_count = 0;
};

// "--budget 60 s", or "the default refinement budget of 600 s (--budget to change)".
std::string budget_text(const SepOptions& o);

struct SepResult;
// Called by analyse_network after every method run (finished = false: the
// (output, partition) pair's result so far, its ends combined) and when a pair
// is done (finished = true), so a caller can show and keep work as it goes.
using SepProgress = std::function<void(const SepResult& result, bool finished)>;

struct MethodRun {
  Method method;
  RunKind kind = RunKind::none;
  std::optional<std::size_t> value;    // empty when skipped or failed
  std::string how;                     // e.g. "certified lower bound (mod p = ...)"
  std::string note;                    // skipped / budget / caveats
  double seconds = 0;
  // Its cost in the nominal cost model (AnalysisContext::nominal), where the
  // method keeps one (the black-box: its rounds'; the grid: its estimates);
  // 0: its up-front estimate, if any, is what the scheduler charges.
  double nominal_seconds = 0;
  // A lower end that equals sep with probability >= 1 - failure_probability
  // (the black-box's statement; also written into details for the JSON).
  std::optional<double> failure_probability;
  // What the run worked on, for the pair's sizes: ("grid", [rows, cols]) or
  // ("blackbox_points", k); empty when nothing.
  std::string size_key;
  nlohmann::json size;
  // Generic mode: the integer network (weights drawn at random) whose own sep
  // the run certifies to be at least witness_value (the counterexample of an
  // "every weight" claim); the run's value may be larger (per-block maxima
  // over two draws, a lower bound for the generic sep only).
  std::shared_ptr<const Model> witness;
  std::size_t witness_value = 0;
  nlohmann::json details = nlohmann::json::object();
};

// One (output, partition) pair: its bracket (Bracket::combine of the runs)
// and the runs behind it.
struct SepResult : Bracket {
  Entry output;
  Partition partition;
  std::vector<MethodRun> runs;
  bool generic = false;  // the generic sep of the model's shape, not the sep of this network
  nlohmann::json sizes = nlohmann::json::object();
};

// Analyses every (output entry, partition) pair. Expansions are made once
// per output entry and shared across partitions.
// `run` bounds the time and memory and may cancel (default: the process's
// limits, AnalysisContext::process()).
std::vector<SepResult> analyse_network(const Model& m, const std::vector<Entry>& outputs,
                                       const std::vector<Partition>& partitions, const SepOptions& o,
                                       const SepProgress& progress = {},
                                       const AnalysisContext& run = AnalysisContext::process());

// Throws InputError when a chosen method cannot run on this model (Gaussian
// weights: the methods that evaluate the network, and --prime must be 1 mod
// 4); analyse_network checks it
// too, a command calls it before printing anything.
void check_methods_for(const Model& m, const std::vector<Method>& methods, ulong prime = 0);
// The same for a whole request: also the methods --generic takes.
void check_methods_for(const Model& m, const SepOptions& o);

// A polynomial re + i im over Q(i), its separation rank over C (the methods
// that accept a polynomial, on the realified polynomial; docs/math.md).
SepResult analyse_gaussian_polynomial(const FmpqMpoly& re, const FmpqMpoly& im, const Partition& P,
                                      const SepOptions& o, const AnalysisContext& run = AnalysisContext::process());

// Analyses a polynomial given directly (the methods that accept one).
SepResult analyse_polynomial(const FmpqMpoly& y, const Partition& P, const SepOptions& o,
                             const AnalysisContext& run = AnalysisContext::process());

// "sep of this network" or "generic sep of this shape": which quantity a result is about.
std::string quantity_name(const SepResult& r);

// JSON of one result (timings under "timings", apart from the values).
nlohmann::json to_json(const SepResult& r);
// Bracket of the max / min over results (NB §4.2 sup-sep / inf-sep).
Bracket sup_of(const std::vector<SepResult>& rs);
Bracket inf_of(const std::vector<SepResult>& rs);

}  // namespace netpoly
