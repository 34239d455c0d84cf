"""Dockable features that plug into the window through :class:`tokviz.gui.context.PanelContext`."""
