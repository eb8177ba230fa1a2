"""The plots as a reader gets them: the SVG files plots_write() makes are
well-formed for xmllint and draw with a stock renderer (rsvg-convert), and
the PNG it makes shows the variants' colours and dark text on white.

Nothing in abev writes plots yet (the runner will), so the files come from
the plots unit test: tests/unit/test_plots.c writes them into
$ABEV_PLOTS_OUT and keeps them when that is set. make check-integration
builds it and names its folder in $ABEV_UNIT. The stock tools are Debian's
libxml2-utils and librsvg2-bin; without them the test is skipped."""
import os
import shutil
import struct
import subprocess
import unittest
import zlib

from common import SANITIZED, SRC, AbevTestCase

# The colours plots.c gives the first two variants (base, cand) and its text.
BASE = (0x00, 0x72, 0xB2)
CAND = (0xD5, 0x5E, 0x00)
TEXT = (0x22, 0x22, 0x22)


def unit_binary():
    folder = os.environ.get("ABEV_UNIT") or os.path.join(
        SRC, "build", "asan" if SANITIZED else "", "unit")
    return os.path.join(os.path.normpath(folder), "test_plots")


def png_pixels(path):
    """Width, height and rows of (r, g, b, a) of an 8-bit RGB or RGBA PNG,
    non-interlaced, as rsvg-convert writes it (RGB when nothing is
    transparent)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path} is not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise AssertionError(f"{path}: depth {depth}, colour type {ctype}, "
                             f"interlace {interlace}: only 8-bit RGB(A) is read here")
    bpp = 4 if ctype == 6 else 3
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        base = y * (stride + 1)
        ftype, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        rows.append([(*line[i:i + 3], line[i + 3] if bpp == 4 else 255)
                     for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


class PlotsTest(AbevTestCase):
    def setUp(self):
        super().setUp()
        self.tools = {t: shutil.which(t) for t in ("xmllint", "rsvg-convert")}

    def make_plots(self):
        exe = unit_binary()
        if not os.path.exists(exe):
            if os.environ.get("ABEV_UNIT"):
                self.fail(f"{exe} is missing although make named its folder")
            self.skipTest(f"{exe} is not built: run 'make {os.path.relpath(exe, SRC)}'")
        cp = subprocess.run([exe], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "ABEV_PLOTS_OUT": self.tmp})
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)
        return self.path("plots")

    def test_files(self):
        plots = self.make_plots()
        self.assertEqual(sorted(os.listdir(plots)),
                         ["cpu.svg", "max_rss.svg", "runs.svg", "t.svg", "wall.svg",
                          "wall_own.svg"])

    def test_stock_tools_read_and_draw_them(self):
        missing = [t for t, p in self.tools.items() if not p]
        if missing:
            self.skipTest(f"needs {' and '.join(missing)}: "
                          "apt-get install libxml2-utils librsvg2-bin")
        plots = self.make_plots()
        for name in sorted(os.listdir(plots)):
            with self.subTest(plot=name):
                svg = os.path.join(plots, name)
                png = self.path(name[:-4] + ".png")
                cp = subprocess.run([self.tools["xmllint"], "--noout", svg],
                                    capture_output=True, text=True, timeout=60)
                self.assertEqual((cp.returncode, cp.stderr), (0, ""), name)
                cp = subprocess.run([self.tools["rsvg-convert"], "-o", png, svg],
                                    capture_output=True, text=True, timeout=60)
                self.assertEqual(cp.returncode, 0, cp.stderr)
                width, height, rows = png_pixels(png)
                self.assertEqual((width, height), (840, 540 if name == "runs.svg" else 440))
                seen = {}
                for row in rows:
                    for r, g, b, a in row:
                        seen[(r, g, b, a)] = seen.get((r, g, b, a), 0) + 1
                # An opaque white ground, the variants' marks in their colours, the text.
                self.assertTrue(all(a == 255 for _, _, _, a in seen), name)
                self.assertGreater(seen.get((255, 255, 255, 255), 0), width * height // 2)
                for what, rgb in (("base", BASE), ("cand", CAND), ("text", TEXT)):
                    self.assertGreater(seen.get((*rgb, 255), 0), 20,
                                       f"{name}: no pixel of {what}'s colour #"
                                       + "".join(f"{c:02x}" for c in rgb))


if __name__ == "__main__":
    unittest.main()
