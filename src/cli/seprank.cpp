// netpoly seprank: its command-line options (the work is run_seprank, src/commands/seprank.cpp).
#include "commands.hpp"

namespace netpoly::cli {

void setup_seprank(CLI::App& app) {
  auto o = std::make_shared<SeprankOptions>();
  auto* s = app.add_subcommand("seprank", "bracket the separation rank sep(y; A, B) of network outputs");
  s->add_option("model", o->model, "model file (- = stdin)")->required();
  s->add_option("--output", o->output, "one output entry TOKEN,CHANNEL");
  s->add_flag("--all", o->all, "every output entry (default: the model's output, else all)");
  s->add_option("--partition", o->partitions,
                "half | interleaved | A=0,2 (tokens) | A=x0_1,x1_0 (variables); repeatable (default: half)");
  s->add_flag("--all-balanced", o->all_balanced, "every balanced partition, each unordered pair once");
  s->add_option("--methods", o->methods,
                "comma list of " + method_list(",") +
                    " (default: what is affordable, stopping when the bracket closes)");
  s->add_flag("--json", o->json, "machine-readable output");
  s->add_option("--max-terms", o->sep.max_terms, "refuse expansions estimated larger than this")->capture_default_str();
  s->add_option("--budget", o->sep.budget,
                "seconds: skip methods estimated to exceed what is left of it, stop (exit 3) when it runs out "
                "(default: none, and the black-box refines while its next round is estimated within 600 s)");
  s->add_option("--max-memory", o->max_memory, "stop (exit 3, printing what finished) beyond this resident size, e.g. 8G (default: half the machine's memory)");
  s->add_option("--seed", o->seed,
                "seed (0..2^64-1) for the black-box's random prime and points, projections and templates "
                "(default: the black-box's seed is drawn at random and printed; the others use 1)");
  s->add_option("--prime", o->prime,
                "prime for modular and grid ranks (default: the first prime > 2^62); given, the black-box uses it "
                "too and then makes no probability statement (default: a random prime in [2^49, 2^50))");
  s->add_option("--templates", o->templates, "grid: templates per token, 1..1024 (default: automatic)");
  s->add_option("--templates-file", o->templates_file, "grid: JSON file {\"templates\": [[...], ...]}");
  s->add_option("--max-points", o->max_points,
                "blackbox: most points per side, 1..2^20 (default: as many as the budget allows, never more than the "
                "best certified upper bound + 1)");
  s->add_flag("!--no-small-prime", o->sep.small_prime_first,
              "blackbox: skip the first phase at a small random prime (its ranks are certified lower bounds and "
              "make sep exact when they meet the upper bound; the default runs it first)");
  s->add_option("--threads", o->threads, "threads for FLINT multiplication (0 = all cores)")->capture_default_str();
  s->add_option("--max-pairs", o->max_pairs, "refuse more (output, partition) pairs than this")->capture_default_str();
  s->callback([o]() { run_seprank(*o); });
}

}  // namespace netpoly::cli
