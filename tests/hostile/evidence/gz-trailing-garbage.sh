# Bytes appended after a stock-tar .tar.gz of intact evidence: not signed, and GNU tar fails on them.
tar -C "$EV" -czf "$WORK/ev.tar.gz" .
printf 'appended\n' >> "$WORK/ev.tar.gz"
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
