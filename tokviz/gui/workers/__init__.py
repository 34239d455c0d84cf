"""Work off the GUI thread: short background jobs and the training worker, with progress and cancel."""
