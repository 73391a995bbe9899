// netpoly jacobian: its command-line options (the work is run_jacobian, src/commands/jacobian_command.cpp).
#include "setup.hpp"

namespace netpoly::cli {

void setup_jacobian(CLI::App& app) {
  auto o = std::make_shared<JacobianOptions>();
  auto* s = app.add_subcommand("jacobian",
                               "the dimension of the function family: rank of the Jacobian of weights -> output "
                               "coefficients, mod a random prime (a certified lower bound)");
  s->add_option("model", o->model, "model file (- = stdin)")->required();
  s->add_option("--output", o->output, "one output entry TOKEN,CHANNEL (default: the model's output, else 0,0)");
  s->add_flag("--all", o->all, "every output entry together");
  s->add_option("--seed", o->seed, "the seed of the prime, weights and points (default: drawn at random)");
  s->add_flag("--json", o->json, "machine-readable output (netpoly-jacobian/1)");
  s->callback([o]() { run_jacobian(*o); });
}

}  // namespace netpoly::cli
