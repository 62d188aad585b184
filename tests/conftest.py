"""Hypothesis profiles: 'ci' (the default, a few minutes in all) and 'deep' (HYPOTHESIS_PROFILE=deep).

Games compiled by the tests (mutants included) are cached in a directory of the test run's own,
not in the user's cache."""
import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("deep", max_examples=400, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("GAMEDSL_CACHE", tempfile.mkdtemp(prefix="gamedsl-cache-"))


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium driven by Playwright, one per module of browser tests (serve_helpers.needs_chromium)."""
    from playwright.sync_api import sync_playwright

    from serve_helpers import CHROMIUM
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()
