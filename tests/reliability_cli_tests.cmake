# Reliability CLI tests (issue 6): every resource limit triggered on a small
# instance (exit 3, a message naming what was reached and the flag that
# raises it), interruption (exit 130 with a resume hint), composite moduli
# (exit 2), and determinism across --threads and --jobs. All carry the label
# "reliability"; scripts/test also runs them under ASan + UBSan.
# Included from tests/CMakeLists.txt, after cli_tests.cmake (netpoly_expect, EX).

# The unit tests feed tests/data/fuzz-regressions/ through fuzz/fuzz_inputs.hpp,
# which also checks the option parsers of the command-line front end.
target_link_libraries(netpoly_tests PRIVATE CLI11::CLI11)

# reliability_limits.sh NETPOLY SCENARIO: one limit per scenario; prints
# "OK <scenario>" when the exit code and the message are right.
set(NETPOLY_RELIABILITY_SH ${CMAKE_CURRENT_BINARY_DIR}/reliability_limits.sh)
file(WRITE ${NETPOLY_RELIABILITY_SH} [=[
#!/bin/sh
set -u
np="$1"
what="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $what: $*"; echo "--- stderr:"; cat "$dir/err" 2>/dev/null; exit 1; }
# expect CODE TEXT...: the last command's exit code is CODE and stderr holds every TEXT
expect() {
  want=$1; shift
  [ "$rc" -eq "$want" ] || fail "exit code $rc, expected $want"
  for t in "$@"; do grep -qF -- "$t" "$dir/err" || fail "stderr lacks \"$t\""; done
}
case "$what" in
  max_terms)
    "$np" make attention --layers 2 --width 2 --heads 1 --tokens 2 -o "$dir/m.json" || fail "make"
    "$np" expand "$dir/m.json" --max-terms 10 --stats >"$dir/out" 2>"$dir/err"; rc=$?
    expect 3 "refusing to expand" "exceeds --max-terms 10" "raise --max-terms"
    [ -s "$dir/out" ] && fail "printed a result although refused"
    # seprank refuses a method named in --methods that needs it, up front, with the flag (exit 3)
    "$np" seprank "$dir/m.json" --methods exact --max-terms 10 >"$dir/err" 2>&1; rc=$?
    expect 3 "--methods exact: it needs the expansion" "raise --max-terms" ;;
  max_memory)
    # a mid-size expansion (about 240 MiB estimated) against 1 MiB
    "$np" make attention --layers 2 --width 4 --heads 2 --tokens 4 -o "$dir/m.json" || fail "make"
    "$np" expand "$dir/m.json" --max-memory 1M --stats >"$dir/out" 2>"$dir/err"; rc=$?
    expect 3 "--max-memory" "raise --max-memory"
    grep -qE "estimated to need|memory limit reached" "$dir/err" || fail "does not say what was reached"
    # the watchdog (resident set) path: no expansion to estimate, a few seconds
    # of black-box and grid ranks, and a resident set above 4 MiB from the start
    "$np" seprank "$dir/m.json" --methods blackbox,grid --max-memory 4M >"$dir/out" 2>"$dir/err"; rc=$?
    expect 3 "memory limit reached: resident set" "exceeds --max-memory 4.0 MiB" "raise --max-memory" ;;
  budget)
    # depth 3: the expansion would take far longer than 0.2 s
    "$np" make attention --layers 3 --width 4 --heads 2 --tokens 4 -o "$dir/m.json" || fail "make"
    "$np" seprank "$dir/m.json" --budget 0.2 --max-terms 1e12 >"$dir/out" 2>"$dir/err"; rc=$?
    cat "$dir/out" >>"$dir/err"
    if [ "$rc" -eq 0 ]; then
      expect 0 "skipped" "exceeds --budget 0.2"
    else
      expect 3 "time budget reached: --budget 0.2" "raise --budget"
    fi
    # every method has an estimate and stops at the budget with a note (exit
    # 0); if the command's budget runs out first (exit 3), what finished is
    # printed before the exit. 0.8 s: under the sanitizers the start-up and
    # the expansion estimate alone take about 0.3 s, before support runs.
    "$np" seprank "$dir/m.json" --methods support,blackbox,grid --budget 0.8 >"$dir/out" 2>"$dir/err"; rc=$?
    grep -q "support  <=" "$dir/out" || fail "the finished support bound is not printed"
    if [ "$rc" -eq 0 ]; then
      grep -q "beyond --budget 0.8\|exceeds what is left of --budget 0.8" "$dir/out" || fail "no budget note"
    else
      expect 3 "time budget reached: --budget 0.8" "raise --budget"
      grep -q "stopped at a limit" "$dir/out" || fail "no stop summary"
    fi ;;
  sigint)
    sweep="--arch attention --layers 1..2 --width 2,3,4 --heads 1 --tokens 2,3 --seeds 2"
    "$np" table $sweep -o "$dir/t.md" 2>"$dir/err" &
    pid=$!
    i=0
    while [ "$(cat "$dir/t.md.jsonl" 2>/dev/null | wc -l)" -lt 1 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    kill -INT $pid
    wait $pid; rc=$?
    if [ "$rc" -eq 0 ]; then echo "warning: the sweep finished before the interruption"; echo "OK $what"; exit 0; fi
    expect 130 "interrupted" "every finished row is in $dir/t.md" "--resume"
    rows=$(wc -l <"$dir/t.md.jsonl")
    "$np" table $sweep -o "$dir/t.md" --resume 2>"$dir/err"; rc=$?
    expect 0
    [ "$(wc -l <"$dir/t.md.jsonl")" -eq 24 ] || fail "resume did not finish the 24 rows (had $rows)" ;;
  check_sigint)
    # eight claims of about 0.15 s each (Release); SIGINT once the first
    # one is in the journal, then --resume runs only the rest
    for k in 1 2 3 4 5 6 7 8; do
      printf 'claim "slow %s"\n  for f in random_poly(vars = 16, terms = 48..48, seed = %s..%s)\n  check sep(f * f * f; half) <= sep(f; half)^3\n\n' \
        "$k" "$((k * 100))" "$((k * 100))" >>"$dir/c.np"
    done
    "$np" check "$dir/c.np" --journal "$dir/j.jsonl" >"$dir/out" 2>"$dir/err" &
    pid=$!
    i=0
    while [ "$(cat "$dir/j.jsonl" 2>/dev/null | wc -l)" -lt 1 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    kill -INT $pid
    wait $pid; rc=$?
    if [ "$rc" -eq 0 ]; then echo "warning: the claims finished before the interruption"; echo "OK $what"; exit 0; fi
    expect 130 "interrupted" "claims finished" "in the journal $dir/j.jsonl" "rerun the same command with --resume"
    done1=$(wc -l <"$dir/j.jsonl")
    [ "$done1" -ge 1 ] && [ "$done1" -lt 8 ] || fail "journal has $done1 lines after the interruption"
    grep -q "^INTERRUPTED  $done1 claim" "$dir/out" || fail "stdout lacks the INTERRUPTED line for $done1 claims"
    [ "$(grep -c '^PASS  slow' "$dir/out")" -eq "$done1" ] || fail "the finished claims are not all printed"
    "$np" check "$dir/c.np" --journal "$dir/j.jsonl" --resume >"$dir/out" 2>"$dir/err"; rc=$?
    expect 0
    grep -q "($done1 finished earlier, from the journal" "$dir/out" || fail "resume does not say what it skipped"
    [ "$(grep -c 'result from the journal' "$dir/out")" -eq "$done1" ] || fail "resume reran finished claims"
    grep -q "^8 claims: 8 passed" "$dir/out" || fail "resume does not report all 8 claims"
    [ "$(wc -l <"$dir/j.jsonl")" -eq 8 ] || fail "journal does not hold the 8 claims after resume"
    # file order is kept: slow 1 .. slow 8
    [ "$(grep -o '^PASS  slow [0-9]' "$dir/out" | tr -d '\n')" = "PASS  slow 1PASS  slow 2PASS  slow 3PASS  slow 4PASS  slow 5PASS  slow 6PASS  slow 7PASS  slow 8" ] \
      || fail "resume printed the claims out of order"
    # a torn last line (killed while writing) is dropped, the rest reused
    printf '{"file": "%s", "tit' "$dir/c.np" >>"$dir/j.jsonl"
    "$np" check "$dir/c.np" --journal "$dir/j.jsonl" --resume >"$dir/out" 2>"$dir/err"; rc=$?
    expect 0
    [ "$(grep -c 'result from the journal' "$dir/out")" -eq 8 ] || fail "a torn journal line stopped the reuse"
    [ "$(wc -l <"$dir/j.jsonl")" -eq 8 ] || fail "the torn journal line was kept"
    # other options: the journal entries do not apply
    "$np" check "$dir/c.np" --journal "$dir/j.jsonl" --resume --budget 30 --filter "slow 1" >"$dir/out" 2>"$dir/err"; rc=$?
    expect 0
    grep -q "result from the journal" "$dir/out" && fail "a journal entry of another --budget was reused"
    # --json: SIGTERM still gives a valid report of the finished claims
    "$np" check "$dir/c.np" --json --journal "$dir/j2.jsonl" >"$dir/out" 2>"$dir/err" &
    pid=$!
    i=0
    while [ "$(cat "$dir/j2.jsonl" 2>/dev/null | wc -l)" -lt 1 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
    kill -TERM $pid
    wait $pid; rc=$?
    if [ "$rc" -ne 0 ]; then
      expect 130 "interrupted"
      python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["interrupted"] is True; assert len(j["claims"]) == j["summary"]["claims"] >= 1; assert j["summary"]["exit_code"] == 130' "$dir/out" \
        || fail "--json report after SIGTERM is not valid"
    fi ;;
  *) fail "unknown scenario" ;;
esac
echo "OK $what"
]=])

foreach(scenario max_terms max_memory budget sigint check_sigint)
  add_test(NAME reliability_limit_${scenario}
           COMMAND sh ${NETPOLY_RELIABILITY_SH} $<TARGET_FILE:netpoly> ${scenario})
  set_tests_properties(reliability_limit_${scenario} PROPERTIES
                       PASS_REGULAR_EXPRESSION "OK ${scenario}" FAIL_REGULAR_EXPRESSION "FAIL "
                       LABELS reliability TIMEOUT 300)
endforeach()

# Moduli must be prime: exit 2 naming the option.
netpoly_expect(reliability_modulus_composite 2 "--modulus: modulus 15 is not a prime" expand ${EX} --modulus 15)
netpoly_expect(reliability_prime_composite 2 "--prime: modulus 15 is not a prime" seprank ${EX} --prime 15)
netpoly_expect(reliability_modulus_too_big 2 "is not a prime" expand ${EX} --modulus 18446744073709551615)
netpoly_expect(reliability_max_memory_bad 2 "--max-memory \"1e400G\"" expand ${EX} --max-memory 1e400G)
netpoly_expect(reliability_output_bad 2 "--output \" 0,1\"" expand ${EX} "--output= 0,1")
set_tests_properties(reliability_modulus_composite reliability_prime_composite reliability_modulus_too_big
                     reliability_max_memory_bad reliability_output_bad PROPERTIES LABELS reliability)

# Determinism: seprank --json and table --format json are byte-identical
# across --threads 1/2 and --jobs 1/2 once the "timings" keys are removed.
set(NETPOLY_DETERMINISM_PY ${CMAKE_CURRENT_BINARY_DIR}/reliability_determinism.py)
file(WRITE ${NETPOLY_DETERMINISM_PY} [=[
import json, os, subprocess, sys, tempfile

np = sys.argv[1]

def run(*args):
    r = subprocess.run([np, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: netpoly {' '.join(args)} exited {r.returncode}\n{r.stderr}")
    return r.stdout

def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "timings"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x

def canonical(text):
    # key order kept as printed: only the "timings" members go
    return json.dumps(strip(json.loads(text)), ensure_ascii=False)

def same(name, variants):
    outs = {label: canonical(text) for label, text in variants.items()}
    first = next(iter(outs.values()))
    for label, o in outs.items():
        if o != first:
            sys.exit(f"FAIL: {name}: {label} differs from {next(iter(outs))}")
    print(f"{name}: {len(outs)} runs identical ({len(first)} bytes without timings)")

with tempfile.TemporaryDirectory() as d:
    model = os.path.join(d, "m.json")
    run("make", "attention", "--layers", "2", "--width", "4", "--heads", "2", "--tokens", "4", "-o", model)
    # --seed: the black-box's seed (and prime) is random otherwise
    sep = ["seprank", model, "--json", "--seed", "1", "--all-balanced", "--methods", "group,exact,modular,blackbox"]
    same("seprank --json", {f"--threads {t}": run(*sep, "--threads", str(t)) for t in (1, 2)})
    mixer = os.path.join(d, "x.json")
    run("make", "mixer", "--layers", "2", "--width", "2", "--tokens", "4", "-o", mixer)
    sep = ["seprank", mixer, "--json", "--seed", "1", "--output", "1,1", "--all-balanced", "--methods", "group,exact,blackbox,grid"]
    same("seprank --json (mixer, grid)", {f"--threads {t}": run(*sep, "--threads", str(t)) for t in (1, 2)})
    table = ["table", "--arch", "attention", "--layers", "1..2", "--width", "2,3,4", "--heads", "1", "--tokens", "2,3",
             "--seeds", "2", "--format", "json"]
    same("table --format json", {f"--threads {t} --jobs {j}": run(*table, "--threads", str(t), "--jobs", str(j))
                                 for t in (1, 2) for j in (1, 2)})
print("deterministic")
]=])
add_test(NAME reliability_determinism COMMAND python3 ${NETPOLY_DETERMINISM_PY} $<TARGET_FILE:netpoly>)
set_tests_properties(reliability_determinism PROPERTIES PASS_REGULAR_EXPRESSION "deterministic"
                     FAIL_REGULAR_EXPRESSION "FAIL:" LABELS reliability TIMEOUT 600)

# Fixed findings (fuzz/README.md, "Findings"), each as the CLI sees it.
# Deep nesting in a claim file: exit 2 naming file:line:column, never a stack
# overflow (the same files also go through the fuzz checks in test_reliability).
foreach(n deep-brackets deep-parentheses deep-unary-minus)
  netpoly_expect(reliability_claims_${n} 2 "nested deeper than 200 levels"
                 check ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz-regressions/claims/${n}.np)
  set_tests_properties(reliability_claims_${n} PROPERTIES LABELS reliability)
endforeach()
netpoly_expect(reliability_claims_deep_location 2 "deep-parentheses.np:2:209: expression nested deeper than 200 levels"
               check ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz-regressions/claims/deep-parentheses.np)
# A one-variable model of degree 3^41 (41 attention layers): exponents beyond
# 64 bits made FLINT abort in poly_stats (exit 134, no message). Now refused
# before expanding (exit 3), and the degree is printed unclamped.
set(NETPOLY_DEG41 ${CMAKE_CURRENT_SOURCE_DIR}/data/limits/attention-41-layers-one-variable.json)
netpoly_expect(reliability_expand_degree_2_63 3 "the degree bound 3.65e+19 reaches 2^63" expand ${NETPOLY_DEG41} --stats)
netpoly_expect(reliability_expand_degree_2_63_text 3 "reaches 2^63" expand ${NETPOLY_DEG41})
# table --jobs 100000: thread creation failed part-way and std::terminate
# aborted (exit 134). Like check, --jobs is limited to [1, 256] (exit 2);
# --shard is parsed strictly (std::stoul stopped at the "x" of "1/2x").
netpoly_expect(reliability_table_jobs_huge 2 "--jobs: must be in [1, 256]" table --layers 1 --jobs 100000)
netpoly_expect(reliability_table_jobs_zero 2 "--jobs: must be in [1, 256]" table --layers 1 --jobs 0)
netpoly_expect(reliability_table_shard_trailing 2 "--shard \"1/2x\": expected K/N" table --layers 1 --shard 1/2x)
netpoly_expect(reliability_table_shard_sign 2 "--shard \"+1/2\": expected K/N" table --layers 1 --shard +1/2)
# 40 attention layers: degree 3^40 ~ 1.2e19 exceeds the black-box prime
# (~4.6e18), so Schwartz-Zippel guarantees nothing. estimate_expansion used to
# clamp the degree to 1e18 and seprank printed "probabilistic ... >= 1 - 0.434".
# Now the degree is the true one and the result is a certified lower bound only.
add_test(NAME reliability_blackbox_degree_clamp
         COMMAND sh -c "$<TARGET_FILE:netpoly> make attention --layers 40 --width 2 --heads 1 --tokens 2 | $<TARGET_FILE:netpoly> seprank - --methods blackbox --json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"][0]; ok = r[\"status\"] != \"probabilistic\" and \"failure_probability\" not in r; print(\"HONEST\" if ok else \"FAIL: %s with eps %s\" % (r[\"status\"], r.get(\"failure_probability\")))'")
set_tests_properties(reliability_blackbox_degree_clamp PROPERTIES PASS_REGULAR_EXPRESSION "HONEST"
                     FAIL_REGULAR_EXPRESSION "FAIL|Traceback" LABELS reliability)
# NaN limits switched the limits off: "--max-terms nan" passed every
# "terms > max_terms" test (a 1e11-term expansion then ran until memory ran
# out), and "--budget nan" passed "budget <= 0". Now input errors naming the
# flag, on every command that takes them; so are negative values.
netpoly_expect(reliability_max_terms_nan 2 "--max-terms: expected a whole number >= 1 such as 5e7 (or inf), got \"nan\"" expand ${EX} --max-terms nan --stats)
# --budget is one quantity on every command (issue 51 §1): 0 was "no limit" for table and
# expand, and refused by seprank and Python; now refused everywhere with the option table's words.
netpoly_expect(reliability_table_budget_zero 2 "--budget: expected a positive number of seconds (or inf), got 0" table --layers 1 --budget 0)
netpoly_expect(reliability_expand_budget_zero 2 "--budget: expected a positive number of seconds (or inf), got 0" expand ${EX} --budget 0 --stats)
set_tests_properties(reliability_table_budget_zero reliability_expand_budget_zero PROPERTIES LABELS reliability)
netpoly_expect(reliability_budget_nan 2 "--budget: expected a positive number of seconds (or inf), got \"nan\"" seprank ${EX} --budget nan)
netpoly_expect(reliability_expand_budget_nan 2 "--budget: expected a positive number of seconds (or inf), got \"nan\"" expand ${EX} --budget nan --stats)
netpoly_expect(reliability_expand_budget_negative 2 "--budget: expected a positive number of seconds (or inf), got -1" expand ${EX} --budget -1)
netpoly_expect(reliability_seprank_max_terms_nan 2 "--max-terms: expected a whole number >= 1 such as 5e7 (or inf), got \"nan\"" seprank ${EX} --max-terms nan)
netpoly_expect(reliability_table_max_terms_nan 2 "--max-terms: expected a whole number >= 1 such as 5e7 (or inf), got \"nan\"" table --layers 1 --max-terms nan)
netpoly_expect(reliability_table_budget_nan 2 "--budget: expected a positive number of seconds (or inf), got \"nan\"" table --layers 1 --budget nan)
netpoly_expect(reliability_check_budget_nan 2 "--budget: expected a positive number of seconds (or inf), got \"nan\""
               check ${NETPOLY_TEST_DATA}/claims/pass --budget nan)
netpoly_expect(reliability_check_max_terms_nan 2 "--max-terms: expected a whole number >= 1 such as 5e7 (or inf), got \"nan\""
               check ${NETPOLY_TEST_DATA}/claims/pass --max-terms nan)
netpoly_expect(reliability_max_memory_nan 2 "--max-memory \"nanG\"" seprank ${EX} --max-memory nanG)
set_tests_properties(reliability_claims_deep_location reliability_expand_degree_2_63
                     reliability_expand_degree_2_63_text
                     reliability_table_jobs_huge reliability_table_jobs_zero reliability_table_shard_trailing
                     reliability_table_shard_sign reliability_max_terms_nan reliability_budget_nan
                     reliability_expand_budget_nan reliability_expand_budget_negative
                     reliability_seprank_max_terms_nan reliability_table_max_terms_nan reliability_table_budget_nan
                     reliability_check_budget_nan reliability_check_max_terms_nan reliability_max_memory_nan
                     PROPERTIES LABELS reliability)
# The black-box stops doubling its points (with a note, exit 0, the lower
# bound so far) when the next round's matrices would pass --max-memory,
# instead of running into the watchdog: mixer (4,4,4) has blocks still full
# rank at 1,024 points, and the next round (1,716 points: the blocks grow by 1.5 from
# 1,024 on, straight to a cap of 1,716) needs about 0.28 GiB more.
# (Release only, by its name: under ASan the resident set is not comparable.)
add_test(NAME limits_blackbox_memory_round
         COMMAND sh -c "$<TARGET_FILE:netpoly> make mixer --layers 4 --width 4 --tokens 4 --seed 1 | $<TARGET_FILE:netpoly> seprank - --partition half --methods blackbox --max-points 4096 --max-memory 150M; echo \"exit $?\"")
set_tests_properties(limits_blackbox_memory_round PROPERTIES
                     PASS_REGULAR_EXPRESSION "stopped at 1024 points: the next round \\([0-9]+\\) needs about [0-9.]+ GiB, beyond --max-memory 0.146 GiB.*exit 0"
                     FAIL_REGULAR_EXPRESSION "memory limit reached|exit [1-9]" LABELS reliability)

# The trust issue's regressions (tests/scripts/trust.sh): one ctest entry per
# scenario, each printing "OK <scenario>" or "FAIL <scenario>: why".
foreach(s adversarial_prime check_resume_model_changed input_errors_not_internal memory_guard grid_budget
          interrupt default_plan write_errors journal_lock small_defects)
  add_test(NAME reliability_trust_${s} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/trust.sh $<TARGET_FILE:netpoly> ${s})
  set_tests_properties(reliability_trust_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}"
                       FAIL_REGULAR_EXPRESSION "FAIL ${s}" LABELS reliability TIMEOUT 300)
endforeach()

# Issue 38: the scheduler's partial and early results (trust.sh): --generic
# interrupted keeps the black-box's finished rounds; gram tight certifies
# before the expansion.
foreach(s generic_interrupt certify_before_expansion)
  add_test(NAME reliability_trust_${s} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/trust.sh $<TARGET_FILE:netpoly> ${s})
  set_tests_properties(reliability_trust_${s} PROPERTIES PASS_REGULAR_EXPRESSION "OK ${s}"
                       FAIL_REGULAR_EXPRESSION "FAIL ${s}" LABELS reliability TIMEOUT 120)
endforeach()
