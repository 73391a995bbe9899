// netpoly make attention|mixer|mlp|product …: write a preset model file.
#include <fstream>
#include <iostream>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "runtime/io.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/presets.hpp"

namespace netpoly::cli {

void run_make(const MakeOptions& options) {
  MakeOptions o = options;
  if (o.lv_witness) {
    // Both outputs are built before either is written: bad options change nothing.
    const Model m = make_lv_witness(o.witness);
    const std::string templates = o.templates.empty() ? "" : lv_templates_json(o.witness);
    if (o.out == "-") std::cout << write_model(m);
    else write_file_atomic(o.out, write_model(m));
    if (!o.templates.empty()) write_file_atomic(o.templates, templates);
    return;
  }
  if (o.preset.shape.arch == netpoly::Arch::product && !o.tokens_given) o.preset.shape.tokens = 1;
  if (!o.seed.empty()) o.preset.seed = parse_u64(o.seed, "--seed");
  if (!o.weights.empty()) o.preset.weights = parse_weight_dist(o.weights);
  Model m = make_preset(o.preset);
  std::string text = write_model(m);
  if (o.out == "-") {
    std::cout << text;
    return;
  }
  // A temporary file renamed over FILE: a failed write leaves no half file and no temporary.
  write_file_atomic(o.out, text);
}

}  // namespace netpoly::cli
