// A permutation of the N x d row-major entries: vec(Y)[t] = vec(X)[perm[t]]
// (NB eq. (3), the wide-sparse rewriting). No weights; degree 1; not counted
// as a layer when a family is inferred.
// Format: {"type": "permute", "perm": [...]}, a permutation of 0 … N*d-1.
#pragma once
#include <string>

#include "netpoly/layers/common.hpp"

namespace netpoly {

struct Permute {
  static constexpr const char* kind = "permute";
  static constexpr LayerRole role = LayerRole::structure;
  std::vector<std::size_t> perm;  // vec(Y)[t] = vec(X)[perm[t]], row-major

  template <class F>
  Permute map(F&&) const { return *this; }
  std::size_t out_width(std::size_t d) const { return d; }
  double degree() const { return 1; }
  std::size_t family_size() const { return 0; }
  template <class F>
  void for_each_matrix(F&&) const {}
  template <class F>
  void for_each_named_matrix(F&&) const {}  // a permutation has no weights

  template <class Rd, class Json>
  static Permute read(const Rd& r, const Json& o, const std::string& lp, std::size_t N, std::size_t d) {
    r.keys(o, lp, {"type", "residual", "perm"}, {"perm"});
    const Json& p = o["perm"];
    std::string pp = Rd::join(lp, "perm");
    const std::size_t n = N * d;
    if (!p.is_array() || p.size() != n)
      r.fail(pp, "expected a permutation of 0 … " + std::to_string(n - 1) + " (" + std::to_string(n) +
                     " entries), got " + Rd::kind(p));
    Permute pe;
    std::vector<char> seen(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t v = r.count(p[k], Rd::idx(pp, k), 0, n - 1);
      if (seen[v]) r.fail(Rd::idx(pp, k), "not a permutation: " + std::to_string(v) + " appears twice");
      seen[v] = 1;
      pe.perm.push_back(v);
    }
    return pe;
  }

  template <class Wr>
  void write(Wr& w) const {
    w.os << ",\n" << w.in << "\"perm\": [";
    for (std::size_t k = 0; k < perm.size(); ++k) w.os << (k ? ", " : "") << perm[k];
    w.os << "]";
  }

  template <class Ring>
  std::vector<typename Ring::Elem> apply(const Ring& R, const std::vector<typename Ring::Elem>& X, std::size_t N,
                                         std::size_t d, const Need& need) const {
    std::vector<typename Ring::Elem> Y(N * d, R.zero());
    for (std::size_t t = 0; t < N * d; ++t)
      if (detail::wanted(need, t)) Y[t] = X[perm[t]];
    return Y;
  }

  bool operator==(const Permute&) const = default;
};

}  // namespace netpoly
