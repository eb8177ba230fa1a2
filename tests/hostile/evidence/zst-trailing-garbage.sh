# Bytes after the end of abev pack's zstd stream.
"$ABEV" pack "$EV" --out "$WORK/ev.tar.zst" >/dev/null
printf 'GARBAGE AFTER THE END\n' >> "$WORK/ev.tar.zst"
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
