#include "commands.hpp"
namespace netpoly::cli {
void setup_bounds(CLI::App&) {}
}  // namespace netpoly::cli
