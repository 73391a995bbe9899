// netpoly table: its command-line options (the work is run_table, src/commands/table_command.cpp).
#include "setup.hpp"
#include "netpoly/options.hpp"

namespace netpoly::cli {

void setup_table(CLI::App& app) {
  auto o = std::make_shared<TableOptions>();
  auto* s = app.add_subcommand("table", "tables of measured separation ranks against the seeds' bounds");
  s->add_option("--arch", o->arch, "attention | mixer | mlp | product (a list with --param-budget)")
      ->capture_default_str();
  s->add_option("--layers", o->layers, "depths, e.g. 1..3")->capture_default_str();
  s->add_option("--width", o->width, "widths, e.g. 2,4")->capture_default_str();
  s->add_option("--heads", o->heads, "heads (attention)")->capture_default_str();
  s->add_option("--tokens", o->tokens, "tokens (default 2; 1 for product)");
  s->add_option("--degree", o->degree, "block degrees k (product: default 2; attention: default 3, LV's attention)");
  s->add_flag("--residual", o->residual, "residual connections");
  s->add_option("--seeds", o->seeds, "seeds 1..S per shape")->capture_default_str();
  s->add_option("--weights", o->weights,
                "generic (default: nonzero in [-2^10, 2^10], checked against a second draw) | wide | small")
      ->capture_default_str();
  s->add_option("--range", o->range, "R: weights in [-R, R] (default 2^10, 100 or 3 by --weights)");
  s->add_option("--partition", o->partition, "partition (see seprank)")->capture_default_str();
  s->add_option("--methods", o->methods, "separation-rank methods (default: what is affordable)");
  // The rows' analysis options and the run limits, from the option table
  // (--max-points, --budget, --max-terms, --max-memory, --threads).
  auto given = add_analysis_flags(s, kTable);
  s->add_option("--format", o->format, "md | csv | latex | json (default: from the file extension)");
  s->add_option("-o,--output", o->out, "table file (rows are written as they finish; journal FILE.jsonl)");
  s->add_flag("--resume", o->resume, "skip rows already in FILE's journal");
  s->add_option("--jobs", o->jobs, "configurations measured in parallel")->capture_default_str();
  s->add_option("--shard", o->shard, "K/N: run only the K-th of N slices of the sweep")->capture_default_str();
  s->add_option("--merge", o->merge, "join shard tables (their .json or journals) into -o OUT");
  s->add_option("--plot", o->plot,
                "also draw log3 sep against depth (against width when one depth is swept) with the bound curves (.svg, .pdf or .pgf, by the extension)");
  s->add_option("--bounds", o->bounds,
                "the bound columns (and plotted bounds), e.g. \"LV Thm 3,NB Thm 5.5\", or all (default: the upper and "
                "lower bounds in regime for some row)");
  s->add_option("--columns", o->columns,
                "the md and LaTeX columns before the bounds, in this order, e.g. \"L,d,H,sep\" (of L, d, H, N, k, "
                "seed, params, sep, status, second_draw), or all (default: the shape's columns that vary, sep, status)");
  s->add_option("--param-budget", o->param_budget,
                "B[,B2,...]: compare --arch a,b,... at equal parameter budgets (every depth, widest shapes)");
  s->add_option("--param-count", o->param_count,
                "equal budgets: how a shape's parameters are counted: netpoly (the presets' weights, default), "
                "ao-eq4 (AO eq. (4): k matrices a degree-k block), ao-eq2 (AO eq. (2): k - 1), lv (LV eq. (2): "
                "12 d^2 a degree-3 attention layer)");
  s->add_option("--max-depth", o->max_depth, "equal budgets: deepest shape tried")->capture_default_str();
  s->add_option("--max-width", o->max_width, "equal budgets: widest shape tried")->capture_default_str();
  s->callback([o, given]() {
    o->options = given();
    run_table(*o);
  });
}

}  // namespace netpoly::cli
