// seprank's --plan, --blocks and --merge (seprank_shard.cpp; the format is
// in docs/guide/slurm.md, "One analysis across a cluster").
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "commands/commands.hpp"
#include "netpoly/shards.hpp"

namespace netpoly::cli {

// The text of a plan (plan_document, netpoly/shards.hpp).
void print_plan(std::ostream& os, const nlohmann::json& doc);
// seprank --merge SHARD...: the bracket of the shards, or InputError naming
// the file and the JSON path that does not fit (merge_shards, netpoly/shards.hpp).
void run_seprank_merge(const SeprankOptions& o);

}  // namespace netpoly::cli
