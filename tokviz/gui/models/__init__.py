"""Qt item models over core data: the tokenizer registry, tokenizations of the editor's text, merges."""
