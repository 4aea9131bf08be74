"""Measurement tools for the computer players (not players themselves): the rules auditor and
the level-against-level tournament."""
