# CLI tests of `netpoly check` (the claim language, proofs/README.md).
# Included at the end of tests/CMakeLists.txt, after cli_tests.cmake (which
# defines netpoly_expect and netpoly_output).

set(CLAIMS ${CMAKE_CURRENT_SOURCE_DIR}/data/claims)
set(CLAIMS_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli/claims-counterexamples)

# claims that hold: exit 0 and the summary line
netpoly_expect(cli_check_pass 0 "6 claims: 6 passed, 0 failed, 0 inconclusive" check ${CLAIMS}/pass)
netpoly_expect(cli_check_pass_jobs 0 "6 claims: 6 passed" check ${CLAIMS}/pass --jobs 2)
netpoly_expect(cli_check_filter 0 "1 claim: 1 passed" check ${CLAIMS}/pass --filter "lv prop 1")
netpoly_expect(cli_check_filter_none 2 "--filter \"no such title\": no claim title contains it"
  check ${CLAIMS}/pass --filter "no such title")

# a false claim: exit 1, the first counterexample with its values, files written
netpoly_expect(cli_check_false 1 "counterexample (instance 1):" check ${CLAIMS}/false.np)
netpoly_expect(cli_check_false_values 1 "sep(f * f; A = x0..x2) = 6" check ${CLAIMS}/false.np)
netpoly_expect(cli_check_false_summary 1 "1 claim: 0 passed, 1 failed, 0 inconclusive" check ${CLAIMS}/false.np)
netpoly_expect(cli_check_counterexamples 1 "false-line4-f.poly"
  check ${CLAIMS}/false.np --counterexamples ${CLAIMS_OUT})
netpoly_expect(cli_check_json 1 "\"verdict\": \"FAIL\"" check ${CLAIMS}/false.np --json)

# malformed: exit 2 with file:line:column, before anything runs (the good files are not run)
netpoly_expect(cli_check_malformed 2 "malformed.np:4:30: expected" check ${CLAIMS}/malformed.np)
netpoly_expect(cli_check_malformed_first 2 "malformed.np:4:30: expected" check ${CLAIMS}/pass ${CLAIMS}/malformed.np)
netpoly_expect(cli_check_missing 2 "no-such.np: no such file or directory" check ${CLAIMS}/no-such.np)
netpoly_expect(cli_check_runtime_error 2 "runtime-error.np:4:16: variable x9 out of range" check ${CLAIMS}/runtime-error.np)

# undecided and probabilistic
netpoly_expect(cli_check_inconclusive 1 "INCONCLUSIVE  undecided" check ${CLAIMS}/inconclusive.np)
netpoly_expect(cli_check_probabilistic 0 "PASS (probabilistic)" check ${CLAIMS}/probabilistic.np)
netpoly_expect(cli_check_strict 1 "only probabilistic (--strict)" check ${CLAIMS}/probabilistic.np --strict)

# the proof scripts themselves
# (exit 0 with --coverage: every bound id is checked too)
netpoly_expect(cli_check_proofs 0 "every checkable statement has a claim" check ${PROJECT_SOURCE_DIR}/proofs --jobs 2 --coverage)
set_tests_properties(cli_check_proofs PROPERTIES TIMEOUT 600)

# netpoly check as a CI step (tests/scripts/check_ci.sh): the command line of
# examples/ci/netpoly-proofs.yml on a small proofs/ directory, --junit reports
# validated against tests/data/junit.xsd (xmllint), annotations, --fail-fast,
# --strict, a file that does not parse; one ctest entry per scenario.
foreach(s workflow_failing_claim workflow_passing workflow_is_buildable fail_fast parse_error json_annotations strict
          journal_resume)
  add_test(NAME cli_check_ci_${s}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_ci.sh $<TARGET_FILE:netpoly> ${PROJECT_SOURCE_DIR} ${s})
  set_tests_properties(cli_check_ci_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}" FAIL_REGULAR_EXPRESSION "FAIL ${s}")
endforeach()

# --coverage and the statements registry (docs/statements.md next to the paths, or --statements FILE):
# a checkable statement without a claim and a listed title in no file fail (exit 1); a statement blocked
# on a function the language lacks is listed; a malformed registry is an input error naming its line,
# before anything runs (exit 2).
set(STATEMENTS ${CLAIMS}/statements)
netpoly_expect(cli_check_statements_no_claim 1 "T Lemma 2: checkable, no claim" check ${STATEMENTS}/proofs --coverage)
netpoly_expect(cli_check_statements_not_found 1 "T Lemma 4: 1 claim title(s) not found" check ${STATEMENTS}/proofs --coverage)
netpoly_expect(cli_check_statements_blocked 1 "checkable, blocked on frobnicate, mixer colour" check ${STATEMENTS}/proofs --coverage)
netpoly_expect(cli_check_statements_claim 1 "one.np:2  one plus one" check ${STATEMENTS}/proofs --coverage)
netpoly_expect(cli_check_statements_covered 1 "every checkable statement has a claim"
  check ${STATEMENTS}/proofs --statements ${STATEMENTS}/covered.md)
netpoly_expect(cli_check_statements_malformed 2 "malformed.md:7: the key 'quantifier' comes after 'status'"
  check ${STATEMENTS}/proofs --statements ${STATEMENTS}/malformed.md)
netpoly_expect(cli_check_statements_json 1 "\"state\": \"no claim yet\""
  check ${STATEMENTS}/proofs --coverage --json)

# Weight quantifiers (tests/scripts/weights_counterexample.sh): a false
# "for every weight" claim fails with exit 1 and writes its drawn network,
# whose certified sep `netpoly seprank` confirms above the stated bound:
# also where several pairs are read, where it cannot be written, and
# without replacing any file.
foreach(s every_false every_default json max_sep sup_sep max_two sum_two dir_blocked same_stem no_replace)
  add_test(NAME cli_check_weights_${s}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/weights_counterexample.sh $<TARGET_FILE:netpoly> ${s})
  set_tests_properties(cli_check_weights_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}" FAIL_REGULAR_EXPRESSION "FAIL ${s}")
endforeach()

# check against hand-edited journals and hostile strings (tests/scripts/check_trust.sh, issue 38):
# item 2, a journal entry edited by hand, of another build, of a changed or moved claim runs again,
# named with why; items 15 and 16, titles, file names and model names with CR, LF, ESC, U+2028, "::"
# and "##[" start no line, and JUnit stays valid XML with noncharacters and paths that are not UTF-8.
foreach(s journal_fail_to_pass journal_pass_with_failures journal_forged_counts journal_negative_count
          journal_other_build journal_changed_claim journal_moved_claim journal_kept journal_non_utf8_path
          strings_title strings_file_name strings_model_name strings_junit_nonchar strings_junit_non_utf8_path)
  add_test(NAME cli_check_trust_${s}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_trust.sh $<TARGET_FILE:netpoly> ${PROJECT_SOURCE_DIR} ${s})
  set_tests_properties(cli_check_trust_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}" FAIL_REGULAR_EXPRESSION "FAIL ${s}")
endforeach()
