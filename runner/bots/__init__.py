"""How the referee talks to bots."""
