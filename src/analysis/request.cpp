// The pairs of a separation-rank request (request.hpp).
#include "netpoly/request.hpp"

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"

namespace netpoly {

std::vector<Partition> request_partitions(const Model& m, const std::vector<std::string>& specs) {
  std::vector<Partition> parts;
  for (const auto& p : specs) {
    if (p == "all-balanced")
      for (auto& q : all_balanced(m.tokens, m.width)) parts.push_back(std::move(q));
    else if (p == "all-balanced-entries")
      for (auto& q : all_balanced_entries(m.tokens, m.width)) parts.push_back(std::move(q));
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

SepPairs request_pairs(const Model& m, const SepRequest& r, const SepOptions& o, Spelling s) {
  SepPairs p;
  if (r.outputs.size() <= 1) {
    p.outputs = resolve_outputs(m, r.outputs.empty() ? std::nullopt : std::optional<Entry>(r.outputs[0]), r.all_outputs);
  } else {
    if (r.all_outputs) throw InputError(std::string(s == Spelling::cli ? "--all" : "outputs='all'") + " and a list of outputs: give one of them");
    for (const Entry& e : r.outputs) p.outputs.push_back(resolve_outputs(m, e, false).at(0));
  }
  p.partitions = request_partitions(m, r.partitions);
  check_methods_for(m, o);
  // Every entry of a wide model by default: refused up front beyond max_pairs.
  check_pairs(p.outputs.size(), p.partitions.size(), o, s);
  if (o.share_count && p.outputs.size() * p.partitions.size() != 1)
    throw InputError(option_spelling(*find_option("blocks"), s) +
                     ": a shard is of one output and one partition (give one output and one partition)");
  return p;
}

std::string request_flags(const SepRequest& r, const std::vector<std::pair<std::string, std::string>>& given) {
  std::string s;
  auto add = [&](const std::string& flag) { s += (s.empty() ? "" : " ") + flag; };
  if (r.outputs.size() == 1) add("--output " + std::to_string(r.outputs[0].token) + "," + std::to_string(r.outputs[0].channel));
  if (r.all_outputs) add("--all");
  for (const auto& p : r.partitions) add(p == "all-balanced" || p == "all-balanced-entries" ? "--" + p : "--partition " + p);
  for (const auto& [name, text] : given) {
    const OptionSpec* spec = find_option(name);
    if (!spec) throw InternalError("seprank: a flag of no option: " + name);
    const std::string flag = option_spelling(*spec, Spelling::cli);  // a flag: --NAME, or --no-NAME to turn it off
    add(spec->type != OptionType::flag ? flag + " " + text : text == "false" ? "--no-" + flag.substr(2) : flag);
  }
  return s;
}

}  // namespace netpoly
