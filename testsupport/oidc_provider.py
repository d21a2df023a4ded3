"""A real OpenID provider for the single sign-on tests: npm's certified ``oidc-provider`` run by
Node (``testsupport/oidc/provider.mjs``) on a free loopback port, and a helper that walks its
sign-in form without a browser (the Chromium test clicks through it instead)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import requests

from testsupport.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "testsupport" / "oidc" / "provider.mjs"
CLIENT_ID = "deniable"
CLIENT_SECRET = "deniable-test-secret-0123456789"


def available() -> bool:
    """Node is installed and the script finds ``oidc-provider`` (``npm ci`` put it there)."""
    node = shutil.which("node")
    if node is None:
        return False
    probe = subprocess.run(
        [node, "--input-type=module", "-e", "await import('oidc-provider')"],
        cwd=SCRIPT.parent,
        capture_output=True,
        timeout=30,
        check=False,
    )
    return probe.returncode == 0


@dataclass
class OpenIdProvider:
    port: int
    redirect_uris: list[str]
    process: subprocess.Popen | None = None
    log: list[str] = field(default_factory=list)

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        clients = [
            {
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "redirect_uris": self.redirect_uris,
            },
            # Another application at the same provider (a token issued to it is not ours).
            {
                "client_id": "other-app",
                "client_secret": "other-app-secret-0123456789",
                "redirect_uris": self.redirect_uris,
            },
        ]
        env = {**os.environ, "OIDC_PORT": str(self.port), "OIDC_CLIENTS": json.dumps(clients)}
        self.process = subprocess.Popen(
            [shutil.which("node") or "node", str(SCRIPT)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        if not wait_until(self._up, 20):
            self.stop()
            out = self.process.stdout.read() if self.process.stdout else ""
            raise RuntimeError(f"the test OpenID provider did not start: {out}")

    def _up(self) -> bool:
        try:
            url = f"{self.issuer}/.well-known/openid-configuration"
            return requests.get(url, timeout=1).status_code == 200
        except requests.RequestException:
            return False

    def tamper(self, **claims: object) -> None:
        """Overwrite these ID-token claims in every later token response (re-signed)."""
        requests.post(f"{self.issuer}/__test__/tamper", json=claims, timeout=5).raise_for_status()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def sign_in(
        self,
        authorize_url: str,
        *,
        email: str,
        verified: bool = True,
        groups: str = "",
        amr: str = "pwd",
    ) -> dict[str, str]:
        """Follow ``authorize_url`` through the provider's sign-in form as ``email``; the query
        of the redirect back to Deniable (``code``, ``state``, ``iss``), not followed."""
        browser = requests.Session()
        url = authorize_url
        posted = False
        for _ in range(10):
            response = browser.get(url, allow_redirects=False, timeout=10)
            if response.status_code == 200 and not posted:
                form_url = url
                response = browser.post(
                    form_url,
                    data={
                        "login": email,
                        "email_verified": "true" if verified else "false",
                        "groups": groups,
                        "amr": amr,
                    },
                    allow_redirects=False,
                    timeout=10,
                )
                posted = True
            assert response.status_code in (302, 303), (response.status_code, response.text)
            url = urljoin(url, response.headers["Location"])
            if not url.startswith(self.issuer):
                return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        raise AssertionError("the provider never redirected back")


@contextmanager
def running_provider(redirect_uris: list[str]) -> Iterator[OpenIdProvider]:
    provider = OpenIdProvider(port=free_port(), redirect_uris=redirect_uris)
    provider.start()
    try:
        yield provider
    finally:
        provider.stop()
