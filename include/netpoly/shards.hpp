// One black-box analysis across a cluster (docs/guide/slurm.md, "One
// analysis across a cluster"): the shard file one share writes (`seprank
// --blocks I/N`), and the merge of every share's file into a bracket. The
// merge is certification maths: it checks each file strictly, sums the
// blocks' ranks (a certified lower bound) and their caps (an upper bound),
// and, given the model, recomputes the layout the shards state, so that the
// bracket is certified; without the model it is the shards' statement only.
// The CLI (`seprank --merge`) prints it; Python calls it (`netpoly.merge`).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netpoly/bracket.hpp"
#include "netpoly/model.hpp"
#include "netpoly/options.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly {

// The plans of an analysis run with --plan: {"model", "plans": [{output,
// partition, generic, plan}]}, the black-box's blocks, their costs and shares.
nlohmann::json plan_document(const Model& m, const std::vector<SepResult>& rs);

// The shard file of a result run with --blocks (null when it has no shard
// yet): format, build, model (name, sha256 of its canonical JSON), the pair,
// and the black-box's shard (prime, seed, layout, blocks, ...).
nlohmann::json shard_document(const Model& m, const SepResult& r);

// What recomputes the shards' layout: the model and the options the shards
// were run with. An option named in `given` (the option table's names) must
// have the shards' value; the others take it from the shards.
struct ShardModel {
  const Model* model = nullptr;
  std::string label;               // the model's file (or name), for messages
  SepOptions options;              // the analysis options given with it
  std::vector<std::string> given;  // which of them were given
  std::optional<Entry> output;     // given: must be the shards' output
  std::vector<std::string> partitions;  // given (request_partitions' specs): must be the shards' partition
};

// Who asks, for the messages: "seprank --merge" and --flags, or
// "netpoly.merge" and keyword arguments.
struct MergeCaller {
  std::string who = "merge";
  Spelling spelling = Spelling::cli;
};

struct MergedShards {
  Bracket bracket;          // lower: the blocks' ranks; upper: the best certified upper bound, or the caps' sum
  bool certified = false;   // the layout was recomputed from the model
  std::size_t lower = 0;    // the sum of the blocks' ranks
  std::size_t blocks = 0;   // the layout's blocks
  std::string how;          // what the lower end is
  std::string checked;      // what was recomputed (or that nothing was)
  std::string label;        // the status as printed: exact, bracket, or "stated by the shards, ..."
  nlohmann::json document;  // every field, as `seprank --merge --json` writes it
};

// Reads the shard files, checks them against each other (and against the
// model when given), and sums them. InputError names the file and JSON path
// that does not fit, or the block no shard has.
MergedShards merge_shards(const std::vector<std::string>& paths, const ShardModel* with_model = nullptr,
                          const MergeCaller& caller = {});

}  // namespace netpoly
