# CLI tests (see cli_tests.cmake)
