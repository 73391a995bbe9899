// netpoly make: its command-line options (the work is run_make, src/commands/make_command.cpp).
#include "setup.hpp"

namespace netpoly::cli {

void setup_make(CLI::App& app) {
  auto o = std::make_shared<MakeOptions>();
  auto* make = app.add_subcommand("make", "write a preset model with random integer weights");
  struct Preset {
    const char* name;
    const char* help;
  };
  for (Preset a : {Preset{"attention", "softmax-free multi-head self-attention (LV)"},
                 Preset{"mixer", "MLP-Mixer with sigma2: token and channel mixing alternate (NB Def 3.2)"},
                 Preset{"mlp", "fully connected sigma2 network, one token (NB Def 3.1)"},
                 Preset{"product", "degree-k product blocks (AO)"}}) {
    auto* s = make->add_subcommand(a.name, a.help);
    std::string arch = a.name;
    s->add_option("--layers", o->preset.shape.layers, "depth")->required();
    s->add_option("--width", o->preset.shape.width, "width d")->required();
    if (arch == "attention") s->add_option("--heads", o->preset.shape.heads, "heads H (divides d)")->required();
    if (arch != "mlp") {
      auto* t = s->add_option("--tokens", o->preset.shape.tokens, "tokens N");
      if (arch != "product") t->required();
    }
    if (arch == "product") s->add_option("--degree", o->preset.shape.degree, "degree k of each block")->required();
    if (arch == "attention")
      s->add_option("--degree", o->preset.shape.degree,
                    "degree k of each attention block (AO eq. (2); default 3: LV's attention)");
    if (arch != "product") s->add_flag("--residual", o->preset.shape.residual, "add residual connections");
    if (arch == "attention")
      s->add_flag("--causal", o->preset.causal,
                  "causal attention (decoder-only, LV §5): token i reads tokens 0..i; the same weights");
    if (arch == "mixer" || arch == "mlp") {
      s->add_flag("--permuted", o->preset.permuted,
                  "NB eq. (3): a random permutation before each mixing layer and in each residual");
      s->add_option("--perm-sum", o->preset.perm_sum,
                    "with --permuted: each mixing layer reads a sum of S random permutations (NB Remark 3.2, "
                    "ViP-style; default 1)");
      s->add_option("--expansion", o->preset.expansion,
                    "WS's expansion factor G: every mixing layer is a two-layer MLP W2 sigma2(W X) of hidden width "
                    "G N (tokens) or G d (channels) (default: NB's one-matrix layers)")
          ->check(CLI::Range(1, 64));
    }
    s->add_option("--seed", o->seed, "seed (0..2^64-1) of the SplitMix64 weight generator (default 1)");
    s->add_option("--weights", o->weights, "small (integers in [-R, R], default) | wide (nonzero, R = 100) | "
                                           "generic (nonzero, R = 2^10: the architecture's generic rank)");
    s->add_option("--range", o->preset.range, "R: weights in [-R, R] (default 3, 100 or 2^10 by --weights)");
    s->add_option("-o,--output", o->out, "output file (- = stdout)");
    s->callback([o, arch, s]() {
      o->preset.shape.arch = parse_arch(arch);
      // mlp has no --tokens option (count() would throw OptionNotFound).
      o->tokens_given = arch != "mlp" && s->count("--tokens") > 0;
      run_make(*o);
    });
  }
  auto* w = make->add_subcommand("lv-witness",
                                 "LV Lemma 6's witness: the weight assignment of App. B.3 (Gaussian weights, repaired "
                                 "reading: docs/findings.md) with output (0, 0)");
  w->add_option("--layers", o->witness.layers, "depth L >= 2")->required();
  w->add_option("--width", o->witness.width, "width d")->required();
  w->add_option("--heads", o->witness.heads, "heads H (d_a = d/H odd, >= 3)")->required();
  w->add_option("--tokens", o->witness.tokens, "tokens N (even)")->required();
  w->add_option("--omega", o->witness.omega, "Ω of V's rows Ω^q / ||Ω^q|| (default 2)");
  w->add_flag("--printed-last", o->witness.printed_last,
              "the last layer as App. B.3 prints it (W^V,L = i e_{d_a}, W^O,L the segment embedding); output (0, 0) "
              "then reads head 0 only");
  w->add_flag("--rational-v", o->witness.rational_v,
              "V with rational unit rows (stereographic, seeded) instead of the paper's Ω rows: no square roots");
  w->add_option("--templates", o->templates, "also write the M + 1 template vectors (JSON, entries a/sqrt(n)) to FILE");
  w->add_option("-o,--output", o->out, "output file (- = stdout)");
  w->callback([o]() {
    o->lv_witness = true;
    run_make(*o);
  });
  // Not an architecture (`make transformer`), or none: say which words are.
  make->require_subcommand(0, 1);
  make->allow_extras();
  make->callback([make]() {
    if (!make->get_subcommands().empty()) return;  // the architecture's own callback ran
    const auto rest = make->remaining();
    const std::string known = "attention, mixer, mlp, product or lv-witness";
    if (rest.empty()) throw InputError("make: name an architecture (" + known + ")");
    throw InputError("make: unknown architecture '" + rest[0].substr(0, 40) + "' (expected " + known + ")");
  });
}

}  // namespace netpoly::cli
