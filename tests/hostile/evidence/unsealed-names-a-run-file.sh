# result.json's "unsealed" names a run file SHA256 does not list, as a seal a
# signal stopped leaves it; the manifest made again, unsigned: honoured, NOT CLEAN.
python3 - "$EV" <<'PY'
import json, os, sys
ev = sys.argv[1]
p = os.path.join(ev, "result.json")
r = json.load(open(p))
r["unsealed"] = ["runs/true/run-1/left.bin"]
json.dump(r, open(p, "w"))
open(os.path.join(ev, "runs/true/run-1/left.bin"), "wb").write(b"x" * 1000)
PY
rm "$EV/SHA256.sig"
cd "$EV"
find . -type f ! -name SHA256 ! -name left.bin | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum --tag > SHA256
exec "$ABEV" verify "$EV"
