"""Look and type: the token colour palettes, the window theme and the fonts panels follow."""
