#!/bin/sh
# What a hand-edited shard can make table --merge say or write (issue 38,
# items 4 and 14). Every number is checked as strictly as a model file's: a
# negative or fractional rank, a sweep of 10^12 seeds, a method or build
# string netpoly does not have, are refused (exit 2) naming the file and the
# JSON path, and nothing is written. The strings a merge does accept (the
# partition, an error row's message) are escaped in every format: no line of
# the LaTeX table or PGF plot outside a comment holds the shard's \input or
# \write18, the SVG is well-formed XML (xmllint), no CSV cell starts a
# formula, and the measured numbers are unchanged.
set -eu
np="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $*"; exit 1; }
"$np" table --arch attention --layers 1..2 --width 2 --heads 1 --tokens 2 -o "$dir/s.json"

# edit OUT CODE: runs CODE (Python) on j (the table) and r (its first row), writes OUT.
edit() {
  python3 - "$dir/s.json" "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["rows"][0]
evil = "half\n\\input{/etc/passwd}\r\\immediate\\write18{touch /tmp/pwned}\x01\x1b[31m<b>&|*_[x](y)\ufffe"
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
}
# refused NAME TEXT: the merge of NAME.json exits 2, says TEXT, and writes nothing.
refused() {
  set +e
  "$np" table --merge "$dir/$1.json" -o "$dir/$1.md" --plot "$dir/$1.svg" 2>"$dir/err"
  rc=$?
  set -e
  [ $rc -eq 2 ] || { cat "$dir/err"; fail "$1: exit $rc, expected 2"; }
  grep -qF -- "$2" "$dir/err" || { cat "$dir/err"; fail "$1: the message does not say: $2"; }
  [ ! -e "$dir/$1.md" ] && [ ! -e "$dir/$1.svg" ] || fail "$1: a refused merge wrote its table"
}
both() { echo "for b in (r, r['second_draw_bracket']): b['lower'] = b['upper'] = $1"; }

# Item 4: numbers. On the main of issue 38, -1 merged as 18446744073709551615, 3.5 as 3, and seeds 10^12
# took 3.4 GB before failing.
edit "$dir/neg.json" "$(both -1)"
refused neg "$dir/neg.json: rows[0].lower: expected an integer in [0, 4611686018427387904], got the integer -1"
edit "$dir/frac.json" "$(both 3.5)"
refused frac "$dir/frac.json: rows[0].lower: expected an integer in [0, 4611686018427387904], got the float 3.5"
edit "$dir/seeds.json" "[x['sweep'].update(seeds=10**12) for x in j['rows']]"
refused seeds "$dir/seeds.json: rows[0].sweep.seeds: expected an integer in [1, 10000], got the integer 1000000000000"
edit "$dir/ranges.json" "[x['sweep'].update(layers=list(range(1, 2001)), widths=list(range(1, 2001))) for x in j['rows']]"
refused ranges "$dir/ranges.json: rows[0].sweep: the sweep has up to 4e+06 configurations, more than the 1000000"

# Strings a merge refuses: a method or a build netpoly does not have, an unknown status or architecture.
edit "$dir/method.json" "r['lower_method'] = evil"
refused method "$dir/method.json: row \"attention L=1 d=2 H=1 N=2 seed=1\": its lower end's method"
edit "$dir/methods.json" "[x['options'].update(methods='support,=cmd') for x in j['rows']]; [x['sweep']['options'].update(methods='support,=cmd') for x in j['rows']]"
refused methods "$dir/methods.json: rows[0].sweep.options.methods: --methods: unknown method \"=cmd\""
edit "$dir/version.json" "r['netpoly_version'] = evil"
refused version "$dir/version.json: rows[0].netpoly_version: expected a netpoly build as --version prints it"
edit "$dir/status.json" "r['status'] = evil"
refused status "$dir/status.json: rows[0].status: unknown status"
edit "$dir/arch.json" "r['config']['arch'] = evil"
refused arch "$dir/arch.json: rows[0].config.arch:"
edit "$dir/bound.json" "r['bounds'][0]['id'] = evil"
refused bound "$dir/bound.json: row \"attention L=1 d=2 H=1 N=2 seed=1\": "

# Strings a merge accepts, hostile in every one: the partition (options and sweep) and an error row's message.
edit "$dir/evil.json" "
for x in j['rows']:
    x['options']['partition'] = evil
    x['sweep']['options']['partition'] = evil
r2 = j['rows'][1]
r2.update(status='error', lower=None, upper=None, lower_method='=cmd|\' /C calc\'!A0' + evil, upper_method='')
r2.pop('second_draw_bracket'); r2.pop('second_draw')
"
for f in md csv tex json; do
  "$np" table --merge "$dir/evil.json" -o "$dir/out.$f" 2>/dev/null
done
for f in svg pgf pdf; do
  "$np" table --merge "$dir/evil.json" -o "$dir/plot-$f.md" --plot "$dir/out.$f" 2>/dev/null
done
# LaTeX and PGF: outside comments, no \input or \write18 (an escaped one reads \textbackslash{}input).
for f in tex pgf; do
  if grep -v '^%' "$dir/out.$f" | grep -E '\\(input|write18|immediate)' >/dev/null; then
    grep -n -E '\\(input|write18|immediate)' "$dir/out.$f"
    fail "out.$f: a control sequence of the shard outside a comment"
  fi
  grep -q 'half\\n\\input{/etc/passwd}\\r' "$dir/out.$f" || fail "out.$f: the title comment does not show the partition escaped"
done
if command -v pdflatex >/dev/null 2>&1; then
  (cd "$dir" && printf '\\documentclass{article}\n\\usepackage{booktabs,siunitx}\n\\begin{document}\n\\input{out.tex}\n\\end{document}\n' >doc.tex &&
   pdflatex -interaction=nonstopmode -halt-on-error doc.tex >doc.out 2>&1 </dev/null) || { tail -20 "$dir/doc.out"; fail "out.tex: pdflatex failed"; }
  ! grep -qF "(/etc/passwd" "$dir/doc.log" || fail "out.tex: pdflatex read /etc/passwd"
fi
# SVG: well-formed XML.
if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout "$dir/out.svg" || fail "out.svg is not well-formed XML"
fi
! LC_ALL=C grep -q "$(printf "\001")" "$dir/out.svg" || fail "out.svg holds a control character"
# PDF: the strings are in parentheses, escaped (the file still starts and ends as a PDF).
head -c 5 "$dir/out.pdf" | grep -q '%PDF-' || fail "out.pdf is no PDF"
# Markdown: the title and the cells stay on their lines; no link, no HTML.
[ "$(grep -c '^|' "$dir/out.md")" -eq 4 ] || { cat "$dir/out.md"; fail "out.md: a string broke the table"; }
grep -qF '\<b\>' "$dir/out.md" || fail "out.md: the partition's HTML is not escaped"
# CSV: no cell starts a formula; the numbers are what they were.
python3 - "$dir/out.csv" <<'PY' || fail "out.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 2, rows
for row in rows:
    for k, v in row.items():
        if v and v[0] in "=+@\t\r":
            sys.exit("a cell starts a formula: %s = %r" % (k, v))
        if v and v[0] == "-":
            float(v)  # only numbers start with -
assert rows[0]["lower"] == "3" and rows[0]["upper"] == "3" and rows[0]["params"] == "16", rows[0]
assert rows[1]["lower_method"].startswith("'=cmd|"), rows[1]["lower_method"]
assert rows[1]["status"] == "error"
PY
# JSON: the strings as they were (JSON escapes them), the numbers too.
python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert j['rows'][0]['options']['partition'].startswith('half\n\\\\input'), j['rows'][0]['options']
assert j['rows'][0]['lower'] == 3
" "$dir/out.json" || fail "out.json"
echo "hostile shards are refused or escaped"
