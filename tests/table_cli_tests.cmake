# netpoly table: kill-and-resume, --jobs and --shard/--merge give the same table.
add_test(NAME cli_table_resume_jobs_merge
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_resume.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_resume_jobs_merge PROPERTIES PASS_REGULAR_EXPRESSION "resume, jobs and merge agree" TIMEOUT 300)
add_test(NAME cli_table_bad_arch COMMAND netpoly table --arch transformer)
set_tests_properties(cli_table_bad_arch PROPERTIES WILL_FAIL TRUE)
# netpoly bounds: LV Thm 3 for L=2, d=4, H=2: (H (d_a + 1))^C(2) = (2 * 3)^4 = 1296
add_test(NAME cli_bounds_lv_thm3 COMMAND netpoly bounds --arch attention --layers 2 --width 4 --heads 2 --tokens 4)
set_tests_properties(cli_bounds_lv_thm3 PROPERTIES PASS_REGULAR_EXPRESSION "LV Thm 3 +upper +1296")
add_test(NAME cli_bounds_heads_must_divide
         COMMAND sh -c "$<TARGET_FILE:netpoly> bounds --arch attention --layers 2 --width 5 --heads 2 --tokens 2 2>&1; test $? -eq 2 && echo EXIT2")
set_tests_properties(cli_bounds_heads_must_divide PROPERTIES PASS_REGULAR_EXPRESSION "must divide --width.*EXIT2")
add_test(NAME cli_bounds_json COMMAND sh -c "$<TARGET_FILE:netpoly> bounds --arch mixer --layers 2 --width 3 --tokens 2 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(\"ids\", [b[\"id\"] for b in d[\"bounds\"]])'")
set_tests_properties(cli_bounds_json PROPERTIES PASS_REGULAR_EXPRESSION "NB Thm 5.5")

# Equal budgets and weight distributions (issue: a research instrument): bad inputs exit 2 naming the flag.
netpoly_expect(cli_table_budget_bad 2 "--param-budget: expected positive integers" table --arch attention,mixer --param-budget 48,x)
netpoly_expect(cli_table_budget_zero 2 "--param-budget: expected positive integers" table --arch mixer --param-budget 0)
netpoly_expect(cli_table_archs_without_budget 2 "several architectures only with --param-budget" table --arch attention,mixer)
netpoly_expect(cli_table_budget_bad_arch 2 "transformer" table --arch attention,transformer --param-budget 48)
netpoly_expect(cli_table_budget_depth 2 "--max-depth: must be in" table --arch mixer --param-budget 48 --max-depth 0)
netpoly_expect(cli_table_budget_width 2 "--max-width: must be in" table --arch mixer --param-budget 48 --max-width 5000)
netpoly_expect(cli_table_budget_none_fits 2 "no shape of these architectures fits" table --arch attention --param-budget 3 --tokens 2)
# --param-count (issue 32.5): AO eq. (4)'s count (3 L d^2) gives degree-3 attention d = 4 at B = 48, L = 1 (netpoly's
# 4 L d^2: d = 3), written out in the count column; a name it does not know, or no --param-budget, is refused.
netpoly_expect(cli_table_param_count 0 "| 48 | k L d^2 = 3 * 1 * 4^2 = 48 |"
  table --arch attention --param-budget 48 --tokens 2 --max-depth 1 --param-count ao-eq4 --methods support,blackbox)
netpoly_expect(cli_table_param_count_bad 2 "--param-count: expected netpoly, ao-eq4, ao-eq2 or lv, got \"ao-eq3\""
  table --arch attention --param-budget 48 --param-count ao-eq3)
netpoly_expect(cli_table_param_count_no_budget 2 "--param-count applies to equal budgets" table --arch attention --param-count lv)
netpoly_expect(cli_table_param_count_lv_product 2 "--param-count lv: LV eq. (2) counts degree-3 attention"
  table --arch product --param-budget 48 --param-count lv)
# --max-points: the option table's range and spelling (the same message as seprank's)
netpoly_expect(cli_table_max_points_range 2 "--max-points: expected a whole number in [1, 1048576], got 0"
  table --arch attention --max-points 0)
netpoly_expect(cli_table_weights_bad 2 "--weights: expected small, wide or generic" table --weights gaussian)
netpoly_expect(cli_make_weights_bad 2 "--weights: expected small, wide or generic" make mlp --layers 1 --width 2 --weights normal)
# A small equal-budget table for all four families (the mixer's depth-1 width is capped).
netpoly_expect(cli_table_budget_small 0 "Best measured shape per budget" table --arch attention,mixer,mlp,product --param-budget 16 --tokens 2 --max-depth 2 --max-width 3)
# --coverage: the ids no instance evaluates are named, exit 1; a vacuous lower bound says so.
netpoly_expect(cli_check_coverage_missing 1 "bound id(s) checked by no instance: \"LV Thm 3\"" check ${CMAKE_CURRENT_SOURCE_DIR}/data/claims/coverage --coverage)
netpoly_expect(cli_check_coverage_vacuous 1 "1 evaluation, every one vacuous (a lower bound <= 1 at every checked size)" check ${CMAKE_CURRENT_SOURCE_DIR}/data/claims/coverage --coverage)
netpoly_expect(cli_check_coverage_json 1 "\"coverage\"" check ${CMAKE_CURRENT_SOURCE_DIR}/data/claims/coverage --coverage --json)
# Merged and resumed rows are judged like fresh ones; foreign and conflicting rows are refused (issue 29, item 6).
add_test(NAME cli_table_trust COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_trust.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_trust PROPERTIES TIMEOUT 120)
# Plots: a dash pattern per bound, clipped curves named, SVG/PDF/PGF by extension (issue 30, section 3).
add_test(NAME cli_table_plot COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_plot.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_plot PROPERTIES TIMEOUT 120)
# LaTeX tables and PGF plots through pdflatex (skipped without texlive).
add_test(NAME cli_table_latex COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_latex.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_latex PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
# --bounds: ids of the registry (an unknown one lists them), applying to the table's shapes.
netpoly_expect(cli_table_bounds_unknown 2 "unknown bound id \"LV Thm 99\"; the registry's ids: LV Thm 3, LV Thm 4," table --bounds "LV Thm 3,LV Thm 99")
netpoly_expect(cli_table_bounds_elsewhere 2 "\"NB Thm 5.5\" applies to none of the table's shapes; the bounds that do: LV Thm 3" table --arch attention --bounds "NB Thm 5.5")
netpoly_expect(cli_table_bounds_columns 0 "| L | sep | status | LV Thm 4 (<=) | LV Thm 3 (<=) |" table --bounds "LV Thm 4, LV Thm 3")
# Hand-edited shards (issue 38, items 4 and 14): numbers checked as strictly as a model's, sweeps bounded,
# methods and builds netpoly's; the strings a merge accepts escaped in md, csv, LaTeX, JSON, SVG, PGF and PDF.
add_test(NAME cli_table_hostile COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_hostile.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_hostile PROPERTIES PASS_REGULAR_EXPRESSION "hostile shards are refused or escaped" TIMEOUT 180)
# Outputs through symbolic links, FIFOs and character devices; an input of the run never overwritten (issue 38, item 13).
add_test(NAME cli_output_targets COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/output_targets.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_output_targets PROPERTIES PASS_REGULAR_EXPRESSION "inputs are never overwritten" TIMEOUT 120)
# expand --estimate: a figure too large for a buffer keeps its unit, in scientific notation (issue 38, item 5).
add_test(NAME cli_expand_estimate_huge
         COMMAND sh -c "$<TARGET_FILE:netpoly> make attention --layers 10 --width 8 --heads 1 --tokens 8 -o - | $<TARGET_FILE:netpoly> expand - --estimate")
set_tests_properties(cli_expand_estimate_huge PROPERTIES PASS_REGULAR_EXPRESSION "memory  about 7\\.20e\\+206 GiB at the peak")
# --columns: the md and LaTeX columns before the bounds, in the order given (issue 40, section 5).
netpoly_expect(cli_table_columns 0 "| L | d | sep | LV Thm 3 (<=) |" table --columns "L, d,sep" --bounds "LV Thm 3")
netpoly_expect(cli_table_columns_unknown 2 "--columns: \"Q\" is no column of this attention table; its columns: L,d,H,N,seed,params,sep,status,second_draw" table --columns L,Q)
netpoly_expect(cli_table_columns_mlp 2 "--columns: \"H\" is no column of this mlp table" table --arch mlp --columns L,H)
netpoly_expect(cli_table_columns_budget 2 "--columns applies to sweep tables" table --arch attention,mixer --param-budget 16 --columns L)
# Different sweeps of one family merge into the union of their rows; other families and conflicts are refused (issue 40).
add_test(NAME cli_table_merge_sweeps COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_merge_sweeps.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_merge_sweeps PROPERTIES PASS_REGULAR_EXPRESSION "sweeps of one family merge into their union" TIMEOUT 180)
# examples/ in step with the code (issue 40, section 4): the short artefacts regenerated and compared (timings and
# build ids masked); the long ones: a sample of their cheapest rows re-run by this build and compared (issue 51 §6),
# and the check itself catches an edited row and rows of other arithmetic (skipped outside git).
add_test(NAME examples_table_current COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/examples_current.sh short $<TARGET_FILE:netpoly>)
set_tests_properties(examples_table_current PROPERTIES PASS_REGULAR_EXPRESSION "match a fresh run" TIMEOUT 1200)
add_test(NAME examples_table_long_build COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/examples_current.sh long $<TARGET_FILE:netpoly>)
set_tests_properties(examples_table_long_build PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  PASS_REGULAR_EXPRESSION "sampled rows equal a fresh run|apart from those declared stale")
add_test(NAME examples_table_long_detects COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/examples_long_detects.sh $<TARGET_FILE:netpoly>)
set_tests_properties(examples_table_long_detects PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
  PASS_REGULAR_EXPRESSION "are caught")
