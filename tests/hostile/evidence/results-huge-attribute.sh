# A 1 GB TRX that is one attribute value (16 MiB written, the rest a sparse hole).
python3 - <<'PY'
with open("huge.trx", "wb") as f:
    f.write(b'<?xml version="1.0"?>\n<TestRun a="')
    f.write(b"x" * (16 << 20))
    f.truncate(1 << 30)
PY
exec "$ABEV" results huge.trx
