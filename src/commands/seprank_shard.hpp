// seprank's --plan, --blocks and --merge (seprank_shard.cpp; the format is
// in docs/guide/slurm.md, "One analysis across a cluster").
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "commands/commands.hpp"

namespace netpoly::cli {

// The plans of an analysis run with --plan: {"model", "plans": [{output, partition, generic, plan}]}.
nlohmann::json plan_document(const Model& m, const std::vector<SepResult>& rs);
void print_plan(std::ostream& os, const nlohmann::json& doc);
// The shard file of a result run with --blocks (null when it has no shard yet):
// format, build, model (name, sha256 of its canonical JSON), the pair, and
// the black-box's shard (prime, seed, layout, blocks, ...).
nlohmann::json shard_document(const Model& m, const SepResult& r);
// seprank --merge SHARD...: the bracket of the shards, or InputError naming
// the file and the JSON path that does not fit.
void run_seprank_merge(const SeprankOptions& o);

}  // namespace netpoly::cli
