// One black-box analysis across a cluster (docs/guide/slurm.md): the shards
// of --blocks i/n, merged, give the unsharded bracket for every n (the
// unsharded one from the default plan: exact methods on the expansion);
// --plan's blocks are the analysis's; and the merge refuses every shard that
// is not of the same analysis.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <unistd.h>

#include "analysis/blackbox/shards.hpp"
#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/shape.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "runtime/io.hpp"
#include "runtime/random.hpp"

using namespace netpoly;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path p;
  Dir() {
    p = fs::temp_directory_path() / ("netpoly-shard-" + std::to_string(::getpid()));
    fs::create_directories(p);
  }
  ~Dir() { fs::remove_all(p); }
  std::string file(const std::string& name) const { return (p / name).string(); }
};

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void write_json(const std::string& path, const json& j) { std::ofstream(path) << j.dump(1); }

std::string model_file(const Dir& d, const NetworkShape& s, std::uint64_t seed) {
  const std::string path = d.file("model-" + shape_label(s, LabelStyle::model_name) + ".json");
  std::ofstream(path) << write_model(make_preset(preset_options(s, seed)));
  return path;
}

// seprank MODEL --seed 7 FLAGS... --blocks i/n -o FILE
void run_share(const std::string& model, std::size_t i, std::size_t n, const std::string& out,
               std::vector<std::pair<std::string, std::string>> flags = {}) {
  forget_inputs();
  cli::SeprankOptions o;
  o.model = model;
  o.output = "0,0";
  o.options = std::move(flags);
  o.options.emplace_back("seed", "7");
  o.options.emplace_back("blocks", std::to_string(i) + "/" + std::to_string(n));
  o.out = out;
  std::ostringstream sink;
  auto* old = std::cout.rdbuf(sink.rdbuf());
  try {
    cli::run_seprank(o);
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
}

// seprank [MODEL --seed 7 FLAGS...] --merge FILES --json -o OUT, read back:
// with the model the layout is recomputed (only then `exact` or `bracket`),
// without it the bracket is the shards' statement ("stated").
json merged(const Dir& d, const std::vector<std::string>& files, const std::string& model = "",
            std::vector<std::pair<std::string, std::string>> flags = {}) {
  forget_inputs();
  cli::SeprankOptions o;
  o.merge = files;
  if (!model.empty()) {
    o.model = model;
    o.options = std::move(flags);
    o.options.emplace_back("seed", "7");
  }
  o.json = true;
  o.out = d.file("merged.json");
  cli::run_seprank(o);
  forget_inputs();
  return read_json(o.out);
}

// The merge's refusal of `files`: an InputError whose text has every one of `parts`.
void refused(const Dir& d, const std::vector<std::string>& files, const std::vector<std::string>& parts) {
  try {
    merged(d, files);
    FAIL("merged");
  } catch (const InputError& e) {
    for (const auto& p : parts) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(p) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("shards of i/n merged equal the unsharded bracket, block for block, for n = 1..4", "[shard]") {
  Dir d;
  for (const NetworkShape& s : {NetworkShape{.arch = Arch::attention, .layers = 2, .width = 2, .heads = 1, .tokens = 2},
                                NetworkShape{.arch = Arch::mixer, .layers = 2, .width = 2, .tokens = 2},
                                NetworkShape{.arch = Arch::attention, .layers = 1, .width = 3, .heads = 1, .tokens = 3}}) {
    INFO(shape_label(s, LabelStyle::model_name));
    const std::string model = model_file(d, s, 3);
    // The unsharded analysis (its default plan; an independent path: exact
    // methods on the expansion where they run).
    SepOptions so;
    so.blackbox_seed = 7;
    const Model m = read_model(model);
    const auto whole = analyse_network(m, {Entry{0, 0}}, {parse_partition("half", m.tokens, m.width)}, so);
    REQUIRE(whole[0].status == BracketStatus::exact);
    for (std::size_t n = 1; n <= 4; ++n) {
      INFO("n = " << n);
      std::vector<std::string> files;
      bool too_many = false;  // more shares than blocks: refused (issue 49 §4), never shares with nothing
      for (std::size_t i = 1; i <= n && !too_many; ++i) {
        files.push_back(d.file("s" + std::to_string(i) + "of" + std::to_string(n) + ".json"));
        try {
          run_share(model, i, n, files.back());
        } catch (const InputError& e) {
          INFO(e.what());
          CHECK(std::string(e.what()).find("shares have work") != std::string::npos);
          CHECK(n > 1);
          too_many = true;
        }
      }
      if (too_many) continue;
      const json stated = merged(d, files);  // without the model: the shards' word, never `exact`
      CHECK(stated["status"] == "stated");
      CHECK(stated["certified"] == false);
      const json r = merged(d, files, model);
      CHECK(r["status"] == "exact");
      CHECK(r["certified"] == true);
      CHECK(stated["lower"] == r["lower"]);
      CHECK(r["lower"]["value"] == *whole[0].lower.value);
      CHECK(r["upper"]["value"] == *whole[0].upper.value);
      std::size_t sum = 0;
      for (const auto& b : r["blocks"]) {
        CHECK(b["reached_cap"] == true);
        sum += b["rank"].get<std::size_t>();
      }
      CHECK(sum == *whole[0].lower.value);
    }
  }
}

TEST_CASE("--plan's blocks, widths and caps are the ones the analysis ranks", "[shard]") {
  Dir d;
  const NetworkShape s{.arch = Arch::attention, .layers = 2, .width = 2, .heads = 1, .tokens = 2};
  const Model m = read_model(model_file(d, s, 3));
  SepOptions so;
  so.blackbox_seed = 7;
  so.methods = parse_methods("support,gram,blackbox");
  const auto ran = analyse_network(m, {Entry{0, 0}}, {parse_partition("half", m.tokens, m.width)}, so);
  json used;
  for (const auto& run : ran[0].runs)
    if (run.method == Method::blackbox) used = run.details.at("block_ranks");
  REQUIRE(used.size() > 1);
  so.plan = true;
  so.methods.clear();  // the plan's own default: the cheap upper bounds, then the black-box
  const auto planned = analyse_network(m, {Entry{0, 0}}, {parse_partition("half", m.tokens, m.width)}, so);
  json plan;
  for (const auto& run : planned[0].runs)
    if (run.method == Method::blackbox) plan = run.details.at("plan");
  REQUIRE(plan["blocks"].size() == used.size());
  std::size_t caps = 0;
  for (std::size_t b = 0; b < used.size(); ++b) {
    CHECK(plan["blocks"][b]["A_degrees"] == used[b]["A_degrees"]);
    CHECK(plan["blocks"][b]["cap"] == used[b]["cap"]);
    CHECK(plan["blocks"][b]["points"] == used[b]["cap"]);  // below --max-points: each needs its cap
    // the cap is at most the block's width (its coefficient block's rows and columns)
    CHECK(plan["blocks"][b]["cap"].get<double>() <= std::min(plan["blocks"][b]["rows"].get<double>(),
                                                             plan["blocks"][b]["cols"].get<double>()));
    caps += plan["blocks"][b]["cap"].get<std::size_t>();
  }
  CHECK(plan["sum_of_caps"] == caps);
  CHECK(planned[0].lower.value == std::nullopt);  // nothing computed
}

TEST_CASE("the merge refuses shards of another analysis, duplicated or missing blocks, malformed files", "[shard]") {
  Dir d;
  const NetworkShape s{.arch = Arch::attention, .layers = 2, .width = 2, .heads = 1, .tokens = 2};
  const std::string model = model_file(d, s, 3);
  const std::string a = d.file("a.json"), b = d.file("b.json");
  run_share(model, 1, 2, a);
  run_share(model, 2, 2, b);
  REQUIRE(merged(d, {a, b}, model)["status"] == "exact");
  REQUIRE(merged(d, {a, b})["status"] == "stated");
  const json B = read_json(b);
  auto edited = [&](const std::string& name, const std::function<void(json&)>& f) {
    json j = B;
    f(j);
    write_json(d.file(name), j);
    return d.file(name);
  };
  refused(d, {a, edited("prime.json", [](json& j) {
                 // another prime of the small-prime family (= 1 mod 120): a prime, so it is the
                 // mismatch that is refused, not the modulus
                 std::uint64_t q = j["prime"].get<std::uint64_t>() + 120;
                 while (!n_is_prime(q)) q += 120;
                 j["prime"] = q;
               })},
          {"prime.json", "prime", "another prime"});
  refused(d, {a, edited("seed.json", [](json& j) { j["seed"] = 8; })}, {"seed.json", "seed", "another seed"});
  refused(d, {a, edited("model.json", [](json& j) { j["model"]["sha256"] = std::string(64, '0'); })},
          {"model.json", "model", "another model"});
  refused(d, {a, edited("part.json", [](json& j) { j["partition"]["A"] = {"1"}; j["partition"]["B"] = {"0"}; })},
          {"part.json", "partition", "another partition"});
  refused(d, {a, edited("build.json", [](json& j) { j["build"] = "0.0.1 (git 000000000000, FLINT 2.9.0)"; })},
          {"build.json", "build", "another build"});
  refused(d, {a, edited("output.json", [](json& j) { j["output"]["channel"] = 1; })}, {"output.json", "output"});
  refused(d, {a, b, b}, {b, "blocks[0].index", "also in"});  // a block twice
  refused(d, {a}, {"no shard has block"});                    // share 2 missing
  // malformed: not JSON, a float rank, a rank above the cap, a missing field, a cap other than the layout's
  std::ofstream(d.file("text.json")) << "not json";
  refused(d, {a, d.file("text.json")}, {"text.json", "invalid JSON"});
  refused(d, {a, edited("float.json", [](json& j) { j["blocks"][0]["rank"] = 1.5; })}, {"float.json", "blocks[0].rank"});
  refused(d, {a, edited("above.json", [](json& j) { j["blocks"][0]["rank"] = j["blocks"][0]["cap"].get<std::size_t>() + 1; })},
          {"above.json", "blocks[0].rank"});
  refused(d, {a, edited("nofield.json", [](json& j) { j.erase("layout"); })}, {"nofield.json", "layout"});
  refused(d, {a, edited("cap.json", [](json& j) { j["blocks"][0]["cap"] = 0; j["blocks"][0]["rank"] = 0; j["blocks"][0]["reached_cap"] = true; })},
          {"cap.json", "blocks[0]", "layout"});
  refused(d, {a, edited("format.json", [](json& j) { j["format"] = "netpoly-seprank-shard/2"; })}, {"format.json", "format"});
}

TEST_CASE("a shard that stopped at a limit keeps its finished blocks, and the merge says the bound is a lower one",
          "[shard]") {
  Dir d;
  const NetworkShape s{.arch = Arch::attention, .layers = 2, .width = 2, .heads = 1, .tokens = 2};
  const std::string model = model_file(d, s, 3);
  const std::string a = d.file("a.json"), b = d.file("b.json");
  run_share(model, 1, 2, a, {{"max_points", "2"}});
  run_share(model, 2, 2, b, {{"max_points", "2"}});
  CHECK(merged(d, {a, b})["status"] == "stated");
  const json r = merged(d, {a, b}, model, {{"max_points", "2"}});
  CHECK(r["status"] == "bracket");
  CHECK(r["how"].get<std::string>().find("below their caps") != std::string::npos);
  std::size_t sum = 0;
  for (const auto& blk : r["blocks"]) {
    CHECK(blk["points"].get<std::size_t>() <= 2);
    sum += blk["rank"].get<std::size_t>();
  }
  CHECK(r["lower"]["value"] == sum);
  // shards of another --max-points are of another analysis
  const std::string c = d.file("c.json");
  run_share(model, 2, 2, c);
  refused(d, {a, c}, {"c.json", "max_points"});
  CHECK_THROWS_AS(run_share(model, 1, 2, d.file("x.json"), {{"prime", "1000003"}}), InputError);
}

// The shares' rule (blackbox/shards.hpp: the largest unit first, each to the
// share with the least work so far, ties to the lower index), written here
// as the plain scan it states, against share_owners, which keeps a heap of
// the shares in use so that n shares cost O(units log units), not O(n units)
// per share (issue 49 §4: --blocks 1/65536 ran past 120 s on 3 units).
TEST_CASE("share_owners follows the stated rule for every n, and costs no more for n = 2^20", "[shard]") {
  auto scan = [](const methods::BlockLayout& bl, std::size_t mp, std::size_t count) {
    const double passes = static_cast<double>(std::max<std::size_t>(1, bl.L.as.size()));
    auto work = [&](std::size_t b) {
      const double n = static_cast<double>(std::min(bl.blocks[b].cap, mp));
      return n * n * n + passes * n * n;
    };
    std::vector<std::size_t> order(bl.blocks.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return work(x) > work(y); });
    std::vector<double> load(count, 0);
    std::vector<std::size_t> owner(bl.blocks.size());
    for (std::size_t b : order) {
      std::size_t k = 0;
      for (std::size_t j = 1; j < count; ++j)
        if (load[j] < load[k]) k = j;
      load[k] += work(b);
      owner[b] = k;
    }
    return owner;
  };
  SplitMix64 g(11);
  for (int trial = 0; trial < 200; ++trial) {
    methods::BlockLayout bl;
    const std::size_t units = 1 + g.below(12);
    bl.L.as.resize(g.below(4));
    for (std::size_t u = 0; u < units; ++u) {
      methods::Block b;
      b.cap = g.below(3) == 0 ? g.below(3) : g.below(40);  // zero caps too: zero work ties
      bl.blocks.push_back(std::move(b));
    }
    const std::size_t mp = 1 + g.below(50), count = 1 + g.below(16);
    INFO("trial " << trial << ", units " << units << ", n " << count);
    CHECK(methods::share_owners(bl, mp, count) == scan(bl, mp, count));
    for (std::size_t i = 1; i <= count; ++i) {
      const auto mine = methods::share_blocks(bl, mp, i, count);
      const auto all = scan(bl, mp, count);
      std::vector<std::size_t> want;
      for (std::size_t u = 0; u < all.size(); ++u)
        if (all[u] + 1 == i) want.push_back(u);
      CHECK(mine == want);
    }
  }
  // n = 2^20 over 3 units: the first three shares, one unit each (the scan
  // would be 3 x 2^20 steps per share, 2^20 shares).
  methods::BlockLayout bl;
  for (std::size_t c : {5, 9, 7}) {
    methods::Block b;
    b.cap = c;
    bl.blocks.push_back(std::move(b));
  }
  CHECK(methods::share_owners(bl, 1024, std::size_t{1} << 20) == std::vector<std::size_t>{2, 0, 1});
}

TEST_CASE("a shard's file written between and within rounds is one the merge reads: no rank above its points",
          "[shard]") {
  // A round ranks its blocks as their rows are done, and a shard's file is
  // rewritten each time (so that a stop keeps it). Every state written must
  // be consistent as the merge checks it (blackbox/merge.cpp): a block's rank
  // at most its points and its cap, reached_cap exactly when rank == cap.
  // Mixer (3,5,4), share 1/1: blocks of different caps reach them in
  // different rounds, so a round has blocks of several sizes, and some state
  // is written within a round (its open blocks at different points).
  Dir d;
  const NetworkShape s{.arch = Arch::mixer, .layers = 3, .width = 5, .tokens = 4};
  const std::string model = model_file(d, s, 3);
  const Model m = read_model(model);
  SepOptions so;
  so.blackbox_seed = 7;
  so.methods = {Method::support, Method::blackbox};
  so.share_index = 1;
  so.share_count = 1;
  std::vector<json> states;
  auto progress = [&](const SepResult& r, bool) {
    for (const auto& x : r.runs)
      if (x.method == Method::blackbox && x.details.contains("shard")) states.push_back(x.details["shard"]);
  };
  (void)analyse_network(m, {Entry{0, 0}}, {parse_partition("half", m.tokens, m.width)}, so, progress);
  REQUIRE(states.size() >= 3);
  std::size_t mid = 0;  // states with blocks of several point counts (written within a round)
  for (const auto& st : states) {
    std::set<std::size_t> counts;
    for (const auto& b : st["blocks"]) {
      INFO(b.dump());
      CHECK(b["rank"].get<std::size_t>() <= b["points"].get<std::size_t>());
      CHECK(b["rank"].get<std::size_t>() <= b["cap"].get<std::size_t>());
      CHECK(b["reached_cap"].get<bool>() == (b["rank"] == b["cap"]));
      if (b["state"] == "open") counts.insert(b["points"].get<std::size_t>());
    }
    mid += counts.size() > 1;
  }
  CHECK(mid >= 1);
}
