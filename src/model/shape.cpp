#include "netpoly/shape.hpp"

#include "netpoly/error.hpp"

namespace netpoly {

Arch parse_arch(const std::string& name) {
  if (name == "attention") return Arch::attention;
  if (name == "mixer") return Arch::mixer;
  if (name == "mlp") return Arch::mlp;
  if (name == "product") return Arch::product;
  throw InputError("unknown architecture \"" + name + "\" (expected attention, mixer, mlp or product)");
}

const char* arch_name(Arch a) {
  switch (a) {
    case Arch::attention: return "attention";
    case Arch::mixer: return "mixer";
    case Arch::mlp: return "mlp";
    case Arch::product: return "product";
  }
  return "?";
}

std::string shape_label(const NetworkShape& s, LabelStyle style) {
  const std::string L = std::to_string(s.layers), d = std::to_string(s.width), H = std::to_string(s.heads),
                    N = std::to_string(s.tokens), k = std::to_string(s.block_degree());
  // An attention block of degree k != 3 (AO eq. (2)) says so; degree 3 keeps the names it always had.
  const bool attn_k = s.arch == Arch::attention && s.block_degree() != 3;
  if (style == LabelStyle::table_key) {
    std::string key = std::string(arch_name(s.arch)) + " L=" + L + " d=" + d;
    if (s.arch == Arch::attention) key += " H=" + H;
    if (s.arch != Arch::mlp) key += " N=" + N;
    if (s.arch == Arch::product || attn_k) key += " k=" + k;
    if (s.residual) key += " residual";
    return key;
  }
  const std::string res = s.residual ? "-res" : "";
  switch (s.arch) {
    case Arch::attention:
      return std::string("attention") + (attn_k ? "-k" + k : "") + "-L" + L + "-d" + d + "-H" + H + "-N" + N + res;
    case Arch::mixer: return "mixer-p" + L + "-N" + N + "-d" + d + res;
    case Arch::mlp: return "mlp-p" + L + "-d" + d + res;
    case Arch::product: return "product-k" + k + "-L" + L + "-d" + d + (s.tokens > 1 ? "-N" + N : "") + res;
  }
  return "?";
}

}  // namespace netpoly
