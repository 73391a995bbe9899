// A separation-rank request as every front end makes it (the CLI's
// `seprank`, Python's `Network.seprank`): the (output, partition) pairs,
// checked and de-duplicated once, here.
#pragma once
#include <string>
#include <vector>

#include "netpoly/options.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly {

// Partitions from their specs (half | interleaved | A=0,2 | A=x0_1,... |
// all-balanced), each unordered pair {A, B} once, in the order given
// (sep(y; A, B) = sep(y; B, A)); `half` when none is given.
std::vector<Partition> request_partitions(const Model& m, const std::vector<std::string>& specs);

// Refuses, before any work, more (output, partition) pairs than o.max_pairs
// (LimitError naming the option as `s` spells it).
void check_pairs(std::size_t outputs, std::size_t partitions, const SepOptions& o, Spelling s);

}  // namespace netpoly
