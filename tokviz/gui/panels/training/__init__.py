"""The training panel: corpus, settings, run and save."""
