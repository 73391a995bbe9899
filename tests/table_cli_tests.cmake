# netpoly table: kill-and-resume, --jobs and --shard/--merge give the same table.
add_test(NAME cli_table_resume_jobs_merge
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/table_resume.sh $<TARGET_FILE:netpoly>)
set_tests_properties(cli_table_resume_jobs_merge PROPERTIES PASS_REGULAR_EXPRESSION "resume, jobs and merge agree" TIMEOUT 300)
add_test(NAME cli_table_bad_arch COMMAND netpoly table --arch transformer)
set_tests_properties(cli_table_bad_arch PROPERTIES WILL_FAIL TRUE)
