// The architecture family of a model, as bounds and claims read it: which
// of the papers' networks (attention, mixer, mlp, product) it is, and its
// shape. NB eq. (3)'s sums of branches count as their mixing layer.
#include <variant>

#include "claims/eval/claim_eval.hpp"
#include "netpoly/bounds.hpp"

namespace netpoly::claims_detail {

NetFamily infer_family(const Model& model) {
  // The layers it computes (model.hpp's canonical form): a traced network
  // counts as its preset.
  const Model m = canonical_form(model);
  NetFamily f;
  f.shape.width = m.width;
  f.shape.tokens = m.tokens;
  bool att = false, tok = false, ch = false, prod = false, other = false;
  for (const auto& top : m.layers) {
    const Layer<Fmpq>* lp = &top;
    bool residual = top.residual;
    if (top.has_bias()) {
      // The papers' networks have no biases: an affine layer has no family.
      other = true;
      f.shape.residual = f.shape.residual || top.residual;
      ++f.shape.layers;
      continue;
    }
    if (const auto* b = std::get_if<Branches<Fmpq>>(&top.op)) {
      // NB eq. (3): [permutes, one layer] + [a permute] counts as that layer
      // with a (permuted) residual; any other sum of branches has no family.
      bool res = false;
      lp = b->single_layer(&res);
      if (!lp) {
        other = true;
        f.shape.residual = f.shape.residual || top.residual;
        ++f.shape.layers;
        continue;
      }
      residual = residual || res;
    }
    const Layer<Fmpq>& l = *lp;
    f.shape.residual = f.shape.residual || residual;
    if (const auto* a = std::get_if<Attention<Fmpq>>(&l.op); a && a->causal) {
      other = true;
      f.why_unknown = std::string("causal attention: ") + kCausalWhy;
    }
    switch (l.role()) {
      case LayerRole::attention:
        if (!att) {
          f.shape.heads = l.family_size();
          f.shape.degree = static_cast<std::uint64_t>(l.degree());  // 3, or a degree-k block's k
        }
        att = true;
        break;
      case LayerRole::token_mixing:
        tok = true;
        break;
      case LayerRole::channel_mixing:
        ch = true;
        break;
      case LayerRole::product:
        if (!prod) f.shape.degree = l.family_size();
        prod = true;
        break;
      case LayerRole::structure:
        if (!residual) continue;  // permutations are not counted as layers
        other = true;             // X + P X is a sum, not a permutation (a sum of branches as written)
        break;
      case LayerRole::composite:
        other = true;
        continue;
    }
    ++f.shape.layers;
  }
  const int kinds = att + (tok || ch) + prod;
  if (kinds == 1 && !other) {
    f.known = true;
    if (att)
      f.shape.arch = Arch::attention;
    else if (prod)
      f.shape.arch = Arch::product;
    else
      f.shape.arch = (m.tokens == 1 && !tok) ? Arch::mlp : Arch::mixer;
  }
  return f;
}

}  // namespace netpoly::claims_detail
