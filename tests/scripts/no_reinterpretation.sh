#!/usr/bin/env bash
# No silent reinterpretation (issue 49 §7): an output extension that names no
# format is refused (table -o t.docx wrote Markdown into t.docx, exit 0); an
# empty column or bound name is refused ("L,,d", a trailing comma: it was
# dropped, and "" meant every column), and so is one given twice; a method asked for by name is run or
# refused with exit 3 and the flag that lets it run (--methods exact skipped
# the expansion with exit 0, blaming "the default refinement budget of 600 s"
# that --help does not name); the merge names --methods when it lacks
# blackbox (it answered about --plan). Nothing is written on a refusal.
# Usage: no_reinterpretation.sh NETPOLY WORKDIR
set -u
np=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL no_reinterpretation: $*"; exit 1; }
run() { out=$("$np" "$@" 2>&1); rc=$?; }
sweep=(table --arch attention --layers 1 --width 2 --tokens 2)
run "${sweep[@]}" -o t.docx
[ $rc -eq 2 ] && [[ $out == *"-o t.docx: the extension .docx names no table format"* ]] || fail "t.docx: exit $rc: $out"
[ ! -e t.docx ] && [ ! -e t.docx.jsonl ] || fail "t.docx was written"
run "${sweep[@]}" -o table
[ $rc -eq 2 ] && [[ $out == *"-o table: a name without an extension names no table format"* ]] || fail "no extension: exit $rc: $out"
run "${sweep[@]}" -o t.txt --format md
[ $rc -eq 0 ] && [ -s t.txt ] || fail "--format md -o t.txt: exit $rc: $out"
run "${sweep[@]}" -o t.md --columns "L,,d"
[ $rc -eq 2 ] && [[ $out == *'--columns "L,,d": an empty column name'* ]] || fail "empty column: exit $rc: $out"
run "${sweep[@]}" -o t2.md --columns "L,d,"
[ $rc -eq 2 ] && [[ $out == *"an empty column name"* ]] || fail "trailing comma: exit $rc: $out"
run "${sweep[@]}" -o t4.md --columns "L,d,L"
[ $rc -eq 2 ] && [[ $out == *'--columns "L,d,L": "L" is given twice'* ]] || fail "repeated column: exit $rc: $out"
run "${sweep[@]}" -o t3.md --bounds "LV Thm 3,"
[ $rc -eq 2 ] && [[ $out == *"an empty bound id"* ]] || fail "empty bound id: exit $rc: $out"
"$np" make attention --layers 3 --width 4 --heads 2 --tokens 4 --seed 1 -o big.json || exit 1
run seprank big.json --methods exact
[ $rc -eq 3 ] && [[ $out == *"--methods exact: it needs the expansion, estimated at"*"raise --max-terms to run it"* ]] ||
  fail "--methods exact beyond --max-terms: exit $rc: $out"
run seprank big.json --methods exact --max-terms 1e12
[ $rc -eq 3 ] && [[ $out == *"--methods exact: estimated"*"a run without --budget allows; give --budget"* ]] &&
  [[ $out != *"default refinement budget"* ]] || fail "--methods exact beyond 600 s: exit $rc: $out"
"$np" make mixer --layers 2 --tokens 2 --width 2 --seed 1 -o m.json || exit 1
"$np" seprank m.json --seed 1 --blocks 1/1 -o s.json >/dev/null 2>&1 || fail "no shard"
run seprank m.json --methods gram --merge s.json
[ $rc -eq 2 ] && [[ $out == *"seprank --merge: --methods gram: the shards are the black-box's blocks"* ]] &&
  [[ $out != *"--plan"* ]] || fail "--methods gram --merge: exit $rc: $out"
echo "OK no_reinterpretation"
