# A .tar.gz of intact evidence whose gzip header carries a comment (FCOMMENT): bytes in
# front of the archive that no tar writes and nobody signed.
tar -C "$EV" -cf "$WORK/ev.tar" .
python3 - "$WORK" <<'PY'
import struct, sys, zlib
w = sys.argv[1]
data = open(w + "/ev.tar", "rb").read()
c = zlib.compressobj(6, zlib.DEFLATED, -15)
body = c.compress(data) + c.flush()
head = b"\x1f\x8b\x08\x10" + b"\0\0\0\0\0\x03" + b"a hidden message\0"
trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xffffffff)
open(w + "/ev.tar.gz", "wb").write(head + body + trailer)
PY
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
