"""Lecture mode: a deck of live slides on the whole screen, driven by a clicker, and its handout."""
