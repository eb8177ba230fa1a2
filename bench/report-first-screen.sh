#!/bin/sh
# report-first-screen.sh REPORT.md [OUT.png]: renders a report.md to HTML and,
# where chromium is installed, screenshots its first 1280x900 pixels, the screen
# a release board reads (issue 33 §2: decision, gate rows and failing tests
# there). The HTML comes from pandoc when installed, else from a small Python
# step that knows the Markdown abev writes (headings, paragraphs, lists,
# tables, bold, code). Without chromium the screenshot is skipped, said so.
set -eu
md=${1:?usage: report-first-screen.sh REPORT.md [OUT.png]}
png=${2:-report-first-screen.png}
html=${png%.png}.html
if command -v pandoc >/dev/null 2>&1; then
	pandoc -s --metadata title=report -f gfm -t html "$md" -o "$html"
else
	python3 - "$md" "$html" <<'PY'
import html, re, sys
def inline(t):
    t = html.escape(t, quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
    return re.sub(r"\\(.)", r"\1", t)
def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
out, lines, i = [], open(sys.argv[1], encoding="utf-8").read().split("\n"), 0
while i < len(lines):
    ln = lines[i]
    if ln.startswith("#"):
        n = len(ln) - len(ln.lstrip("#"))
        out.append(f"<h{n}>{inline(ln[n:].strip())}</h{n}>")
    elif ln.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|-"):
        out.append("<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in cells(ln)) + "</tr>")
        i += 2
        while i < len(lines) and lines[i].startswith("|"):
            out.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in cells(lines[i])) + "</tr>")
            i += 1
        out.append("</table>")
        continue
    elif ln.startswith("- "):
        out.append("<ul>")
        while i < len(lines) and lines[i].startswith("- "):
            out.append(f"<li>{inline(lines[i][2:])}</li>")
            i += 1
        out.append("</ul>")
        continue
    elif ln.startswith("```"):
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(html.escape(lines[i]))
            i += 1
        out.append("<pre>" + "\n".join(body) + "</pre>")
    elif ln.strip():
        out.append(f"<p>{inline(ln)}</p>")
    i += 1
style = ("body{font-family:sans-serif;font-size:14px;margin:16px;max-width:1240px}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}")
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(f"<!doctype html><meta charset=utf-8><style>{style}</style>\n" + "\n".join(out))
PY
fi
echo "html: $html"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "screenshot: skipped (chromium is not installed)"
	exit 0
fi
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,900 \
	--screenshot="$png" "file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")" \
	>/dev/null 2>&1
echo "screenshot: $png (1280x900)"
