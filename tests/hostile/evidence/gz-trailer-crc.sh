# abev pack's .tar.gz of intact evidence with one bit of its gzip trailer's CRC-32
# flipped: gzip -t fails it, libarchive 3.6 reads past the trailer without a look.
"$ABEV" pack "$EV" --out "$WORK/ev.tar.gz" >/dev/null
python3 - "$WORK/ev.tar.gz" <<'PY'
import sys
p = sys.argv[1]
data = bytearray(open(p, "rb").read())
data[-8] ^= 0x01
open(p, "wb").write(data)
PY
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
