// The generic separation rank's pieces (generic.hpp): the shape with
// weights 1 or drawn at random, and the degree and height of an output as a
// polynomial in the weights and the inputs together.
#include "analysis/generic.hpp"

#include <cmath>

#include "model/forward.hpp"
#include "netpoly/rings.hpp"
#include "domains/structure_rings.hpp"

namespace netpoly {

namespace {

// Degrees in the weights and the inputs together: as DegreeRing, but every
// weight multiplies with degree 1.
struct JointDegreeRing : DegreeRing {
  Scalar scalar(const Fmpq&) const { return 1; }
  void axpy(Elem& r, Scalar, Elem x) const { add(r, x < 0 ? -1 : x + 1); }
};

template <class Ring>
typename Ring::Elem output_of(const Ring& R, const Model& m, const Entry& e, std::vector<typename Ring::Elem> X) {
  Need need(m.tokens * m.output_width(), 0);
  need[e.token * m.output_width() + e.channel] = 1;
  auto y = forward(R, prepare(R, m), std::move(X), need);
  return y[e.token * m.output_width() + e.channel];
}

Model real_shape(const Model& m) {
  Model r = m;
  r.imag.clear();
  return r;
}

}  // namespace

Model shape_with_ones(const Model& m) {
  return real_shape(m).map_weights([](const Fmpq&) { return Fmpq(static_cast<slong>(1)); });
}

Model shape_with_random_weights(const Model& m, ulong p, SplitMix64& g) {
  return real_shape(m).map_weights([&](const Fmpq&) {
    Fmpq w;
    fmpq_set_ui(w.get(), g.below(p), 1);
    return w;
  });
}

double joint_degree(const Model& m, const Entry& e) {
  const Model s = shape_with_ones(m);
  JointDegreeRing D;
  const long d = output_of(D, s, e, std::vector<long>(s.num_inputs(), 1));
  return d < 0 ? 0 : static_cast<double>(d);
}

std::vector<long> weight_degrees(const Model& m) {
  const Model s = shape_with_ones(m);
  JointDegreeRing D;  // the inputs of degree 0: the degree in the weights alone
  return forward(D, prepare(D, s), std::vector<long>(s.num_inputs(), 0));
}

double joint_height_log2(const Model& m, const Entry& e) {
  const Model s = shape_with_ones(m);
  HeightRing H;
  const auto y = output_of(H, s, e, std::vector<HeightRing::Elem>(s.num_inputs(), HeightRing::Elem{0, 0}));
  return y.h == -HUGE_VAL ? 0 : std::max(0.0, y.h);
}

const Model& GenericDraws::at(ulong p) {
  auto it = drawn_.find(p);
  if (it == drawn_.end()) {
    SplitMix64 g(seed_ ^ (p * 0x9e3779b97f4a7c15ULL) ^ 0x6e4e41cULL);
    it = drawn_.emplace(p, std::make_shared<const Model>(shape_with_random_weights(shape_, p, g))).first;
  }
  return *it->second;
}

}  // namespace netpoly
