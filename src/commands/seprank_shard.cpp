// One black-box analysis across a cluster (docs/guide/slurm.md): the text of
// `seprank --plan`, the shard file of `seprank --blocks i/n`, and
// `seprank --merge SHARD...`, which checks the shards strictly and sums them
// into the bracket.
#include "seprank_shard.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "netpoly/model.hpp"
#include "netpoly/options.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/request.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/shards.hpp"
#include "netpoly/version.hpp"
#include "runtime/io.hpp"
#include "runtime/json_check.hpp"
#include "runtime/limits.hpp"
#include "runtime/sha256.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::cli {

using json = nlohmann::json;

namespace {

std::string secs_text(double s) {
  std::ostringstream t;
  t << std::setprecision(3) << s << " s";
  return t.str();
}

// A list from a model or a shard, for a terminal line (strings escaped: printable).
std::string list_text(const json& a) {
  std::string s;
  for (const auto& x : a) s += (s.empty() ? "" : ",") + (x.is_string() ? printable(x.get<std::string>()) : x.dump());
  return s.empty() ? "-" : s;
}

// Whether one block fits this node: within the memory limit in force by
// default (half the machine's or the cgroup's memory), within the machine's
// memory (with --max-memory), or only on a larger node.
std::string node_verdict(double bytes) {
  const double limit = default_memory_limit(), node = 2 * limit;
  if (bytes <= limit) return "fits this node";
  if (bytes <= 0.9 * node) return "with --max-memory " + format_bytes(bytes * 1.1);
  return "needs a " + format_bytes(bytes * 1.1) + " node";
}

// Rows of cells, each column as wide as its widest cell, two spaces between columns.
void print_columns(std::ostream& os, const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> w;
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (w.size() <= c) w.push_back(0);
      w[c] = std::max(w[c], row[c].size());
    }
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += row[c] + (c + 1 < row.size() ? std::string(w[c] - row[c].size() + 2, ' ') : "");
    os << line << "\n";
  }
}

}  // namespace

void print_plan(std::ostream& os, const json& doc) {
  for (const auto& p : doc["plans"]) {
    const json& pl = p["plan"];
    os << "netpoly seprank --plan: " << (doc["model"].get<std::string>().empty() ? "model" : printable(doc["model"].get<std::string>()))
       << ", output " << p["output"]["token"] << "," << p["output"]["channel"] << ", partition A = "
       << list_text(p["partition"]["A"]) << "\n";
    os << "black-box: " << pl["blocks"].size() << " block(s) (" << pl["split"].get<std::string>() << "), "
       << pl["passes_per_pair"] << " forward pass(es) per pair of points, ranks mod the small prime " << pl["prime"]
       << " (seed " << pl["seed"] << ")\n";
    if (!pl["upper"].is_null())
      os << "best certified upper bound " << pl["upper"]["value"] << " (" << pl["upper"]["method"].get<std::string>()
         << "); ";
    os << "the caps sum to " << static_cast<std::uint64_t>(pl["sum_of_caps"].get<double>())
       << (pl["exact_if_every_block_reaches_its_cap"].get<bool>()
               ? ": sep is exact if every block reaches its cap\n"
               : ": some cap is beyond --max-points, so those blocks cannot reach it\n");
    std::vector<std::vector<std::string>> cells{
        {"block", "A-degrees", "B-degrees", "rows x cols", "cap", "points", "memory", "one node", "time (estimated)"}};
    for (const auto& b : pl["blocks"]) {
      std::ostringstream rc;
      rc << std::setprecision(12) << b["rows"].get<double>() << " x " << b["cols"].get<double>();
      cells.push_back({b["index"].dump(), list_text(b["A_degrees"]), list_text(b["B_degrees"]), rc.str(), b["cap"].dump(),
                       b["points"].dump(), format_bytes(b["memory_bytes"].get<double>()),
                       node_verdict(b["memory_bytes"].get<double>()), secs_text(b["seconds"].get<double>())});
    }
    print_columns(os, cells);
    os << "one node: this one has " << format_bytes(2 * default_memory_limit()) << ", half of it by default (--max-memory)\n";
    os << "every block in one task: about " << secs_text(pl["seconds"].get<double>())
       << " (at the rates measured here; --json gives them, the threads and the arithmetic)\n";
    const bool classes = pl["classes_mod"].get<std::size_t>() > 0;
    if (classes) {
      os << "the shares rank classes of A-degrees mod " << pl["classes_mod"] << " (" << pl["unit_passes_per_pair"]
         << " passes per pair instead of " << pl["passes_per_pair"] << "):\n";
      for (const auto& u : pl["units"])
        os << "  class " << u["index"] << ": blocks " << list_text(u["blocks"]) << ", cap " << u["cap"] << ", "
           << u["points"] << " points, " << format_bytes(u["memory_bytes"].get<double>()) << ", "
           << secs_text(u["seconds"].get<double>()) << "\n";
    }
    const std::size_t count = pl["share_count"].get<std::size_t>();
    for (const auto& sh : pl["shares"]) {
      if (count < 2) break;
      os << "share " << sh["index"] << "/" << sh["count"] << ": " << (classes ? "classes " : "blocks ")
         << list_text(sh["units"]) << ", about " << secs_text(sh["seconds"].get<double>()) << ", peak about "
         << format_bytes(sh["memory_bytes"].get<double>()) << "\n";
    }
    if (const auto idle = pl["empty_shares"].get<std::size_t>())
      os << idle << " share(s) with nothing to compute (fewer units than shares: use --blocks I/"
         << count - idle << ")\n";
  }
}

void run_seprank_merge(const SeprankOptions& o) {
  if (o.model.empty() && (!o.partitions.empty() || !o.output.empty() || o.all || o.all_balanced || o.all_balanced_entries))
    throw InputError("seprank --merge: the shards say which output and partition were analysed; give the shard files "
                     "(with the model to recompute their layout, and --json, -o)");
  if (o.all) throw InputError("seprank --merge: --all: a shard is of one output");
  if (o.model.empty() && !o.options.empty())
    throw InputError("seprank --merge: options are for recomputing the shards' layout from the model: seprank MODEL "
                     "--merge SHARD... [the options the shards were run with]");

  std::optional<Model> model;
  ShardModel with;
  if (!o.model.empty()) {
    model = read_model(o.model);
    with.model = &*model;
    with.label = o.model;
    with.options = seprank_options(o);
    set_threads(with.options.threads);
    for (const auto& g : o.options) with.given.push_back(g.first);
    if (!o.output.empty()) with.output = parse_entry(o.output, "--output");
    with.partitions = o.partitions;
    if (o.all_balanced) with.partitions.push_back("all-balanced");
    if (o.all_balanced_entries) with.partitions.push_back("all-balanced-entries");
  }
  const MergedShards ms = merge_shards(o.merge, o.model.empty() ? nullptr : &with, {"seprank --merge", Spelling::cli});
  const json& out = ms.document;
  std::ostringstream t;
  if (o.json) {
    t << out.dump(1) << "\n";
  } else {
    const json& P = out["partition"];
    t << "netpoly seprank --merge: " << o.merge.size() << " shard(s), " << ms.blocks << " block(s) of model '"
      << printable(out["model"]["name"].get<std::string>()) << "' (sha256 " << out["model"]["sha256"].get<std::string>().substr(0, 12)
      << "), output " << out["output"]["token"] << "," << out["output"]["channel"] << ", partition A = "
      << list_text(P["A"]) << ", seed " << out["seed"] << "\n";
    t << (out["generic"].get<bool>() ? "gsep " : "sep ") << ms.bracket.compact_text() << " (" << ms.label
      << "): " << ms.how << "; lower " << ms.lower << " blackbox, upper " << *ms.bracket.upper.value << " "
      << printable(ms.bracket.upper.method) << "\n";
    t << ms.checked << "\n";
  }
  if (o.out.empty() || o.out == "-") std::cout << t.str();
  else write_output(o.out, t.str());
}

}  // namespace netpoly::cli
