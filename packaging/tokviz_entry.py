"""Entry script of the PyInstaller bundle: the same ``main`` as the installed ``tokviz`` command."""

import sys

from tokviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
