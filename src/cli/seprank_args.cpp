// netpoly seprank: its command-line options (the work is run_seprank,
// src/commands/seprank_command.cpp). The analysis options' flags are made from the
// one option table (netpoly/options.hpp); only what is the command line's
// own (the model, outputs, partitions, --json, --templates-file) is declared here.
#include "setup.hpp"
#include "netpoly/options.hpp"

namespace netpoly::cli {

// One flag per analysis option the CLI takes: --NAME VALUE, or for a flag
// --NAME (default off) / --no-NAME (default on). The given ones are kept as
// (name, text) for run_seprank, which checks them through the table.
std::function<std::vector<std::pair<std::string, std::string>>()> add_analysis_flags(CLI::App* s, unsigned scope) {
  auto given = std::make_shared<std::vector<std::pair<std::string, CLI::Option*>>>();
  auto texts = std::make_shared<std::map<std::string, std::string>>();
  for (const OptionSpec& o : analysis_options()) {
    if (!(o.scope & scope)) continue;
    const std::string flag = option_spelling(o, Spelling::cli);
    const std::string help = o.help_for(scope) + " (default: " + o.default_for(scope) + ")";
    if (o.type == OptionType::flag) {
      const bool on = o.get(SepOptions{}).get<bool>();
      CLI::Option* f = s->add_flag(on ? "--no-" + flag.substr(2) : flag, on ? "turn off: " + help : help);
      given->emplace_back(o.name, f);
      (*texts)[o.name] = on ? "false" : "true";
    } else {
      static const std::map<OptionType, std::string> names = {
          {OptionType::count, "N"},      {OptionType::seconds, "SECONDS"}, {OptionType::real, "X"},
          {OptionType::seed, "S"},       {OptionType::prime, "P"},         {OptionType::methods, "LIST"},
          {OptionType::memory, "SIZE"},  {OptionType::templates, "M"},   {OptionType::share, "I/N"}};
      CLI::Option* f = s->add_option(flag, (*texts)[o.name], help)->type_name(names.at(o.type));
      given->emplace_back(o.name, f);
    }
  }
  return [given, texts] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, opt] : *given)
      if (opt->count() > 0) out.emplace_back(name, (*texts)[name]);
    return out;
  };
}

void setup_seprank(CLI::App& app) {
  auto o = std::make_shared<SeprankOptions>();
  auto* s = app.add_subcommand("seprank", "bracket the separation rank sep(y; A, B) of network outputs");
  s->add_option("model", o->model, "model file (- = stdin); with --merge, the shards' model: their layout is recomputed from it");
  s->add_option("--output", o->output, "one output entry TOKEN,CHANNEL");
  s->add_flag("--all", o->all, "every output entry (default: the model's output, else all)");
  s->add_option("--partition", o->partitions,
                "half | interleaved | A=0,2 (tokens) | A=x0_1,x1_0 (variables); repeatable (default: half)");
  s->add_flag("--all-balanced", o->all_balanced, "every balanced partition, each unordered pair once");
  s->add_flag("--all-balanced-entries", o->all_balanced_entries,
              "every balanced partition of the N x d entries (not only of the tokens), each unordered pair once");
  s->add_flag("--json", o->json, "machine-readable output");
  s->add_option("--templates-file", o->templates_file, "grid: JSON file {\"templates\": [[...], ...]} (--templates as rows)");
  s->add_option("--merge", o->merge, "sum the shards of --blocks runs into the bracket (give the model to recompute their layout and caps)")->expected(1, -1);
  s->add_option("-o,--out", o->out, "--blocks: the shard file (rewritten after each round); --merge: the bracket");
  auto given = add_analysis_flags(s);
  s->callback([o, given]() {
    o->options = given();
    run_seprank(*o);
  });
}

}  // namespace netpoly::cli
