// The forward pass an expansion and its estimates run (internal to
// src/expansion): the entries asked for, over any ring.
#pragma once
#include <vector>

#include "model/forward.hpp"
#include "netpoly/expand.hpp"

namespace netpoly::expansion_detail {

inline Need need_mask(const Model& m, const std::vector<Entry>& outputs) {
  const std::size_t dout = m.output_width();
  Need need(m.tokens * dout, 0);
  for (const auto& e : outputs) need[e.token * dout + e.channel] = 1;
  return need;
}

template <class Ring>
std::vector<typename Ring::Elem> expand_in(const Ring& R, const Model& m, const std::vector<Entry>& outputs,
                                           std::vector<typename Ring::Elem> X) {
  auto net = prepare(R, m);
  if (m.layers.empty() && outputs.empty()) return {};
  auto Y = forward(R, net, std::move(X), need_mask(m, outputs));
  const std::size_t dout = m.output_width();
  std::vector<typename Ring::Elem> r;
  // Moved out, not copied (a copy of the output costs as much as the last
  // additions), unless the same entry is asked for again later.
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::size_t idx = outputs[k].token * dout + outputs[k].channel;
    bool again = false;
    for (std::size_t l = k + 1; l < outputs.size(); ++l)
      again = again || outputs[l].token * dout + outputs[l].channel == idx;
    if (again) r.push_back(Y[idx]);
    else r.push_back(std::move(Y[idx]));
  }
  return r;
}

template <class Ring>
std::vector<typename Ring::Elem> generators(const Ring& R, const Model& m) {
  std::vector<typename Ring::Elem> X;
  X.reserve(m.num_inputs());
  for (std::size_t v = 0; v < m.num_inputs(); ++v) X.push_back(R.gen(static_cast<slong>(v)));
  return X;
}

}  // namespace netpoly::expansion_detail
