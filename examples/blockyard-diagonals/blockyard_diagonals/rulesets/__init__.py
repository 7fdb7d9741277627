"""Rule files of the diagonals plugin (data)."""
