#!/bin/sh
# table's LaTeX compiles without edits (issue 30, section 3): each table is
# wrapped in a minimal document with \usepackage{booktabs,siunitx}, each PGF
# plot in one with \usepackage{pgf}, and run through pdflatex. The tables: a
# fresh sweep, a merge with a bracket, a violated bound, a degenerate row and
# chosen bounds, and an equal-budget table with and without --bounds.
# Widths (issue 40, section 5): a 12-column table is wider than an article's
# \linewidth at its natural size; with graphicx it is shrunk to \linewidth
# (no overfull \hbox in the log), and a table of chosen --columns fits as it is.
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
# The default is a paper's: the varying shape column L, sep, status and the bounds in regime; no 2nd draw
# column (no row is degenerate), which --columns all keeps.
grep -q '2nd draw' fresh.tex && fail "the default LaTeX table has a 2nd draw column without a degenerate row"
grep -q '^\\begin{tabular}{rrl' fresh.tex || fail "the default LaTeX table does not start L (r), sep (r), status (l)"
"$np" table $sweep -o all.tex --columns all 2>/dev/null
grep -q '2nd draw' all.tex || fail "--columns all: no 2nd draw column"
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

# width NAME PACKAGES FILE: the width of FILE's table set in a document with PACKAGES, and \linewidth,
# as "W L" in pt (from the .log); the document also places the table, and its log must have no overfull box.
width() {
  printf '\\documentclass{article}\n\\usepackage{%s}\n\\begin{document}\n\\setbox0=\\hbox{\\input{%s}}\\typeout{NPWIDTH \\the\\wd0/\\the\\linewidth}\n\\input{%s}\n\\end{document}\n' "$2" "$3" "$3" >"$1-doc.tex"
  pdflatex -interaction=nonstopmode -halt-on-error "$1-doc.tex" >"$1.out" 2>&1 </dev/null ||
    { tail -30 "$1.out"; fail "$1: pdflatex failed on $3"; }
  sed -n 's/^NPWIDTH \([0-9.]*\)pt\/\([0-9.]*\)pt$/\1 \2/p' "$1-doc.log"
}
# wider A B: exit 0 when A > B (pt; \resizebox's rounding, a few sp, is no wider).
wider() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b + 0.01) }'; }
# 12 columns (L d H N seed params sep status 2nd draw, 3 bounds), as examples/attention-table.tex.
"$np" table --merge rows.json -o wide.tex --columns all --bounds "LV Thm 3,LV Thm 4,LV Thm 2 (upper)" 2>/dev/null
[ "$(sed -n 's/^\\begin{tabular}{\([a-z]*\)}$/\1/p' wide.tex | tr -d '\n' | wc -c)" -eq 12 ] || fail "wide.tex: not 12 columns"
set -- $(width natural booktabs,siunitx wide.tex)
[ $# -eq 2 ] || fail "natural: no width in the log"
wider "$1" "$2" || fail "the 12-column table is $1 pt at its natural size, not wider than \\linewidth $2 pt: the fit is not tested"
grep -q "Overfull .hbox" natural-doc.log || fail "natural: a table wider than \\linewidth gave no overfull box"
set -- $(width fitted booktabs,siunitx,graphicx wide.tex)
[ $# -eq 2 ] || fail "fitted: no width in the log"
wider "$1" "$2" && fail "fitted: the table is $1 pt, wider than \\linewidth $2 pt"
! grep -q "Overfull .hbox" fitted-doc.log || { grep -A2 "Overfull" fitted-doc.log; fail "fitted: overfull box"; }
# A sweep's default table (issue 53): at most 9 columns, and at \linewidth with no overfull box.
"$np" table --arch attention --layers 1..2 --width 2,3 --heads 1 --tokens 4 -o paper.tex 2>/dev/null
cols=$(sed -n 's/^\\begin{tabular}{\([a-z]*\)}$/\1/p' paper.tex | tr -d '\n' | wc -c)
[ "$cols" -le 9 ] || fail "paper.tex: $cols columns by default, more than 9"
set -- $(width paper booktabs,siunitx,graphicx paper.tex)
[ $# -eq 2 ] || fail "paper: no width in the log"
wider "$1" "$2" && fail "paper: the default table is $1 pt, wider than \\linewidth $2 pt"
! grep -q "Overfull .hbox" paper-doc.log || { grep -A2 "Overfull" paper-doc.log; fail "paper: overfull box"; }
# The PGF plot is 345 pt, \linewidth of article (it was 345 bp = 346.3 pt: an overfull box of 1.29 pt).
set -- $(width plotw pgf depth.pgf)
[ $# -eq 2 ] || fail "plotw: no width in the log"
wider "$1" "$2" && fail "the PGF plot is $1 pt, wider than \\linewidth $2 pt"
wider "$2" "$1" && fail "the PGF plot is $1 pt, narrower than \\linewidth $2 pt"
! grep -q "Overfull .hbox" plotw-doc.log || { grep -A2 "Overfull" plotw-doc.log; fail "plotw: overfull box"; }
# Chosen columns: narrower than \linewidth, so set at their natural size (not scaled up).
"$np" table --merge rows.json -o narrow.tex --columns L,d,H,sep,status --bounds "LV Thm 3,LV Thm 4" 2>/dev/null
grep -qF '\(L\) & \(d\) & \(H\) & sep & status & LV Thm 3' narrow.tex || fail "narrow.tex: not the chosen columns"
set -- $(width narrow booktabs,siunitx,graphicx narrow.tex)
[ $# -eq 2 ] || fail "narrow: no width in the log"
wider "$2" "$1" || fail "narrow: $1 pt is not narrower than \\linewidth $2 pt (a narrow table was scaled up?)"
! grep -q "Overfull .hbox" narrow-doc.log || fail "narrow: overfull box"

# Equal budgets: without and with --bounds, and their PGF plot.
budget="--arch attention,mixer,mlp,product --param-budget 16 --tokens 2 --max-depth 2 --max-width 3"
"$np" table $budget -o budget.tex --plot budget.pgf 2>/dev/null
compile budget booktabs,siunitx budget.tex
compile budgetplot pgf budget.pgf
"$np" table --merge budget.tex -o budget-bounds.tex --bounds "LV Thm 3,NB Thm 5.5" 2>/dev/null
grep -qF 'NB Thm 5.5 (\(\le\))' budget-bounds.tex || fail "budget-bounds.tex: no NB Thm 5.5 column"
compile budgetbounds booktabs,siunitx budget-bounds.tex
echo "LaTeX tables and PGF plots compile"
