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
"$np" table $sweep -o "$dir/d.md" --plot "$dir/default.svg" 2>/dev/null
# The default plot is a paper's figure (issue 53): no drawn title (the caption is the paper's) and at
# most max(2, 6 - series) bound curves (one series here: 5), each in regime and above 1 for some row.
python3 - "$dir/default.svg" <<'EOF' || exit 1
import re, sys
svg = open(sys.argv[1]).read()
if re.search(r'<text[^>]*>netpoly table', svg):
    sys.exit("FAIL the default plot draws a title")
ids = set(t for _, t in re.findall(r'stroke-dasharray="([^"]*)" points="[^"]*"><title>([^<]*) \(d=', svg))
if not 2 <= len(ids) <= 5:
    sys.exit(f"FAIL the default plot has {len(ids)} bound curves, not 2 to 5: {sorted(ids)}")
EOF
"$np" table $sweep -o "$dir/t.md" --bounds all --plot "$dir/p.svg" 2>"$dir/err"

# With --bounds all every bound curve is drawn with its bound's dash pattern, and no two bounds share
# one (attention has 8 plotted bounds; there used to be 6 patterns).
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

# Four series (issue 40, section 5: two of four were hidden under others): each series has its own
# marker (circle, square, triangles, ...), series of different values never draw the same geometry
# (line, markers, bars), and the legend lists the series top to bottom as they end on the right.
four="--arch attention --layers 1..2 --width 2,4 --heads 1,2 --tokens 2"
"$np" table $four -o "$dir/four.json" --plot "$dir/four.svg" 2>/dev/null
python3 - "$dir/four.json" "$dir/four.svg" <<'EOF' || exit 1
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
svg = open(sys.argv[2]).read()
# The values per series (the shape but the depth), from the table: (depth, lower, upper).
values = {}
for r in rows:
    c = r["config"]
    values.setdefault(f"d={c['width']} H={c['heads']} N={c['tokens']}", []).append((c["layers"], r["lower"], r["upper"]))
if len(values) != 4:
    sys.exit(f"FAIL expected 4 series, got {sorted(values)}")
attrs = lambda tag: dict(re.findall(r'([a-z-]+)="([^"]*)"', tag))
# Each series' line (a polyline titled "NAME measured") gives its colour.
colour, geometry = {}, {}
for tag, title in re.findall(r'(<polyline [^>]*>)<title>([^<]*) measured</title>', svg):
    colour[title] = attrs(tag)["stroke"]
    geometry[title] = [("line", attrs(tag)["points"])]
if set(colour) != set(values) or len(set(colour.values())) != 4:
    sys.exit(f"FAIL series lines and colours {colour}, table series {sorted(values)}")
by_colour = {v: k for k, v in colour.items()}
# A marker's shape: "circle", or its corners relative to its centre (rounded to pixels).
def shape(tag):
    a = attrs(tag)
    if tag.startswith("<circle"):
        return "circle", (a["cx"], a["cy"])
    pts = [tuple(map(float, p.split(","))) for p in a["points"].split()]
    cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
    return tuple((round(x - cx), round(y - cy)) for x, y in pts), (f"{cx:.0f}", f"{cy:.0f}")
# The plot's markers (stroke width 1; the legend's samples have width 2) and bracket bars (width 2, with the series' colour).
markers = {}
for tag in re.findall(r'<(?:circle|polygon) [^>]*/>', svg):
    a = attrs(tag)
    if a.get("stroke-width") != "1.0" or a.get("stroke") not in by_colour:
        continue
    s, at = shape(tag)
    markers.setdefault(by_colour[a["stroke"]], set()).add(s)
    geometry[by_colour[a["stroke"]]].append(("marker", at))
for tag in re.findall(r'<polyline [^>]*stroke-width="2.0"[^>]*>', svg):
    a = attrs(tag)
    if a["stroke"] in by_colour:
        geometry[by_colour[a["stroke"]]].append(("bar", a["points"]))
for name in values:
    if len(markers.get(name, ())) != 1:
        sys.exit(f"FAIL series {name}: marker shapes {markers.get(name)}, expected one")
if len({next(iter(markers[n])) for n in values}) != 4:
    sys.exit(f"FAIL two series share a marker: {markers}")
names = sorted(values)
for i, a in enumerate(names):
    for b in names[i + 1:]:
        if sorted(values[a]) != sorted(values[b]) and sorted(geometry[a]) == sorted(geometry[b]):
            sys.exit(f"FAIL series {a} and {b} have different values but draw the same geometry")
# Legend order: top to bottom, the series by their lower end at the largest depth, highest first.
legend = {t: float(y) for y, t in re.findall(r'<text [^>]*y="([0-9.]+)">([^<]*) measured</text>', svg)}
want = sorted(values, key=lambda n: -max(values[n])[1])
if sorted(legend, key=legend.get) != want:
    sys.exit(f"FAIL legend order {sorted(legend, key=legend.get)}, expected {want}")
EOF

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
grep -q '^\\noindent\\begin{pgfpicture}%$' "$dir/p.pgf" || fail "p.pgf is not a pgfpicture"
# Another extension: refused at once, nothing measured or written.
if "$np" table $sweep -o "$dir/x.md" --plot "$dir/p.png" 2>"$dir/err"; then fail "--plot p.png was accepted"; fi
grep -qF "expected a file ending in .svg, .pdf or .pgf" "$dir/err" || { cat "$dir/err"; fail "--plot p.png: message"; }
[ ! -e "$dir/x.md" ] && [ ! -e "$dir/p.png" ] || fail "--plot p.png wrote files"
echo "plots: styles distinct, clipping named, formats by extension"
