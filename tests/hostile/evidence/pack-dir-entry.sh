# Finding 2: abev pack's bundle plus a directory entry 'report.md/' over a listed file
# (GNU tar would make report.md a directory, and the extracted evidence would fail).
"$ABEV" pack "$EV" --out "$WORK/ev.tar.gz" >/dev/null
python3 - "$WORK/ev.tar.gz" "$WORK/bad.tar.gz" <<'PY'
import gzip, io, sys, tarfile
src, dst = sys.argv[1:]
out = io.BytesIO()
with tarfile.open(src, "r:gz") as a, tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as b:
    for m in a.getmembers():
        b.addfile(m, a.extractfile(m) if m.isfile() else None)
    d = tarfile.TarInfo("report.md/")
    d.type, d.mode = tarfile.DIRTYPE, 0o755
    b.addfile(d)
open(dst, "wb").write(gzip.compress(out.getvalue(), mtime=0))
PY
exec "$ABEV" verify "$WORK/bad.tar.gz" --pubkey "$PUB"
