// A separation-rank request as every front end makes it (the CLI's
// `seprank`, Python's `Network.seprank` and `netpoly.seprank`, a claim's
// re-check of a counterexample): the outputs and partitions asked for, made
// into the (output, partition) pairs, checked and de-duplicated once, here.
// The analysis options come with it as SepOptions: each front end converts
// its own values through the one option table (netpoly/options.hpp).
#pragma once
#include <string>
#include <utility>
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

struct SepRequest {
  std::vector<Entry> outputs;           // none: the model's output (every one with all_outputs)
  bool all_outputs = false;
  std::vector<std::string> partitions;  // specs, "all-balanced" among them; none: half
};

struct SepPairs {
  std::vector<Entry> outputs;
  std::vector<Partition> partitions;
};

// The one assembly of a request: the outputs resolved (each in range), the
// partitions de-duplicated, the methods checked for the model, more pairs
// than max_pairs refused, and a shard (--blocks) held to one pair. Errors
// name the options as `s` spells them.
SepPairs request_pairs(const Model& m, const SepRequest& r, const SepOptions& o, Spelling s);

// The `netpoly seprank MODEL` flags that make this request with these
// options given, (name, text) by the option table's names: a claim's
// re-check prints the command that repeats it ("--partition A=0 --budget 60").
std::string request_flags(const SepRequest& r, const std::vector<std::pair<std::string, std::string>>& given);

}  // namespace netpoly
