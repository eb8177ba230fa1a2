# Finding 1: a listed file with a second name outside the evidence; its content still matches.
ln "$EV/report.md" "$WORK/outside"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
