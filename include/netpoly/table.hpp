// Tables of measured separation ranks next to every bound the seeds state
// (netpoly table). A sweep is a list of configurations (shape x seed) in a
// fixed order; each finished row is appended to a journal (FILE.jsonl) and the
// table FILE is re-rendered atomically, so an interrupted run keeps every
// finished row and --resume skips them.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/bounds.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly {

// Internal types (src/runtime/), named only by functions the library calls itself.

// The limits of a sweep, the CLI's (--seeds, the lists' values) and a file's
// alike: a sweep larger than kMaxSweepRows configurations is refused before
// any is made (check_sweep_size).
inline constexpr std::uint64_t kMaxSweepValue = 999'999'999;  // a list value (parse_list: 9 digits)
inline constexpr std::uint64_t kMaxSweepSeeds = 10'000;
inline constexpr std::size_t kMaxSweepRows = 1'000'000;
inline constexpr std::uint64_t kMaxSweepDepth = 64, kMaxSweepWidth = 4096;  // --max-depth, --max-width
inline constexpr std::int64_t kMaxWeightRange = std::int64_t(1) << 40;      // --range

// A --param-budget value: decimal digits of an integer in [1, 2^62].
bool is_param_budget(const std::string& b);

struct SweepSpec {
  Arch arch = Arch::attention;
  // degrees: of the product or attention blocks; empty: the architecture's
  // default (product 2, attention 3 = LV's attention)
  std::vector<std::uint64_t> layers{1}, widths{2}, heads{1}, tokens{2}, degrees;
  bool residual = false;
  std::uint64_t seeds = 1;       // seeds 1..seeds
  std::int64_t range = 0;        // weights in [-range, range]; 0: the distribution's default
  WeightDist weights = WeightDist::generic;  // generic rows are checked against a second draw
  // Equal-budget comparison (table --param-budget): when `budgets` is set, the
  // configurations are, for each budget, each of `archs` and each depth up to
  // max_depth, the widest width within the budget (per heads value for
  // attention, per degree for product; at most max_width), instead of the
  // lists above.
  std::vector<Arch> archs;
  std::vector<std::string> budgets;  // decimal parameter counts
  std::uint64_t max_depth = 6, max_width = 16;
  // How the budget counts a shape's parameters (--param-count; bounds.hpp):
  // recorded in sweep_json(), so rows counted under two models never merge.
  ParamCount param_count = ParamCount::netpoly;
  std::string partition = "half";
  // methods, budget (seconds), max_terms; a row's black-box stops at 1,024
  // points per block (seprank's default refines further), so a sweep's rows
  // keep their cost.
  SepOptions sep = [] {
    SepOptions s;
    s.max_points = 1024;
    return s;
  }();
  // Everything besides the shape and seed that can change a row's values:
  // weight range, partition, output entry, methods, budget, max_terms. Rows
  // keep it, so a --resume with other options is refused rather than reusing
  // values measured under them.
  nlohmann::json row_options() const;
  // The whole sweep (row_options and every list): a --merge joins only rows of
  // one sweep and knows from it which rows an unsharded run has.
  nlohmann::json sweep_json() const;
  // Reads sweep_json() back, every field checked as the CLI checks its
  // options (an InputError naming `source` and the JSON path under path).
  static SweepSpec from_sweep_json(const nlohmann::json& j);
  static SweepSpec from_sweep_json(const nlohmann::json& j, const std::string& source, const std::string& path);
};

// InputError when the sweep has more than kMaxSweepRows configurations (an
// upper estimate from the lists' lengths, computed without making them).
void check_sweep_size(const SweepSpec& s);

// The title an unsharded run of the sweep gives its table.
std::string sweep_title(const SweepSpec& s);

// The first option that differs between two row_options() objects, as
// "--partition half there, A=0 in this run" (`here` names the second); "" when they agree.
std::string options_difference(const nlohmann::json& kept, const nlohmann::json& now,
                               const std::string& here = "in this run");

struct SweepConfig {
  std::size_t index = 0;  // position in the full sweep
  NetworkShape params;
  std::uint64_t seed = 1;
  std::string budget;         // the parameter budget of an equal-budget row ("" otherwise)
  std::string key() const;    // stable identity, e.g. "attention L=2 d=4 H=2 N=4 seed=1" ("B=48 " first)
};

// The configurations of an equal-budget sweep (s.budgets set), budget by budget,
// architecture by architecture, depth ascending (src/tables/budget.cpp).
std::vector<SweepConfig> budget_configs(const SweepSpec& s);

// Every valid configuration in sweep order (layers, width, heads, tokens,
// degree, seed — outermost first). Invalid shapes (H not dividing d) are skipped.
std::vector<SweepConfig> sweep_configs(const SweepSpec& s);

struct BoundCell {
  std::string id;
  std::string kind;        // upper | lower | asymptotic order | degree
  std::string value;       // display text (integer or 3^x)
  std::optional<std::string> exact;  // decimal integer when known
  double log3 = 0;
  bool in_regime = false, defined = true;
  bool violated = false;   // a certified measurement contradicts this bound
};

// A measured configuration: its bracket (status error when it could not be
// measured; lower.method then says why) and every bound next to it.
struct TableRow : Bracket {
  SweepConfig config;
  // Generic weights: the same shape measured with a second independent draw.
  std::optional<Bracket> second;
  std::string version;  // netpoly_build() of the netpoly that measured it
  // Derived by judge_row from the shape and the measurements, never trusted
  // from a file: the parameter count, the bound cells (the registry's, with
  // their violation marks), and whether the row is degenerate (y[0][0]
  // identically 0, or the two draws' certified brackets do not meet).
  std::string params;
  std::string params_text;  // equal-budget rows: the count written out under the sweep's model
  std::vector<BoundCell> bounds;
  bool degenerate = false;
  std::string degenerate_why;
  // A row whose bracket stays open: what stopped it (a method skipped for the
  // budget, the memory or the size; the black-box at its points cap) and the
  // flag that lifts it, from the analysis's notes ("" when closed).
  std::string stop;
  double seconds = 0;  // kept out of md/csv/latex so reruns compare byte for byte
  nlohmann::json options = nullptr;  // SweepSpec::row_options() of the run that measured it
  nlohmann::json sweep = nullptr;    // SweepSpec::sweep_json() of that run
  std::string second_draw_text() const;  // the second draw's bracket as text ("" without one)
  nlohmann::json to_json() const;
  // Reads to_json() back, every field checked strictly: an InputError naming
  // `source` (a file) and the JSON path under path.
  static TableRow from_json(const nlohmann::json& j);
  static TableRow from_json(const nlohmann::json& j, const std::string& source, const std::string& path);
};

// Measures one configuration (both draws) and judges it (judge_row).
TableRow measure_row(const SweepConfig& c, const SweepSpec& s);

// The one code path every row goes through, measured here or read back by a
// --merge or --resume: checks that the measured brackets are consistent
// (lower <= upper, the status their ends give, a second draw exactly when the
// weights are generic, a valid shape) and returns the first inconsistency;
// when there is none ("" returned), derives the parameter count, the bound
// cells, the degenerate mark and the violation marks.
std::string judge_row(TableRow& r);

// Marks each bound cell violated when a certified end contradicts it.
void flag_violations(TableRow& r);

// The shape's parameter count (under a counting model) and bound cells as judge_row derives them.
std::string row_params(const NetworkShape& p, ParamCount model = ParamCount::netpoly);
// The counting model a row's sweep records (netpoly when it records none).
ParamCount row_param_count(const nlohmann::json& sweep);
std::vector<BoundCell> row_bounds(const NetworkShape& p);
nlohmann::json bound_cell_json(const BoundCell& b);

enum class TableFormat { md, csv, latex, json };
TableFormat parse_table_format(const std::string& s);
TableFormat table_format_for(const std::string& path);  // by extension, md by default

// What a rendering shows besides the rows: the bound columns, in this order
// (ids of the registry; empty: every bound of the rows, in registry order).
// columns: the md and LaTeX forms' columns before the bounds, in this order
// (names of table_columns; empty: the shape's, params, sep, status and the
// second draw). CSV and JSON are data and keep every field.
// By default (both empty) the md and LaTeX forms show what a paper shows:
// the shape's columns that vary between rows, sep (right-aligned) and its
// status (2nd draw when a row is degenerate), and the upper and lower bounds
// in regime for some row; `--columns all` / `--bounds all` keep every column.
struct TableView {
  std::vector<std::string> bounds;
  std::vector<std::string> columns;
  bool all_bounds = false, all_columns = false;
};

// A sweep as every front end asks for it (the CLI's `table` flags, Python's
// netpoly.table keywords): the lists as text ("1..3", "2,4"), and the rows'
// analysis options and run limits through the option table (kTable).
// sweep_spec checks each field as the command checks its flags (InputError
// naming the flag: Python's messages rename them).
struct SweepRequest {
  std::string arch = "attention";  // a list with param_budget
  std::string layers = "1", width = "2", heads = "1", tokens, degree;  // tokens: 2 (1 for product); degree: the arch's
  bool residual = false;
  std::uint64_t seeds = 1;
  std::int64_t range = 0;           // 0: the weight distribution's default
  std::string weights = "generic";  // small | wide | generic
  std::string partition = "half";
  std::string methods;
  std::string param_budget, param_count;        // equal budgets: "32,48", how parameters count
  std::uint64_t max_depth = 6, max_width = 16;  // equal budgets: the shapes tried
  // The option table's kTable options given (max_points, budget, max_terms,
  // max_memory, threads), (name, text); or `sep` set directly (Python).
  std::vector<std::pair<std::string, std::string>> options;
};
// The sweep of a request; its rows' SepOptions start from `sep` (tables'
// max_points 1,024 and no budget unless given; 30 s a method with equal budgets).
SweepSpec sweep_spec(const SweepRequest& r, const SepOptions& sep = SweepSpec{}.sep);
// --bounds and --columns of a table of these shapes (equal-budget tables have
// fixed columns): the view, checked (InputError naming the flag).
TableView table_view(const std::string& bounds, const std::string& columns, const std::vector<NetworkShape>& shapes,
                     bool equal_budgets);

// Parses --bounds "LV Thm 3,NB Thm 5.5": ids of the registry, in the order
// given, without repeats. Throws InputError naming an unknown id and listing
// the registry's ids.
std::vector<std::string> parse_bound_ids(const std::string& list);
// Throws InputError when a chosen id applies to none of the shapes (naming
// it and the ids that apply).
void check_bound_ids_apply(const std::vector<std::string>& ids, const std::vector<NetworkShape>& shapes);

// Parses --columns "L,d,H,sep,status": names of the columns a sweep table of
// these shapes has (L, d, H, N, k, seed, params, sep, status, second_draw),
// in the order given, without repeats. Throws InputError naming an unknown
// column and listing the table's.
std::vector<std::string> parse_table_columns(const std::string& list, const std::vector<NetworkShape>& shapes);

// Renders rows (sorted by config index) in a format. JSON has every row
// whole (the view does not apply).
std::string render_table(const std::vector<TableRow>& rows, TableFormat f, const std::string& title,
                         const TableView& view = {});

// Plots: log3 sep against depth (one series per shape but the depth, the
// bound curves of the first seed's rows, one dash pattern per bound); for
// equal-budget rows, log3 sep against parameters, one curve per architecture,
// its smallest upper bound dashed. SVG, PDF (one page, Helvetica) or PGF
// (a pgfpicture for \input, needing \usepackage{pgf}), by the file's extension.
enum class PlotFormat { svg, pdf, pgf };
PlotFormat plot_format_for(const std::string& path);  // throws InputError for another extension
struct Plot {
  std::string text;  // the file's content
  // The curves (and measured brackets) that leave the plot's y range, as
  // "LV Thm 4 (d=2 H=1 N=4): above log3 sep = 14"; the plot says so too.
  std::vector<std::string> clipped;
};
Plot render_plot(const std::vector<TableRow>& rows, const std::string& title, PlotFormat f, const TableView& view = {});
// The bound curves render_plot draws for these (non-budget) rows, in legend
// order: the view's, or by default those in regime and above 1 for some row,
// at most max(2, 6 - series) of them (Rows.plot asks this function).
std::vector<std::string> plot_bounds(const std::vector<TableRow>& rows, const TableView& view = {});
// Writes the plot atomically and names its clipped curves on stderr.
void write_plot(const std::string& path, const std::vector<TableRow>& rows, const std::string& title,
                const TableView& view);

// The equal-budget forms (src/tables/budget.cpp): one row per shape with its
// budget and architecture, the best-measured shape of each (budget, arch,
// depth) and of each (budget, arch) marked, the bounds in one cell (or, with
// a view's bounds, one column each).
std::string render_budget_table(const std::vector<TableRow>& rows, TableFormat f, const std::string& title,
                                const TableView& view);
Plot render_budget_plot(const std::vector<TableRow>& rows, const std::string& title, PlotFormat f,
                        const TableView& view);

struct SweepRunOptions {
  std::string out;               // table file; its journal is out + ".jsonl"
  TableFormat format = TableFormat::md;
  bool resume = false;
  unsigned jobs = 1;
  std::size_t shard = 1, shards = 1;  // run only configs with index % shards == shard - 1
  std::string plot;              // optional plot path (.svg, .pdf or .pgf)
  TableView view;                // the bound columns of the table and the plot
  std::function<void(std::size_t done, std::size_t total, const std::string& what)> progress;
};

// Runs the sweep; returns the rows of this shard (finished and resumed).
std::vector<TableRow> run_sweep(const SweepSpec& s, const SweepRunOptions& o);

// Reads rows from a JSON table or a journal (FILE.jsonl, or FILE's journal).
// A journal's torn last line (a killed run) is skipped; any other line that
// is not a row is an InputError naming the file and line.
std::vector<TableRow> read_rows(const std::string& path);

// --merge: joins the rows of shard tables of one sweep (src/tables/merge.cpp).
// Every row is judged like a fresh one (judge_row); refused with an
// InputError naming the file and the row: a row of another sweep or another
// netpoly build, a row outside the sweep, an inconsistent row, two different
// rows for one configuration, cells the registry does not give, and a sweep
// with rows missing from every file.
struct Merged {
  std::vector<TableRow> rows;  // in the unsharded run's order
  SweepSpec spec;
  std::string title;           // the unsharded run's title
  std::string version;         // the rows' netpoly build
};
Merged merge_tables(const std::vector<std::string>& files);
// The title `netpoly table` gives these rows: their sweeps' union's (as
// --merge titles it) when they are rows of one family of sweeps, else
// "netpoly table" (Python's Rows.to_markdown / to_latex by default).
std::string rows_title(const std::vector<TableRow>& rows);

}  // namespace netpoly
