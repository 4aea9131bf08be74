"""A table and its seats: opening, sitting, starting a game (seating.py), the turn clock and due
times (turns.py), who is at the table (attendance.py), the chat, the practice table's tour hold.
The lobby, the tournaments and the moves (games.services.play) all build on it."""
