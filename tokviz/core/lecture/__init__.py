"""Lecture decks: loading and checking a deck, and each slide's content and figures."""
