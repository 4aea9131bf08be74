"""Finding games: the "Gioca con persone" queue (matchmaking.py), challenges, rematch, friends
(social.py) and the bell's notifications."""
