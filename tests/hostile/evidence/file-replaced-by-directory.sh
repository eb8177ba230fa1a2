# A listed file replaced by a directory of the same name.
rm "$EV/report.md"
mkdir "$EV/report.md"
echo x > "$EV/report.md/x"
exec "$ABEV" verify "$EV" --pubkey "$PUB"
