"""What notebooks and exports draw: HTML token pages and tables, SVG charts, token colours."""
