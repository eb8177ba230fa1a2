# Finding 5: untampered evidence packed by stock tar ('./' prefix, './' root entry) verifies.
tar -C "$EV" -czf "$WORK/ev.tar.gz" .
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
