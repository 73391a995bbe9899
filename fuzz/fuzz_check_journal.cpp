// libFuzzer target: fuzz_journal::check_journal_input (fuzz_check_journal.hpp
// says what is checked): bytes as a check journal, read and judged as
// `check --resume` does.
#include <cstdio>

#include "fuzz_check_journal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    netpoly::fuzz_journal::check_journal_input(data, size);
  } catch (const netpoly::fuzz_journal::CheckFailed& e) {
    std::fprintf(stderr, "fuzz_check_journal: check failed: %s\n", e.what());
    __builtin_trap();
  }
  return 0;
}
