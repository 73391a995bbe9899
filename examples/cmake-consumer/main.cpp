// A small program linking netpoly: it builds the attention network that
// `netpoly make attention --layers 1 --width 2 --heads 1 --tokens 4 --seed 1`
// writes, brackets sep(y[0][0]; half) as `netpoly seprank MODEL --seed 1`
// does, and prints the bracket. Only the public headers (include/netpoly/).
#include <exception>
#include <iostream>

#include "netpoly/error.hpp"
#include "netpoly/options.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/version.hpp"

int main() try {
  netpoly::NetworkShape shape;
  shape.arch = netpoly::Arch::attention;
  shape.layers = 1;
  shape.width = 2;
  shape.heads = 1;
  shape.tokens = 4;
  const netpoly::Model m = netpoly::make_preset(netpoly::preset_options(shape, /*seed=*/1));

  // The analysis options through the option table, as the CLI's flags give them.
  netpoly::SepOptions o;
  const netpoly::OptionSpec& seed = *netpoly::find_option("seed");
  netpoly::set_option(o, seed, netpoly::option_from_text(seed, "1"), netpoly::Spelling::cli);

  const std::vector<netpoly::SepResult> rs =
      netpoly::analyse_network(m, {netpoly::Entry{0, 0}}, {netpoly::parse_partition("half", m.tokens, m.width)}, o);
  const netpoly::SepResult& r = rs.at(0);
  std::cout << "netpoly " << netpoly::netpoly_build() << "\n";
  std::cout << "sep(" << r.output.name() << "; " << r.partition.label() << ") of " << m.name << ": "
            << r.compact_text() << " (" << netpoly::status_name(r.status) << ")\n";
  std::cout << "lower " << (r.lower.value ? std::to_string(*r.lower.value) : "-") << " upper "
            << (r.upper.value ? std::to_string(*r.upper.value) : "-") << "\n";
  return 0;
} catch (const netpoly::Error& e) {
  std::cerr << "error: " << e.what() << "\n";
  return static_cast<int>(e.code());
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << "\n";
  return 70;
}
