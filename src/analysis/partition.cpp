#include "netpoly/partition.hpp"

#include <algorithm>
#include <set>

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"

namespace netpoly {

Partition partition_from_tokens(const std::vector<std::size_t>& tokens_A, std::size_t tokens, std::size_t width) {
  Partition p;
  p.by_tokens = true;
  p.width = width;
  p.in_A.assign(tokens * width, 0);
  std::set<std::size_t> s(tokens_A.begin(), tokens_A.end());
  for (auto t : s)
    if (t >= tokens)
      throw InputError("partition: token " + std::to_string(t) + " out of range (0.." + std::to_string(tokens - 1) + ")");
  p.tokens.assign(s.begin(), s.end());
  for (auto t : p.tokens)
    for (std::size_t c = 0; c < width; ++c) p.in_A[t * width + c] = 1;
  return p;
}

Partition partition_from_vars(const std::vector<std::size_t>& vars_A, std::size_t tokens, std::size_t width) {
  Partition p;
  p.by_tokens = false;
  p.width = width;
  p.in_A.assign(tokens * width, 0);
  for (auto v : vars_A) {
    if (v >= p.in_A.size())
      throw InputError("partition: variable " + std::to_string(v) + " out of range (there are " +
                       std::to_string(p.in_A.size()) + ")");
    p.in_A[v] = 1;
  }
  return p;
}

std::size_t Partition::size_A() const { return static_cast<std::size_t>(std::count(in_A.begin(), in_A.end(), 1)); }

std::vector<std::string> Partition::a_names() const {
  std::vector<std::string> r;
  if (by_tokens) {
    for (auto t : tokens) r.push_back(std::to_string(t));
  } else {
    for (std::size_t v = 0; v < in_A.size(); ++v)
      if (in_A[v]) r.push_back(var_name(width, static_cast<slong>(v)));
  }
  return r;
}

std::vector<std::string> Partition::b_names() const {
  std::vector<std::string> r;
  if (by_tokens) {
    std::size_t N = width ? in_A.size() / width : 0;
    for (std::size_t t = 0; t < N; ++t)
      if (!std::binary_search(tokens.begin(), tokens.end(), t)) r.push_back(std::to_string(t));
  } else {
    for (std::size_t v = 0; v < in_A.size(); ++v)
      if (!in_A[v]) r.push_back(var_name(width, static_cast<slong>(v)));
  }
  return r;
}

std::string Partition::label() const {
  std::string s = "A={";
  auto names = a_names();
  for (std::size_t k = 0; k < names.size(); ++k) s += (k ? "," : "") + names[k];
  return s + "}";
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::size_t start = 0;
  while (true) {
    auto k = s.find(sep, start);
    r.push_back(s.substr(start, k == std::string::npos ? std::string::npos : k - start));
    if (k == std::string::npos) break;
    start = k + 1;
  }
  return r;
}

bool parse_index(const std::string& s, std::size_t& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  out = std::stoul(s);
  return true;
}

}  // namespace

Partition parse_partition(const std::string& spec, std::size_t tokens, std::size_t width) {
  const std::string where = "--partition \"" + spec + "\"";
  const bool channels = tokens == 1;
  const std::size_t n = channels ? width : tokens;
  auto make = [&](const std::vector<std::size_t>& items) {
    if (!channels) return partition_from_tokens(items, tokens, width);
    return partition_from_vars(items, tokens, width);
  };
  auto check_proper = [&](const Partition& p) {
    std::size_t a = p.size_A();
    if (a == 0 || a == p.in_A.size())
      throw InputError(where + ": both sides must be non-empty (A has " + std::to_string(a) + " of " +
                       std::to_string(p.in_A.size()) + " variables)");
    return p;
  };
  if (spec == "half" || spec == "interleaved") {
    if (n < 2)
      throw InputError(where + ": needs at least 2 " + (channels ? "channels" : "tokens"));
    std::vector<std::size_t> items;
    for (std::size_t k = 0; k < n; ++k)
      if (spec == "half" ? k < n / 2 : k % 2 == 0) items.push_back(k);
    return check_proper(make(items));
  }
  if (spec.rfind("A=", 0) != 0)
    throw InputError(where + ": expected half, interleaved, A=TOKENS (e.g. A=0,2) or A=VARIABLES (e.g. A=x0_1,x1_0)");
  auto items = split(spec.substr(2), ',');
  bool vars = !items.empty() && !items[0].empty() && items[0][0] == 'x';
  std::vector<std::size_t> idx;
  std::set<std::size_t> seen;
  for (const auto& it : items) {
    std::size_t v = 0;
    if (vars) {
      auto us = it.find('_');
      std::size_t i = 0, c = 0;
      if (it.size() < 4 || it[0] != 'x' || us == std::string::npos || !parse_index(it.substr(1, us - 1), i) ||
          !parse_index(it.substr(us + 1), c))
        throw InputError(where + ": \"" + it + "\" is not a variable name x{token}_{channel}");
      if (i >= tokens || c >= width)
        throw InputError(where + ": variable " + it + " out of range (tokens 0.." + std::to_string(tokens - 1) +
                         ", channels 0.." + std::to_string(width - 1) + ")");
      v = i * width + c;
    } else {
      if (!parse_index(it, v))
        throw InputError(where + ": \"" + it + "\" is not a " + (channels ? "channel" : "token") + " index");
      if (v >= n)
        throw InputError(where + ": " + (channels ? "channel " : "token ") + it + " out of range (0.." +
                         std::to_string(n - 1) + ")");
    }
    if (!seen.insert(v).second) throw InputError(where + ": \"" + it + "\" listed twice");
    idx.push_back(v);
  }
  if (vars) return check_proper(partition_from_vars(idx, tokens, width));
  return check_proper(make(idx));
}

namespace {

// Side A's items of every balanced split of n items (|A| = floor(n/2)), each
// unordered pair once (for even n item 0 in A); `flag` names the option in
// the messages, `what` the items.
std::vector<std::vector<std::size_t>> balanced_sides(std::size_t n, const std::string& flag, const std::string& what) {
  if (n < 2) throw InputError(flag + ": needs at least 2 " + what);
  if (n > 24) throw InputError(flag + ": " + std::to_string(n) + " " + what + " give too many partitions (max 24)");
  const std::size_t k = n / 2;
  std::vector<std::vector<std::size_t>> r;
  for (unsigned long mask = 0; mask < (1ul << n); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcountl(mask)) != k) continue;
    if (n % 2 == 0 && !(mask & 1)) continue;  // each unordered pair once
    std::vector<std::size_t> items;
    for (std::size_t t = 0; t < n; ++t)
      if (mask >> t & 1) items.push_back(t);
    r.push_back(std::move(items));
  }
  return r;
}

}  // namespace

std::vector<Partition> all_balanced_entries(std::size_t tokens, std::size_t width) {
  std::vector<Partition> r;
  for (const auto& vars : balanced_sides(tokens * width, "--all-balanced-entries", "entries"))
    r.push_back(partition_from_vars(vars, tokens, width));
  return r;
}

std::vector<Partition> all_balanced(std::size_t tokens, std::size_t width) {
  const bool channels = tokens == 1;
  std::vector<Partition> r;
  for (const auto& items : balanced_sides(channels ? width : tokens, "--all-balanced", channels ? "channels" : "tokens"))
    r.push_back(channels ? partition_from_vars(items, tokens, width) : partition_from_tokens(items, tokens, width));
  return r;
}

}  // namespace netpoly
