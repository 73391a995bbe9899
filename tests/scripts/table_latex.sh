#!/bin/sh
# table's LaTeX compiles without edits (issue 30, section 3): each table is
# wrapped in a minimal document with \usepackage{booktabs,siunitx}, each PGF
# plot in one with \usepackage{pgf}, and run through pdflatex. The tables: a
# fresh sweep, a merge with a bracket, a violated bound, a degenerate row and
# chosen bounds, and an equal-budget table with and without --bounds.
# Exit 77 (skipped) when pdflatex is missing: scripts/setup installs Debian's
# texlive-latex-base, -latex-recommended, -pictures and -science.
set -eu
np="$1"
command -v pdflatex >/dev/null 2>&1 || {
  echo "SKIPPED: pdflatex not found; apt-get install texlive-latex-base texlive-latex-recommended texlive-pictures texlive-science (scripts/setup does)"
  exit 77
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL $*"; exit 1; }
# compile NAME PACKAGES FILE: \input{FILE} in a document with PACKAGES, through pdflatex.
compile() {
  printf '\\documentclass{article}\n\\usepackage{%s}\n\\begin{document}\n\\input{%s}\n\\end{document}\n' "$2" "$3" >"$1-doc.tex"
  pdflatex -interaction=nonstopmode -halt-on-error "$1-doc.tex" >"$1.out" 2>&1 </dev/null ||
    { tail -30 "$1.out"; fail "$1: pdflatex failed on $3"; }
  [ -s "$1-doc.pdf" ] || fail "$1: no PDF"
  ! grep -q "^! " "$1-doc.log" || { grep -A5 "^! " "$1-doc.log"; fail "$1: TeX errors"; }
}
sweep="--arch attention --layers 1..3 --width 2 --heads 1 --tokens 2"
"$np" table $sweep -o fresh.tex --plot depth.pgf 2>/dev/null
compile fresh booktabs,siunitx fresh.tex
grep -q '2nd draw' fresh.tex || fail "the LaTeX table has no 2nd draw column"
compile depth pgf depth.pgf

# A merge with a bracket [6970, 203490], an edited measurement (LV Thm 3 violated) and a second
# draw that contradicts its row (degenerate), with chosen bounds, one of them a 3^x value.
"$np" table $sweep -o rows.json 2>/dev/null
python3 - rows.json <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
a, b, c = j["rows"]
a["lower"] = a["upper"] = 100
a["second_draw_bracket"] = dict(a["second_draw_bracket"], lower=100, upper=100)
b["second_draw_bracket"] = dict(b["second_draw_bracket"], lower=7, upper=7)
c["lower"], c["upper"], c["status"] = 6970, 203490, "bracket"
c["second_draw_bracket"] = dict(c["second_draw_bracket"], lower=6970, upper=203490, status="bracket")
json.dump(j, open(sys.argv[1], "w"))
EOF
"$np" table --merge rows.json -o merged.tex --bounds "LV Thm 3,LV Thm 1 (upper),LV Thm 2 (lower)" 2>/dev/null
grep -q 'violated' merged.tex || fail "merged.tex: no violated cell"
grep -q 'degenerate' merged.tex || fail "merged.tex: no degenerate row"
grep -qF '{[}\num{6970}, \num{203490}{]}' merged.tex || fail "merged.tex: the bracket"
compile merged booktabs,siunitx merged.tex

# Equal budgets: without and with --bounds, and their PGF plot.
budget="--arch attention,mixer,mlp,product --param-budget 16 --tokens 2 --max-depth 2 --max-width 3"
"$np" table $budget -o budget.tex --plot budget.pgf 2>/dev/null
compile budget booktabs,siunitx budget.tex
compile budgetplot pgf budget.pgf
"$np" table --merge budget.tex -o budget-bounds.tex --bounds "LV Thm 3,NB Thm 5.5" 2>/dev/null
grep -qF 'NB Thm 5.5 (\(\le\))' budget-bounds.tex || fail "budget-bounds.tex: no NB Thm 5.5 column"
compile budgetbounds booktabs,siunitx budget-bounds.tex
echo "LaTeX tables and PGF plots compile"
