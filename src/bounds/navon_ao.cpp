// AO: Navon, the attention-optimal block
// (../shared/seeds/navon-attention-optimal-block.txt): the orders of eq. (1)
// and eq. (3), asymptotic with unstated constants.
#include "bound_entry.hpp"

namespace netpoly::bounds_detail {
namespace {

using bounds_detail::log3;

// AO eq. (1), from LV Thm 2: sep = Theta(3^(L d)) when L > log3 d. An order, not a bound.
Draft ao_eq1(const Ctx& c) {
  Draft x = draft("AO eq. (1)", "AO §1.1, eq. (1) (from LV Thm 2)", kAttn, BoundKind::order, "Theta(3^(L d))",
                  "L > log3 d", c.deep, "asymptotic order with unstated constants, not a certified bound");
  x.log3 = c.Lr * c.dr;
  return x;
}

Draft ao_eq3(const Ctx& c) {
  // AO eq. (3): sep = Theta(k^(L d)) for L > log_k d (k >= 2). An order, not a bound. It is
  // stated for eq. (2)'s block y(X) = X prod (W_k X^T), which mixes tokens; the `product`
  // preset is Comment 3.1's per-token polynomial P_k(x) = prod (W_k x) (every output entry
  // depends on one token only), so the statement's network is not this one: never in regime.
  // The attention block of degree k (AO eq. (2), docs/model-format.md) is that block.
  const bool block = c.arch == Arch::attention;
  Draft x = draft("AO eq. (3)", "AO §1.2, eq. (3)", block ? "attention (degree-k block)" : "product",
                  BoundKind::order, "Theta(k^(L d))",
                  block ? "L > log_k d, k >= 2"
                        : "eq. (2)'s token-mixing block with L > log_k d, k >= 2; the product preset is AO Comment "
                          "3.1's per-token form, not that block",
                  block && c.k >= 2 && cmp_pow(c.k, c.L, c.d) > 0,
                  "asymptotic order with unstated constants, not a certified bound");
  x.log3 = c.Lr * c.dr * log3(c.kr);
  return x;
}


// AO does not treat residual connections. Degree-3 attention blocks have AO eq. (1).
bool product_plain(const NetworkShape& p) {
  return !p.residual && (p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3));
}

const RegisterBound ao_eq1_entry({"AO eq. (1)", 18, attention_plain, ao_eq1});
const RegisterBound ao_eq3_entry({"AO eq. (3)", 40, product_plain, ao_eq3});

}  // namespace
}  // namespace netpoly::bounds_detail
