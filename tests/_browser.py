"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``), stdlib only.

Used by the report's browser test and benchmark, and by hand to look at a report:

    python3 tests/_browser.py REPORT.html --screenshot out.png [--width 1440 --height 900 --full]

Chromium gets the flags a sandboxed CI needs (``--no-sandbox`` as root, no GPU, no first-run, no background
networking, a throw-away profile) and no network at all: every host name resolves to nothing, the proxy is a
closed port, and the page is loaded with the network emulated offline. Every request the page makes is
recorded, so a test can assert there were none besides the file itself.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    """The Chromium executable (``$CHROMIUM`` first), or None."""
    env = os.environ.get("CHROMIUM")
    if env and shutil.which(env):
        return shutil.which(env)
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


@dataclass
class PageRun:
    """What happened while a page loaded: console errors and warnings, uncaught exceptions, requests."""

    console_errors: list[str] = field(default_factory=list)
    console_warnings: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    log_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    load_s: float = float("nan")
    ready_s: float = float("nan")

    @property
    def errors(self) -> list[str]:
        return [*self.console_errors, *self.exceptions, *self.log_errors]


class Chromium:
    """One headless Chromium with one page, controlled over the DevTools pipe."""

    def __init__(
        self, executable: str | None = None, *, width: int = 1440, height: int = 900, webgl: bool = True
    ) -> None:
        exe = executable or find_chromium()
        if exe is None:
            raise BrowserError("chromium is not installed (apt-get install -y chromium)")
        self._profile = tempfile.mkdtemp(prefix="ncu-roofline-chromium-")
        args = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            "--metrics-recording-only",
            "--mute-audio",
            "--disable-dev-shm-usage",
            f"--user-data-dir={self._profile}",
            # no network: names resolve to nothing, and a proxy on a closed port catches the rest
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=127.0.0.1:9",
            f"--window-size={width},{height}",
            "--remote-debugging-pipe",
        ]
        if webgl:  # software WebGL (SwiftShader), so scattergl draws without a GPU
            args += ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
        args.append("about:blank")
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()

        def child_fds() -> None:  # Chromium reads commands on fd 3 and writes replies on fd 4
            a, b = os.dup(to_r), os.dup(from_w)  # out of the way of 3 and 4 first
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)

        self._proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child_fds,  # noqa: PLW1509 - single-threaded caller; dup2 to fixed fds needs it
            close_fds=False,  # our other fds are close-on-exec (Python's default); 3 and 4 must survive
        )
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._next = 0
        self._events: list[dict[str, Any]] = []
        self.width, self.height = width, height
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    # ------------------------------------------------------------------ protocol

    def _read(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._from_r], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._from_r, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        out: dict[str, Any] = json.loads(msg)
        return out

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, page: bool = False, timeout: float = 60.0
    ) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if page:
            msg["sessionId"] = self._session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            reply = self._read(max(0.0, left))
            if reply is None:
                raise BrowserError(f"no reply to {method} within {timeout} s")
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._events.append(reply)

    def _drain(self, timeout: float = 0.05) -> None:
        while True:
            ev = self._read(timeout)
            if ev is None:
                return
            self._events.append(ev)

    def evaluate(self, expression: str, timeout: float = 60.0) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        r = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            page=True,
            timeout=timeout,
        )
        if "exceptionDetails" in r:
            raise BrowserError(f"evaluate failed: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    # ------------------------------------------------------------------ pages

    def open(
        self,
        path: Path,
        *,
        ready: str = "document.body && document.body.getAttribute('data-ready')",
        timeout: float = 120.0,
    ) -> PageRun:
        """Load ``path`` offline and wait until ``ready`` is truthy; what happened on the way."""
        self._events.clear()
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", page=True)
        self.send(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            page=True,
        )
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
            page=True,
        )
        url = Path(path).resolve().as_uri()
        t0 = time.monotonic()
        self.send("Page.navigate", {"url": url}, page=True)
        run = PageRun()
        loaded = False
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            self._drain(0.05)
            if not loaded and any(e.get("method") == "Page.loadEventFired" for e in self._events):
                loaded = True
                run.load_s = time.monotonic() - t0
            if loaded:
                state = self.evaluate(ready)
                if state:
                    run.ready_s = time.monotonic() - t0
                    break
        else:
            raise BrowserError(f"{path}: the page was not ready within {timeout} s")
        self._drain(0.2)
        for e in self._events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                if p.get("type") == "error":
                    run.console_errors.append(text)
                elif p.get("type") == "warning":
                    run.console_warnings.append(text)
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                run.exceptions.append(str(d.get("exception", {}).get("description") or d.get("text")))
            elif m == "Log.entryAdded":
                entry = p.get("entry", {})
                if entry.get("level") == "error":
                    run.log_errors.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}")
            elif m == "Network.requestWillBeSent":
                run.requests.append(p.get("request", {}).get("url", ""))
        return run

    def screenshot(self, out: Path, *, full: bool = False) -> Path:
        """A PNG of the viewport (or of the whole page with ``full``)."""
        params: dict[str, Any] = {"format": "png"}
        if full:
            h = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)"))
            params["clip"] = {"x": 0, "y": 0, "width": self.width, "height": min(h, 16000), "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params, page=True)["data"]
        out.write_bytes(base64.b64decode(data))
        return out

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close", timeout=5)
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_w, self._from_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html", type=Path)
    ap.add_argument("--screenshot", type=Path, help="write a PNG of the first screen (or the page with --full)")
    ap.add_argument("--width", type=int, default=1440)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    args = ap.parse_args(argv)
    with Chromium(width=args.width, height=args.height) as browser:
        run = browser.open(args.html)
        print(f"loaded in {run.load_s:.2f} s, ready (figures drawn) in {run.ready_s:.2f} s")
        for e in run.errors:
            print(f"error: {e}")
        if args.screenshot:
            browser.screenshot(args.screenshot, full=args.full)
            print(f"wrote {args.screenshot}")
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
