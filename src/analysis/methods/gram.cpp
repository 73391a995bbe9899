// gram: a structural upper bound for softmax-free attention networks
// (gram.hpp, docs/math.md §4): the output entry is x_o times a polynomial in
// the Gram matrices M_A, M_B of the two sides' tokens; per degree, the spaces
// its rows and columns live in have dimensions bounded by representation
// theory (Gram rings, covariants; weight-independent) and, for these weights,
// by the first layer's head contraction and functionals at the points of its
// kernel on the Gram variety. A minimum weighted vertex cover of the degree
// graph bounds sep. No expansion. The per-degree bounds (`degree_weights`)
// give the black-box its block caps.
#include "analysis/engines/gram.hpp"
#include "method.hpp"
#include "netpoly/error.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::methods {
namespace {

using json = nlohmann::json;

std::optional<gram::Shape> shape_of(const MethodContext& ctx, std::string& why) {
  if (!ctx.model) {
    why = "needs a network";
    return std::nullopt;
  }
  return gram::attention_shape(*ctx.model, ctx.e, ctx.P, why);
}

bool gram_applies(const MethodContext& ctx) {
  std::string why;
  return shape_of(ctx, why).has_value();
}

MethodRun run_gram(MethodContext& ctx) {
  std::string why;
  const auto shape = shape_of(ctx, why);
  if (!shape) throw InputError("method gram: " + why);
  // Generic mode (the shape, weights 1): only the weight-independent parts,
  // so the bound and the per-degree weights hold for every weight assignment.
  const bool exact_weights = !ctx.model->gaussian() && !ctx.generic;
  const gram::Bound b = gram::gram_bound(*ctx.model, *shape, exact_weights);
  MethodRun r;
  r.method = Method("gram");
  r.kind = RunKind::upper;
  r.how = ctx.generic ? "certified upper bound for every weight assignment (dimensions of the tokens' Gram-matrix "
                        "polynomials per degree, weight-independent parts)"
                      : "certified upper bound (dimensions of the tokens' Gram-matrix polynomials per degree)";
  json codims = {{"output_side", json::object()}, {"other_side", json::object()}};
  for (const auto& [j, c] : b.codims.out) codims["output_side"][std::to_string(j)] = c;
  for (const auto& [k, c] : b.codims.other) codims["other_side"][std::to_string(k)] = c;
  codims["primes"] = {b.codims.prime_out, b.codims.prime_other};
  codims["points"] = {b.codims.points_out, b.codims.points_other};
  if (!b.codims.note.empty()) codims["note"] = b.codims.note;
  r.details = {{"bound", b.cover.value.str()},
               {"generic_bound", b.generic.value.str()},
               {"weight_dependent", exact_weights},
               {"contraction_rank", b.contraction},
               {"full_occurrences", shape->full},
               {"output_side_tokens", shape->n_out},
               {"cover", {{"A_degrees", b.cover.rows_cut}, {"B_degrees", b.cover.cols_cut}}},
               {"degree_weights", degree_weights_json(b.wA, b.wB)},
               {"codimensions", codims}};
  set_upper_value(r, b.cover.value);
  return r;
}

const MethodInfo gram_info{
    .id = Method("gram"),
    .order = 7,
    .kind = RunKind::upper,
    .summary = "attention networks, no expansion: the output is x_o times a polynomial in the tokens' Gram "
               "matrices; per degree, dimensions of those polynomials (representation theory) and of the first "
               "layer's head contraction, min weighted vertex cover",
    .plan = {.expandable = 0, .unexpandable = 0, .polynomial = -1, .generic = 0},
    .applies = gram_applies,
    .run = run_gram,
};
const RegisterMethod gram_registered(gram_info);

}  // namespace
}  // namespace netpoly::methods
