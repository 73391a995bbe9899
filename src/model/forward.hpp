// The forward pass, written once for every Ring (rings.hpp): exact
// polynomials, exact rationals, integers mod p, doubles.
//
// Activations are an N x d row-major vector of Ring::Elem. At the last layer
// only the output entries in `need` are computed (the rest stay zero).
#pragma once
#include <cstddef>
#include <variant>
#include <vector>

#include "netpoly/error.hpp"
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

// A Gaussian model's weights zipped: f(re, im) for every weight, the real and
// the imaginary network visited in the same order (map_weights visits the
// weights of two networks of one structure in one order).
template <class S, class F>
auto zip_parts(const Network<S>& net, F&& f) {
  std::vector<S> im;
  for (const auto& l : net.imag)
    (void)l.map([&](const S& w) {
      im.push_back(w);
      return 0;
    });
  std::size_t k = 0;
  Network<decltype(f(std::declval<S>(), std::declval<S>()))> r;
  r.name = net.name;
  r.tokens = net.tokens;
  r.width = net.width;
  r.output = net.output;
  for (const auto& l : net.layers) r.layers.push_back(l.map([&](const S& w) { return f(w, im.at(k++)); }));
  if (k != im.size()) throw InternalError("Gaussian weights: the imaginary part has another structure than the real part");
  return r;
}

// Converts exact weights into a ring's scalars once (before many evaluations).
// A Gaussian model (gauss.hpp) goes to the rings that can take it: the
// complex GaussRing, and the structural rings (supports, degrees, heights),
// which read a bound of the weight (scalar_gauss).
template <class Ring, class S>
Network<typename Ring::Scalar> prepare(const Ring& R, const Network<S>& net) {
  if (net.gaussian()) {
    if constexpr (requires(const S& a) { R.scalar_gauss(a, a); })
      return zip_parts(net, [&](const S& re, const S& im) { return R.scalar_gauss(re, im); });
    else
      throw DomainError((net.name.empty() ? std::string("the model") : net.name) +
                        " has Gaussian weights (a+bi): this computation runs over the rationals only");
  }
  return net.map_weights([&](const S& w) { return R.scalar(w); });
}

}  // namespace netpoly
