"""Moves at a table: the one door every action goes through (`play`), people's and the
computer's alike, and the computer's own moves when it plays or covers a seat (`autoplay`).
Above the table's seating and turn rules (`games.services.table`), which the lobby and the
tournaments use too."""
