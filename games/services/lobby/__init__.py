"""Finding games: the "Gioca con persone" queue (matchmaking.py), challenges, rematch, friends
(social.py), and what leaves with a deleted account (departures.py)."""
