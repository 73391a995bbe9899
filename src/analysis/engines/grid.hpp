// LV Claim 1's grid matrix [y(a_i, b_j)] over templates (grid and numeric).
#pragma once
#include <chrono>
#include <stdexcept>
#include <vector>

#include "analysis/methods/method.hpp"
#include "model/forward.hpp"
#include "model/gauss.hpp"

namespace netpoly::methods {

struct Grid {
  std::vector<std::vector<Fmpq>> rows, cols;  // values of the A-variables / B-variables
  std::vector<std::size_t> va, vb;
  std::string kind;
};

// Templates per token for a split of tokens (--templates M, or the largest M
// with M^side <= 256, or --templates-file), random small points per side for
// a split of variables. Throws InputError for a grid beyond 1024 per side.
Grid make_grid(const Model& m, const Partition& P, const SepOptions& o);

// A grid method's work would pass what is left of --budget.
struct OverBudget : LimitError {
  using LimitError::LimitError;
};

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_after(double seconds);

// A rational input value as an element of the ring (real in a complex one).
template <class Ring>
typename Ring::Elem input_value(const Ring& R, const Fmpq& q) {
  if constexpr (is_gauss_ring<Ring>()) return {R.base.scalar(q), R.base.zero()};
  else return R.scalar(q);
}

// Evaluates the grid matrix in a ring whose Elem is its Scalar (Q, Z/p,
// doubles, or Q(i) as pairs): its first `count` entries in row order (all by default). Past
// `deadline` it throws OverBudget between two evaluations, so a method stops
// in time.
template <class Ring>
std::vector<typename Ring::Elem> eval_grid(const Ring& R, const Model& m, const Entry& e, const Grid& G,
                                           Clock::time_point deadline = Clock::time_point::max(),
                                           std::size_t count = SIZE_MAX) {
  auto net = prepare(R, m);
  const Need need = single_need(m, e);
  const std::size_t out = e.token * m.output_width() + e.channel;
  std::vector<typename Ring::Elem> X(m.num_inputs(), R.zero()), E;
  E.reserve(std::min(count, G.rows.size() * G.cols.size()));
  for (const auto& a : G.rows)
    for (const auto& b : G.cols) {
      if (E.size() >= count) return E;
      if (Clock::now() > deadline) throw OverBudget("the grid's evaluations");
      for (std::size_t t = 0; t < G.va.size(); ++t) X[G.va[t]] = input_value(R, a[t]);
      for (std::size_t t = 0; t < G.vb.size(); ++t) X[G.vb[t]] = input_value(R, b[t]);
      E.push_back(forward(R, net, X, need)[out]);
    }
  return E;
}

// Seconds for all the grid's evaluations in a ring, from timing one.
template <class Ring>
double grid_eval_seconds(const Ring& R, const Model& m, const Entry& e, const Grid& G) {
  const auto t0 = Clock::now();
  (void)eval_grid(R, m, e, G, Clock::time_point::max(), 1);
  return seconds_since(t0) * static_cast<double>(G.rows.size()) * static_cast<double>(G.cols.size());
}

}  // namespace netpoly::methods
