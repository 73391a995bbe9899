// Gaussian rationals Q(i) (LV App. B.2's weights use i): a weight "a+bi" is
// kept in the model as its real part (Network::layers) and its imaginary part
// (Network::imag, the same layers with the imaginary parts; empty for a real
// model). GaussRing<Base> is any ring's complexification: pairs (re, im) of
// the base ring's elements, with (a + bi)(c + di) = (ac - bd) + (ad + bc)i, so
// the one forward pass runs over Q(i)[x] (GaussRing<PolyRing>: the expansion
// as P + iQ), Q(i), or pairs mod p. prepare() zips the two parts of the model
// into the ring's complex scalars; a real ring refuses a Gaussian model.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "netpoly/error.hpp"
#include "netpoly/flint.hpp"
#include "model/forward.hpp"

namespace netpoly {

template <class Base>
struct GaussRing {
  using BE = typename Base::Elem;
  using BS = typename Base::Scalar;
  struct Elem {
    BE re, im;
  };
  struct Scalar {
    BS re, im, neg_im;  // neg_im = -im, for the real part of a product
    bool operator==(const Scalar&) const = default;
  };
  static constexpr bool gauss = true;
  static constexpr bool parallel = detail::parallel_ring<Base>();
  Base base;
  BS minus_one;

  explicit GaussRing(Base b) : base(std::move(b)), minus_one(base.scalar(Fmpq(-1))) {}
  Scalar scalar(const Fmpq& re, const Fmpq& im) const {
    Fmpq n;
    fmpq_neg(n.get(), im.get());
    return {base.scalar(re), base.scalar(im), base.scalar(n)};
  }
  bool is_zero(const Scalar& s) const { return base.is_zero(s.re) && base.is_zero(s.im); }
  Elem zero() const { return {base.zero(), base.zero()}; }
  Elem one() const { return {base.one(), base.zero()}; }
  void add(Elem& r, const Elem& x) const {
    base.add(r.re, x.re);
    base.add(r.im, x.im);
  }
  void add(Elem& r, Elem&& x) const {
    base.add(r.re, std::move(x.re));
    base.add(r.im, std::move(x.im));
  }
  Elem mul(const Elem& a, const Elem& b) const {
    Elem r = zero();
    addmul(r, a, b);
    return r;
  }
  // r += a b = (a.re b.re - a.im b.im) + (a.re b.im + a.im b.re) i
  void addmul(Elem& r, const Elem& a, const Elem& b) const {
    base.add(r.re, base.mul(a.re, b.re));
    base.axpy(r.re, minus_one, base.mul(a.im, b.im));
    base.add(r.im, base.mul(a.re, b.im));
    base.add(r.im, base.mul(a.im, b.re));
  }
  // r += s x for a complex weight s
  void axpy(Elem& r, const Scalar& s, const Elem& x) const {
    if (!base.is_zero(s.re)) {
      base.axpy(r.re, s.re, x.re);
      base.axpy(r.im, s.re, x.im);
    }
    if (!base.is_zero(s.im)) {
      base.axpy(r.re, s.neg_im, x.im);
      base.axpy(r.im, s.im, x.re);
    }
  }
};

template <class R>
constexpr bool is_gauss_ring() {
  if constexpr (requires { R::gauss; }) return R::gauss;
  else return false;
}

// The model's weights as the ring's complex scalars (forward.hpp's zip_parts).
template <class Base>
Network<typename GaussRing<Base>::Scalar> prepare(const GaussRing<Base>& R, const Network<Fmpq>& net) {
  if (!net.gaussian()) return net.map_weights([&](const Fmpq& w) { return R.scalar(w, Fmpq()); });
  return zip_parts(net, [&](const Fmpq& re, const Fmpq& im) { return R.scalar(re, im); });
}

// Inputs for a complex ring: real values (imaginary part 0).
template <class Base>
std::vector<typename GaussRing<Base>::Elem> real_inputs(const GaussRing<Base>& R, std::vector<typename Base::Elem> x) {
  std::vector<typename GaussRing<Base>::Elem> r;
  r.reserve(x.size());
  for (auto& v : x) r.push_back({std::move(v), R.base.zero()});
  return r;
}

// "3", "-1/2", "i", "-i", "2i", "1/2-3i", "3+i": the exact text of a + bi.
std::string gaussian_text(const Fmpq& re, const Fmpq& im);
// Parses that text (a, b integers or rationals p/q with q > 0; no spaces).
bool parse_gaussian(const std::string& s, Fmpq& re, Fmpq& im);

}  // namespace netpoly
