"""Playing one game: the referee, the seats and the bots' kinds, every byte under
watchdogs, faults, the quick loop in C, and a record played again by its rules."""
