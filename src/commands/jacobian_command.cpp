// netpoly jacobian MODEL: the dimension of the model's function family
// (netpoly/jacobian.hpp), bracketed: certified [rank, upper], = rank with
// the probability printed. docs/guide/seprank.md, *Function-space dimension*.
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/io.hpp"
#include "netpoly/jacobian.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::cli {

void run_jacobian(const JacobianOptions& o) {
  const Model m = read_model(o.model);
  if (o.all && !o.output.empty()) throw InputError("--all and --output: give one of them");
  std::optional<Entry> out;
  if (!o.output.empty()) out = parse_entry(o.output, "--output");
  const std::vector<Entry> outs = resolve_outputs(m, out, o.all);
  const std::uint64_t seed = o.seed.empty() ? 0 : parse_u64(o.seed, "--seed", 1);
  const JacobianResult r = jacobian_rank(m, outs, seed);
  const bool exact = r.rank >= r.upper;
  std::string entries;
  for (const auto& e : r.outputs)
    entries += (entries.empty() ? "" : ", ") + std::string("y") + std::to_string(e.token) + "_" + std::to_string(e.channel);
  const std::string how = exact ? "exact (the rank meets the upper end)"
                                : "certified >= " + std::to_string(r.rank) + ", <= " + std::to_string(r.upper) +
                                      "; = " + std::to_string(r.rank) + " with probability >= 1 - " +
                                      [&] {
                                        char b[32];
                                        std::snprintf(b, sizeof b, "%.3g", r.failure_probability);
                                        return std::string(b);
                                      }() +
                                      " (over the prime, the weights and the points)";
  if (o.json) {
    nlohmann::json j = {{"format", "netpoly-jacobian/1"},
                        {"model", m.name},
                        {"outputs", entries},
                        {"dimension_lower", r.rank},
                        {"dimension_upper", r.upper},
                        {"status", exact ? "exact" : "probabilistic"},
                        {"failure_probability", exact ? 0.0 : r.failure_probability},
                        {"weights", r.weights},
                        {"points", r.points},
                        {"prime", r.prime},
                        {"seed", r.seed}};
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "netpoly jacobian: " << (m.name.empty() ? std::string("the model") : printable(m.name))
            << ": the dimension of its function family (" << entries << ", as the " << r.weights
            << " weights vary)\n";
  std::cout << "dimension  " << r.rank << "  " << how << "\n";
  std::cout << "(the rank of d(" << entries << ")/d(weights) at " << r.points
            << " points, weights and points drawn at random mod p = " << r.prime
            << ", a prime drawn at random from [2^49, 2^50) with seed " << r.seed << ")\n";
}

}  // namespace netpoly::cli
