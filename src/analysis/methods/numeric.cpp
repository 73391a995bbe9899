// numeric: singular values of the grid matrix in doubles, an estimate only
// (never an end of the bracket).
#include <Eigen/Core>
#include <complex>
#include <limits>

#include "analysis/rank/singular_values.hpp"
#include "analysis/engines/grid.hpp"
#include "analysis/nominal.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

MethodRun run_numeric(MethodContext& ctx) {
  const Model& m = *ctx.model;
  const Entry& e = ctx.e;
  const SepOptions& o = ctx.o;
  Grid G = make_grid(m, ctx.P, o);
  const double cap = ctx.cap(), n = static_cast<double>(std::max(G.rows.size(), G.cols.size()));
  // Gaussian weights: the grid over complex doubles (GaussRing), a complex SVD.
  const bool gauss = m.gaussian();
  const GaussRing<DoubleRing> RC{DoubleRing{}};
  // (Nominal costs, a claim's analyses: the evaluations' estimate from the
  // forward pass's operations, and no deadline: analysis/nominal.hpp.)
  const bool nominal = ctx.run.nominal;
  const double cells = static_cast<double>(G.rows.size()) * static_cast<double>(G.cols.size());
  const double est = (nominal ? nominal::forward_ops(m, e) * nominal::kDoubleOp * cells
                      : gauss ? grid_eval_seconds(RC, m, e, G)
                              : grid_eval_seconds(DoubleRing{}, m, e, G)) +
                     (gauss ? 8e-8 : 2e-8) * n * n * n;
  const auto deadline = [&] { return nominal ? Clock::time_point::max() : deadline_after(cap); };
  if (est > cap)
    return skipped(Method::numeric, "skipped: estimated " + fmt_g(est) + " s exceeds what is left of " +
                                        budget_text(o));
  const Eigen::Index nr = static_cast<Eigen::Index>(G.rows.size()), nc = static_cast<Eigen::Index>(G.cols.size());
  Eigen::VectorXd s;
  try {
    if (gauss) {
      const auto Ec = eval_grid(RC, m, e, G, deadline());
      Eigen::MatrixXcd M(nr, nc);
      for (Eigen::Index i = 0; i < nr; ++i)
        for (Eigen::Index j = 0; j < nc; ++j) {
          const auto& z = Ec[static_cast<std::size_t>(i * nc + j)];
          M(i, j) = std::complex<double>(z.re, z.im);
        }
      s = singular_values(M);
    } else {
      const auto Ed = eval_grid(DoubleRing{}, m, e, G, deadline());
      Eigen::MatrixXd M(nr, nc);
      for (Eigen::Index i = 0; i < nr; ++i)
        for (Eigen::Index j = 0; j < nc; ++j) M(i, j) = Ed[static_cast<std::size_t>(i * nc + j)];
      s = singular_values(M);
    }
  } catch (const OverBudget&) {
    return skipped(Method::numeric, "stopped at " + budget_text(o) + " (estimated " + fmt_g(est) + " s)");
  }
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
  r.how = gauss ? "numeric estimate (complex double SVD of the grid matrix)"
                : "numeric estimate (double SVD of the grid matrix)";
  r.size_key = "grid";
  r.size = nlohmann::json::array({nr, nc});
  r.details = {{"grid", {nr, nc}},       {"templates", G.kind},     {"threshold", tau},
               {"sigma_max", smax},      {"sigma_above", above},    {"sigma_below", below},
               {"gap", below > 0 ? above / below : std::numeric_limits<double>::infinity()}};
  if (below > 0 && above / below < 1e6) r.note = "small gap between singular values: the estimate is unreliable";
  return r;
}

const MethodInfo numeric_info{
    .id = Method::numeric,
    .order = 5,
    .kind = RunKind::estimate,
    .summary = "estimate only: singular values of the double grid matrix",
    .run = run_numeric,
};
const RegisterMethod numeric_registered(numeric_info);

}  // namespace
}  // namespace netpoly::methods
