# A good signature by the right key, over other content: the signature lines of another
# run's SHA256.sig followed by this run's manifest.
"$ABEV" bench true -r 2 --out "$WORK/other" --quiet --key "$KEY" --max-cpu-wait-pct 100 >/dev/null
{ head -n 2 "$WORK/other/SHA256.sig"; cat "$EV/SHA256"; } > "$EV/SHA256.sig"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
