#!/bin/sh
# netpoly check as a CI step (examples/ci/netpoly-proofs.yml, proofs/README.md
# "Running in CI"): check_ci.sh NETPOLY SOURCE_DIR SCENARIO prints
# "OK SCENARIO" when the scenario behaves as documented, "FAIL SCENARIO: why"
# otherwise. Every JUnit report is validated against tests/data/junit.xsd with
# xmllint (Debian's libxml2-utils) and read back with Python's XML parser.
set -u
np=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
what="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
workflow="$src/examples/ci/netpoly-proofs.yml"
xsd="$src/tests/data/junit.xsd"
data="$src/tests/data/claims"
fail() { echo "FAIL $what: $*"; for f in out err junit.xml; do [ -s "$dir/$f" ] && { echo "--- $f:"; head -c 4000 "$dir/$f"; echo; }; done; exit 1; }
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit code $rc, expected $1"; }
has() { grep -qF -- "$2" "$dir/$1" || fail "$1 lacks \"$2\""; }
lacks() { ! grep -qF -- "$2" "$dir/$1" || fail "$1 has \"$2\""; }
valid() {
  command -v xmllint >/dev/null || fail "xmllint not found: install libxml2-utils (scripts/setup does)"
  xmllint --noout --schema "$xsd" "$dir/junit.xml" >"$dir/xmllint" 2>&1 || { cat "$dir/xmllint"; fail "the JUnit report does not validate against tests/data/junit.xsd"; }
}
# junit PYTHON-EXPRESSION...: each holds for the report (s: the <testsuites> root, cases: every <testcase>)
junit() {
  for e in "$@"; do
    python3 - "$dir/junit.xml" "$e" <<'EOF' || fail "the JUnit report: not $e"
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
cases = s.findall("./testsuite/testcase")
named = {c.get("name"): c for c in cases}
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
  done
}
# A paper's repository: proofs/ with claims that pass, one that fails, one probabilistic.
mkdir -p "$dir/proofs"
cp "$data/pass/"*.np "$data/false.np" "$data/probabilistic.np" "$dir/proofs/"
cd "$dir" || fail "cd"
# The workflow's own command line, with this build's netpoly and the proofs above.
workflow_check() {
  line=$(grep -E '^\s*run: .*netpoly check ' "$workflow" | head -1 | sed -E 's/^\s*run: //')
  [ -n "$line" ] || fail "no 'run: ... netpoly check' step in $workflow"
  cmd=$(printf '%s' "$line" | sed -e "s#\.netpoly/build/netpoly#\"$np\"#" -e 's#\$PROOFS#proofs/#' -e 's#"\$(nproc)"#2#')
  sh -c "$cmd $*" >"$dir/out" 2>"$dir/err"
  rc=$?
}
false_title='false: sep(f * f) <= sep(f)'
case "$what" in
  workflow_failing_claim)
    # A failing claim: exit 1, a failing test case carrying the counterexample,
    # an ::error annotation on the failing check's line; the rest pass.
    workflow_check
    expect_rc 1
    cp netpoly-junit.xml "$dir/junit.xml" || fail "no netpoly-junit.xml"
    valid
    junit "s.get('tests') == '8' and s.get('failures') == '1' and s.get('errors') == '0'" \
          "len(cases) == 8" \
          "named['$false_title'].find('failure') is not None" \
          "named['$false_title'].find('failure').get('type') == 'FAIL'" \
          "'counterexample (instance 1)' in named['$false_title'].find('failure').text" \
          "'line 7: check sep(f * f; A = x0..x2) <= k' in named['$false_title'].find('failure').get('message')" \
          "named['$false_title'].get('file') == 'proofs/false.np' and named['$false_title'].get('line') == '4'" \
          "named['$false_title'].get('classname') == 'proofs.false'" \
          "sum(c.find('failure') is not None for c in cases) == 1" \
          "all(c.find('system-out') is not None for c in cases)"
    has out "::error file=proofs/false.np,line=7,title=FAIL%3A false%3A sep(f * f) <= sep(f)::counterexample (instance 1)"
    has out "::notice file=proofs/probabilistic.np,line=2,title=PASS (probabilistic)%3A"
    has out "passed with failure probability <= "
    ;;
  workflow_passing)
    # Every claim passes: exit 0, no failure in the report, no ::error.
    rm proofs/false.np
    workflow_check
    expect_rc 0
    cp netpoly-junit.xml "$dir/junit.xml" || fail "no netpoly-junit.xml"
    valid
    junit "s.get('tests') == '7' and s.get('failures') == '0'" "all(c.find('failure') is None for c in cases)"
    lacks out "::error"
    ;;
  workflow_is_buildable)
    # The workflow installs only packages scripts/setup installs (and git and
    # certificates to fetch sources), and the CMake options it sets exist.
    pkgs=$(sed -n '/apt-get install/,/^\s*$/p' "$workflow" | tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' |
           grep -vE '^(apt-get|install|DEBIAN_FRONTEND=noninteractive|run|name)$')
    [ -n "$pkgs" ] || fail "no packages found in the workflow"
    setup=$(sed 's/#.*//' "$src/scripts/setup" | sed -n '/^pkgs=(/,/)\s*$/p' | tr ' ()' '\n\n\n')
    for p in $pkgs; do
      case "$p" in ca-certificates|git) continue ;; esac
      printf '%s\n' "$setup" | grep -qx -- "$p" || fail "the workflow installs $p, which scripts/setup does not"
    done
    for opt in NETPOLY_PYTHON; do
      grep -q "option($opt " "$src/CMakeLists.txt" || fail "the workflow sets -D$opt, which CMakeLists.txt does not define"
    done
    grep -q 'include(CTest)' "$src/CMakeLists.txt" || fail "BUILD_TESTING comes from include(CTest)"
    grep -qF -- '--target netpoly' "$workflow" || fail "the workflow builds more than the command"
    ;;
  fail_fast)
    # --fail-fast (2 threads): the claims after the first that does not pass are skipped test cases.
    "$np" check proofs/ --fail-fast --jobs 2 --junit "$dir/junit.xml" >"$dir/out" 2>"$dir/err"
    rc=$?
    expect_rc 1
    valid
    # proofs/false.np sorts first: it fails, and the seven claims after it do not run
    junit "s.get('tests') == '8' and s.get('skipped') == '7' and s.get('failures') == '1'" \
          "sum(c.find('skipped') is not None for c in cases) == 7" \
          "all('--fail-fast' in c.find('skipped').get('message') for c in cases if c.find('skipped') is not None)"
    has out "--fail-fast: 7 of 8 claims not run"
    lacks out "PASS  "
    ;;
  parse_error)
    # Nothing runs: exit 2, one <error> test case naming the file and line, an ::error annotation.
    cp "$data/malformed.np" proofs/
    "$np" check proofs/ --junit "$dir/junit.xml" --annotations github >"$dir/out" 2>"$dir/err"
    rc=$?
    expect_rc 2
    valid
    junit "s.get('errors') == '1' and len(cases) == 1" "cases[0].find('error') is not None" \
          "cases[0].get('file') == 'proofs/malformed.np' and cases[0].get('line') == '4'"
    has out "::error file=proofs/malformed.np,line=4,title=netpoly check::proofs/malformed.np:4:30: expected"
    ;;
  json_annotations)
    # With --json the annotations go to stderr: stdout stays one JSON document.
    "$np" check proofs/ --json --annotations github >"$dir/out" 2>"$dir/err"
    rc=$?
    expect_rc 1
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if j["summary"]["failed"] == 1 and j["summary"]["failure_probability"] > 0 else 1)' "$dir/out" ||
      fail "stdout is not the JSON report"
    has err "::error file=proofs/false.np,line=7"
    lacks out "::error"
    ;;
  strict)
    # --strict: a PASS (probabilistic) is a failing test case and an ::error.
    "$np" check proofs/probabilistic.np --strict --junit "$dir/junit.xml" --annotations github >"$dir/out" 2>"$dir/err"
    rc=$?
    expect_rc 1
    valid
    junit "cases[0].find('failure').get('type') == 'PASS (probabilistic)'" \
          "'failure probability <= ' in cases[0].find('failure').get('message')"
    has out "::error file=proofs/probabilistic.np,line=2,title=PASS (probabilistic)%3A"
    ;;
  journal_resume)
    # Results taken from the journal (--resume) still give the failing test
    # case its counterexample and the annotation its line.
    "$np" check proofs/ --journal "$dir/j.jsonl" >/dev/null 2>&1
    "$np" check proofs/ --journal "$dir/j.jsonl" --resume --junit "$dir/junit.xml" --annotations github >"$dir/out" 2>"$dir/err"
    rc=$?
    expect_rc 1
    valid
    has out "(8 finished earlier, from the journal"
    has out "::error file=proofs/false.np,line=7,title=FAIL%3A false%3A sep(f * f) <= sep(f)::counterexample (instance 1)"
    junit "'counterexample (instance 1)' in named['$false_title'].find('failure').text"
    ;;
  *)
    fail "unknown scenario"
    ;;
esac
echo "OK $what"
