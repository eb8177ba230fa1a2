# One zero block, then another entry, under zstd: libarchive (and GNU tar) stop at the
# first zero block, `tar -i` does not. Built from a stock tar with its end blocks cut off.
tar -C "$EV" -cf "$WORK/ok.tar" .
mkdir "$WORK/evil" && echo 'not signed' > "$WORK/evil/evil.txt"
tar -C "$WORK/evil" -cf "$WORK/evil.tar" evil.txt
python3 - "$WORK" <<'PY'
import sys
w = sys.argv[1]
ok = open(w + "/ok.tar", "rb").read().rstrip(b"\0")
ok += b"\0" * (-len(ok) % 512)
open(w + "/ev.tar", "wb").write(ok + b"\0" * 512 + open(w + "/evil.tar", "rb").read())
PY
zstd -q "$WORK/ev.tar" -o "$WORK/ev.tar.zst"
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
