# As unsealed-names-a-run-file.sh, but the evidence stays signed: result.json
# edited to excuse a planted file, SHA256 made again over the edit, SHA256.sig
# the one abev wrote. The list is honoured only as the signature covers it.
python3 - "$EV" <<'PY'
import json, os, sys
ev = sys.argv[1]
p = os.path.join(ev, "result.json")
r = json.load(open(p))
r["unsealed"] = ["runs/true/run-1/left.bin"]
json.dump(r, open(p, "w"))
open(os.path.join(ev, "runs/true/run-1/left.bin"), "wb").write(b"x" * 1000)
PY
cd "$EV"
find . -type f ! -name SHA256 ! -name SHA256.sig ! -name left.bin | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum --tag > SHA256
exec "$ABEV" verify "$EV" --pubkey "$PUB"
