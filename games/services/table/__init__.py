"""The live table and its timers: the one door for actions (play.py), seating, the turn clock and
due times (turns.py), the scheduler, and the computer's autoplay of due and covered turns."""
