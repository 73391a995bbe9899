// Partitions (A, B) of the input variables x{i}_{c}.
#pragma once
#include <string>
#include <vector>

#include "netpoly/model.hpp"

namespace netpoly {

struct Partition {
  std::vector<char> in_A;           // per input variable (row-major i*d + c)
  std::vector<std::size_t> tokens;  // tokens of A when the split is by tokens; empty otherwise
  bool by_tokens = true;
  std::size_t width = 0;            // channels per token (for variable names)
  std::string label() const;        // "A={0,1}" or "A={x0_0,x0_1}"
  std::vector<std::string> a_names() const;  // token indices or variable names of side A
  std::vector<std::string> b_names() const;
  std::size_t size_A() const;
  bool operator==(const Partition&) const = default;
};

// Parses half | interleaved | A=0,2 | A=x0_1,x3_0 for a network with N tokens
// and width d. For tokens == 1, half/interleaved split the channels. Throws
// InputError naming the text and what was expected.
Partition parse_partition(const std::string& spec, std::size_t tokens, std::size_t width);

// Every balanced partition of the tokens (of the channels when tokens == 1),
// each unordered pair once: |A| = floor(n/2), and for even n item 0 is in A.
std::vector<Partition> all_balanced(std::size_t tokens, std::size_t width);

// Every balanced partition of the N x d entries (NB §4.2's sup/inf-sep over
// entries, WS Open Question 3): |A| = floor(Nd/2), each unordered pair once
// (for even Nd, entry 0 in A); binom(Nd, Nd/2)/2 of them, at most 24 entries.
std::vector<Partition> all_balanced_entries(std::size_t tokens, std::size_t width);

Partition partition_from_tokens(const std::vector<std::size_t>& tokens_A, std::size_t tokens, std::size_t width);
Partition partition_from_vars(const std::vector<std::size_t>& vars_A, std::size_t tokens, std::size_t width);

}  // namespace netpoly
