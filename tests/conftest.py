import sys
from pathlib import Path

# The tests' own helper modules (fixture_expectations) import by name.
sys.path.insert(0, str(Path(__file__).parent))
