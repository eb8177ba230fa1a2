# result.json given a byte 0xFF inside a string and the manifest remade without a
# signature, as anyone can: the contents match, and abev report refuses to read the
# file instead of carrying invalid UTF-8 into a report.
rm -f "$EV/SHA256.sig"
python3 - "$EV" <<'PY'
import hashlib, os, sys
ev = sys.argv[1]
p = os.path.join(ev, "result.json")
data = open(p, "rb").read()
i = data.index(b'"name":\t"') + len(b'"name":\t"')
open(p, "wb").write(data[:i] + b"\xff" + data[i:])
lines = []
for line in open(os.path.join(ev, "SHA256"), encoding="utf-8"):
    name = line[len("SHA256 ("):line.index(") = ")]
    digest = hashlib.sha256(open(os.path.join(ev, name), "rb").read()).hexdigest()
    lines.append(f"SHA256 ({name}) = {digest}\n")
open(os.path.join(ev, "SHA256"), "w", encoding="utf-8").writelines(lines)
PY
# The bytes match the manifest, but verify cannot read what they record: not clean.
"$ABEV" verify "$EV" >/dev/null 2>&1 || [ $? -eq 8 ]
exec "$ABEV" report "$EV" --out "$WORK/report.md"
