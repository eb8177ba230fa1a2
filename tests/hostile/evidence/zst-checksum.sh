# A stock-tar .tar.zst of intact evidence (zstd writes a content checksum; abev pack's
# frames carry none) with one bit of that checksum flipped: libzstd checks it once the
# frame is read to its end, which abev verify always does.
tar -C "$EV" --zstd -cf "$WORK/ev.tar.zst" .
python3 - "$WORK/ev.tar.zst" <<'PY'
import sys
p = sys.argv[1]
data = bytearray(open(p, "rb").read())
assert data[4] & 0x04, "no content checksum in this zstd frame"
data[-1] ^= 0x01
open(p, "wb").write(data)
PY
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
