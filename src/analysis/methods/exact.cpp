// exact: rank over Q of the coefficient matrix, certified (rank.hpp): a
// nonsingular r x r minor mod p and C = C[:,J] C[I,J]^-1 C[I,:] checked mod
// enough primes. Starts from the modular method's rank profiles when it ran
// with the same prime.
#include "method.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

// Started by default only below this estimate (s); asked for by name, only
// --budget counts.
constexpr double kDefaultCap = 60;

std::optional<double> estimate_exact(MethodContext& ctx) {
  // With the blocks' ranks known (modular ran), the estimate is much better.
  if (!ctx.matrix->block_ranks.empty()) return estimate_exact_seconds(ctx.matrix->blocks, ctx.matrix->block_ranks);
  return matrix_cost(*ctx.matrix, 40.0);
}

MethodRun run_exact(MethodContext& ctx) {
  const bool reusable = default_prime(ctx.o) == nth_prime(0);
  const auto* profiles = reusable && !ctx.matrix->profiles.empty() ? &ctx.matrix->profiles : nullptr;
  // Progress on a terminal (and in Python): blocks certified, seconds against the estimate.
  const auto t0 = std::chrono::steady_clock::now();
  const double est = estimate_exact(ctx).value_or(0);
  auto progress = [&](std::size_t done, std::size_t total) {
    ctx.run.progress("exact rank: " + std::to_string(done) + " of " + std::to_string(total) + " blocks certified, " +
                     fmt_g(seconds_since(t0)) + " s of about " + fmt_g(est) + " s estimated");
  };
  auto ex = rank_exact_blocks(ctx.matrix->blocks, ctx.o.seed, profiles, progress);
  MethodRun r;
  r.method = Method::exact;
  r.kind = RunKind::exact;
  r.value = ex.rank;
  r.how = "exact (certified)";
  std::size_t max_bits = 0;
  for (const auto& b : ex.certificate.blocks) max_bits = std::max<std::size_t>(max_bits, b.bound_bits);
  r.details = {{"blocks", ex.blocks},
               {"certificate",
                "nonsingular r x r minor mod p; C = C[:,J] C[I,J]^-1 C[I,:] checked mod primes whose product exceeds "
                "2x the Hadamard-type entry bound"},
               {"max_primes_per_block", ex.primes_used},
               {"max_bound_bits", max_bits},
               {"retries", ex.retries}};
  return r;
}


const MethodInfo exact_info{
    .id = Method::exact,
    .order = 1,
    .kind = RunKind::exact,
    .summary = "rank over Q of the coefficient matrix, with a certificate",
    .needs_expansion = true,
    .accepts_polynomial = true,
    .plan = {.expandable = 3, .unexpandable = -1, .polynomial = 1},
    .default_cap = kDefaultCap,
    .estimate = estimate_exact,
    .run = run_exact,
};
const RegisterMethod exact_registered(exact_info);

}  // namespace
}  // namespace netpoly::methods
