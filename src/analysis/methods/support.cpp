// support: a structural upper bound without expansion (support.hpp): the
// monomials of the bidegrees (A-degree, B-degree) the network can produce,
// and a minimum weighted vertex cover of them.
#include "method.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

MethodRun run_support(MethodContext& ctx) {
  const Bidegrees* bd = ctx.bidegrees->get();
  if (!bd) return skipped(Method::support, "skipped: " + ctx.bidegrees->why);
  const SupportBound sb = support_bound(*bd, ctx.P);
  MethodRun r;
  r.method = Method::support;
  r.kind = RunKind::upper;
  r.how = "certified upper bound (monomials of the bidegrees the network can produce)";
  r.details = {{"bidegrees", sb.bidegrees},
               {"degree", sb.degree},
               {"cover", {{"A_degrees", sb.rows_cut}, {"B_degrees", sb.cols_cut}}},
               {"bound", sb.value.str()}};
  set_upper_value(r, sb.value);
  return r;
}

const MethodInfo support_info{
    .id = Method::support,
    .order = 6,
    .kind = RunKind::upper,
    .summary = "no expansion: monomial counts of the bidegrees the network can produce, min weighted vertex cover",
    .plan = {.expandable = 0, .unexpandable = 0, .polynomial = -1, .generic = 0},
    .run = run_support,
};
const RegisterMethod support_registered(support_info);

}  // namespace
}  // namespace netpoly::methods
