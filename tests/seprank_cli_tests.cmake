# CLI tests of `netpoly seprank` (included from tests/CMakeLists.txt).
# A small attention model is made once (fixture) and analysed by the others.
set(SEPRANK_MODEL ${CMAKE_CURRENT_BINARY_DIR}/seprank-attention-L1-d2-N4.json)
set(SEPRANK_MIXER ${PROJECT_SOURCE_DIR}/examples/mixer-partition-dependence.json)

add_test(NAME seprank_cli_make
  COMMAND netpoly make attention --layers 1 --width 2 --heads 1 --tokens 4 --seed 1 -o ${SEPRANK_MODEL})
set_tests_properties(seprank_cli_make PROPERTIES FIXTURES_SETUP seprank_model)

# text output: the default methods close the bracket (group then exact)
add_test(NAME seprank_cli_text COMMAND netpoly seprank ${SEPRANK_MODEL})
set_tests_properties(seprank_cli_text PROPERTIES FIXTURES_REQUIRED seprank_model
  PASS_REGULAR_EXPRESSION "y0_0 +A=\\{0,1\\} +[0-9]+ .*exact"
  FAIL_REGULAR_EXPRESSION "bracket|probabilistic")

# --json parses and the result is exact
add_test(NAME seprank_cli_json
  COMMAND sh -c "$<TARGET_FILE:netpoly> seprank '${SEPRANK_MODEL}' --json --all-balanced --methods group,exact,modular,blackbox | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d[\"results\"]) == 3; assert all(r[\"status\"] == \"exact\" for r in d[\"results\"]); assert d[\"results\"][0][\"status\"] == \"exact\"; assert d[\"sup\"][\"status\"] == \"exact\"'")
set_tests_properties(seprank_cli_json PROPERTIES FIXTURES_REQUIRED seprank_model)

# usage errors exit with 2 and name the offending text (sh checks both: a
# PASS_REGULAR_EXPRESSION would make ctest ignore the exit code)
macro(seprank_cli_usage_error name args needle)
  add_test(NAME ${name}
    COMMAND sh -c "out=$($<TARGET_FILE:netpoly> seprank '${SEPRANK_MODEL}' ${args} 2>&1); code=$?; echo \"$out\"; echo \"exit code $code\"; test $code -eq 2 && echo \"$out\" | grep -qF -- '${needle}'")
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED seprank_model)
endmacro()
seprank_cli_usage_error(seprank_cli_bad_partition "--partition A=0,7" "A=0,7")
seprank_cli_usage_error(seprank_cli_bad_partition_garbage "--partition halfway" "halfway")
seprank_cli_usage_error(seprank_cli_bad_partition_duplicate "--partition A=1,1" "listed twice")
seprank_cli_usage_error(seprank_cli_bad_methods "--methods group,exakt" "exakt")

# examples/mixer-partition-dependence.json: sep 105, 105, 97 over the balanced partitions
add_test(NAME seprank_cli_example_mixer
  COMMAND netpoly seprank ${SEPRANK_MIXER} --all-balanced --methods exact)
set_tests_properties(seprank_cli_example_mixer PROPERTIES
  PASS_REGULAR_EXPRESSION "sup-sep \\[105, 105\\] \\(exact\\), inf-sep \\[97, 97\\] \\(exact\\)")
