"""Ratings and history: the ELO ratings and the analysis of finished games."""
