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
