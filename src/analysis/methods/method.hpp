// What a separation-rank method is given and the helpers methods share.
// Each method is one file in this folder holding its descriptor (methods.hpp)
// and registering it; the scheduler (analysis/scheduler.cpp) runs what the plan or
// --methods asks for through the descriptors alone.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/blackbox/prime.hpp"
#include "analysis/rank/coeff_matrix.hpp"
#include "analysis/generic.hpp"
#include "analysis/methods/registry.hpp"
#include "analysis/rank/rank.hpp"
#include "analysis/engines/support.hpp"
#include "runtime/number_text.hpp"

namespace netpoly::methods {

// The coefficient matrix of one (output, partition), its blocks, and the
// blocks' rank profiles mod the default prime once the modular method ran
// (the exact method starts from them instead of eliminating again).
struct MatrixCache {
  std::optional<SparseIntMatrix> C;
  std::vector<SparseIntMatrix> blocks;
  std::vector<RankProfile> profiles;
  // The blocks' ranks mod a prime (the modular method's, a certified lower
  // bound each): the exact method's cost estimate reads them.
  std::vector<std::size_t> block_ranks;
};

// The bidegrees of one (output, partition), computed once and shared by the
// support bound and the split black-box.
struct BidegreeCache {
  const Model& m;
  const Entry& e;
  const Partition& P;
  bool tried = false;
  std::optional<Bidegrees> bd;  // empty when too costly
  std::string why;
  const Bidegrees* get();
};

// The black-box's prime, drawn once per analysis (from --seed, or --prime),
// and each output entry's coefficient height bound, computed once.
class BlackboxDraws {
 public:
  BlackboxDraws(const Model& m, const SepOptions& o) : m_(m), o_(o) {}
  const BlackboxPrime& prime();
  // log2 of the coefficients' l1 norm: of the output (a network), or (generic)
  // of the output as a polynomial in the weights and inputs (generic.hpp).
  double height(const Entry& e);
  double eps_degree(const Entry& e, double input_degree);

 private:
  const Model& m_;
  const SepOptions& o_;
  std::optional<BlackboxPrime> prime_;
  std::map<Entry, double> height_, joint_degree_;
};

// Everything one method run on one (output, partition) pair may read. The
// scheduler fills it; what is costly is built once and shared.
struct MethodContext {
  const Model* model = nullptr;  // null: a polynomial given directly
  Entry e;
  const Partition& P;
  const SepOptions& o;
  const AnalysisContext& run;  // budget, memory, threads, cancellation
  const SepResult& res;        // the pair's runs so far
  bool by_default = false;
  double degree = 0;                   // the network's degree bound (estimate_expansion)
  MatrixCache* matrix = nullptr;       // built before a needs_expansion method runs
  BidegreeCache* bidegrees = nullptr;  // networks only
  BlackboxDraws* blackbox = nullptr;   // networks only
  // Generic mode (SepOptions::generic): `model` is the shape with weights 1,
  // and a black-box mod p evaluates the network of weights drawn mod p.
  GenericDraws* generic = nullptr;
  // Gaussian weights: the coefficient matrix is the realified polynomial's
  // (engines/gauss_sep.hpp), and the scheduler halves what is read from it.
  bool realified = false;
  // The scheduler's attempt before an expansion (scheduler.cpp): the black-box
  // runs its small-prime phase only, whose certified bound is kept only when
  // it meets the best upper bound.
  bool small_prime_only = false;
  // Set by the scheduler while a method runs: a long method (the black-box)
  // hands it its certified bound so far after each step, so that a run
  // stopped in the middle (SIGINT, a limit) prints and keeps that bound
  // instead of nothing. Never read back by the method.
  std::function<void(const MethodRun&)> provisional;

  // The same context under other options (the scheduler's small-prime
  // attempt and its probe): the one place a context is copied, so that no
  // field is left behind. `provisional` is the scheduler's per run: not copied.
  MethodContext with_options(const SepOptions& other) const {
    return MethodContext{.model = model, .e = e, .P = P, .o = other, .run = run, .res = res, .by_default = by_default,
                         .degree = degree, .matrix = matrix, .bidegrees = bidegrees, .blackbox = blackbox,
                         .generic = generic, .realified = realified, .small_prime_only = small_prime_only, .provisional = {}};
  }

  const BlackboxPrime& blackbox_prime() const { return blackbox->prime(); }
  double blackbox_height() const { return blackbox->height(e); }
  // The network a black-box evaluates mod p.
  const Model& weights_for(ulong p) const { return generic ? generic->at(p) : *model; }
  // The degree its probability statement counts: in the inputs, or (generic)
  // in the weights and the inputs together.
  double eps_degree() const { return blackbox->eps_degree(e, degree); }

  // The smallest certified upper end among the runs so far.
  std::optional<std::size_t> best_upper() const;
  // Seconds a method may take from now: --budget per method and what is left
  // of the command's budget.
  double cap() const;
};

// ------------------------------------------------------------------ helpers
double seconds_since(std::chrono::steady_clock::time_point t0);
ulong default_prime(const SepOptions& o);
// A model with Gaussian weights: --prime (which must be 1 mod 4), else the
// first prime = 1 mod 4 above 2^62; and the ring mod it with i = sqrt(-1).
ModpRing prime_ring(const Model& m, const SepOptions& o);
MethodRun skipped(Method m, const std::string& why);
// The variables of side A (a = true) or B of a partition.
std::vector<std::size_t> side_vars(const Partition& P, bool a);
// Only entry e of the last layer is computed.
Need single_need(const Model& m, const Entry& e);
// Rough seconds of a coefficient-matrix method (factor 40 for exact).
double matrix_cost(const MatrixCache& mc, double factor);
// Whether a round estimated at `bytes` more than now would pass the memory
// limit; then `note` says where the method stopped.
bool round_over_memory(const AnalysisContext& run, double bytes, std::size_t k, std::size_t next, std::string& note);

// An upper bound's value: the run's value when at most 2^62, else a note.
void set_upper_value(MethodRun& r, const Fmpz& bound);
// Bounds on the span of the rows of each A-degree and the columns of each
// B-degree, as `details.degree_weights` (the black-box's block caps read it).
nlohmann::json degree_weights_json(const std::map<std::size_t, Fmpz>& A, const std::map<std::size_t, Fmpz>& B);

}  // namespace netpoly::methods
