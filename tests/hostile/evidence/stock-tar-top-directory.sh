# Finding 5: a bundle of the directory itself (entries 'ev/...'): refused, saying how to make one.
tar -C "$(dirname "$EV")" -czf "$WORK/ev.tar.gz" "$(basename "$EV")"
exec "$ABEV" verify "$WORK/ev.tar.gz" --pubkey "$PUB"
