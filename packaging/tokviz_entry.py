"""Entry script of the PyInstaller bundle: the same ``main`` as the installed ``tokviz`` command.

``freeze_support`` lets the bundle start worker processes the way plain Python does (a handout PDF
is painted in a fresh one, training counts in a pool): a worker started from the bundle runs the
work it was given, not the app again.
"""

import multiprocessing
import sys

from tokviz.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
