import pathlib
import sys

# Tests import their shared helpers (_helpers, error_cases) from this folder.
sys.path.insert(0, str(pathlib.Path(__file__).parent))
