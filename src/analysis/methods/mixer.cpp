// mixer: a structural upper bound for mixers (engines/mixer_rank.hpp, docs/math.md
// "Separable terms through a mixer"): through the network, per entry, the
// rank of each bihomogeneous block and the dimension of the linear forms each
// side depends on; sums add, squares of r terms give r(r + 1)/2, blocks are
// capped by the polynomials of their degrees in those forms. A minimum cut of
// the output's bidegree graph (rows, columns and blocks weighted) bounds sep,
// never above support's (same graph, smaller weights). No expansion. The
// per-degree bounds (`degree_weights`) give the black-box its block caps.
#include "analysis/engines/mixer_rank.hpp"
#include "method.hpp"
#include "netpoly/error.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

using json = nlohmann::json;

bool mixer_applies(const MethodContext& ctx) {
  std::string why;
  return ctx.model && mixer_rank::is_mixer(*ctx.model, why);
}

MethodRun run_mixer(MethodContext& ctx) {
  if (!ctx.model) throw InputError("method mixer: needs a network");
  if (ctx.model->gaussian()) throw InputError("method mixer: needs real weights");
  mixer_rank::Bound b;
  try {
    b = mixer_rank::mixer_bound(*ctx.model, ctx.e, ctx.P, ctx.bidegrees ? ctx.bidegrees->get() : nullptr);
  } catch (const mixer_rank::RankRing::TooCostly& err) {
    return skipped(Method("mixer"), std::string("skipped: ") + err.what());
  }
  MethodRun r;
  r.method = Method("mixer");
  r.kind = RunKind::upper;
  // Only which weights are zero is read: in generic mode (weights 1) the
  // bound holds for every weight assignment, zeros only shrinking the blocks.
  r.how = ctx.generic ? "certified upper bound for every weight assignment (separable terms per bidegree block "
                        "and linear forms per side, through the layers)"
                      : "certified upper bound (separable terms per bidegree block and linear forms per side, "
                        "through the layers)";
  json blocks = json::array();
  for (const auto& k : b.blocks) blocks.push_back({k.a, k.b, k.r.str()});
  r.details = {{"bound", b.cut.value.str()},
               {"linear_forms", {{"A", b.mA}, {"B", b.mB}}},
               {"blocks", blocks},
               {"cut", {{"A_degrees", b.cut.rows_cut}, {"B_degrees", b.cut.cols_cut}, {"blocks", b.cut.edges_cut}}},
               {"degree_weights", degree_weights_json(b.wA, b.wB)}};
  set_upper_value(r, b.cut.value);
  return r;
}

const MethodInfo mixer_info{
    .id = Method("mixer"),
    .order = 8,
    .kind = RunKind::upper,
    .summary = "mixers, no expansion: separable terms per bidegree block and linear forms per side through the "
               "layers (squares of r terms: r(r+1)/2), min cut with weighted rows, columns and blocks",
    .gaussian = false,
    .plan = {.expandable = 0, .unexpandable = 0, .polynomial = -1, .generic = 0},
    .applies = mixer_applies,
    .run = run_mixer,
};
const RegisterMethod mixer_registered(mixer_info);

}  // namespace
}  // namespace netpoly::methods
