"""Qt-free helpers for the window's text: UTF-16 offsets, token tables, display runs, sample texts."""
