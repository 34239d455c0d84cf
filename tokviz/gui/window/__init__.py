"""The main window: it wires the editor, the views and the panels, and owns export and presentation mode."""
