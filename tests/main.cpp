#define CATCH_CONFIG_RUNNER
#include <flint/flint.h>

#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  int r = Catch::Session().run(argc, argv);
  flint_cleanup_master();  // keeps leak checkers quiet
  return r;
}
