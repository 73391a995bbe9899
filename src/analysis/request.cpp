// The pairs of a separation-rank request (request.hpp).
#include "netpoly/request.hpp"

#include "netpoly/error.hpp"

namespace netpoly {

std::vector<Partition> request_partitions(const Model& m, const std::vector<std::string>& specs) {
  std::vector<Partition> parts;
  for (const auto& p : specs) {
    if (p == "all-balanced")
      for (auto& q : all_balanced(m.tokens, m.width)) parts.push_back(std::move(q));
    else
      parts.push_back(parse_partition(p, m.tokens, m.width));
  }
  std::vector<Partition> unique;
  for (auto& P : parts) {
    bool seen = false;
    for (const auto& Q : unique) {
      bool same = true, complement = true;
      for (std::size_t v = 0; v < P.in_A.size(); ++v) {
        same = same && (P.in_A[v] != 0) == (Q.in_A[v] != 0);
        complement = complement && (P.in_A[v] != 0) != (Q.in_A[v] != 0);
      }
      seen = seen || same || complement;
    }
    if (!seen) unique.push_back(std::move(P));
  }
  if (unique.empty()) unique.push_back(parse_partition("half", m.tokens, m.width));
  return unique;
}

void check_pairs(std::size_t outputs, std::size_t partitions, const SepOptions& o, Spelling s) {
  const double pairs = static_cast<double>(outputs) * static_cast<double>(partitions);
  if (pairs > o.max_pairs) {
    const std::string flag = option_spelling(*find_option("max_pairs"), s);
    throw LimitError(std::to_string(outputs) + " output entries x " + std::to_string(partitions) +
                     " partitions = " + std::to_string(static_cast<long long>(pairs)) +
                     " (output, partition) pairs to analyse, more than " + flag + " " +
                     std::to_string(static_cast<long long>(o.max_pairs)) + "; name one output entry, or raise " +
                     flag);
  }
}

}  // namespace netpoly
