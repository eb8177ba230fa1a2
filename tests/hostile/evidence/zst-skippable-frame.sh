# A zstd skippable frame (magic 0x184D2A50) carrying 16 bytes, appended to abev pack's
# .tar.zst: every zstd decoder skips it without a word, so it hides data nobody signed.
"$ABEV" pack "$EV" --out "$WORK/ev.tar.zst" >/dev/null
printf '\120\052\115\030\020\000\000\000hidden payload!\n' >> "$WORK/ev.tar.zst"
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
