#include "commands.hpp"
namespace netpoly::cli {
void setup_seprank(CLI::App&) {}
}  // namespace netpoly::cli
