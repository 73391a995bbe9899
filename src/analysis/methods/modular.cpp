// modular: rank of the coefficient matrix mod p, a certified lower bound
// (rank mod p <= rank over Q). Keeps the blocks' rank profiles for exact.
#include "method.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

MethodRun run_modular(MethodContext& ctx) {
  const ulong p = default_prime(ctx.o);
  // Profiles mod the exact method's first prime (nth_prime(0), the default) can be reused.
  auto* profiles = p == nth_prime(0) ? &ctx.matrix->profiles : nullptr;
  auto mr = rank_modp_blocks(ctx.matrix->blocks, p, ctx.o.seed, profiles);
  ctx.matrix->block_ranks = mr.block_ranks;
  MethodRun r;
  r.method = Method::modular;
  r.kind = RunKind::lower;
  r.value = mr.rank;
  r.how = "certified lower bound (rank mod p = " + std::to_string(p) + ")";
  r.details = {{"prime", p}, {"blocks", mr.blocks}, {"algorithm", mr.algorithm}, {"block_ranks", mr.block_ranks}};
  return r;
}

std::optional<double> estimate_modular(MethodContext& ctx) { return matrix_cost(*ctx.matrix, 1.0); }

const MethodInfo modular_info{
    .id = Method::modular,
    .order = 2,
    .kind = RunKind::lower,
    .summary = "rank mod p of the coefficient matrix",
    .needs_expansion = true,
    .accepts_polynomial = true,
    .plan = {.expandable = 2, .unexpandable = -1, .polynomial = -1},
    .estimate = estimate_modular,
    .run = run_modular,
};
const RegisterMethod modular_registered(modular_info);

}  // namespace
}  // namespace netpoly::methods
