// The total degree of the network polynomial: attention 3^L (LV Cor. 3:
// 2C(L) + 1), sigma2 layers 2^p (NB §3), degree-k blocks k^L (AO eq. 16).
// A residual adds lower-degree terms only. Listed after the separation-rank
// bounds of a shape.
#include "bound_entry.hpp"

namespace netpoly::bounds_detail {
namespace {

Draft degree_record(const Ctx& c, const char* id, const char* source, const char* formula, std::uint64_t base) {
  Draft x = draft(id, source, arch_name(c.arch), BoundKind::degree, formula, "none", true);
  x.log3 = c.Lr * log3(re(base));
  const std::uint64_t L = c.L;
  x.exact = [base, L]() { return Fmpq(ui_pow_ui(base, L)); };
  return x;
}

Draft degree_attention(const Ctx& c) {
  return degree_record(c, "degree 3^L", "LV App. A.1, Corollary 3 (2C(L) + 1 = 3^L); AO §1.1", "3^L", 3);
}
Draft degree_sigma2(const Ctx& c) {
  return degree_record(c, "degree 2^p", "NB §3 (sigma2 squares each layer)", "2^p", 2);
}
Draft degree_product(const Ctx& c) { return degree_record(c, "degree k^L", "AO §6.2, eq. (16)", "k^L", c.k); }

bool is_attention(const NetworkShape& p) { return p.arch == Arch::attention && p.block_degree() == 3; }
bool is_sigma2(const NetworkShape& p) { return p.arch == Arch::mixer || p.arch == Arch::mlp; }
// Product blocks and attention blocks of degree k != 3 (AO eq. (2)).
bool is_product(const NetworkShape& p) {
  return p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3);
}

const RegisterBound attention_entry({"degree 3^L", 19, is_attention, degree_attention});
const RegisterBound sigma2_entry({"degree 2^p", 31, is_sigma2, degree_sigma2});
const RegisterBound product_entry({"degree k^L", 41, is_product, degree_product});

}  // namespace
}  // namespace netpoly::bounds_detail
