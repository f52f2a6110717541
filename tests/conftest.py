import sys
from pathlib import Path

import pytest

# The tests' own helper modules (fixture_expectations) import by name.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory, monkeypatch):
    """Each test gets its own result cache: no test sees another's results."""
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
