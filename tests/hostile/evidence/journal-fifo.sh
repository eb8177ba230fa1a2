# abev killed while it waits a gap leaves result.json "running" and the
# journal; a FIFO put in the journal's place is refused by abev report
# without blocking on it.
"$ABEV" bench -N true -r 3 --gap 60 --max-cpu-wait-pct 100 --out "$WORK/run" --quiet &
pid=$!
i=0
while [ ! -s "$WORK/run/invocations.jsonl" ] && [ $i -lt 2400 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -9 $pid
wait $pid || true
rm "$WORK/run/invocations.jsonl"
mkfifo "$WORK/run/invocations.jsonl"
exec "$ABEV" report "$WORK/run"
