// The black-box (docs/math.md §2.4): rank mod a random prime of
// [y(a_i, b_j)] at random points, no expansion. Its home is this folder:
//   blackbox.cpp   the method's two phases over the blocks of the bidegree graph
//   rounds.*       the doubling driver and the batch evaluators
//   tape*          the compiled forward pass and its kernels
//   prime.*        the random prime and the failure bound
//   shards.*       --plan and --blocks: the blocks dealt into shares
//   merge.*        the shares' results summed into a certified bracket
// The method's adapter (methods/blackbox.cpp) registers run_blackbox.
#pragma once
#include "analysis/methods/method.hpp"

namespace netpoly::methods {

// One black-box run on the context's (output, partition): the rounds, --plan
// or one share of --blocks, by the options.
MethodRun run_blackbox(MethodContext& ctx);

}  // namespace netpoly::methods
