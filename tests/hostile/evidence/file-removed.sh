# A listed file removed.
rm "$EV/report.md"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
