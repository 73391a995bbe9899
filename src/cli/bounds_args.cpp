// netpoly bounds: its command-line options (the work is run_bounds, src/commands/bounds_command.cpp).
#include "setup.hpp"

namespace netpoly::cli {

void setup_bounds(CLI::App& app) {
  auto o = std::make_shared<BoundsOptions>();
  auto* s = app.add_subcommand("bounds", "the seed papers' separation-rank bounds for one network shape");
  s->add_option("--arch", o->arch, "attention|mixer|mlp|product")->required();
  // "-1" must not wrap around to 2^64 - 1; zero is refused with a clear message by the library.
  const CLI::Validator not_negative(
      [](std::string& v) { return !v.empty() && v[0] == '-' ? std::string("must not be negative") : std::string(); },
      "", "not negative");
  s->add_option("--layers", o->params.layers, "depth L (p in NB)")->required()->check(not_negative);
  s->add_option("--width", o->params.width, "width d (m in NB)")->required()->check(not_negative);
  s->add_option("--heads", o->params.heads, "heads H (divides d for attention; NB's H for mixer/mlp)")
      ->capture_default_str()
      ->check(not_negative);
  s->add_option("--tokens", o->params.tokens, "tokens N (n in NB); required for attention and mixer")
      ->check(not_negative);
  s->add_option("--degree", o->params.degree,
                 "degree k of each block: product (default 2) or attention (default 3: LV's attention)")
      ->check(not_negative);
  s->add_flag("--residual", o->params.residual, "residual connections");
  s->add_flag("--causal", o->causal, "causal attention (decoder-only): refused, with why (no seed bounds it)");
  s->add_flag("--json", o->json, "machine-readable output");
  s->add_option("--max-exact-digits", o->max_exact_digits, "longer integers are given as log3 only")
      ->capture_default_str();
  s->callback([o, s]() {
    o->tokens_given = s->count("--tokens") > 0;
    o->degree_given = s->count("--degree") > 0;
    o->heads_given = s->count("--heads") > 0;
    run_bounds(*o);
  });
}

}  // namespace netpoly::cli
