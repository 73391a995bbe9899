#!/bin/sh
# table --plot (issue 30, section 3): one dash pattern per bound, clipped
# curves named on stderr and in the plot, the format by the extension (SVG,
# PDF, PGF; another extension refused before any row is measured), and a PDF
# that qpdf and pdfinfo accept (when poppler-utils and qpdf are installed).
set -eu
np="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL $*"; exit 1; }
sweep="--arch attention --layers 1..2 --width 2 --heads 1 --tokens 2"
"$np" table $sweep -o "$dir/t.md" --plot "$dir/p.svg" 2>"$dir/err"

# Every bound curve is drawn with its bound's dash pattern, and no two bounds share one
# (attention has 8 plotted bounds; there used to be 6 patterns).
python3 - "$dir/p.svg" <<'EOF' || exit 1
import re, sys
svg = open(sys.argv[1]).read()
dash = {}
for d, title in re.findall(r'stroke-dasharray="([^"]*)" points="[^"]*"><title>([^<]*) \(d=', svg):
    dash.setdefault(title, set()).add(d)
if len(dash) < 7:
    sys.exit(f"FAIL only {len(dash)} bound curves found")
if any(len(v) != 1 for v in dash.values()):
    sys.exit(f"FAIL a bound drawn with several patterns: {dash}")
pats = [next(iter(v)) for v in dash.values()]
if len(set(pats)) != len(pats):
    sys.exit(f"FAIL two bounds share a dash pattern: {dash}")
EOF

# y runs to ceil(3 log3 sep + 1) = 9 here (sep = 15 at L = 2: the bound curves
# get 3x the measured height): LV Thm 4 (48 and 2250: log3 3.5 and 7.0) is drawn,
# LV Thm 2 (upper) leaves the range; stderr and the plot say so.
grep -qF "LV Thm 2 (upper) (d=2 H=1 N=2): above log3 sep = 9" "$dir/err" || { cat "$dir/err"; fail "stderr does not name the clipped LV Thm 2 (upper)"; }
if grep -qF "LV Thm 4 (d=2" "$dir/err"; then cat "$dir/err"; fail "LV Thm 4 (within 3x) was clipped"; fi
grep -qF "Clipped above log3 sep = 9: " "$dir/p.svg" || fail "the plot does not note its clipped curves"

# PDF and PGF by the extension.
"$np" table --merge "$dir/t.md" -o "$dir/m.md" --plot "$dir/p.pdf" 2>/dev/null
head -c 9 "$dir/p.pdf" | grep -q "%PDF-1.4" || fail "p.pdf is not a PDF"
if command -v qpdf >/dev/null 2>&1; then
  qpdf --check "$dir/p.pdf" >"$dir/qpdf" 2>&1 || { cat "$dir/qpdf"; fail "qpdf --check"; }
else
  echo "note: qpdf not installed (apt-get install qpdf): the PDF's xref is checked by the unit tests only"
fi
if command -v pdfinfo >/dev/null 2>&1; then
  pdfinfo "$dir/p.pdf" >"$dir/info" 2>&1 || { cat "$dir/info"; fail "pdfinfo"; }
  grep -q "^Pages: *1$" "$dir/info" || { cat "$dir/info"; fail "pdfinfo: not one page"; }
fi
"$np" table --merge "$dir/t.md" -o "$dir/m.md" --plot "$dir/p.pgf" 2>/dev/null
grep -q '^\\begin{pgfpicture}' "$dir/p.pgf" || fail "p.pgf is not a pgfpicture"
# Another extension: refused at once, nothing measured or written.
if "$np" table $sweep -o "$dir/x.md" --plot "$dir/p.png" 2>"$dir/err"; then fail "--plot p.png was accepted"; fi
grep -qF "expected a file ending in .svg, .pdf or .pgf" "$dir/err" || { cat "$dir/err"; fail "--plot p.png: message"; }
[ ! -e "$dir/x.md" ] && [ ! -e "$dir/p.png" ] || fail "--plot p.png wrote files"
echo "plots: styles distinct, clipping named, formats by extension"
