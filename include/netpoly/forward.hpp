// The forward pass, written once for every Ring (rings.hpp): exact
// polynomials, exact rationals, integers mod p, doubles.
//
// Activations are an N x d row-major vector of Ring::Elem. At the last layer
// only the output entries in `need` are computed (the rest stay zero).
#pragma once
#include <cstddef>
#include <variant>
#include <vector>

#include "netpoly/network.hpp"

namespace netpoly {

// Evaluates `net` on the input X (N x d row-major). Returns the N x d_out
// output; at the last layer only entries with need[k] != 0 are computed
// (need empty: all). Earlier layers compute everything.
template <class Ring>
std::vector<typename Ring::Elem> forward(const Ring& R, const Network<typename Ring::Scalar>& net,
                                         std::vector<typename Ring::Elem> X, const Need& need = {}) {
  return apply_layers(R, net.layers, std::move(X), net.tokens, net.width, need);
}

// Converts exact weights into a ring's scalars once (before many evaluations).
template <class Ring, class S>
Network<typename Ring::Scalar> prepare(const Ring& R, const Network<S>& net) {
  return net.map_weights([&](const S& w) { return R.scalar(w); });
}

}  // namespace netpoly
