#!/bin/sh
# A deliberately false "for every weight" claim (proofs/README.md, *Weight
# quantifiers*): weights_counterexample.sh NETPOLY SCENARIO prints "OK
# SCENARIO" when netpoly behaves as documented, "FAIL SCENARIO: why" otherwise.
#   every_false     the claim fails (exit 1), names and writes the drawn
#                   network under --counterexamples DIR, and `netpoly seprank`
#                   on that file certifies a lower bound above the claim's bound
#   every_default   without --counterexamples the file goes to
#                   ./netpoly-counterexamples (the working directory)
#   json            --json carries the quantifier and the counterexample path
#   max_sep, sup_sep, max_two   a check over several (output, partition)
#                   pairs, false on a pair other than the first (attention
#                   L2 d2 H1 N3, A = {0}: y0_0 has gsep 16, y1_0 has 17;
#                   "<= 16"): the re-check command the report prints, run on
#                   the file written, certifies a lower end above 16
#   inf_sep_ge, min_two_ge, min_sep_ge, sep_ne, max_sep_ge   checks that fail
#                   because a sep is too small (">= 17", ">= 18") or equal
#                   ("!= 17"): the printed re-check certifies the end that
#                   refutes it (an upper end below the bound; = 17)
#   sum_two         sep(y0_0) + sep(y1_0) <= 32: false at one drawn network
#                   (16 + 17), but no single pair refutes it: FAIL, with a
#                   note saying so, and no model presented as refuting it
#   dir_blocked     ./netpoly-counterexamples is a file: still FAIL (exit 1),
#                   with the values, a note naming the path and the reason,
#                   and no flag that was not given
#   same_stem       a/x.np and b/x.np: two distinct files, each named once
#   no_replace      a file of an earlier run at the name is kept; the new
#                   model goes to ...-weights-2.json, which the report names
# The shape: attention L = 2, d = 2, H = 1, N = 4, output y0_1, A = tokens
# {0, 1}. Its drawn network (seed 1, small weights) has y0_1 = 0 (sep 0), so
# only the shape's generic sep (18, docs: tests/test_generic.cpp) can refute
# "sep <= 5 for every weight".
set -u
np="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
what="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $what: $*"; for f in out err; do [ -s "$dir/$f" ] && { echo "--- $f:"; head -c 3000 "$dir/$f"; }; done; exit 1; }
run() { "$np" "$@" >"$dir/out" 2>"$dir/err"; rc=$?; }
"$np" make attention --layers 2 --width 2 --heads 1 --tokens 4 --seed 1 --weights small -o "$dir/att.json" || fail "make"
cat >"$dir/every-false.np" <<'NP'
claim "sep <= 5 for every weight assignment (false: gsep = 18)"
  let net = model("att.json")
  for every weight
  check sep(net[0, 1]; A = tokens 0, 1) <= 5
NP
# the bound the claim states, and the file it must write
bound=5
file=every-false-line4-weights.json
# lower_above FILE: seprank's certified lower end of FILE's output for A = {0, 1} exceeds the bound
lower_above() {
  run seprank "$1" --partition A=0,1 --json
  [ "$rc" -eq 0 ] || fail "seprank $1: exit code $rc"
  python3 - "$dir/out" "$bound" <<'PY' || fail "seprank $1: certified lower end not above $bound"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["quantity"] == "sep of this network", r["quantity"]
assert r["output"] == {"token": 0, "channel": 1}, r["output"]
assert r["lower"]["value"] > int(sys.argv[2]), r["lower"]
PY
}
# several_pairs CHECK: the claim "CHECK <= 16" over attention L2 d2 H1 N3 for
# every weight fails, writes a model, and the printed re-check command run
# on it certifies a lower end above 16.
several_pairs() {
  cat >"$dir/pairs.np" <<NP
claim "several pairs <= 16 for every weight (false: y1_0 has gsep 17)"
  for net in attention(layers = 2, width = 2, heads = 1, tokens = 3)
  for every weight
  check $1 <= 16
NP
  run check "$dir/pairs.np" --counterexamples "$dir/cex"
  [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
  grep -qF "FAIL  several pairs <= 16" "$dir/out" || fail "no FAIL line"
  cmd=$(sed -n 's/.*(re-check: netpoly seprank \([^)]*\))).*/\1/p' "$dir/out" | head -n 1)
  [ -n "$cmd" ] || fail "no re-check command printed"
  model=${cmd%% *}
  [ -f "$model" ] || fail "$model (the re-check's file) not written"
  # shellcheck disable=SC2086  # the printed flags, word by word
  run seprank $cmd --json
  [ "$rc" -eq 0 ] || fail "the printed re-check ($cmd): exit code $rc"
  python3 - "$dir/out" 16 <<'PY' || fail "the printed re-check ($cmd) does not refute <= 16"
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
assert len(rs) == 1 and rs[0]["quantity"] == "sep of this network", rs
assert rs[0]["lower"]["value"] > int(sys.argv[2]), rs[0]
PY
}
# refuted NAME CHECK REL BOUND: the claim "CHECK" over attention L2 d2 H1 N3
# for every weight fails, writes a model, and the printed re-check command
# run on it certifies an end that refutes it: for ">=" an upper end below
# BOUND, for "!=" exactly BOUND (a check failing because a sep is too small
# is refuted by an upper end, not by a lower one), and the report says so.
refuted() {
  printf 'claim "%s for every weight (false)"\n  for net in attention(layers = 2, width = 2, heads = 1, tokens = 3)\n  for every weight\n  check %s\n' \
    "$1" "$2" >"$dir/refuted.np"
  run check "$dir/refuted.np" --counterexamples "$dir/cex"
  [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
  grep -qF "FAIL  $1 for every weight" "$dir/out" || fail "no FAIL line"
  cmd=$(sed -n 's/.*(re-check: netpoly seprank \([^)]*\))).*/\1/p' "$dir/out" | head -n 1)
  [ -n "$cmd" ] || fail "no re-check command printed"
  [ -f "${cmd%% *}" ] || fail "${cmd%% *} (the re-check's file) not written"
  # the printed reason names the refuting end too
  said=$(sed -n 's/.*; its re-check certifies \([^;]*\);.*/\1/p' "$dir/out" | head -n 1)
  case "$3:$said" in
    ">=:<= "*) [ "${said#<= }" -lt "$4" ] || fail "the report says the re-check certifies $said" ;;
    "!=:= $4") ;;
    *) fail "the report says the re-check certifies '$said', which does not refute $2" ;;
  esac
  # shellcheck disable=SC2086  # the printed flags, word by word
  run seprank $cmd --json
  [ "$rc" -eq 0 ] || fail "the printed re-check ($cmd): exit code $rc"
  python3 - "$dir/out" "$3" "$4" <<'PY' || fail "the printed re-check ($cmd) does not refute $2"
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
rel, bound = sys.argv[2], int(sys.argv[3])
assert len(rs) == 1 and rs[0]["quantity"] == "sep of this network", rs
lo, hi = rs[0]["lower"]["value"], rs[0]["upper"]["value"]
if rel == ">=":
    assert hi is not None and hi < bound, rs[0]
else:
    assert lo == bound and hi == bound, rs[0]
PY
}
case "$what" in
  inf_sep_ge) refuted inf_sep_ge "inf_sep(net) >= 17" ">=" 17 ;;
  min_two_ge) refuted min_two_ge "min(sep(net[0, 0]; A = tokens 0), sep(net[1, 0]; A = tokens 0)) >= 17" ">=" 17 ;;
  min_sep_ge) refuted min_sep_ge "min_sep(net; A = tokens 0) >= 17" ">=" 17 ;;
  sep_ne) refuted sep_ne "sep(net[1, 0]; A = tokens 0) != 17" "!=" 17 ;;
  max_sep_ge) refuted max_sep_ge "max_sep(net; A = tokens 0) >= 18" ">=" 18 ;;
  max_sep) several_pairs "max_sep(net; A = tokens 0)" ;;
  sup_sep) several_pairs "sup_sep(net)" ;;
  max_two) several_pairs "max(sep(net[0, 0]; A = tokens 0), sep(net[1, 0]; A = tokens 0))" ;;
  sum_two)
    cat >"$dir/sum.np" <<'NP'
claim "sum of two seps <= 32 for every weight (false: 16 + 17)"
  for net in attention(layers = 2, width = 2, heads = 1, tokens = 3)
  for every weight
  check sep(net[0, 0]; A = tokens 0) + sep(net[1, 0]; A = tokens 0) <= 32
NP
    run check "$dir/sum.np" --counterexamples "$dir/cex"
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    grep -qF "FAIL  sum of two seps <= 32" "$dir/out" || fail "no FAIL line"
    grep -qF "no single output and partition refutes the check alone, so no counterexample model is written" \
      "$dir/out" || fail "no note that no single pair refutes it"
    grep -qF "re-check:" "$dir/out" && fail "a re-check is offered for a model that does not refute the check"
    [ -e "$dir/cex/sum-line4-weights.json" ] && fail "a model was written as the counterexample"
    ;;
  dir_blocked)
    : >"$dir/netpoly-counterexamples"
    (cd "$dir" && "$np" check every-false.np >out 2>err); rc=$?
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1 (FAIL)"
    grep -qF "FAIL  sep <= 5 for every weight" "$dir/out" || fail "no FAIL line"
    grep -qF "sep(net[0, 1]; A = tokens 0, 1) = 18" "$dir/out" || fail "the values are lost"
    grep -qF "its model could not be written (netpoly-counterexamples: " "$dir/out" || fail "no note naming the path"
    grep -qF -- "--counterexamples" "$dir/out" "$dir/err" && fail "names --counterexamples, which was not given"
    ;;
  same_stem)
    mkdir -p "$dir/a" "$dir/b"
    cp "$dir/att.json" "$dir/a/att.json" && cp "$dir/att.json" "$dir/b/att.json"
    cp "$dir/every-false.np" "$dir/a/x.np" && cp "$dir/every-false.np" "$dir/b/x.np"
    run check "$dir/a/x.np" "$dir/b/x.np" --counterexamples "$dir/cex"
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    n=$(grep -o "written: $dir/cex/x-line4-weights[^ ]*\.json" "$dir/out" | sort -u | wc -l)
    [ "$n" -eq 2 ] || fail "$n distinct weight files named, expected 2"
    for f in "$dir/cex/x-line4-weights.json" "$dir/cex/x-line4-weights-2.json"; do
      grep -qF "written: $f" "$dir/out" || fail "$f not named"
    done
    lower_above "$dir/cex/x-line4-weights.json"
    lower_above "$dir/cex/x-line4-weights-2.json"
    ;;
  no_replace)
    mkdir -p "$dir/cex"
    echo "an earlier run's file" >"$dir/cex/$file"
    run check "$dir/every-false.np" --counterexamples "$dir/cex"
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    [ "$(cat "$dir/cex/$file")" = "an earlier run's file" ] || fail "$file was replaced"
    grep -qF "written: $dir/cex/every-false-line4-weights-2.json" "$dir/out" || fail "the fresh name is not named"
    lower_above "$dir/cex/every-false-line4-weights-2.json"
    ;;
  every_false)
    run check "$dir/every-false.np" --counterexamples "$dir/cex"
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    grep -qF "FAIL  sep <= 5 for every weight" "$dir/out" || fail "no FAIL line"
    grep -qF "written: $dir/cex/$file" "$dir/out" || fail "the file is not named"
    grep -qF "re-check: netpoly seprank $dir/cex/$file --partition A=0,1" "$dir/out" || fail "no re-check command"
    [ -f "$dir/cex/$file" ] || fail "$dir/cex/$file not written"
    lower_above "$dir/cex/$file"
    ;;
  every_default)
    (cd "$dir" && "$np" check every-false.np >out 2>err); rc=$?
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    [ -f "$dir/netpoly-counterexamples/$file" ] || fail "netpoly-counterexamples/$file not written"
    lower_above "$dir/netpoly-counterexamples/$file"
    ;;
  json)
    run check "$dir/every-false.np" --counterexamples "$dir/cex" --json
    [ "$rc" -eq 1 ] || fail "exit code $rc, expected 1"
    python3 - "$dir/out" "$dir/cex/$file" <<'PY' || fail "JSON"
import json, sys
c = json.load(open(sys.argv[1]))["claims"][0]
assert c["verdict"] == "FAIL", c["verdict"]
ch = c["report"]["checks"][0]
assert ch["weights"] == "every weight", ch
assert ch["counterexample"] == sys.argv[2], ch
assert sys.argv[2] in c["report"]["files"], c["report"]["files"]
PY
    ;;
  *) fail "unknown scenario" ;;
esac
echo "OK $what"
