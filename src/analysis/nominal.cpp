#include "nominal.hpp"

#include <atomic>
#include <limits>

#include "model/forward.hpp"

namespace netpoly::nominal {
namespace {

// A ring whose elements are nothing: each operation the layers call is
// counted (the layers may run threads: the counter is atomic).
struct OpCountRing {
  struct Elem {};
  using Scalar = unsigned char;  // 1 when the weight is nonzero (a zero weight's term is skipped, as in every ring)
  std::atomic<std::uint64_t>* n;
  Scalar scalar(const Fmpq& w) const { return !w.is_zero(); }
  Scalar scalar_gauss(const Fmpq& re, const Fmpq& im) const { return !re.is_zero() || !im.is_zero(); }
  bool is_zero(Scalar s) const { return !s; }
  Elem zero() const { return {}; }
  Elem one() const { return {}; }
  void axpy(Elem&, Scalar, Elem) const { n->fetch_add(1, std::memory_order_relaxed); }
  void add(Elem&, Elem) const { n->fetch_add(1, std::memory_order_relaxed); }
  void addmul(Elem&, Elem, Elem) const { n->fetch_add(1, std::memory_order_relaxed); }
  Elem mul(Elem, Elem) const {
    n->fetch_add(1, std::memory_order_relaxed);
    return {};
  }
  // One thread: the count is the same either way, and threads cost more than they save here.
  bool worth_threads(const Elem&, const Elem&) const { return false; }
};

}  // namespace

double forward_ops(const Model& m, const Entry& e) {
  std::atomic<std::uint64_t> n{0};
  const OpCountRing R{&n};
  const auto net = prepare(R, m);
  Need need;
  if (e.token != std::numeric_limits<std::size_t>::max()) {
    need.assign(m.tokens * m.output_width(), 0);
    need.at(e.token * m.output_width() + e.channel) = 1;
  }
  (void)forward(R, net, std::vector<OpCountRing::Elem>(m.num_inputs()), need);
  return static_cast<double>(n.load()) * (m.gaussian() ? 4 : 1);
}

}  // namespace netpoly::nominal
