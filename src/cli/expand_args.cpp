// netpoly expand: its command-line options (the work is run_expand, src/commands/expand_command.cpp).
#include "setup.hpp"

namespace netpoly::cli {

void setup_expand(CLI::App& app) {
  auto o = std::make_shared<ExpandOptions>();
  auto* s = app.add_subcommand("expand", "expand network outputs into exact polynomials");
  s->add_option("model", o->model, "model file (- = stdin)")->required();
  s->add_option("--output", o->output, "one output entry TOKEN,CHANNEL");
  s->add_flag("--all", o->all, "every output entry (default: the model's output, else all)");
  s->add_flag("--stats", o->stats, "statistics only, no polynomial");
  s->add_flag("--estimate", o->estimate,
              "the estimate only (terms, degree, memory, seconds; what the limits are checked against), no expansion");
  s->add_option("--format", o->format, "text|json|sympy|singular|latex")->capture_default_str();
  s->add_option("--modulus", o->modulus_text, "expand mod this prime instead of over Q");
  s->add_flag("--json", o->json, "machine-readable output");
  // The run limits (--max-terms, --threads, --max-memory, --budget), from the option table (scope kExpand).
  auto limits = add_analysis_flags(s, kExpand);
  s->callback([o, limits]() {
    o->limits = limits();
    run_expand(*o);
  });
}

}  // namespace netpoly::cli
