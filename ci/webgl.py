#!/usr/bin/env python3
"""Our WebGL pages (tests/webgl/*.html) in real browsers on agx16 and on softpipe from the same Mesa
build, read-back pixels and returned data compared. Called by `./x webgl [chromium|firefox|both]
[PAGE...]`; not part of ./x test (it needs the browsers, installed by ci/browser.sh on first use).

Each page draws with WebGL and reports a base64 JSON result (tests/webgl/harness.js): the renderer
strings, gl.readPixels of the canvas and, for some pages, numbers read back from buffers. A page passes
in a browser when both runs succeed (the softpipe run is Firefox's where the browser has no WebGL on
softpipe, as Chromium has not), the agx16 run's renderer names agx16 and the softpipe run's names
softpipe (no silent fallback either way), the data agree, and at most PIXEL_SHARE of the pixels differ
by more than PIXEL_TOLERANCE in a channel (filtering and derivative rounding differ slightly between
two correct implementations; a page may widen the tolerance, saying why).
"""
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "tests" / "webgl"
PIXEL_TOLERANCE = 2  # per channel, out of 255
PIXEL_SHARE = 0.005  # of the canvas's pixels may exceed the tolerance
TIMEOUT = 600  # seconds per browser run; agx16 runs on the M4 model
RESULT = re.compile(r"webgl-result ([A-Za-z0-9+/=]+)")


def run_page(browser, page, softpipe, tmp):
    """One browser run of one page: (result dict or None, seconds, diagnostic text)."""
    cmd = [str(ROOT / "ci" / "browser.sh"), browser]
    if softpipe:
        cmd.append("--softpipe")
    if browser == "firefox":
        cmd += ["--out", str(Path(tmp) / f"{page.stem}-{'softpipe' if softpipe else 'agx16'}.png")]
    cmd.append(str(page))
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, TIMEOUT, f"timed out after {TIMEOUT} s"
    took = time.monotonic() - start
    m = RESULT.search(p.stdout)
    if not m:
        tail = "\n".join((p.stderr or "").strip().splitlines()[-5:])
        return None, took, f"no result (exit {p.returncode}); stderr ends:\n{tail}"
    return json.loads(base64.b64decode(m.group(1)).decode("utf-8")), took, ""


def compare(agx, soft):
    """None when the two results agree, else why not."""
    if not agx.get("ok"):
        return f"agx16: {agx.get('error')}"
    if not soft.get("ok"):
        return f"softpipe: {soft.get('error')}"
    if "agx16" not in (agx.get("renderer") or ""):
        return f"agx16 run's renderer is {agx.get('renderer')!r}"
    if "softpipe" not in (soft.get("renderer") or ""):
        return f"softpipe run's renderer is {soft.get('renderer')!r}"
    a_data, s_data = agx.get("data"), soft.get("data")
    if (a_data is None) != (s_data is None) or (a_data and len(a_data) != len(s_data)):
        return "returned data differ in shape"
    for i, (x, y) in enumerate(zip(a_data or [], s_data or [])):
        if abs(x - y) > 1e-5 * max(1.0, abs(y)):
            return f"data[{i}]: agx16 {x} vs softpipe {y}"
    a_px, s_px = base64.b64decode(agx["pixels"]), base64.b64decode(soft["pixels"])
    if len(a_px) != len(s_px):
        return "canvas sizes differ"
    tolerance = max(PIXEL_TOLERANCE, agx.get("tolerance") or 0)
    bad, worst, first = 0, 0, None
    for i in range(0, len(a_px), 4):
        d = max(abs(a_px[i + c] - s_px[i + c]) for c in range(4))
        worst = max(worst, d)
        if d > tolerance:
            bad += 1
            if first is None:
                first = i // 4
    if bad > PIXEL_SHARE * (len(a_px) // 4):
        w = agx["width"]
        x, y = first % w, first // w
        return (f"{bad} of {len(a_px) // 4} pixels differ by more than {tolerance} (worst {worst}); "
                f"first at ({x},{y}): agx16 {list(a_px[4 * first:4 * first + 4])} "
                f"vs softpipe {list(s_px[4 * first:4 * first + 4])}")
    return None


def main(argv):
    browsers, names = ["chromium", "firefox"], []
    for a in argv:
        if a in ("chromium", "firefox"):
            browsers = [a]
        elif a == "both":
            browsers = ["chromium", "firefox"]
        else:
            names.append(Path(a).stem)
    pages = sorted(PAGES.glob("*.html"))
    if names:
        pages = [p for p in pages if p.stem in names]
        missing = set(names) - {p.stem for p in pages}
        if missing:
            print(f"webgl: no page named {', '.join(sorted(missing))} in {PAGES}", file=sys.stderr)
            return 2
    failures, renderers = 0, {}
    with tempfile.TemporaryDirectory(prefix="agx16-webgl.") as tmp:
        for page in pages:
            runs = {}

            def get(browser, softpipe):
                key = (browser, softpipe)
                if key not in runs:
                    runs[key] = run_page(browser, page, softpipe, tmp)
                return runs[key]

            for browser in browsers:
                agx, t_agx, why_agx = get(browser, False)
                soft, t_soft, why_soft = get(browser, True)
                ref_name = browser
                # Chromium's ANGLE needs 4x multisampling of the ES 3.0 formats for an ES 3.0
                # context and softpipe offers none, so Chromium has no WebGL on softpipe: its
                # reference is then the same page in Firefox on softpipe.
                if soft is None or not soft.get("ok"):
                    other = "firefox" if browser == "chromium" else "chromium"
                    alt, t_alt, why_alt = get(other, True)
                    if alt is not None and alt.get("ok"):
                        soft, t_soft, ref_name = alt, t_alt, other
                if agx is None or soft is None:
                    verdict = f"agx16: {why_agx}" if agx is None else f"softpipe: {why_soft}"
                else:
                    verdict = compare(agx, soft)
                    renderers.setdefault(browser, set()).update(r for r in [agx.get("renderer")] if r)
                    renderers.setdefault(ref_name, set()).update(r for r in [soft.get("renderer")] if r)
                # Frame times a page measured itself (webgl2-cubes), agx16 against softpipe.
                timing = ""
                if agx is not None and soft is not None and agx.get("timing"):
                    a_ms = agx["timing"].get("frame_ms")
                    s_ms = (soft.get("timing") or {}).get("frame_ms")
                    if a_ms is not None and s_ms:
                        timing = f"  frame agx16 {a_ms:.0f} ms, softpipe {s_ms:.0f} ms ({a_ms / s_ms:.1f}x)"
                status = "pass" if verdict is None else "FAIL"
                failures += verdict is not None
                print(f"{status} {browser:8} {page.stem:28} agx16 {t_agx:6.1f} s  "
                      f"softpipe ({ref_name}) {t_soft:5.1f} s{timing}"
                      + ("" if verdict is None else f"\n     {verdict}"), flush=True)
    for browser, names_seen in sorted(renderers.items()):
        for r in sorted(names_seen):
            print(f"renderer {browser}: {r}")
    total = len(browsers) * len(pages)
    print(f"webgl: {total - failures}/{total} pages equal softpipe's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
