# A .tar.gz of intact evidence whose gzip header carries a header CRC (FHCRC) that does
# not match it: gzip -t fails it, libarchive 3.6 skips the two bytes unchecked.
tar -C "$EV" -cf "$WORK/ev.tar" .
python3 - "$WORK" <<'PY'
import struct, sys, zlib
w = sys.argv[1]
data = open(w + "/ev.tar", "rb").read()
c = zlib.compressobj(6, zlib.DEFLATED, -15)
body = c.compress(data) + c.flush()
head = b"\x1f\x8b\x08\x02" + b"\0\0\0\0\0\x03"
hcrc = struct.pack("<H", (zlib.crc32(head) & 0xffff) ^ 0x0101)
trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xffffffff)
open(w + "/ev.tar.gz", "wb").write(head + hcrc + body + trailer)
PY
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
