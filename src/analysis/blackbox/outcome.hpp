// What the black-box's phases leave (blackbox.cpp) and the method's result
// made from it (report.cpp): the sum of the blocks' certified ranks, the
// probability statement, and the witness network named for it.
#pragma once
#include <string>
#include <vector>

#include "analysis/blackbox/prime.hpp"
#include "analysis/blackbox/rounds.hpp"
#include "analysis/methods/method.hpp"

namespace netpoly::methods {

struct Outcome {
  Rounds rounds;
  ulong small = 0;               // the small prime, if that phase ran
  std::size_t small_rank = 0;    // its certified lower bound
  bool certified_small = false;  // it met the target: the big prime was not needed
  bool small_final = false;      // it stopped (budget, memory, --max-points) with blocks full rank: its bound is final
  std::size_t classes_mod = 0;   // the small-prime phase's classes of A-degrees mod m (0: per component)
  std::vector<Block> first;      // the small-prime phase's blocks when they are classes
  std::string ring;
  std::string small_note;        // why the small-prime phase did not run, if it was skipped
  std::size_t provisional = 0;   // the largest certified rank sum told to ctx.provisional so far
};

// The method's result from the blocks: the sum of their certified lower
// bounds; the probability statement when every block closed (or is exact).
MethodRun report(const std::vector<Block>& comps, const Outcome& o, const BlackboxPrime& bp, double height,
                 double degree, bool split);
// The result with the network its ranks are of named (generic mode: the
// draw mod the prime that made them).
MethodRun with_witness(const MethodContext& ctx, MethodRun r, const std::vector<Block>& comps, const Outcome& o,
                       const BlackboxPrime& bp);

}  // namespace netpoly::methods
