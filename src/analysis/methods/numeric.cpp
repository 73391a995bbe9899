// numeric: singular values of the grid matrix in doubles, an estimate only
// (never an end of the bracket).
#include <Eigen/SVD>
#include <limits>

#include "grid.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

MethodRun run(MethodContext& ctx) {
  const Model& m = *ctx.model;
  const Entry& e = ctx.e;
  const SepOptions& o = ctx.o;
  Grid G = make_grid(m, ctx.P, o);
  const double cap = ctx.cap(), n = static_cast<double>(std::max(G.rows.size(), G.cols.size()));
  const double est = grid_eval_seconds(DoubleRing{}, m, e, G) + 2e-8 * n * n * n;
  if (est > cap)
    return skipped(Method::numeric, "skipped: estimated " + fmt_g(est) + " s exceeds what is left of --budget " +
                                        fmt_g(o.budget) + " s");
  std::vector<double> Ed;
  try {
    Ed = eval_grid(DoubleRing{}, m, e, G, deadline_after(cap));
  } catch (const OverBudget&) {
    return skipped(Method::numeric, "stopped at --budget " + fmt_g(o.budget) + " s (estimated " + fmt_g(est) + " s)");
  }
  const Eigen::Index nr = static_cast<Eigen::Index>(G.rows.size()), nc = static_cast<Eigen::Index>(G.cols.size());
  Eigen::MatrixXd M(nr, nc);
  for (Eigen::Index i = 0; i < nr; ++i)
    for (Eigen::Index j = 0; j < nc; ++j) M(i, j) = Ed[static_cast<std::size_t>(i * nc + j)];
  Eigen::BDCSVD<Eigen::MatrixXd> svd(M);
  const auto& s = svd.singularValues();
  const double smax = s.size() ? s(0) : 0.0;
  const double tau = static_cast<double>(std::max(nr, nc)) * std::numeric_limits<double>::epsilon() * smax;
  std::size_t rank = 0;
  while (static_cast<Eigen::Index>(rank) < s.size() && s(static_cast<Eigen::Index>(rank)) > tau) ++rank;
  double above = rank > 0 ? s(static_cast<Eigen::Index>(rank - 1)) : 0.0;
  double below = static_cast<Eigen::Index>(rank) < s.size() ? s(static_cast<Eigen::Index>(rank)) : 0.0;
  MethodRun r;
  r.method = Method::numeric;
  r.kind = RunKind::estimate;
  r.value = rank;
  r.how = "numeric estimate (double SVD of the grid matrix)";
  r.details = {{"grid", {nr, nc}},       {"templates", G.kind},     {"threshold", tau},
               {"sigma_max", smax},      {"sigma_above", above},    {"sigma_below", below},
               {"gap", below > 0 ? above / below : std::numeric_limits<double>::infinity()}};
  if (below > 0 && above / below < 1e6) r.note = "small gap between singular values: the estimate is unreliable";
  return r;
}

const MethodInfo info{
    .id = Method::numeric,
    .order = 5,
    .kind = RunKind::estimate,
    .summary = "estimate only: singular values of the double grid matrix",
    .run = run,
};
const RegisterMethod registered(info);

}  // namespace
}  // namespace netpoly::methods
