// The shape of a network family: architecture and dimensions. One type for
// presets (make), bounds, tables and claims; the model (its layers and
// weights) is network.hpp.
#pragma once
#include <cstdint>
#include <string>

namespace netpoly {

enum class Arch { attention, mixer, mlp, product };

// "attention" | "mixer" | "mlp" | "product"; throws InputError otherwise.
Arch parse_arch(const std::string& name);
const char* arch_name(Arch a);

// Shape of a network. NB's notation maps as m = width, n = tokens, p = layers.
struct NetworkShape {
  Arch arch = Arch::attention;
  std::uint64_t layers = 1;  // L (depth p in NB)
  std::uint64_t width = 2;   // d = d_x (m in NB)
  std::uint64_t heads = 1;   // H; the mixer's H in NB Thm 5.5 (1 unless given)
  std::uint64_t tokens = 2;  // N (n in NB); an mlp has one token (NB Def 3.1), so it is ignored there
  // k, the degree of each block: a product block (AO Comment 3.1; 2 by
  // default) or an attention block (AO eq. (2); 3 by default, LV's
  // attention). 0 means the architecture's default: read it with block_degree().
  std::uint64_t degree = 0;
  bool residual = false;
  std::uint64_t block_degree() const { return degree ? degree : arch == Arch::attention ? 3 : 2; }
};

// Labels of a shape, written in one place: a model name
// ("attention-L2-d4-H2-N4-res", "mixer-p3-N4-d2") or a table key
// ("attention L=2 d=4 H=2 N=4 residual").
enum class LabelStyle { model_name, table_key };
std::string shape_label(const NetworkShape& s, LabelStyle style);

}  // namespace netpoly
