#!/bin/sh
# netpoly check against hand-edited journals and hostile strings (issue 38):
# check_trust.sh NETPOLY SOURCE_DIR SCENARIO prints "OK SCENARIO" when it
# behaves as promised, "FAIL SCENARIO: why" otherwise.
#
# Journal scenarios (item 2): an entry edited by hand, of another build, or of
# a changed or moved claim is not trusted: the claim runs again, its true
# verdict and exit code come out, and a line names the entry and why.
#
# String scenarios (items 15, 16): claim titles, claim file names and model
# names carry CR, LF, ESC, U+2028, "::" workflow commands and "##["; the files
# are made here (a name with a newline cannot be committed portably). On every
# output line (split at CR, LF, NEL, U+2028 and U+2029), only netpoly's own
# annotations may begin with "::", and "##[" begins none; JUnit reports
# validate against tests/data/junit.xsd (xmllint).
set -u
np=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
what="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
xsd="$src/tests/data/junit.xsd"
fail() { echo "FAIL $what: $*"; for o in out err; do [ -s "$dir/$o" ] && { echo "--- $o:"; head -c 3000 "$dir/$o" | od -c | head -40; }; done; exit 1; }
has() { grep -qF -- "$2" "$dir/$1" || fail "$1 lacks \"$2\""; }
lacks() { ! grep -qF -- "$2" "$dir/$1" || fail "$1 has \"$2\""; }
run() { "$np" "$@" >"$dir/out" 2>"$dir/err"; rc=$?; }
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit code $rc, expected $1"; }
# edit PYTHON: runs PYTHON on e, the journal's first entry (a dict), and writes it back
edit() {
  python3 - "$dir/j.jsonl" "$1" <<'PY' || fail "python"
import json, sys
path, code = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
e = json.loads(lines[0])
exec(code)
lines[0] = json.dumps(e)
open(path, "w").write("\n".join(lines) + "\n")
PY
}
# no_commands: stdout and stderr start no line with a workflow command other than netpoly's annotations
no_commands() {
  for o in out err; do
    python3 - "$dir/$o" <<'PY' || fail "$o: a line from the input begins with :: or ##["
import re, sys
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
for line in re.split("\r\n|\r|\n|\u2028|\u2029|\x85", data):
    if line.startswith("##[") or (line.startswith("::") and not re.match(r"::(error|notice) (file=|title=netpoly check::)", line)):
        print("offending line:", repr(line))
        sys.exit(1)
PY
  done
}
valid() {
  command -v xmllint >/dev/null || fail "xmllint not found: install libxml2-utils (scripts/setup does)"
  xmllint --noout --schema "$xsd" "$dir/junit.xml" >"$dir/xmllint" 2>&1 || { cat "$dir/xmllint"; fail "the JUnit report does not validate against tests/data/junit.xsd"; }
}
cd "$dir" || fail "cd"
cp "$src/tests/data/claims/false.np" false.np
printf 'claim "doubling"\n  for n in 1..5\n  check n + n == 2 * n\n' >pass.np
# rerun CLAIMS: --resume on the edited journal: the entry is not trusted and the claim ran again
rerun() {
  run check "$1" --journal j.jsonl --resume
  has out "journal entry not trusted, claim run again: j.jsonl line 1: $2"
  lacks out "result from the journal"
}
evil=$(printf 'x\r::error::injected\r::add-mask::secret\r::stop-commands::tok\n##[error]boom\033[31m \342\200\250::warning::sep')
case "$what" in
  journal_fail_to_pass)
    # The FAIL of a false claim edited to PASS (its text too) gave PASS and exit 0.
    run check false.np --journal j.jsonl
    expect_rc 1
    edit 'e["result"]["verdict"] = "PASS"; e["text"] = e.get("text", "").replace("FAIL", "PASS", 1)'
    rerun false.np "verdict PASS, but its counts say FAIL"
    expect_rc 1
    has out "FAIL  false: sep(f * f) <= sep(f)"
    has out "1 claim: 0 passed, 1 failed"
    ;;
  journal_pass_with_failures)
    # verdict PASS with failed: 5 (instances 5, passed 0) was taken as it stood.
    run check pass.np --journal j.jsonl
    expect_rc 0
    edit 'r = e["result"]; r["passed"] = 0; r["failed"] = 5'
    rerun pass.np "verdict PASS, but its counts say FAIL"
    expect_rc 0
    has out "PASS  doubling"
    has out "5 instances: 5 passed"
    ;;
  journal_forged_counts)
    # A FAIL whose counts were all turned into passes: the counterexample still fails.
    run check false.np --journal j.jsonl
    edit 'r = e["result"]; r["verdict"] = "PASS"; r["passed"] = r["instances"]; r["failed"] = 0'
    rerun false.np "verdict PASS with a counterexample"
    expect_rc 1
    has out "1 claim: 0 passed, 1 failed"
    ;;
  journal_negative_count)
    # A count that is not a non-negative integer is not read as one.
    run check pass.np --journal j.jsonl
    edit 'e["result"]["failed"] = -1'
    rerun pass.np "its result is malformed (result.failed: expected an integer in [0, "
    expect_rc 0
    ;;
  journal_other_build)
    # The fingerprint left out the build: an entry of another netpoly was reused.
    run check false.np --journal j.jsonl
    edit 'e["result"]["verdict"] = "PASS"; e["result"]["failed"] = 0; e["result"]["passed"] = e["result"]["instances"]; e["result"].pop("report"); e["build"] = "0.0.1 (git 0000000, FLINT 2.9.0)"'
    rerun false.np "written by netpoly 0.0.1 (git 0000000, FLINT 2.9.0), this is netpoly "
    expect_rc 1
    has out "1 claim: 0 passed, 1 failed"
    ;;
  journal_changed_claim)
    # The claim's text changed (its title did not): the entry is of the old text.
    run check pass.np --journal j.jsonl
    expect_rc 0
    printf 'claim "doubling"\n  for n in 1..5\n  check n + n == 3 * n\n' >pass.np
    rerun pass.np "the claim's text changed since"
    expect_rc 1
    has out "FAIL  doubling"
    ;;
  journal_moved_claim)
    # The same claim, now at another line: not reused with the old line.
    run check pass.np --journal j.jsonl
    { echo "# a comment above"; cat pass.np; } >p2 && mv p2 pass.np
    rerun pass.np "its result is at line 1, the claim at line 2"
    expect_rc 0
    has out "pass.np:2: 5 instances"
    ;;
  journal_kept)
    # An entry that holds up is still reused, and printed as a fresh run prints it.
    run check false.np pass.np --journal j.jsonl
    cp out first
    run check false.np pass.np --journal j.jsonl --resume
    expect_rc 1
    lacks out "not trusted"
    [ "$(grep -c 'result from the journal' out)" -eq 2 ] || fail "the entries were not reused"
    grep -v 'result from the journal\|finished earlier\|^2 claims:\|^netpoly check' out | sed 's/\[[0-9.]* s\]//' >a
    grep -v '^2 claims:\|^netpoly check' first | sed 's/\[[0-9.]* s\]//' >b
    cmp a b || fail "a reused entry printed otherwise than the run that wrote it: $(diff a b | head -5)"
    ;;
  journal_non_utf8_path)
    # A journal written for a claim file whose name is not UTF-8 never matched.
    f=$(printf 'bad\377name.np')
    cp false.np "$f"
    run check "$f" --journal j.jsonl
    expect_rc 1
    run check "$f" --journal j.jsonl --resume
    expect_rc 1
    has out "(1 finished earlier, from the journal j.jsonl)"
    has out "result from the journal"
    has out 'bad\xffname.np:4: 20 instances'
    ;;
  journal_strict_probabilistic)
    # A PASS (probabilistic) edited to PASS got past --strict (exit 0, "1 passed"); its quantity still said probabilistic.
    cp "$src/tests/data/claims/probabilistic.np" p.np
    run check p.np --journal j.jsonl
    expect_rc 0
    edit 'r = e["result"]; r["verdict"] = "PASS"; r["passed"] = 1; r["passed_probabilistic"] = 0; r.pop("failure_probability")'
    run check p.np --journal j.jsonl --resume --strict
    has out 'journal entry not trusted, claim run again: j.jsonl line 1: verdict PASS, but its quantity "sep(net; half; methods = blackbox)" is probabilistic'
    expect_rc 1
    has out "PASS (probabilistic)  black-box rank"
    ;;
  journal_failure_probability)
    # failure_probability 0, 2 and 1e300 were taken ("failure probability <= 1e+300").
    cp "$src/tests/data/claims/probabilistic.np" p.np
    for fp in 0 2 1e300; do
      run check p.np --journal j.jsonl
      edit "e['result']['failure_probability'] = $fp"
      rerun p.np "its result is malformed (result.failure_probability: expected a probability in (0, 1), got "
      expect_rc 0
      lacks out "failure probability <= $fp "
      lacks out "failure probability <= 1e+300"
    done
    ;;
  journal_instance_count)
    # instances: 1 (passed 1) was taken for a claim over seed = 1..3.
    printf 'claim "seeds"\n  for net in attention(layers = 1, width = 2, tokens = 2, seed = 1..3)\n  check sep(net; half) <= 100\n' >s.np
    run check s.np --journal j.jsonl
    expect_rc 0
    has out "3 instances: 3 passed"
    edit 'r = e["result"]; r["instances"] = 1; r["passed"] = 1; r["quantities"][0]["evaluations"] = 1; r["quantities"][0]["status"] = {"exact": 1}'
    rerun s.np "verdict PASS with 1 instances, but the claim has 3"
    has out "3 instances: 3 passed"
    ;;
  journal_quantities)
    # quantities: [] and a quantity the claim does not have were taken.
    cp "$src/tests/data/claims/probabilistic.np" p.np
    run check p.np --journal j.jsonl
    edit 'e["result"]["quantities"] = []'
    rerun p.np 'verdict PASS (probabilistic), but the quantity "sep(net; half; methods = blackbox)" of its check (line 4) was never evaluated'
    run check p.np --journal j.jsonl
    edit 'e["result"]["quantities"][0]["expr"] = "rank(net)"'
    rerun p.np 'its quantity "rank(net)" (line 4) is not a call of the claim'
    has out "sep(net; half; methods = blackbox): 1 evaluation, probabilistic"
    ;;
  journal_forged_value)
    # A counterexample value "3\n::warning::val" was taken (printed escaped, but not a value netpoly prints).
    run check false.np --journal j.jsonl
    edit 'e["result"]["report"]["checks"][0]["values"][0]["value"] = "3\n::warning::val"'
    rerun false.np 'its result is malformed (result.report.checks.values.value: not a value as netpoly prints it: "3\n::warning::val")'
    expect_rc 1
    no_commands
    ;;
  journal_seconds)
    # seconds: 1e308 was taken and printed as a 309-digit number.
    run check pass.np --journal j.jsonl
    edit 'e["result"]["seconds"] = 1e308'
    rerun pass.np "its result is malformed (result.seconds: expected a number in [0, 1e+08], got "
    expect_rc 0
    lacks out "00000000000000000000"
    ;;
  journal_swapped)
    # Issue 49 §2: the false claim's result replaced by the true claim's PASS
    # result, its title and line adjusted, the entry's own fingerprint kept:
    # --resume printed PASS for 1 + 1 == 3 and exited 0. Each result now names
    # its claim's fingerprint, and a result in another claim's entry is run again.
    printf 'claim "true"\n  check 1 + 1 == 2\n\nclaim "false"\n  check 1 + 1 == 3\n' >two.np
    run check two.np --journal j.jsonl
    expect_rc 1
    python3 - <<'PY2' || fail "python"
import json
lines = open("j.jsonl").read().splitlines()
t, f = (json.loads(x) for x in lines)
assert t["title"] == "true" and f["title"] == "false" and f["result"]["verdict"] == "FAIL"
moved = json.loads(json.dumps(t["result"]))
moved.update(title=f["result"]["title"], line=f["result"]["line"])
f["result"] = moved  # f keeps its own fingerprint
open("j.jsonl", "w").write(json.dumps(t) + "\n" + json.dumps(f) + "\n")
PY2
    run check two.np --journal j.jsonl --resume
    expect_rc 1
    has out "journal entry not trusted, claim run again: j.jsonl line 2: its result is of another claim"
    has out "moved or swapped between entries"
    has out "FAIL  false"
    [ "$(grep -c 'result from the journal' "$dir/out")" -eq 1 ] || fail "the true claim's entry was not reused alone"
    # the reused verdicts say so in JSON (from_journal) and in JUnit (system-out)
    run check two.np --journal j.jsonl --resume --json --junit junit.xml
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["title"]: x for x in d["claims"]}
assert c["true"].get("from_journal") is True and c["true"]["verdict"] == "PASS", c["true"]
# the false claim ran again above and its own result was journaled: reused now, still FAIL
assert c["false"].get("from_journal") is True and c["false"]["verdict"] == "FAIL", c["false"]
' "$dir/out" || fail "--json does not mark the resumed verdict"
    has junit.xml "result from the journal j.jsonl, not run again"
    valid
    ;;
  journal_duplicates)
    # A genuine FAIL line and then a forged PASS line of the same claim (consistent on its own): the PASS was taken, no word.
    printf 'claim "some seed"\n  exists s in 1..2\n  check s == 3\n' >ex.np
    run check ex.np --journal j.jsonl
    expect_rc 1
    python3 - <<'PY2' || fail "python"
import json
e = json.loads(open("j.jsonl").read().splitlines()[0])
r = e["result"]
assert r["verdict"] == "FAIL" and r["instances"] == 2
r.update(verdict="PASS", passed=1, failed=1)
r.pop("report")
open("j.jsonl", "a").write(json.dumps(e) + "\n")
PY2
    cp j.jsonl both.jsonl
    sed -n 2p both.jsonl >j.jsonl
    run check ex.np --journal j.jsonl --resume
    has out "result from the journal"  # the forged line alone holds up: only its disagreement gives it away
    cp both.jsonl j.jsonl
    run check ex.np --journal j.jsonl --resume
    has out "journal entry not trusted, claim run again: j.jsonl lines 1 and 2: two entries of the claim disagree (FAIL, PASS), neither is trusted"
    lacks out "result from the journal"
    expect_rc 1
    has out "FAIL  some seed"
    ;;
  strings_title)
    # A raw CR in a title emitted ::error and ::add-mask:: lines; ::stop-commands:: silenced the annotations.
    printf 'claim "t\r::error::injected\r::add-mask::secret\r::stop-commands::tok\r##[error]boom\033[31m\342\200\250::warning::sep"\n  check 1 + 1 == 3\n' >t.np
    run check t.np --annotations github
    expect_rc 1
    no_commands
    has out 'FAIL  t\r::error::injected\r::add-mask::secret\r::stop-commands::tok\r##[error]boom\x1b[31m\u2028::warning::sep'
    # the annotation's title shows the CR as printable() does (\r), then workflow-escaped (: as %3A)
    has out '::error file=t.np,line=2,title=FAIL%3A t\r%3A%3Aerror%3A%3Ainjected\r%3A%3Aadd-mask'
    # the command line is input too: CLI11's message quotes an unknown argument
    run check t.np "$(printf -- '--bogus\r::error::arg\n::add-mask::x')"
    expect_rc 2
    no_commands
    has err 'bogus\r::error::arg\n::add-mask::x'
    ;;
  strings_file_name)
    # A claim file named with a newline (and a CR) printed its name raw: in the report, the summary and errors.
    f=$(printf 'a\n::error::file\r##[error]x.np')
    printf 'claim "false"\n  check 1 + 1 == 3\n' >"$f"
    run check "$f" --annotations github --journal j.jsonl
    expect_rc 1
    no_commands
    has out 'a\n::error::file\r##[error]x.np:1: 1 instance'
    run check "$f" --annotations github --journal j.jsonl --resume
    no_commands
    has out 'result from the journal'
    run check "$f.missing"
    expect_rc 2
    no_commands
    has err 'a\n::error::file\r##[error]x.np.missing'
    ;;
  strings_model_name)
    # A model name with a CR was printed raw in the seprank header.
    "$np" make attention --layers 1 --width 2 --heads 1 --tokens 2 --seed 1 -o a.json || fail "make"
    python3 - "$evil" <<'PY' || fail "python"
import json, sys
m = json.load(open("a.json"))
m["name"] = sys.argv[1]
json.dump(m, open("b.json", "w"))
PY
    run seprank b.json
    expect_rc 0
    no_commands
    has out 'netpoly seprank: x\r::error::injected\r::add-mask::secret'
    run expand b.json --estimate
    no_commands
    ;;
  strings_junit_nonchar)
    # U+FFFE / U+FFFF (and a control character) in a title made the JUnit report invalid XML.
    printf 'claim "nonchar \357\277\276 \357\277\277 \001 end"\n  check 1 + 1 == 3\n' >n.np
    run check n.np --junit junit.xml
    expect_rc 1
    valid
    grep -qF 'nonchar \uFFFE \uFFFF \x01 end' junit.xml || fail "the title's characters are not shown escaped in the report"
    ;;
  strings_junit_non_utf8_path)
    # A claim file whose path is not UTF-8 made the JUnit report invalid XML.
    f=$(printf 'bad\377\376.np')
    printf 'claim "false"\n  check 1 + 1 == 3\n' >"$f"
    run check "$f" --junit junit.xml
    expect_rc 1
    valid
    grep -qF 'bad\xff\xfe.np' junit.xml || fail "the path's bytes are not shown escaped in the report"
    ;;
  *) fail "unknown scenario" ;;
esac
echo "OK $what"
