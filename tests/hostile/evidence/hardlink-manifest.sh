# SHA256 itself with a second name outside the evidence: evidence files have one name each.
ln "$EV/SHA256" "$WORK/manifest-elsewhere"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
