// The black-box's doubling driver (methods/blackbox.cpp): batched forward
// passes mod p, the blocks it sees, and the rounds that grow their points.
#pragma once
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "analysis/methods/method.hpp"
#include "runtime/random.hpp"

namespace netpoly::methods {

// The side-B points transposed (input q of point j at v[q * n + j]): built
// once per round, read by every row's passes; and what the evaluator
// computes from side B alone, once per round (BatchEval::prepare).
struct Columns {
  std::size_t n = 0, nb = 0;
  std::vector<ulong> v;
  const void* prepared_by = nullptr;  // the evaluator that filled `pre` (nullptr: none)
  std::size_t variant = 0;  // which of the evaluator's programs `pre` is for
  std::vector<double> pre;
  Columns() = default;
  // The first `count` points of B (each with nb inputs).
  Columns(const std::vector<std::vector<ulong>>& B, std::size_t nb, std::size_t count = static_cast<std::size_t>(-1));
  const ulong* input(std::size_t q) const { return v.data() + q * n; }
};

// Batched forward passes mod p of one output entry: the side-A inputs fixed
// at one point, the side-B inputs at n points. Compiled (blackbox/tape.hpp)
// when the prime and the CPU allow it, else over BatchModpRing; both give the
// same residues.
class BatchEval {
 public:
  virtual ~BatchEval() = default;
  // y(a, b_j) mod p for j in [j0, k), with a = (a_q) on the variables va and
  // b_j = (B.input(q)[j])_q on vb.
  virtual std::vector<ulong> row(const std::vector<ulong>& a, const Columns& B, std::size_t j0, std::size_t k) const = 0;
  // Computes, once per set of columns, what every row would otherwise
  // repeat (the compiled pass: the values of side B alone); row() then
  // needs the columns prepared by this evaluator.
  virtual void prepare(Columns&) const {}
  virtual std::string ring() const = 0;
  // One value's cost in the nominal cost model (analysis/nominal.hpp: the
  // forward pass's ring operations at the fixed rate mod p), set by
  // make_batch_eval; what a run with nominal costs estimates with.
  double nominal_value_seconds() const { return nominal_value_seconds_; }
  void set_nominal_value_seconds(double s) { nominal_value_seconds_ = s; }

 private:
  double nominal_value_seconds_ = 0;
};

// A batch evaluator of entry e of m's output mod p: the compiled forward
// pass (blackbox/tape.hpp) where the prime and the CPU allow it, else
// BatchModpRing.
std::unique_ptr<BatchEval> make_batch_eval(const Model& m, const Entry& e, const Partition& P, ulong p);

// One block of the coefficient matrix as the black-box sees it: the values
// sum_l W[l] y(t_l a_i, b_j) (W = {1}, t = {1} for the whole matrix). `cap`
// is a certified upper bound on its rank: a block whose rank mod any prime
// reaches it is known exactly.
struct Block {
  std::vector<std::size_t> a_degrees;
  std::vector<ulong> weights;  // for the current prime (Layout)
  std::size_t cap = std::numeric_limits<std::size_t>::max();
  // Its values so far, mod the prime of the current phase (the matrix keeps
  // its modulus): double_points refuses to extend a matrix of another
  // prime, so values of two primes never meet in one matrix.
  std::unique_ptr<NmodMat> E;
  std::size_t rank = 0, points = 0;  // of the block's last round
  ulong prime = 0;                   // the prime `rank` is mod (0: none yet)
  std::size_t want = 8;              // points per side of its next round
  std::size_t floor = 0;             // certified lower bound from an earlier prime
  bool done = false, exact = false;  // closed (rank < points) / rank == cap
};

struct Rounds {
  std::size_t k = 0;      // points per side of the last round (the largest block's)
  std::string stop_note;  // why the doubling stopped before the blocks closed, if it did
  double spent = 0;       // seconds
  bool gave_up = false;   // the goal's target became unreachable (a block closed below its cap)
};

// Where the doubling stops early: a phase that can only certify by meeting
// `target` gives up once the closed blocks' ranks plus the open ones' caps
// fall below it (the small-prime phase, blackbox_rounds).
struct Goal {
  // Stop once a block has closed below its cap and the blocks can no longer
  // sum to this (0: no such test).
  std::size_t target = 0;
  double budget = std::numeric_limits<double>::infinity();
  // Growth of a block's points per round from 1,024 on (below: doubling).
  // Smaller steps overshoot the rank less (the last round is within
  // `growth` of rank + 1) at the price of more rounds: worth it where the
  // eliminations are dear (the large prime, FLINT).
  double growth = 2;
  // Seconds per forward-pass value and per n^3 of rank measured before the
  // first round (0: none). With them, the first round goes straight to every
  // open block's cap (and `cap`) when its estimate fits the budget and
  // memory: one elimination per block instead of one per doubling, all of
  // them side by side. Worth it where the caps are expected to be met (the
  // small prime's phase after a probe found every block full rank); a block
  // below its cap then costs its whole square.
  double straight_ev = 0, straight_rk = 0;
  // After each round: the blocks' certified rank sum so far and the points
  // per side (none: nothing is told).
  std::function<void(std::size_t rank, std::size_t points)> on_round = {};
};

// The random points per side so far (a block's matrix is the top-left square
// of y at these): kept by the caller when a phase resumes with a larger cap.
// The points belong to one prime: double_points refuses them under another.
struct Points {
  ulong p = 0;  // 0: no points drawn yet
  std::vector<std::vector<ulong>> A, B;
};

// A phase hands its blocks to the next prime: each keeps its rank as a
// certified floor (a rank mod any prime is a lower bound), restarts at its
// rank + 1 points if it closed, and drops its values mod the old prime.
void hand_over(std::vector<Block>& blocks);

// The most the blocks' ranks can still sum to with at most `cap` points per side.
double potential(const std::vector<Block>& blocks, std::size_t cap);

// The doubling driver. Each open block is seen at its `want` points per side
// (8, 16, ... unless a hint or the goal's straight rates set it); after its rank mod p it is exact (rank =
// cap), closed (rank < points), or doubles (up to its cap and `cap`). Rounds
// go on while a block is open, the next round's estimate fits the budget and
// --max-memory, and the goal is still reachable. The values of earlier rounds
// are kept; only new entries are evaluated. t and each block's weights: how
// a block's value is a combination of passes at scaled A-points.
// What the rounds evaluate: the batch evaluator mod p, the scaling t, the
// random source of the points, and the two sides' input counts.
struct Sampler {
  const BatchEval& eval;
  const std::vector<ulong>& t;
  ulong p;
  SplitMix64& g;
  std::size_t na, nb;
};
// How far they may go: points per side, the options (--budget,
// --max-memory), the run (its limits, nominal costs), and the goal.
struct RoundLimits {
  std::size_t cap;
  const SepOptions& o;
  const AnalysisContext& run;
  const Goal& goal;
};
Rounds double_points(const Sampler& s, std::vector<Block>& blocks, const RoundLimits& lim, Points& pts);

}  // namespace netpoly::methods
