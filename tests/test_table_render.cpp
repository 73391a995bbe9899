// Tables and plots a paper can use (issue 30, section 3): chosen bound
// columns, LaTeX for booktabs and siunitx with the second draw, plots with a
// distinct style per curve, clipped curves named, and PDF files whose
// cross-reference table is right.
#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>

#include "../src/tables/canvas.hpp"
#include "netpoly/error.hpp"
#include "netpoly/table.hpp"

using namespace netpoly;

namespace {

// A measured attention row (L, d = 2, H = 1, N = 2) with its bounds from the registry.
TableRow attention_row(std::uint64_t L, std::size_t lo, std::size_t hi, std::size_t index) {
  TableRow r;
  r.config.params = {Arch::attention, L, 2, 1, 2, 0, false};
  r.config.index = index;
  r.lower = {lo, "support"};
  r.upper = {hi, "support"};
  r.status = lo == hi ? BracketStatus::exact : BracketStatus::bracket;
  r.second = static_cast<Bracket>(r);
  REQUIRE(judge_row(r).empty());
  return r;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("--bounds: registry ids in the order given; unknown ids list the valid ones", "[table]") {
  CHECK(parse_bound_ids(" LV Thm 4, LV Thm 3") == std::vector<std::string>{"LV Thm 4", "LV Thm 3"});
  // A repeated id is refused, never dropped (issue 49 §7), and so is an empty one.
  CHECK_THROWS_WITH(parse_bound_ids(" LV Thm 4, LV Thm 3,LV Thm 4"), Catch::Contains("\"LV Thm 4\" is given twice"));
  CHECK_THROWS_WITH(parse_bound_ids("LV Thm 4,,LV Thm 3"), Catch::Contains("an empty bound id"));
  try {
    parse_bound_ids("LV Thm 3,LV Thm 99");
    FAIL("accepted an unknown id");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("unknown bound id \"LV Thm 99\"") != std::string::npos);
    for (const auto& id : bound_ids()) CHECK(m.find(id) != std::string::npos);
  }
  const std::vector<NetworkShape> att{{Arch::attention, 1, 2, 1, 2, 0, false}};
  CHECK_NOTHROW(check_bound_ids_apply({"LV Thm 3"}, att));
  CHECK_THROWS_WITH(check_bound_ids_apply({"NB Thm 5.5"}, att),
                    Catch::Contains("\"NB Thm 5.5\" applies to none of the table's shapes"));
}

TEST_CASE("LaTeX: booktabs, numbers in \\num, the 2nd draw column, the chosen bounds", "[table]") {
  std::vector<TableRow> rows{attention_row(1, 3, 3, 0), attention_row(3, 215, 6970, 1)};
  TableView v;
  v.bounds = {"LV Thm 4", "LV Thm 3"};
  v.all_columns = true;  // --columns all: the 2nd draw column too (the default shows it for degenerate rows only)
  const std::string tex = render_table(rows, TableFormat::latex, "t", v);
  CHECK(tex.find("\\toprule") != std::string::npos);
  CHECK(tex.find("\\bottomrule") != std::string::npos);
  CHECK(tex.find("& 2nd draw &") != std::string::npos);
  CHECK(tex.find("LV Thm 4 (\\(\\le\\)) & LV Thm 3 (\\(\\le\\)) \\\\") != std::string::npos);
  CHECK(tex.find("LV Thm 1") == std::string::npos);  // not chosen
  // The bracket row: [215, 6970] in sep and 2nd draw, LV Thm 3 (L = 3) = 3^13 = 1594323.
  CHECK(count(tex, "{[}\\num{215}, \\num{6970}{]}") == 2);
  CHECK(tex.find("\\num{1594323}") != std::string::npos);
  // Every digit run of a data row is inside \num{} (or the \(3^{...}\) of a log3 value).
  const std::string body = tex.substr(tex.find("\\midrule"), tex.find("\\bottomrule") - tex.find("\\midrule"));
  std::string stripped = std::regex_replace(body, std::regex("\\\\num\\{[^}]*\\}"), "N");
  stripped = std::regex_replace(stripped, std::regex("\\\\\\(3\\^\\{"), "");
  CHECK_FALSE(std::regex_search(stripped, std::regex("[0-9]")));
  // md: the same columns.
  const std::string md = render_table(rows, TableFormat::md, "t", v);
  CHECK(md.find("| LV Thm 4 (<=) | LV Thm 3 (<=) |\n") != std::string::npos);
}

TEST_CASE("log3 values and long integers as siunitx reads them", "[table]") {
  BoundCell b;
  b.in_regime = true;
  b.value = "3^6.52372";
  std::vector<TableRow> rows{attention_row(1, 3, 3, 0)};
  rows[0].bounds = {b};
  rows[0].bounds[0].id = "X";
  TableView all;
  all.all_bounds = true;  // a bound of no kind: shown with --bounds all (a paper's default shows upper and lower ones)
  std::string tex = render_table(rows, TableFormat::latex, "t", all);
  CHECK(tex.find("\\(3^{\\num{6.52372}}\\)") != std::string::npos);
  rows[0].bounds[0].value = "1.23457e20 (21 digits)";
  tex = render_table(rows, TableFormat::latex, "t", all);
  CHECK(tex.find("\\num{1.23457e20} (21 digits)") != std::string::npos);
  rows[0].bounds[0].value = "3^inf";
  tex = render_table(rows, TableFormat::latex, "t", all);
  CHECK(tex.find("\\(3^{\\infty}\\)") != std::string::npos);
}

TEST_CASE("curve styles are distinct for every index", "[table]") {
  std::set<std::vector<double>> dashes;
  std::set<std::tuple<int, int, int>> colours;
  for (std::size_t i = 0; i < 64; ++i) {
    dashes.insert(tables_detail::dash_pattern(i));
    const auto c = tables_detail::series_colour(i);
    colours.insert({c.r, c.g, c.b});
  }
  CHECK(dashes.size() == 64);
  CHECK(colours.size() == 64);
}

TEST_CASE("plot: one dash pattern per bound, clipped curves named in the plot and returned", "[table]") {
  std::vector<TableRow> rows{attention_row(1, 3, 3, 0), attention_row(2, 15, 15, 1)};
  TableView all;
  all.all_bounds = true;  // --bounds all: every curve (the default keeps about six styles)
  const Plot p = render_plot(rows, "t", PlotFormat::svg, all);
  // Bound curves carry a <title>: "ID (series)"; each id's dash pattern is its own.
  std::map<std::string, std::string> dash_of;
  std::set<std::string> dashes;
  const std::regex curve("stroke-dasharray=\"([^\"]*)\" points=\"[^\"]*\"><title>([^<]*) \\(d=2");
  for (std::sregex_iterator it(p.text.begin(), p.text.end(), curve), end; it != end; ++it) {
    dash_of[(*it)[2]] = (*it)[1];
    dashes.insert((*it)[1]);
  }
  CHECK(dash_of.size() >= 7);  // LV Thm 3, 4, 1 (upper/lower), 2 (upper/lower), NB Thm 5.7: more than 6 patterns
  CHECK(dashes.size() == dash_of.size());
  // y runs to ceil(max(1.6 log3 15 + 1, min(the highest curve, 3 log3 15 + 1))) = ceil(8.39) = 9: the
  // bound curves get 3x the measured height. LV Thm 4 (48 at L = 1: log3 3.5; 2250 at L = 2: 7.0) is
  // drawn; LV Thm 2 (upper) leaves the range.
  bool named = false, thm4 = false;
  for (const auto& c : p.clipped) {
    named = named || c == "LV Thm 2 (upper) (d=2 H=1 N=2): above log3 sep = 9";
    thm4 = thm4 || c.rfind("LV Thm 4", 0) == 0;
  }
  CHECK(named);
  CHECK_FALSE(thm4);
  CHECK(p.text.find("Clipped above log3 sep = 9: ") != std::string::npos);
}

// The x axis is what the sweep varies: depth, or the width d when every row
// has one depth (a width sweep across LV's transition at fixed L).
TEST_CASE("plot: a sweep of one depth over several widths is drawn against the width", "[table]") {
  std::vector<TableRow> widths;
  for (std::size_t d = 2; d <= 4; ++d) {
    TableRow r = attention_row(1, d + 1, d + 1, d);  // depth 1: sep = d + 1 (docs/findings.md §4)
    r.config.params.width = d;
    widths.push_back(r);
  }
  const std::string w = render_plot(widths, "t", PlotFormat::svg).text;
  CHECK(w.find(">width d<") != std::string::npos);
  CHECK(w.find("depth L") == std::string::npos);
  CHECK(w.find("L=1 H=1 N=2 measured") != std::string::npos);
  // A wide range gets a tick every 1, 2, 5, 10, ... so that at most about 12 are labelled:
  // widths 2 and 40 (a range of 38) get 5, 10, ..., 40, not 39 labels.
  std::vector<TableRow> wide = {widths[0], widths[0]};
  wide[1].config.params.width = 40;
  wide[1].config.index = 9;
  const std::string wd = render_plot(wide, "t", PlotFormat::svg).text;
  CHECK(wd.find(">35<") != std::string::npos);
  CHECK(wd.find(">40<") != std::string::npos);
  CHECK(wd.find(">37<") == std::string::npos);
  CHECK(wd.find(">39<") == std::string::npos);
  const std::string depth =
      render_plot({attention_row(1, 3, 3, 0), attention_row(2, 15, 15, 1)}, "t", PlotFormat::svg).text;
  CHECK(depth.find(">depth L<") != std::string::npos);
  CHECK(depth.find("d=2 H=1 N=2 measured") != std::string::npos);
}

TEST_CASE("plot as PDF: objects where the cross-reference table says, one page, Helvetica", "[table]") {
  std::vector<TableRow> rows{attention_row(1, 3, 3, 0), attention_row(2, 15, 15, 1)};
  const std::string pdf = render_plot(rows, "a (title) with \\ and ( )", PlotFormat::pdf).text;
  REQUIRE(pdf.rfind("%PDF-1.4\n", 0) == 0);
  REQUIRE(pdf.size() > 6);
  CHECK(pdf.substr(pdf.size() - 6) == "%%EOF\n");
  const auto sx = pdf.rfind("startxref\n");
  REQUIRE(sx != std::string::npos);
  const std::size_t xref = std::stoul(pdf.substr(sx + 10));
  REQUIRE(pdf.compare(xref, 5, "xref\n") == 0);
  std::size_t pos = xref + 5;
  const std::size_t first = std::stoul(pdf.substr(pos)), n = std::stoul(pdf.substr(pdf.find(' ', pos) + 1));
  CHECK(first == 0);
  pos = pdf.find('\n', pos) + 1;
  for (std::size_t k = 0; k < n; ++k, pos += 20) {
    const std::string entry = pdf.substr(pos, 20);
    INFO(entry);
    REQUIRE(entry.size() == 20);
    CHECK((entry.substr(17) == (k ? "n \n" : "f \n")));
    if (k) CHECK(pdf.compare(std::stoul(entry.substr(0, 10)), std::to_string(k).size() + 6, std::to_string(k) + " 0 obj") == 0);
  }
  CHECK(pdf.compare(pos, 8, "trailer\n") == 0);
  // The content stream's /Length is its length.
  const auto ls = pdf.find("/Length ");
  const std::size_t len = std::stoul(pdf.substr(ls + 8));
  const auto start = pdf.find("stream\n", ls) + 7;
  CHECK(pdf.compare(start + len, 9, "endstream") == 0);
  CHECK(pdf.find("/BaseFont /Helvetica") != std::string::npos);
  CHECK(pdf.find("/Title (a \\(title\\) with \\\\ and \\( \\))") != std::string::npos);
  CHECK(count(pdf, "/Type /Page ") == 1);
}

TEST_CASE("plot formats by extension; PGF is a pgfpicture", "[table]") {
  CHECK(plot_format_for("a.svg") == PlotFormat::svg);
  CHECK(plot_format_for("x/a.pdf") == PlotFormat::pdf);
  CHECK(plot_format_for("a.pgf") == PlotFormat::pgf);
  CHECK_THROWS_WITH(plot_format_for("a.png"), Catch::Contains("expected a file ending in .svg, .pdf or .pgf"));
  std::vector<TableRow> rows{attention_row(1, 3, 3, 0), attention_row(2, 15, 15, 1)};
  const std::string pgf = render_plot(rows, "t_1 & 100%", PlotFormat::pgf).text;
  CHECK(pgf.find("\\begin{pgfpicture}") != std::string::npos);
  CHECK(pgf.find("\\end{pgfpicture}%\n") != std::string::npos);
  CHECK(pgf.rfind("% t_1 & 100%", 0) == 0);                  // the title: the file's first comment line
  CHECK(pgf.find("t\\_1 \\& 100\\%") == std::string::npos);  // no longer drawn (a paper's caption is its own)
  CHECK(count(pgf, "\\begin{pgfscope}") == count(pgf, "\\end{pgfscope}"));
}
