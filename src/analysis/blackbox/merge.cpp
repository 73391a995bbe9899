// The shard files of one black-box analysis across a cluster and their
// merge into a bracket (netpoly/shards.hpp): each file read strictly, the
// shards checked against each other and, given the model, against the layout
// recomputed from it, then the blocks' ranks and caps summed.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "netpoly/error.hpp"
#include "netpoly/model.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/request.hpp"
#include "netpoly/shards.hpp"
#include "netpoly/version.hpp"
#include "runtime/io.hpp"
#include "runtime/json_check.hpp"
#include "runtime/sha256.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly {

using json = nlohmann::json;

namespace {

constexpr const char* kShardFormat = "netpoly-seprank-shard/1";

const MethodRun* blackbox_run(const SepResult& r, const char* key) {
  for (auto it = r.runs.rbegin(); it != r.runs.rend(); ++it)
    if (it->method == Method::blackbox && it->details.contains(key)) return &*it;
  return nullptr;
}

json pair_json(const SepResult& r) {
  json j = to_json(r);
  return {{"output", j["output"]}, {"partition", j["partition"]}, {"generic", r.generic}};
}

}  // namespace

json plan_document(const Model& m, const std::vector<SepResult>& rs) {
  json plans = json::array();
  for (const auto& r : rs) {
    const MethodRun* run = blackbox_run(r, "plan");
    if (!run) throw InternalError("seprank --plan: the black-box gave no plan");
    json p = pair_json(r);
    p["plan"] = run->details["plan"];
    plans.push_back(p);
  }
  return {{"model", m.name}, {"plans", plans}};
}

json shard_document(const Model& m, const SepResult& r) {
  const MethodRun* run = blackbox_run(r, "shard");
  if (!run) return nullptr;
  json d = {{"format", kShardFormat}, {"build", netpoly_build()},
            {"model", {{"name", m.name}, {"sha256", sha256_hex(write_model(m))}}}};
  d.update(pair_json(r));
  d.update(run->details["shard"]);
  d["lower"] = run->value ? json(*run->value) : json(nullptr);
  d["seconds"] = run->seconds;
  return d;
}

namespace {

// One shard file, read strictly; the fields every shard of one analysis shares.
struct Shard {
  std::string path;
  json doc;
  json same;  // build, model, output, partition, generic, prime, seed, max_points, upper, layout
};

// The fields every shard of one analysis shares (read_shard fills `same`
// with them, the share count from share.count).
const std::vector<std::string> kShared = {"build", "model", "output",      "partition", "generic",    "prime",
                                          "seed",  "max_points", "upper", "classes_mod", "layout", "share_count"};

Shard read_shard(const std::string& path) {
  Shard s{path, {}, {}};
  const std::string text = read_text_file(path, "a shard");
  const JsonCheck in(path);
  s.doc = in.parse(text);
  const json& d = s.doc;
  if (!d.is_object()) in.fail("", "expected a shard (a JSON object), got " + JsonCheck::kind(d));
  if (in.text(in.at(d, "", "format"), "format") != kShardFormat)
    in.fail("format", std::string("expected \"") + kShardFormat + "\"");
  (void)in.text(in.at(d, "", "build"), "build");
  (void)in.text(in.at(in.at(d, "", "model"), "model", "name"), "model.name", 1 << 16);
  (void)in.text(in.at(in.at(d, "", "model"), "model", "sha256"), "model.sha256", 64);
  (void)in.count(in.at(in.at(d, "", "output"), "output", "token"), "output.token", 0, 1 << 30);
  (void)in.count(in.at(in.at(d, "", "output"), "output", "channel"), "output.channel", 0, 1 << 30);
  for (const char* side : {"A", "B"})
    (void)in.texts(in.at(in.at(d, "", "partition"), "partition", side), std::string("partition.") + side, 1 << 20, 64);
  (void)in.boolean(in.at(d, "", "generic"), "generic");
  // A rank mod a composite is no lower bound of anything: the prime is checked, not trusted.
  if (const auto q = in.count(in.at(d, "", "prime"), "prime", 3, 1ULL << 23); !n_is_prime(q))
    in.fail("prime", std::to_string(q) + " is not a prime");
  (void)in.count(in.at(d, "", "seed"), "seed", 0, UINT64_MAX);
  (void)in.count(in.at(d, "", "max_points"), "max_points", 1, 1 << 20);
  const json& up = in.at(d, "", "upper");
  if (!up.is_null()) {
    (void)in.count(in.at(up, "upper", "value"), "upper.value", 0, UINT64_MAX);
    (void)in.text(in.at(up, "upper", "method"), "upper.method", 64);
  }
  const json& layout = in.at(d, "", "layout");
  if (!layout.is_array() || layout.empty() || layout.size() > (1 << 20))
    in.fail("layout", "expected a list of blocks, got " + JsonCheck::kind(layout));
  for (std::size_t k = 0; k < layout.size(); ++k) {
    const std::string p = JsonCheck::idx("layout", k);
    if (const json& ad = in.at(layout[k], p, "A_degrees"); !(ad.is_array() && ad.empty()))  // the whole matrix: none
      (void)in.counts(ad, p + ".A_degrees", 0, 1 << 20, 1 << 20);
    (void)in.count(in.at(layout[k], p, "cap"), p + ".cap", 0, UINT64_MAX);
    (void)in.counts(in.at(layout[k], p, "blocks"), p + ".blocks", 0, 1 << 20, 1 << 20);
  }
  (void)in.count(in.at(d, "", "classes_mod"), "classes_mod", 0, 120);
  const json& blocks = in.at(d, "", "blocks");
  if (!blocks.is_array()) in.fail("blocks", "expected a list, got " + JsonCheck::kind(blocks));
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const std::string p = JsonCheck::idx("blocks", k);
    const json& b = blocks[k];
    const auto index = in.count(in.at(b, p, "index"), p + ".index", 0, layout.size() - 1);
    const auto cap = in.count(in.at(b, p, "cap"), p + ".cap", 0, UINT64_MAX);
    const auto points = in.count(in.at(b, p, "points"), p + ".points", 0, 1 << 20);
    if (points > d["max_points"].get<std::uint64_t>())
      in.fail(p + ".points", std::to_string(points) + " points, beyond the shard's max_points " + d["max_points"].dump());
    const auto rank = in.count(in.at(b, p, "rank"), p + ".rank", 0, std::min(points, cap));
    const bool reached = in.boolean(in.at(b, p, "reached_cap"), p + ".reached_cap");
    if (cap != layout[index]["cap"].get<std::uint64_t>() || in.at(b, p, "A_degrees") != layout[index]["A_degrees"])
      in.fail(p, "block " + std::to_string(index) + "'s A-degrees or cap differ from layout[" + std::to_string(index) + "]");
    if (reached != (rank == cap))
      in.fail(p + ".reached_cap", std::string(reached ? "true" : "false") + ", but the rank is " + std::to_string(rank) +
                                      " and the cap " + std::to_string(cap));
  }
  const json& share = in.at(d, "", "share");
  const auto count = in.count(in.at(share, "share", "count"), "share.count", 1, 1 << 20);
  {  // --blocks I/N refuses more shares than blocks: a larger count is no run's (checked before any work)
    std::set<std::uint64_t> comps;
    for (const auto& u : layout)
      for (const auto& b : u["blocks"]) comps.insert(b.get<std::uint64_t>());
    if (count > comps.size())
      in.fail("share.count", std::to_string(count) + " shares of " + std::to_string(comps.size()) +
                                 " block(s): --blocks refuses more shares than blocks, so no run wrote this shard");
  }
  (void)in.count(in.at(share, "share", "index"), "share.index", 1, count);
  (void)in.boolean(in.at(d, "", "running"), "running");
  for (const auto& k : kShared) s.same[k] = k == "share_count" ? json(count) : d.at(k);
  return s;
}

// seprank MODEL --merge SHARD...: the layout the shards state (the units'
// A-degrees, caps and components, the classes mod m, the best certified
// upper bound, the small prime) recomputed from the model, as `--plan` lays
// it out with the shards' seed, --max-points and share count, and compared.
// The model must be the shards' (its sha256). What this cannot recompute
// without the work itself are the ranks: each stays a claim of its shard,
// bounded by its recomputed cap and its points.
std::string methods_text(const std::vector<Method>& ms) {
  std::string t;
  for (Method x : ms) t += (t.empty() ? "" : ",") + std::string(method_name(x));
  return t;
}

std::string check_against_model(const ShardModel& o, const std::vector<Shard>& shards, const MergeCaller& caller) {
  const Shard& first = shards[0];
  const json& d = first.doc;
  const JsonCheck in(first.path);
  const Model& m = *o.model;
  const std::string sha = sha256_hex(write_model(m));
  if (sha != d["model"]["sha256"].get<std::string>())
    in.fail("model.sha256", clip(d["model"]["sha256"].get<std::string>(), 64) + ", but " + o.label + " has " + sha +
                                ": the shards are of another model (or of another version of it)");
  if (d["model"]["name"].get<std::string>() != m.name)
    in.fail("model.name", "is '" + printable(clip(d["model"]["name"].get<std::string>(), 80)) + "', but " + o.label +
                              " is '" + printable(m.name) + "'");
  if (d["build"].get<std::string>() != netpoly_build())
    in.fail("build", "is " + printable(clip(d["build"].get<std::string>(), 80)) + ", not this netpoly's " +
                         netpoly_build() + ": recomputing the layout takes the build that made the shards");
  SepOptions sep = o.options;
  // The shards' own flags may be given again (scripts/slurm-sep passes the
  // same flags to the tasks and the merge), with the shards' values.
  auto given = [&](const char* name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  auto same = [&](const char* name, bool ok, const json& stated) {
    if (given(name) && !ok)
      throw InputError(caller.who + ": " + option_spelling(*find_option(name), caller.spelling) +
                       " differs from the shards' (" + clip(stated.dump(), 40) + ")");
  };
  if (sep.plan || sep.share_count)
    throw InputError(caller.who + ": " + option_spelling(*find_option("plan"), caller.spelling) + " and " +
                     option_spelling(*find_option("blocks"), caller.spelling) +
                     " are for the tasks; the merge takes the shards");
  if (!sep.methods.empty() && std::find(sep.methods.begin(), sep.methods.end(), Method::blackbox) == sep.methods.end())
    throw InputError(caller.who + ": " + option_spelling(*find_option("methods"), caller.spelling) + " " +
                     methods_text(sep.methods) +
                     ": the shards are the black-box's blocks, laid out after the methods they were run with; give "
                     "those --methods (with blackbox), or none");
  same("seed", sep.blackbox_seed == d["seed"].get<std::uint64_t>(), d["seed"]);
  same("max_points", sep.max_points == d["max_points"].get<std::size_t>(), d["max_points"]);
  same("generic", sep.generic == d["generic"].get<bool>(), d["generic"]);
  sep.plan = true;
  sep.blackbox_seed = d["seed"].get<std::uint64_t>();
  sep.max_points = d["max_points"].get<std::size_t>();
  sep.generic = d["generic"].get<bool>();
  sep.share_count = d["share"]["count"].get<std::size_t>();
  sep.share_index = 1;
  const Entry e{d["output"]["token"].get<std::size_t>(), d["output"]["channel"].get<std::size_t>()};
  if (e.token >= m.tokens || e.channel >= m.output_width())
    in.fail("output", e.name() + " is not an output of " + o.label);
  std::string spec = "A=";
  for (const auto& a : d["partition"]["A"]) spec += (spec.size() > 2 ? "," : "") + a.get<std::string>();
  std::optional<Partition> P;
  try {
    P = parse_partition(spec, m.tokens, m.width);
  } catch (const InputError& x) {
    in.fail("partition.A", std::string(x.what()) + " (against " + o.label + ")");
  }
  if (json(P->b_names()) != d["partition"]["B"]) in.fail("partition.B", "is not the complement of partition.A in " + o.label);
  if (o.output && *o.output != e)
    throw InputError(caller.who + ": the output given (" + o.output->name() + ") differs from the shards' (" + e.name() + ")");
  if (!o.partitions.empty()) {
    const auto given_parts = request_partitions(m, o.partitions);
    if (given_parts.size() != 1 || given_parts[0].label() != P->label())
      throw InputError(caller.who + ": the partition given differs from the shards' (" + printable(P->label()) + ")");
  }
  const auto rs = analyse_network(m, {e}, {*P}, sep);
  const MethodRun* run = rs.empty() ? nullptr : blackbox_run(rs[0], "plan");
  if (!run) throw InputError(caller.who + ": " + o.label + ": the black-box lays out no blocks for this pair");
  const json& plan = run->details["plan"];
  // The partition as the analysis writes it (the names in order, how it splits).
  if (const json again = pair_json(rs[0])["partition"]; again != d["partition"])
    in.fail("partition", "states " + clip(d["partition"].dump(), 80) + ", but " + o.label + " gives " +
                             clip(again.dump(), 80));
  auto differ = [&](const std::string& field, const json& stated, const json& again) {
    in.fail(field, "states " + clip(stated.dump(), 80) + ", but " + o.label + " gives " + clip(again.dump(), 80) +
                       ": the shard's layout is not the model's (forged, or other options: give the model the "
                       "options the shards were run with; a method a task skipped under a small --budget changes "
                       "it too)");
  };
  if (plan["prime"] != d["prime"]) differ("prime", d["prime"], plan["prime"]);
  if (plan["upper"] != d["upper"]) differ("upper", d["upper"], plan["upper"]);
  if (plan["classes_mod"] != d["classes_mod"]) differ("classes_mod", d["classes_mod"], plan["classes_mod"]);
  const json& units = plan["units"];
  const json& layout = d["layout"];
  if (units.size() != layout.size()) differ("layout", json(layout.size()), json(units.size()));
  for (std::size_t u = 0; u < units.size(); ++u)
    for (const char* k : {"A_degrees", "cap", "blocks"})
      if (units[u][k] != layout[u][k]) differ(JsonCheck::idx("layout", u) + "." + k, layout[u][k], units[u][k]);
  // Each shard holds exactly its share's units (share_blocks: the plan's shares).
  for (const Shard& sh : shards) {
    const std::size_t i = sh.doc["share"]["index"].get<std::size_t>();
    json held = json::array();
    for (const auto& b : sh.doc["blocks"]) held.push_back(b["index"]);
    std::sort(held.begin(), held.end());
    json want = json::array();  // a share the plan does not list has no unit
    for (const auto& s : plan["shares"])
      if (s["index"].get<std::size_t>() == i) want = s["units"];
    if (held != want)
      JsonCheck(sh.path).fail("blocks", "holds units " + clip(held.dump(), 60) + ", but share " + std::to_string(i) + "/" +
                                            std::to_string(plan["share_count"].get<std::size_t>()) + " of " + o.label +
                                            " is units " + clip(want.dump(), 60));
  }
  return "layout, caps, upper bound and prime recomputed from " + printable(o.label) + " (sha256 " + sha.substr(0, 12) +
         "); the ranks are the shards'";
}

}  // namespace

MergedShards merge_shards(const std::vector<std::string>& paths, const ShardModel* with_model, const MergeCaller& caller) {
  if (paths.empty()) throw InputError(caller.who + ": no shard files given");
  std::vector<Shard> shards;
  for (const auto& path : paths) shards.push_back(read_shard(path));
  const Shard& first = shards[0];
  std::map<std::uint64_t, std::string> owner;  // block index -> the file that has it
  for (const Shard& s : shards) {
    const JsonCheck in(s.path);
    for (const auto& k : kShared)
      if (s.same[k] != first.same[k])
        in.fail(k, "differs from " + first.path + " (" + clip(s.same[k].dump(), 80) + " against " +
                       clip(first.same[k].dump(), 80) + "): shards of another " +
                       (k == "layout" ? std::string("block layout (other methods or --max-points)") : k) +
                       " cannot be merged");
    for (std::size_t k = 0; k < s.doc["blocks"].size(); ++k) {
      const auto index = s.doc["blocks"][k]["index"].get<std::uint64_t>();
      auto [it, fresh] = owner.emplace(index, s.path);
      if (!fresh)
        in.fail(JsonCheck::idx("blocks", k) + ".index",
                "block " + std::to_string(index) + " is also in " + it->second + ": a block may be merged once");
    }
  }
  const std::string recomputed = with_model && with_model->model ? check_against_model(*with_model, shards, caller) : std::string();
  const json& layout = first.doc["layout"];
  std::string missing;
  std::size_t nmissing = 0;
  for (std::size_t b = 0; b < layout.size(); ++b)
    if (!owner.count(b) && ++nmissing <= 20) missing += (missing.empty() ? "" : ", ") + std::to_string(b);
  if (nmissing)
    throw InputError(caller.who + ": no shard has block(s) " + missing + (nmissing > 20 ? ", ..." : "") + " of " +
                     std::to_string(layout.size()) + " (" + std::to_string(nmissing) +
                     " missing: merge every share of the analysis)");
  std::size_t lower = 0, caps = 0, below = 0;
  bool running = false;
  json blocks = json::array();
  for (const Shard& s : shards) {
    running = running || s.doc["running"].get<bool>();
    for (const auto& b : s.doc["blocks"]) {
      lower += b["rank"].get<std::size_t>();
      below += !b["reached_cap"].get<bool>();
      blocks.push_back(b);
    }
  }
  for (const auto& c : layout) {  // a sum past 2^64 is no bound
    const std::size_t cap = c["cap"].get<std::size_t>();
    if (cap > std::numeric_limits<std::size_t>::max() - caps)
      throw InputError(caller.who + ": " + first.path + ": the blocks' caps sum past 2^64: not a layout of any model");
    caps += cap;
  }
  std::sort(blocks.begin(), blocks.end(), [](const json& x, const json& y) { return x["index"] < y["index"]; });
  Bracket br;
  br.lower = {lower, "blackbox"};
  br.upper = {caps, "the sum of the blocks' caps"};
  const json& up = first.doc["upper"];
  if (!up.is_null() && up["value"].get<std::size_t>() <= caps)
    br.upper = {up["value"].get<std::size_t>(), up["method"].get<std::string>()};
  if (lower > *br.upper.value)
    throw InputError(caller.who + ": the blocks' ranks sum to " + std::to_string(lower) +
                     ", above the certified upper bound " + std::to_string(*br.upper.value) + ": the shards are not of one analysis");
  br.status = lower == *br.upper.value ? BracketStatus::exact : BracketStatus::bracket;
  const std::string q = std::to_string(first.doc["prime"].get<std::uint64_t>());
  const bool certified = !recomputed.empty();  // without the model the layout is the shards' word
  const std::string how =
      below == 0 ? "every one of the " + std::to_string(layout.size()) + " blocks reached " +
                       (certified ? "its certified cap" : "the cap its shard states") +
                       " (ranks mod the small prime " + q + ")"
                 : std::string(certified ? "certified lower bound" : "the shards' lower bound") +
                       " (the blocks' ranks mod the small prime " + q + "; " + std::to_string(below) + " of " +
                       std::to_string(layout.size()) + " blocks below their caps" +
                       (running ? ", some shard was stopped before it finished" : "") + ")";
  const std::string checked =
      recomputed.empty() ? "layout and caps as the shards state them (give the model to recompute them)" : recomputed;
  json merged = json::array();
  for (const auto& path : paths) merged.push_back(printable(path));  // valid UTF-8, as every string of --json
  json out = {{"merged", merged}, {"checked", checked}, {"build", first.doc["build"]}, {"model", first.doc["model"]},
              {"output", first.doc["output"]}, {"partition", first.doc["partition"]}, {"generic", first.doc["generic"]},
              {"prime", first.doc["prime"]}, {"seed", first.doc["seed"]}, {"how", how}, {"blocks", blocks}};
  br.write_ends_json(out);
  // Without the model nothing of the layout was recomputed: the bracket is
  // the shards' statement, never `exact` (forged caps would make any sum one).
  const std::string label = certified ? status_name(br.status) : "stated by the shards, not certified by this run";
  if (!certified) out["status"] = "stated";
  out["certified"] = certified;
  MergedShards res;
  res.bracket = br;
  res.certified = certified;
  res.lower = lower;
  res.blocks = layout.size();
  res.how = how;
  res.checked = checked;
  res.label = label;
  res.document = std::move(out);
  return res;
}

}  // namespace netpoly
