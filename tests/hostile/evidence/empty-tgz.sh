# Finding 3: an empty file named as a bundle is a failed verification (4), not a usage error.
: > "$WORK/ev.tgz"
exec "$ABEV" verify "$WORK/ev.tgz" --pubkey "$PUB"
