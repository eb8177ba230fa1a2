# abev pack's own bundle of intact evidence verifies: the control for the bundle cases.
"$ABEV" pack "$EV" --out "$WORK/ev.tar.zst" >/dev/null
exec "$ABEV" verify "$WORK/ev.tar.zst" --pubkey "$PUB"
