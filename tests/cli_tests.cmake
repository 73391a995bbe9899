# CLI tests: the netpoly executable run as a user would, with its expected
# output (PASS_REGULAR_EXPRESSION) or its exit code and message (the helper
# script below). Included from tests/CMakeLists.txt.

set(NETPOLY_TEST_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
set(NETPOLY_CLI_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli)
file(MAKE_DIRECTORY ${NETPOLY_CLI_OUT})

# netpoly_expect.cmake: runs CMD (arguments separated by '|'), requires the
# exit code CODE and, if given, the substring EXPECT in stdout + stderr.
# Optional STDIN names a file fed to standard input.
set(NETPOLY_EXPECT_SCRIPT ${CMAKE_CURRENT_BINARY_DIR}/netpoly_expect.cmake)
file(WRITE ${NETPOLY_EXPECT_SCRIPT} [=[
string(REPLACE "|" ";" cmd "${CMD}")
if(DEFINED STDIN)
  execute_process(COMMAND ${cmd} INPUT_FILE "${STDIN}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
else()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
if(NOT "${rc}" STREQUAL "${CODE}")
  # A CI log may keep only the first lines of a long output: what did not
  # pass (a claim's FAIL / INCONCLUSIVE / ERROR line and its indented
  # details, and the last lines, where the summary is) comes first.
  string(REGEX MATCHALL "(FAIL|INCONCLUSIVE|ERROR)[^\n]*(\n    [^\n]*)*" bad "${out}")
  string(REPLACE ";" "\n" bad "${bad}")
  string(LENGTH "${out}" n)
  set(tail "${out}")
  if(n GREATER 3000)
    math(EXPR from "${n} - 3000")
    string(SUBSTRING "${out}" ${from} -1 tail)
  endif()
  message("exit code: ${rc} (expected ${CODE})\nnot passed:\n${bad}\nstderr:\n${err}\nthe end of stdout:\n${tail}\n")
endif()
message("exit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT "${rc}" STREQUAL "${CODE}")
  message(FATAL_ERROR "expected exit code ${CODE}, got ${rc}")
endif()
if(DEFINED EXPECT)
  string(FIND "${out}${err}" "${EXPECT}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "output does not contain: ${EXPECT}")
  endif()
endif()
]=])

# netpoly_expect(NAME CODE EXPECT ARGS...): netpoly ARGS... exits with CODE
# and prints EXPECT (empty: no output check).
function(netpoly_expect name code expect)
  list(JOIN ARGN "|" args)
  set(defs "-DCMD=$<TARGET_FILE:netpoly>|${args}" "-DCODE=${code}")
  if(NOT expect STREQUAL "")
    list(APPEND defs "-DEXPECT=${expect}")
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${defs} -P ${NETPOLY_EXPECT_SCRIPT})
endfunction()

# netpoly_output(NAME REGEX ARGS...): netpoly ARGS... prints a match of REGEX.
function(netpoly_output name regex)
  add_test(NAME ${name} COMMAND netpoly ${ARGN})
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}")
endfunction()

set(EX ${NETPOLY_TEST_DATA}/attention-example.json)

# ---- make
netpoly_output(cli_make_attention "\"format\": \"netpoly-model/1\""
  make attention --layers 1 --width 2 --heads 1 --tokens 2 --seed 1)
netpoly_output(cli_make_attention_name "\"name\": \"attention-L2-d4-H2-N3-res\""
  make attention --layers 2 --width 4 --heads 2 --tokens 3 --residual)
netpoly_output(cli_make_mixer "\"name\": \"mixer-p2-N3-d2\".*\"type\": \"token_mix\".*\"type\": \"channel_mix\""
  make mixer --layers 2 --width 2 --tokens 3)
netpoly_output(cli_make_mlp "\"input\": {\"tokens\": 1, \"width\": 3}"
  make mlp --layers 2 --width 3)
netpoly_output(cli_make_product "\"name\": \"product-k3-L1-d2\".*\"tokens\": 1"
  make product --layers 1 --width 2 --degree 3)
netpoly_expect(cli_make_heads_not_dividing 2 "--heads must divide --width"
  make attention --layers 1 --width 4 --heads 3 --tokens 2)
netpoly_expect(cli_make_unknown_arch 2 "make: unknown architecture 'cnn' (expected attention, mixer, mlp, product or lv-witness)"
  make cnn --layers 1 --width 2)
netpoly_expect(cli_make_no_arch 2 "make: name an architecture (attention, mixer, mlp, product or lv-witness)" make)
# A misspelt flag: the command's flags near it.
netpoly_expect(cli_flag_did_you_mean 2 "--budgte: did you mean --budget?" seprank ${NETPOLY_TEST_DATA}/attention-example.json --budgte 3)
# eval: the format's example at x0 = (1, 2), x1 = (-1, 3), worked by hand in
# test_forward.cpp: y0 = (-19, -55/2), y1 = (-31, -35); a float is refused by its JSON path.
netpoly_expect(cli_eval_example 0 "  -19 -55/2\n  -31 -35" eval ${NETPOLY_TEST_DATA}/attention-example.json
  --points ${NETPOLY_TEST_DATA}/points-example.json)
netpoly_expect(cli_eval_float 2 "points-float.json: $[0][0][1]: expected an exact number" eval
  ${NETPOLY_TEST_DATA}/attention-example.json --points ${NETPOLY_TEST_DATA}/points-float.json)
netpoly_expect(cli_make_missing_option 2 "--tokens" make attention --layers 1 --width 2 --heads 1)
netpoly_expect(cli_make_zero_layers 2 "--layers must be in" make mlp --layers 0 --width 2)

# A generated model file shared by the tests below (fixture).
set(GEN ${NETPOLY_CLI_OUT}/attention-L1-d2-N3-res.json)
add_test(NAME cli_make_to_file COMMAND netpoly make attention --layers 1 --width 2 --heads 1 --tokens 3
  --residual --seed 9 -o ${GEN})
set_tests_properties(cli_make_to_file PROPERTIES FIXTURES_SETUP cli_generated)
netpoly_output(cli_expand_generated "y0_0: terms [0-9]+, degree 3,"
  expand ${GEN} --stats)
set_tests_properties(cli_expand_generated PROPERTIES FIXTURES_REQUIRED cli_generated)

# ---- expand
netpoly_output(cli_expand_stats "y0_0: terms 10, degree 3, token degrees \\[3, 2\\], height 4 bits \\(exact\\)"
  expand ${EX} --stats)
netpoly_output(cli_expand_stats_all "y1_1: terms 10, degree 3, token degrees \\[2, 3\\]"
  expand ${EX} --stats --all)
netpoly_output(cli_expand_mixed_stats "y1_0: terms [0-9]+, degree 12"
  expand ${NETPOLY_TEST_DATA}/mixed.json --stats)
netpoly_output(cli_expand_text
  "13\\*x0_0\\^3 - 17\\*x0_0\\^2\\*x0_1 - 5/2\\*x0_0\\*x0_1\\^2 \\+ 2\\*x0_1\\^3"
  expand ${EX} --output 0,1)
netpoly_output(cli_expand_modulus "6\\*x0_0\\^3 \\+ 4\\*x0_0\\^2\\*x0_1 \\+ x0_0\\*x0_1\\^2"
  expand ${EX} --output 0,1 --modulus 7)
netpoly_output(cli_expand_json "\"token\":0,\"channel\":0,\"terms\":10,\"degree\":3"
  expand ${EX} --json)
netpoly_output(cli_expand_singular "ring r = 0, \\(x0_0, x0_1, x1_0, x1_1\\), dp;"
  expand ${EX} --format singular)
netpoly_output(cli_expand_latex "\\\\frac\\{5\\}\\{2\\}"
  expand ${EX} --output 0,1 --format latex)
add_test(NAME cli_expand_stdin COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:netpoly>|expand|-|--stats"
  -DCODE=0 "-DEXPECT=y0_0: terms 10, degree 3" -DSTDIN=${EX} -P ${NETPOLY_EXPECT_SCRIPT})

# failing cases: exit code 2 (input) or 3 (limit), and the message
# expand --estimate against the expansion's own count (tests/scripts/expand_estimate.sh):
# exact where derived by hand, an upper bound elsewhere, and the refusal quoted.
foreach(s exact_attention exact_mlp upper text refused)
  add_test(NAME cli_expand_estimate_${s}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expand_estimate.sh $<TARGET_FILE:netpoly> ${NETPOLY_TEST_DATA} ${s})
  set_tests_properties(cli_expand_estimate_${s} PROPERTIES PASS_REGULAR_EXPRESSION "^OK ${s}" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
netpoly_expect(cli_expand_bad_row 2
  "bad-row.json: layers[0].heads[0].Q[1]: expected a row of 2 numbers"
  expand ${NETPOLY_TEST_DATA}/bad-row.json)
netpoly_expect(cli_expand_missing_file 2 "cannot open the model file"
  expand ${NETPOLY_CLI_OUT}/no-such-model.json)
netpoly_expect(cli_expand_output_out_of_range 2 "--output 2,0: out of range"
  expand ${EX} --output 2,0)
netpoly_expect(cli_expand_bad_output 2 "expected TOKEN,CHANNEL" expand ${EX} --output 0)
netpoly_expect(cli_expand_bad_format 2 "--format: expected text, json, sympy, singular or latex"
  expand ${EX} --format maple)
netpoly_expect(cli_expand_composite_modulus 2 "modulus 8 is not a prime" expand ${EX} --modulus 8)
netpoly_expect(cli_expand_modulus_divides_denominator 2 "divisible by the modulus 2"
  expand ${EX} --modulus 2 --output 0,1)
netpoly_expect(cli_expand_sympy_modulus 2 "--format sympy cannot express a modular expansion"
  expand ${EX} --format sympy --modulus 7)
# 10 terms: the token-degree bound is exact here (test_expand.cpp derives it)
netpoly_expect(cli_expand_max_terms 3 "refusing to expand" expand ${EX} --max-terms 9)
netpoly_expect(cli_expand_ok_exit_code 0 "terms 10" expand ${EX} --stats)

# ---- the SymPy output, executed and compared with a forward pass written in
# Python (tests/data/sympy_check.py). Only when python3 has sympy.
find_program(NETPOLY_PYTHON3 python3)
set(NETPOLY_HAVE_SYMPY OFF)
if(NETPOLY_PYTHON3)
  execute_process(COMMAND ${NETPOLY_PYTHON3} -c "import sympy" RESULT_VARIABLE _sympy_rc OUTPUT_QUIET ERROR_QUIET)
  if(_sympy_rc EQUAL 0)
    set(NETPOLY_HAVE_SYMPY ON)
  endif()
endif()
if(NETPOLY_HAVE_SYMPY)
  foreach(m attention-example product-rect branches gaussian)
    add_test(NAME cli_sympy_${m} COMMAND ${NETPOLY_PYTHON3} ${NETPOLY_TEST_DATA}/sympy_check.py
      $<TARGET_FILE:netpoly> ${NETPOLY_TEST_DATA}/${m}.json)
    set_tests_properties(cli_sympy_${m} PROPERTIES PASS_REGULAR_EXPRESSION "sympy check passed")
  endforeach()
  add_test(NAME cli_sympy_generated COMMAND ${NETPOLY_PYTHON3} ${NETPOLY_TEST_DATA}/sympy_check.py
    $<TARGET_FILE:netpoly> ${GEN})
  set_tests_properties(cli_sympy_generated PROPERTIES PASS_REGULAR_EXPRESSION "sympy check passed"
    FIXTURES_REQUIRED cli_generated)
  # The comparison itself must be able to fail: netpoly expands the spec
  # example while the Python forward pass runs a copy with O[1][1] = 3.
  add_test(NAME cli_sympy_checker_detects_mismatch COMMAND ${NETPOLY_PYTHON3} ${NETPOLY_TEST_DATA}/sympy_check.py
    $<TARGET_FILE:netpoly> ${EX} ${NETPOLY_TEST_DATA}/attention-example-perturbed.json)
  set_tests_properties(cli_sympy_checker_detects_mismatch PROPERTIES WILL_FAIL TRUE)
else()
  message(STATUS "netpoly: python3 with sympy not found; skipping the SymPy CLI tests")
endif()

# Degree-k attention blocks (AO eq. (2)): make --degree, the degree record k^L and AO eq. (3) in regime.
netpoly_expect(cli_make_attention_degree 0 "\"degree\": 5" make attention --layers 1 --width 2 --heads 1 --tokens 2 --degree 5)
netpoly_expect(cli_make_attention_degree_bad 2 "--degree must be in [2, 16]" make attention --layers 1 --width 2 --heads 1 --tokens 2 --degree 1)
netpoly_expect(cli_bounds_attention_degree 0 "\"formula\":\"k^L\",\"value\":\"25\"" bounds --arch attention --degree 5 --layers 2 --width 4 --heads 1 --tokens 2 --json)
netpoly_expect(cli_bounds_attention_degree_ao3 0 "L > log_k d, k >= 2" bounds --arch attention --degree 5 --layers 2 --width 4 --heads 1 --tokens 2)

# Sums of branches (NB eq. (3), Remark 3.2). tests/data/branches.json: y0_0 = 9 s0^2 + 2 s0 + s1 with
# s_i = x_i0 + x_i1 (test_forward.cpp derives the layers): 7 terms, degree 2, sep 2 across the tokens.
netpoly_output(cli_make_mixer_permuted "\"name\": \"mixer-p2-N2-d2-res-perm\".*\"type\": \"branches\".*\"type\": \"permute\".*\"type\": \"token_mix\""
  make mixer --layers 2 --width 2 --tokens 2 --residual --permuted)
netpoly_expect(cli_make_perm_sum_needs_permuted 2 "--perm-sum needs --permuted" make mixer --layers 1 --width 2 --tokens 2 --perm-sum 2)
# WS's expansion factor: two-layer mixing blocks, W of G N rows and W2 of N (here N = 2, G = 3: W is 6 x 2)
netpoly_output(cli_make_mixer_expansion "\"name\": \"mixer-p1-N2-d2-x3\".*\"W2\""
  make mixer --layers 1 --width 2 --tokens 2 --expansion 3)
netpoly_expect(cli_make_expansion_range 2 "--expansion" make mixer --layers 1 --width 2 --tokens 2 --expansion 0)
netpoly_output(cli_expand_branches "y0_0: terms 7, degree 2, token degrees \\[2, 1\\]" expand ${NETPOLY_TEST_DATA}/branches.json --stats)
netpoly_output(cli_seprank_branches "sup-sep \\[2, 2\\] \\(exact\\), inf-sep \\[2, 2\\] \\(exact\\)" seprank ${NETPOLY_TEST_DATA}/branches.json --all)

# Gaussian weights (a+bi). tests/data/gaussian.json: y0_0 = (x00 + i x01)(x10 + i x11) (test_gauss.cpp derives
# it): 4 terms over Q(i), sep 1 over C across the tokens (its real and imaginary parts have sep 2 each).
netpoly_output(cli_expand_gaussian "y0_0: terms 4, degree 2, token degrees \\[1, 1\\], height 1 bits \\(exact over Q\\(i\\)\\)"
  expand ${NETPOLY_TEST_DATA}/gaussian.json)
netpoly_output(cli_expand_gaussian_singular "ring r = \\(0,i\\).*minpoly = i\\^2\\+1;"
  expand ${NETPOLY_TEST_DATA}/gaussian.json --format singular)
netpoly_output(cli_seprank_gaussian "y0_0 +A=\\{0\\} +1 .*exact.*rank over Q\\(i\\): half the rank of the realified matrix"
  seprank ${NETPOLY_TEST_DATA}/gaussian.json)
netpoly_output(cli_seprank_gaussian_blackbox "blackbox >= 1 +certified lower bound .*a prime = 1 mod 4 drawn at random.*i mapped to a square root of -1 mod p\\); equals sep with probability"
  seprank ${NETPOLY_TEST_DATA}/gaussian.json --methods blackbox,support --seed 1)
netpoly_expect(cli_seprank_gaussian_blackbox_prime 2 "is not 1 mod 4" seprank ${NETPOLY_TEST_DATA}/gaussian.json --methods blackbox --prime 7)
netpoly_expect(cli_expand_gaussian_modulus 2 "drop --modulus" expand ${NETPOLY_TEST_DATA}/gaussian.json --modulus 101)
netpoly_output(cli_seprank_gaussian_grid "grid +>= 1 +certified lower bound \\(grid rank over Q\\(i\\)"
  seprank ${NETPOLY_TEST_DATA}/gaussian.json --methods grid,support)
netpoly_expect(cli_seprank_gaussian_prime 2 "is not 1 mod 4" seprank ${NETPOLY_TEST_DATA}/gaussian.json --methods grid --prime 103)

# LV Lemma 6's witness (test_lv_witness.cpp checks its sub-matrix): make writes a Gaussian attention
# model; d_a = d/H must be odd; the templates file has M + 1 = 2 ((d' λ)) + 1 vectors. L = 2, d = 3:
# layer 1's V row 0 is (e_A + i e_B)/N = [1/2, i/2, 0]; expand and seprank run on it.
netpoly_output(cli_make_lv_witness "\"name\": \"lv-witness-L2-d3-H1-N2\".*\"V\": \\[\\[\"1/2\", \"1/2i\", 0\\]"
  make lv-witness --layers 2 --width 3 --heads 1 --tokens 2)
netpoly_expect(cli_make_lv_witness_even 2 "d_a = width / heads must be odd" make lv-witness --layers 2 --width 8 --heads 2 --tokens 2)
netpoly_expect(cli_make_lv_witness_big 3 "at most 2000 are built" make lv-witness --layers 6 --width 21 --heads 1 --tokens 2)
add_test(NAME cli_lv_witness_pipeline
  COMMAND sh -c "$<TARGET_FILE:netpoly> make lv-witness --layers 2 --width 5 --heads 1 --tokens 2 --templates $TMPDIR/lvw-t.json -o $TMPDIR/lvw.json && $<TARGET_FILE:netpoly> expand $TMPDIR/lvw.json --stats && $<TARGET_FILE:netpoly> seprank $TMPDIR/lvw.json --seed 1 && grep -c sqrt $TMPDIR/lvw-t.json")
set_tests_properties(cli_lv_witness_pipeline PROPERTIES ENVIRONMENT "TMPDIR=${CMAKE_CURRENT_BINARY_DIR}"
  PASS_REGULAR_EXPRESSION "exact over Q\\(i\\).*y0_0 +A=\\{0\\} +[0-9]+ .*exact")
