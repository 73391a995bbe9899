// netpoly eval: its command-line options (the work is run_eval, src/commands/eval_command.cpp).
#include "setup.hpp"

namespace netpoly::cli {

void setup_eval(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  auto* s = app.add_subcommand("eval", "the network's values at points, exactly (or mod a prime)");
  s->add_option("model", o->model, "model file (- = stdin)")->required();
  s->add_option("--points", o->points,
                "JSON file of inputs: a list of N x d matrices (or {\"points\": [...]}), exact numbers as the model "
                "format writes weights (- = stdin)")
      ->required();
  s->add_option("--modulus", o->modulus_text, "the values mod this prime instead of exactly");
  s->add_flag("--json", o->json, "machine-readable output (netpoly-values/1)");
  s->callback([o]() { run_eval(*o); });
}

}  // namespace netpoly::cli
