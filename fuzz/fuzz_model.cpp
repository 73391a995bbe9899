// libFuzzer target: fuzz::model_input (fuzz_inputs.hpp says what is checked).
#include <cstdio>

#include "fuzz_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    netpoly::fuzz::model_input(data, size);
  } catch (const netpoly::fuzz::CheckFailed& e) {
    std::fprintf(stderr, "fuzz_model: check failed: %s\n", e.what());
    __builtin_trap();
  }
  return 0;
}
