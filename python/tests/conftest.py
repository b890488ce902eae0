"""Shared fixtures: the repository root, and a private kdt cache per session
(so that the tests see what they build, and a second process can be shown
to reuse it)."""
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def sample(name):
    return os.path.join(ROOT, "samples", name)


@pytest.fixture(scope="session", autouse=True)
def kdt_cache(tmp_path_factory):
    # A cache of the session's own unless the caller chose one (scripts/test.sh shares the build's).
    if "KDT_CACHE_DIR" not in os.environ:
        os.environ["KDT_CACHE_DIR"] = str(tmp_path_factory.mktemp("kdt-cache"))
    return os.environ["KDT_CACHE_DIR"]
