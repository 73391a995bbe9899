// Tables: sweep order, violation flags, renderers, journal round trip.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include <map>
#include <set>

#include "netpoly/error.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/table.hpp"

using namespace netpoly;

namespace {

TableRow synthetic_row(std::optional<std::size_t> lo, std::optional<std::size_t> hi) {
  TableRow r;
  r.config.params = {Arch::attention, 1, 2, 1, 2, 0, false};
  r.config.seed = 1;
  r.params = "16";
  r.lower.value = lo;
  r.upper.value = hi;
  r.status = lo && hi && *lo == *hi ? BracketStatus::exact : BracketStatus::bracket;
  BoundCell up;  // an upper bound of exactly 10
  up.id = "U";
  up.kind = "upper";
  up.value = "10";
  up.exact = "10";
  up.log3 = std::log(10.0) / std::log(3.0);
  up.in_regime = true;
  BoundCell low;  // a lower bound log3 sep >= 2, i.e. sep >= 9 (log3 only)
  low.id = "L";
  low.kind = "lower";
  low.value = "3^2";
  low.log3 = 2.0;
  low.in_regime = true;
  BoundCell out = up;  // same as U but outside its regime: never flagged
  out.id = "U-out";
  out.in_regime = false;
  r.bounds = {up, low, out};
  return r;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') { cell += '"'; ++i; }
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') { row.push_back(cell); cell.clear(); }
    else if (c == '\n') { row.push_back(cell); cell.clear(); rows.push_back(row); row.clear(); }
    else cell += c;
  }
  return rows;
}

}  // namespace

TEST_CASE("sweep configurations: order, skipped shapes, arch-specific parameters", "[table]") {
  SweepSpec s;
  s.arch = Arch::attention;
  s.layers = {1, 2};
  s.widths = {2, 3};
  s.heads = {1, 2};
  s.tokens = {4};
  s.seeds = 2;
  auto c = sweep_configs(s);
  // widths 2,3 x heads 1,2: (2,1) (2,2) (3,1) valid, (3,2) skipped: 3 shapes x 2 layers x 2 seeds
  REQUIRE(c.size() == 12);
  CHECK(c[0].key() == "attention L=1 d=2 H=1 N=4 seed=1");
  CHECK(c[1].key() == "attention L=1 d=2 H=1 N=4 seed=2");
  CHECK(c[11].key() == "attention L=2 d=3 H=1 N=4 seed=2");
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c[i].index == i);
  s.arch = Arch::mlp;  // heads and tokens do not apply: no duplicate shapes
  s.tokens = {2, 4};
  CHECK(sweep_configs(s).size() == 2 * 2 * 2);
}

TEST_CASE("violation flags follow certified ends only", "[table]") {
  auto r = synthetic_row(11, 11);  // 11 > U = 10: violated; 11 >= 9: fine
  flag_violations(r);
  CHECK(r.bounds[0].violated);
  CHECK_FALSE(r.bounds[1].violated);
  CHECK_FALSE(r.bounds[2].violated);  // outside its regime
  r = synthetic_row(10, 10);  // equal to the upper bound: fine
  flag_violations(r);
  CHECK_FALSE(r.bounds[0].violated);
  r = synthetic_row(3, 8);  // certified upper 8 < 9 = 3^2: the lower bound is violated
  flag_violations(r);
  CHECK_FALSE(r.bounds[0].violated);
  CHECK(r.bounds[1].violated);
  r = synthetic_row(3, std::nullopt);  // no certified upper end: a lower bound cannot be contradicted
  flag_violations(r);
  CHECK_FALSE(r.bounds[1].violated);
}

TEST_CASE("renderers: CSV and JSON parse back, markdown and LaTeX are well formed", "[table]") {
  auto a = synthetic_row(11, 11);
  flag_violations(a);
  auto b = synthetic_row(3, 8);
  b.config.index = 1;
  b.config.seed = 2;
  flag_violations(b);
  std::vector<TableRow> rows{b, a};  // out of order on purpose: rendering sorts by index

  auto csv = parse_csv(render_table(rows, TableFormat::csv, "t"));
  REQUIRE(csv.size() == 3);
  const auto& head = csv[0];
  for (const auto& row : csv) CHECK(row.size() == head.size());
  auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  CHECK(csv[1][col("seed")] == "1");
  CHECK(csv[1][col("lower")] == "11");
  CHECK(csv[1][col("U violated")] == "true");
  CHECK(csv[2][col("L violated")] == "true");

  auto j = nlohmann::json::parse(render_table(rows, TableFormat::json, "t"));
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["status"] == "exact");
  CHECK(j["timings"].is_object());
  auto back = TableRow::from_json(j["rows"][1]);
  CHECK(back.config.key() == b.config.key());
  CHECK(back.upper.value == b.upper.value);
  CHECK(back.bounds[1].violated);

  std::string md = render_table(rows, TableFormat::md, "t");
  std::istringstream in(md);
  std::string line;
  std::size_t bars = 0, table_lines = 0;
  while (std::getline(in, line))
    if (!line.empty() && line[0] == '|') {
      std::size_t n = static_cast<std::size_t>(std::count(line.begin(), line.end(), '|'));
      if (!bars) bars = n;
      CHECK(n == bars);
      ++table_lines;
    }
  CHECK(table_lines == 4);  // header, rule, two rows
  CHECK(md.find("VIOLATED") != std::string::npos);

  std::string tex = render_table(rows, TableFormat::latex, "t");
  CHECK(tex.find("\\begin{tabular}") != std::string::npos);
  CHECK(tex.find("\\end{tabular}") != std::string::npos);
  CHECK(tex.find("\\textbf{") != std::string::npos);
}

TEST_CASE("a measured row: small attention network, exact sep and no violated bound", "[table]") {
  SweepSpec s;
  s.arch = Arch::attention;
  s.layers = {1};
  s.widths = {2};
  s.heads = {1};
  s.tokens = {2};
  auto c = sweep_configs(s);
  REQUIRE(c.size() == 1);
  auto r = measure_row(c[0], s);
  // L=1, d=2, H=1: sep = 3 = LV Thm 3's (H (d_a + 1))^C(1) = (1 * 3)^1 for generic weights
  CHECK(r.status == BracketStatus::exact);
  CHECK(r.lower.value == std::optional<std::size_t>(3));
  for (const auto& b : r.bounds) CHECK_FALSE(b.violated);
  auto j = r.to_json();
  CHECK(TableRow::from_json(j).to_json() == j);
}

TEST_CASE("equal-budget configurations: parameter counts by hand", "[table][budget]") {
  // Counts (docs/math.md, parameters): attention 4 L d^2 (Q, K, V: d_a x d and O: d x d_a per
  // head, H d_a = d); mixer N^2 per token-mixing layer (odd layers) + d^2 per channel-mixing
  // layer; mlp d^2 per layer; product k d^2 per block.
  // B = 48, N = 4: attention L1: 4 d^2 <= 48 -> d = 3 (36); L2: 8 d^2 -> d = 2 (32); L3: 12 d^2
  // -> d = 2 (48); L4: 16 d^2 -> d = 1 (16). mixer L1: 16 whatever d (capped at max_width = 5);
  // L2: 16 + d^2 <= 48 -> d = 5 (41); L3: 32 + d^2 -> d = 4 (48); L4: 32 + 2 d^2 -> d = 2 (40).
  // mlp (one token; the half partition needs 2 channels): L1: d = 6 (36); L2: 2 d^2 -> d = 4.
  // product k = 2: L1: 2 d^2 -> d = 4 (32); L2: 4 d^2 -> d = 3 (36).
  SweepSpec s;
  s.archs = {Arch::attention, Arch::mixer, Arch::mlp, Arch::product};
  s.budgets = {"48"};
  s.tokens = {4};
  s.max_depth = 4;
  s.max_width = 5;
  const auto c = sweep_configs(s);
  std::map<std::string, std::string> got;
  for (const auto& x : c) got[x.key()] = std::to_string(x.params.width);
  auto has = [&](const std::string& key) {
    INFO(key);
    CHECK(got.count(key) == 1);
  };
  has("B=48 attention L=1 d=3 H=1 N=4 seed=1");
  has("B=48 attention L=2 d=2 H=1 N=4 seed=1");
  has("B=48 attention L=3 d=2 H=1 N=4 seed=1");
  has("B=48 attention L=4 d=1 H=1 N=4 seed=1");
  has("B=48 mixer L=1 d=5 N=4 seed=1");
  has("B=48 mixer L=2 d=5 N=4 seed=1");
  has("B=48 mixer L=3 d=4 N=4 seed=1");
  has("B=48 mixer L=4 d=2 N=4 seed=1");
  has("B=48 mlp L=1 d=5 seed=1");  // 6 is beyond max_width = 5
  has("B=48 mlp L=2 d=4 seed=1");
  has("B=48 product L=1 d=4 N=4 k=2 seed=1");
  has("B=48 product L=2 d=3 N=4 k=2 seed=1");
  // mlp L = 4: 4 d^2 <= 48 -> d = 3; mlp with d = 1 never appears (the half partition needs 2 channels).
  has("B=48 mlp L=4 d=3 seed=1");
  for (const auto& x : c) {
    if (x.params.arch == Arch::mlp) CHECK(x.params.width >= 2);
    CHECK(fmpz_cmp_ui(parameter_count(x.params).get(), 48) <= 0);
  }
  // Every count matches the preset actually built.
  for (const auto& x : c)
    CHECK(parameter_count(make_preset(preset_options(x.params))) ==
          static_cast<std::size_t>(fmpz_get_ui(parameter_count(x.params).get())));
}

TEST_CASE("equal-budget table: all four families on a small budget, rows marked and checked twice", "[table][budget]") {
  SweepSpec s;
  s.archs = {Arch::attention, Arch::mixer, Arch::mlp, Arch::product};
  s.budgets = {"16"};
  s.tokens = {2};
  s.max_depth = 2;
  s.max_width = 3;
  SweepRunOptions o;
  auto rows = run_sweep(s, o);
  std::set<Arch> seen;
  for (const auto& r : rows) {
    seen.insert(r.config.params.arch);
    CHECK(r.status == BracketStatus::exact);
    CHECK(r.second.has_value());  // generic by default: a second draw measured
    CHECK_FALSE(r.degenerate);
  }
  CHECK(seen.size() == 4);
  const std::string md = render_table(rows, TableFormat::md, "t");
  CHECK(md.find("**best**") != std::string::npos);
  CHECK(md.find("Best measured shape per budget") != std::string::npos);
  // The per-token product never mixes tokens: sep 1 for the token partition (every depth).
  for (const auto& r : rows)
    if (r.config.params.arch == Arch::product) CHECK(*r.lower.value == 1);
  // A journal round trip keeps the budget and the second draw.
  for (const auto& r : rows) {
    const TableRow back = TableRow::from_json(r.to_json());
    CHECK(back.config.key() == r.config.key());
    CHECK(back.second_draw_text() == r.second_draw_text());
    CHECK(back.to_json() == r.to_json());
  }
}

TEST_CASE("generic weights flag a degenerate row; small weights can be degenerate", "[table][budget]") {
  // A one-layer mixer whose token-mixing row for token 0 is all zero gives y[0][0] = 0:
  // found with small weights (range 1) by search, flagged; generic weights never draw 0.
  SweepSpec s;
  s.arch = Arch::mixer;
  s.layers = {1};
  s.widths = {2};
  s.tokens = {2};
  s.weights = WeightDist::small;
  s.range = 1;
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 200 && !found; ++seed) {
    SweepConfig c;
    c.params = {Arch::mixer, 1, 2, 1, 2, 2, false};
    c.seed = seed;
    const Model m = make_preset(preset_options(c.params, seed, 1, WeightDist::small));
    const auto& W = std::get<TokenMix<Fmpq>>(m.layers[0].op).W;
    if (!(W.a[0].is_zero() && W.a[1].is_zero())) continue;  // independent: y[0][0] = (W00 x00 + W01 x10)^2
    found = true;
    const TableRow r = measure_row(c, s);
    CHECK(r.degenerate);
    CHECK(r.degenerate_why == "y[0][0] is identically 0");
  }
  CHECK(found);
  // Generic: nonzero, within [-2^10, 2^10], and a different draw for the second seed.
  PresetOptions g = preset_options({Arch::mlp, 1, 4, 1, 1, 2, false}, 1, 0, WeightDist::generic);
  const Model a = make_preset(g), b = make_preset(second_draw(g));
  const auto& Wa = std::get<ChannelMix<Fmpq>>(a.layers[0].op).W;
  const auto& Wb = std::get<ChannelMix<Fmpq>>(b.layers[0].op).W;
  bool differ = false;
  for (std::size_t i = 0; i < Wa.a.size(); ++i) {
    CHECK_FALSE(Wa.a[i].is_zero());
    CHECK(std::abs(Wa.a[i].to_double()) <= 1024);
    differ = differ || !(Wa.a[i] == Wb.a[i]);
  }
  CHECK(differ);
  CHECK(g.weights_text() == "nonzero integers in [-1024, 1024] (generic)");
  CHECK_THROWS_AS(parse_weight_dist("gaussian"), InputError);
}
