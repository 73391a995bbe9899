// group: certified upper bound min(#distinct alpha, #distinct beta), the
// coefficient matrix's dimensions (docs/math.md §2.1), with the per-block sum.
#include "method.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

MethodRun run_group(MethodContext& ctx) {
  const SparseIntMatrix& C = *ctx.matrix->C;
  const auto& blocks = ctx.matrix->blocks;
  MethodRun r;
  r.method = Method::group;
  r.kind = RunKind::upper;
  r.value = std::min(C.rows, C.cols);
  r.how = "certified upper bound";
  std::size_t block_sum = 0;
  for (const auto& b : blocks) block_sum += std::min(b.rows, b.cols);
  r.details = {{"distinct_A_parts", C.rows}, {"distinct_B_parts", C.cols}, {"blocks", blocks.size()},
               {"block_bound", block_sum}};
  return r;
}

std::optional<double> estimate_group(MethodContext& ctx) { return matrix_cost(*ctx.matrix, 1.0); }

const MethodInfo group_info{
    .id = Method::group,
    .order = 0,
    .kind = RunKind::upper,
    .summary = "min(#distinct alpha, #distinct beta) of the expansion",
    .needs_expansion = true,
    .accepts_polynomial = true,
    .plan = {.expandable = 1, .unexpandable = -1, .polynomial = 0},
    .estimate = estimate_group,
    .run = run_group,
};
const RegisterMethod group_registered(group_info);

}  // namespace
}  // namespace netpoly::methods
