"""``python -m tokviz``: the same as the ``tokviz`` command."""

import sys

from tokviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
