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
# (a substring: a rerun in the same build finds the first run's files there and,
# replacing none, names its own false-line4-2-f.poly, -3, ...)
netpoly_expect(cli_check_counterexamples 1 "claims-counterexamples/false-line4-"
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
# The whole proofs/ run with --coverage is docs/guide/check.md's sample, which
# docs_samples runs and compares line by line (exit 0, every claim PASS, the
# coverage report, the summary last): not run a second time here.
# The same verdicts on one core beside five busy loops and a memory hog as on
# a quiet machine (claims decide on nominal costs; the wall clock is a safety
# net that gives ERROR, exit 3): tests/scripts/check_load.sh. Alone, since it
# loads a core on purpose.
add_test(NAME cli_check_load
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_load.sh $<TARGET_FILE:netpoly> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/check-load)
set_tests_properties(cli_check_load PROPERTIES PASS_REGULAR_EXPRESSION "OK check_load" FAIL_REGULAR_EXPRESSION "FAIL check_load"
  TIMEOUT 300 RUN_SERIAL TRUE)

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
# without replacing any file; a check failing because a sep is too small
# is refuted through its upper end.
foreach(s every_false every_default json max_sep sup_sep max_two sum_two dir_blocked same_stem no_replace
          inf_sep_ge min_two_ge min_sep_ge sep_ne max_sep_ge)
  add_test(NAME cli_check_weights_${s}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/weights_counterexample.sh $<TARGET_FILE:netpoly> ${s})
  set_tests_properties(cli_check_weights_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}" FAIL_REGULAR_EXPRESSION "FAIL ${s}")
endforeach()

# check against hand-edited journals and hostile strings (tests/scripts/check_trust.sh, issue 38):
# item 2, a journal entry edited by hand, of another build, of a changed or moved claim runs again,
# named with why; items 15 and 16, titles, file names and model names with CR, LF, ESC, U+2028, "::"
# and "##[" start no line, and JUnit stays valid XML with noncharacters and paths that are not UTF-8;
# entries that contradict themselves (a PASS over probabilistic quantities, a failure probability
# outside (0, 1), a wrong instance count, foreign quantities, forged values, absurd seconds, two
# entries that disagree) are not trusted either.
foreach(s journal_fail_to_pass journal_pass_with_failures journal_forged_counts journal_negative_count
          journal_other_build journal_changed_claim journal_moved_claim journal_kept journal_non_utf8_path
          journal_strict_probabilistic journal_failure_probability journal_instance_count journal_quantities
          journal_forged_value journal_seconds journal_duplicates journal_swapped
          strings_title strings_file_name strings_model_name strings_junit_nonchar strings_junit_non_utf8_path)
  add_test(NAME cli_check_trust_${s}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_trust.sh $<TARGET_FILE:netpoly> ${PROJECT_SOURCE_DIR} ${s})
  set_tests_properties(cli_check_trust_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}" FAIL_REGULAR_EXPRESSION "FAIL ${s}")
endforeach()

# Issue 38: every claim function holds its work to the run's limits and says
# so: sizes estimated before the work (--max-terms, the bits of an exact
# value, the products of a matmul), --budget measured inside the long loops
# and estimated before FLINT's long calls. An instance that reaches a limit
# is INCONCLUSIVE (exit 1, proofs/README.md "--budget") with the call, its
# file:line:column, the estimate and the flag that raises it. Each ran without
# end (or for minutes) before: a hang fails by the TIMEOUT.
set(LIMITS ${CLAIMS}/limits)
# (The expected texts are literal substrings, without ';'.)
netpoly_expect(cli_check_limit_random_poly_terms 1
  "random-poly-terms.np:4:12: random_poly(...): random_poly with up to 1000000000 terms: estimated 1e+09 terms, more than --max-terms 5e+07"
  check ${LIMITS}/random-poly-terms.np --budget 5)
netpoly_expect(cli_check_limit_random_poly_budget 1
  "random-poly-budget.np:4:12: random_poly(...): stopped at --budget 0.2 s (after 0.2"
  check ${LIMITS}/random-poly-budget.np --budget 0.2)
netpoly_expect(cli_check_limit_subs_power 1
  "subs-power.np:4:9: subs(...): the value at this point would have up to 1e+09 bits, more than 4194304 (the limit of an exact power)"
  check ${LIMITS}/subs-power.np --budget 5)
netpoly_expect(cli_check_limit_power_terms 1
  "power-terms.np:4:15: poly(\"x0 + x1 + x2 + x3\")^40: a power of a polynomial of 4 terms to the power 40: estimated 1.23e+04 terms, more than 10 x --max-terms 1e+03"
  check ${LIMITS}/power-terms.np --max-terms 1000)
netpoly_expect(cli_check_limit_eps_rank_budget 1
  "eps-rank-budget.np:6:9: eps_rank(...): beyond --budget 5 s, the exact eigenvalue counts of a 256 x 256 matrix (estimated at "
  check ${LIMITS}/eps-rank-budget.np --budget 5)
netpoly_expect(cli_check_limit_matmul 1
  "matmul-size.np:3:13: matmul(...): 1000 x 1000 times 1000 x 1000: more than 10^6 entries or 10^8 products of entries"
  check ${LIMITS}/matmul-size.np)
netpoly_expect(cli_check_limit_rank_budget 1
  "rank-budget.np:4:9: rank(...): beyond --budget 1e-09 s, the rank over Q (estimated at "
  check ${LIMITS}/rank-budget.np --budget 1e-9)
netpoly_expect(cli_check_limit_sup_sep_pairs 1
  "sup-sep-pairs.np:5:9: sup_sep(...): 48 output entries x 1352078 partitions = 64899744 (output, partition) pairs to analyse, more than max_pairs = 100000"
  check ${LIMITS}/sup-sep-pairs.np)
set_tests_properties(cli_check_limit_random_poly_terms cli_check_limit_random_poly_budget cli_check_limit_subs_power
                     cli_check_limit_sup_sep_pairs cli_check_limit_power_terms cli_check_limit_eps_rank_budget cli_check_limit_matmul
                     cli_check_limit_rank_budget PROPERTIES TIMEOUT 30)
# Issue 38 (review): wide_sparse's size estimated before it is built; a sep
# call (one pair, or all of max_sep's) stops at --budget with its bracket so
# far and a note; a claim's instances are at most 10^6 (the nested ranges'
# product, estimated before running).
netpoly_expect(cli_check_limit_wide_sparse 1
  "wide-sparse-size.np:6:16: wide_sparse(...): wide_sparse's Kronecker factors (2.68e+08 rational entries) is estimated to need"
  check ${LIMITS}/wide-sparse-size.np --budget 5 --max-memory 2G)
# (Main's: no note, 8.4 s and > 40 s; under load a round still overruns
# --budget 2 by a few seconds, hence TIMEOUT 20.)
netpoly_expect(cli_check_limit_sep_budget 0
  "sep-budget.np:6:9: sep(...): stopped at --budget 2 s (after "
  check ${LIMITS}/sep-budget.np --budget 2)
netpoly_expect(cli_check_limit_max_sep_budget 0
  "max-sep-budget.np:5:9: max_sep(...): stopped at --budget 2 s (after "
  check ${LIMITS}/max-sep-budget.np --budget 2)
netpoly_expect(cli_check_limit_instances 1
  "instances.np:5:3: for b in 1..10^6: 1e+06 x 1000000 = 1e+12 instances of the claim, more than 10^6"
  check ${LIMITS}/instances.np --budget 5)
set_tests_properties(cli_check_limit_wide_sparse cli_check_limit_instances PROPERTIES TIMEOUT 12)
set_tests_properties(cli_check_limit_sep_budget cli_check_limit_max_sep_budget PROPERTIES TIMEOUT 20)

# --coverage and statements about every (almost every) weight assignment: one whose
# claims have no matching weight quantifier fails (exit 1, naming it) unless the
# registry gives the reason why (- unquantified:); a reason beside a claim under the
# quantifier is stale and fails too.
set(UNQUANTIFIED ${CLAIMS}/unquantified)
netpoly_expect(cli_check_coverage_unquantified 1 "T Thm 1: about every weight assignment, no claim under `for every weight` and no reason why"
  check ${UNQUANTIFIED}/proofs --statements ${UNQUANTIFIED}/missing.md --coverage)
# (exit 1 there: the small proofs/ evaluates no bound id; "every checkable statement has a claim" says
# no statement is a problem)
netpoly_expect(cli_check_coverage_unquantified_reason 1 "T Thm 1 checked by 1 claim, on drawn weights only: an identity of one network"
  check ${UNQUANTIFIED}/proofs --statements ${UNQUANTIFIED}/reasoned.md --coverage)
netpoly_expect(cli_check_coverage_unquantified_reason_ok 1 "every checkable statement has a claim"
  check ${UNQUANTIFIED}/proofs --statements ${UNQUANTIFIED}/reasoned.md --coverage)
netpoly_expect(cli_check_coverage_unquantified_stale 1 "T Thm 2: a claim is under `for every weight`, remove its '- unquantified:' reason"
  check ${UNQUANTIFIED}/proofs --statements ${UNQUANTIFIED}/stale.md --coverage)
