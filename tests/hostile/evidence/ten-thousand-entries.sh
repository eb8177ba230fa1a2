# 10,000 unlisted entries in a bundle of the evidence: each named, in bounded time.
python3 - "$EV" "$WORK/many.tar.gz" <<'PY'
import gzip, io, os, sys, tarfile
ev, dst = sys.argv[1:]
out = io.BytesIO()
with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as t:
    for root, _, files in sorted(os.walk(ev)):
        for f in sorted(files):
            full = os.path.join(root, f)
            t.add(full, arcname=os.path.relpath(full, ev))
    for i in range(10000):
        t.addfile(tarfile.TarInfo("junk/%05d" % i), io.BytesIO(b""))
open(dst, "wb").write(gzip.compress(out.getvalue(), mtime=0))
PY
exec "$ABEV" verify "$WORK/many.tar.gz" --pubkey "$PUB"
