# Finding 6: abev pack refuses a directory that is not sealed evidence.
mkdir "$WORK/d"
echo data > "$WORK/d/a.txt"
exec "$ABEV" pack "$WORK/d" --out "$WORK/d.tar.gz"
