# Reliability CLI tests (issue 6): every resource limit triggered on a small
# instance (exit 3, a message naming what was reached and the flag that
# raises it), interruption (exit 130 with a resume hint), composite moduli
# (exit 2), and determinism across --threads and --jobs. All carry the label
# "reliability"; scripts/test also runs them under ASan + UBSan.
# Included from tests/CMakeLists.txt, after cli_tests.cmake (netpoly_expect, EX).

# The unit tests feed tests/data/fuzz-regressions/ through fuzz/fuzz_inputs.hpp,
# which also checks the option parsers of the command-line front end.
target_sources(netpoly_tests PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/common.cpp)
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
    # seprank refuses the expansion too, and says so per method
    "$np" seprank "$dir/m.json" --methods exact --max-terms 10 >"$dir/err" 2>&1; rc=$?
    expect 0 "--max-terms" ;;
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
    # a method estimated to fit but still running when the budget ends: exit 3
    "$np" seprank "$dir/m.json" --methods blackbox,grid --budget 0.3 >"$dir/out" 2>"$dir/err"; rc=$?
    expect 3 "time budget reached: --budget 0.3" "raise --budget" ;;
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
  *) fail "unknown scenario" ;;
esac
echo "OK $what"
]=])

foreach(scenario max_terms max_memory budget sigint)
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
    sep = ["seprank", model, "--json", "--all-balanced", "--methods", "group,exact,modular,blackbox"]
    same("seprank --json", {f"--threads {t}": run(*sep, "--threads", str(t)) for t in (1, 2)})
    mixer = os.path.join(d, "x.json")
    run("make", "mixer", "--layers", "2", "--width", "2", "--tokens", "4", "-o", mixer)
    sep = ["seprank", mixer, "--json", "--output", "1,1", "--all-balanced", "--methods", "group,exact,blackbox,grid"]
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

# Known crashers awaiting a fix in code outside issue 6 (fuzz/README.md,
# "Open findings"): each must become exit 2 with a message. Disabled so the
# suite stays green; ctest lists them as "Not Run (Disabled)". Enable by
# moving the files to tests/data/fuzz-regressions/claims/.
file(GLOB NETPOLY_PENDING_CLAIMS ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz-regressions/pending/claims/*.np)
foreach(f ${NETPOLY_PENDING_CLAIMS})
  get_filename_component(n ${f} NAME_WE)
  netpoly_expect(reliability_pending_claims_${n} 2 "" check ${f})
  set_tests_properties(reliability_pending_claims_${n} PROPERTIES DISABLED TRUE LABELS reliability)
endforeach()
# A one-variable model of degree 3^41 (41 attention layers): exponents beyond
# 64 bits make FLINT abort in poly_stats (exit 134, no message). It should be
# refused before expanding (exit 3).
file(GLOB NETPOLY_PENDING_EXPAND ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz-regressions/pending/expand/*.json)
foreach(f ${NETPOLY_PENDING_EXPAND})
  get_filename_component(n ${f} NAME_WE)
  netpoly_expect(reliability_pending_expand_${n} 3 "" expand ${f} --stats)
  set_tests_properties(reliability_pending_expand_${n} PROPERTIES DISABLED TRUE LABELS reliability)
endforeach()
# table --jobs 100000: thread creation fails part-way and std::terminate aborts
# (exit 134). netpoly check limits --jobs to [1, 256]; table should too (exit 2).
netpoly_expect(reliability_pending_table_jobs_huge 2 "--jobs" table --layers 1 --jobs 100000)
set_tests_properties(reliability_pending_table_jobs_huge PROPERTIES DISABLED TRUE LABELS reliability)
# 40 attention layers: degree 3^40 ~ 1.2e19 exceeds the black-box prime (~4.6e18),
# so Schwartz-Zippel guarantees nothing; but estimate_expansion clamps the
# degree to 1e18 and seprank prints "probabilistic ... >= 1 - 0.434". The
# status must not be probabilistic (or the failure probability must be >= 1).
add_test(NAME reliability_pending_blackbox_degree_clamp
         COMMAND sh -c "$<TARGET_FILE:netpoly> make attention --layers 40 --width 2 --heads 1 --tokens 2 | $<TARGET_FILE:netpoly> seprank - --methods blackbox --json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"][0]; ok = r[\"status\"] != \"probabilistic\" or r[\"failure_probability\"] >= 1; print(\"HONEST\" if ok else \"FAIL: probabilistic with eps %g\" % r[\"failure_probability\"])'")
set_tests_properties(reliability_pending_blackbox_degree_clamp PROPERTIES PASS_REGULAR_EXPRESSION "HONEST"
                     DISABLED TRUE LABELS reliability)
# NaN limits switch the limits off: "--max-terms nan" passes every
# "terms > max_terms" test (a 1e11-term expansion then runs until memory runs
# out), and "--budget nan" passes "budget <= 0". Both should be input errors.
netpoly_expect(reliability_pending_max_terms_nan 2 "--max-terms" expand ${EX} --max-terms nan --stats)
netpoly_expect(reliability_pending_budget_nan 2 "--budget" seprank ${EX} --budget nan)
set_tests_properties(reliability_pending_max_terms_nan reliability_pending_budget_nan PROPERTIES DISABLED TRUE
                     LABELS reliability)
