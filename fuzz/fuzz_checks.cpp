// libFuzzer target: fuzz::checks_input (fuzz_inputs.hpp says what is checked):
// a claim file and a model file beside it, loaded and run.
#include <cstdio>

#include "fuzz_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    netpoly::fuzz::checks_input(data, size);
  } catch (const netpoly::fuzz::CheckFailed& e) {
    std::fprintf(stderr, "fuzz_checks: check failed: %s\n", e.what());
    __builtin_trap();
  }
  return 0;
}
