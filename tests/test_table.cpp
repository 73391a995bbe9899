// Tables: sweep order, violation flags, renderers, journal round trip.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "netpoly/table.hpp"

using namespace netpoly;

namespace {

TableRow synthetic_row(std::optional<std::size_t> lo, std::optional<std::size_t> hi) {
  TableRow r;
  r.config.params = {Arch::attention, 1, 2, 1, 2, 2, false};
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
