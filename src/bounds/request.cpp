// A bounds request made into its shape and its bounds' JSON
// (netpoly/bounds.hpp): the CLI's `bounds` and Python's netpoly.bounds.
#include "netpoly/bounds.hpp"
#include "netpoly/error.hpp"

namespace netpoly {

const char* const kCausalWhy =
    "the seeds state every bound for unmasked attention (LV §5 trains decoder-only models, but its theorems, and "
    "NB's, AO's and WS's, are about attention in which every token reads every token); none is claimed for a causal "
    "mask. netpoly seprank analyses a causal model (support, exact, modular, blackbox; gram declines the mask)";

NetworkShape bounds_shape(const BoundsRequest& options) {
  BoundsRequest o = options;
  o.params.arch = parse_arch(o.arch);
  const Arch a = o.params.arch;
  const std::string an = arch_name(a);
  if (o.causal && a != Arch::attention) throw InputError("bounds: --causal applies to --arch attention only");
  if (o.causal) throw InputError(std::string("bounds: --causal: ") + kCausalWhy);
  if ((a == Arch::attention || a == Arch::mixer) && !o.tokens_given)
    throw InputError("bounds: --tokens is required for --arch " + an);
  if (a == Arch::mlp && o.tokens_given && o.params.tokens != 1)
    throw InputError("bounds: an mlp has one token (NB Def. 3.1); drop --tokens");
  if (a == Arch::mlp) o.params.tokens = 1;
  if (a == Arch::product && !o.tokens_given) o.params.tokens = 1;
  if (a != Arch::product && a != Arch::attention && o.degree_given)
    throw InputError("bounds: --degree applies to --arch product and attention only");
  if (a == Arch::product && o.heads_given) throw InputError("bounds: --heads does not apply to --arch product");
  if (a == Arch::product && o.params.residual)
    throw InputError("bounds: --residual does not apply to --arch product (AO has no residual form)");
  return o.params;
}

std::string bounds_json_for(const BoundsRequest& o) {
  const NetworkShape p = bounds_shape(o);
  BoundOptions bo;
  bo.max_exact_digits = o.max_exact_digits;
  return bounds_json(p, parameter_count(p), compute_bounds(p, bo));
}

}  // namespace netpoly
