"""``koth replay``: a recorded game played again for a bot author, with its exact inputs.

- ``transcript``: every position of a record rebuilt by the game's pure rules, and for each seat
  asked there the bytes it was sent (through the game's codec, as the referee sent them) and
  what it answered (the recorded move, or the recorded fault).
- ``wire``: those bytes shown byte for byte in the game's own protocol (a C function's request
  laid out as its arguments).
- ``records``: the record named by a key, a prefix of one, a game page's address or file name,
  or a ``games.jsonl`` line.
- ``feed``: a bot given one seat's inputs in order, its answers compared with the record's.
- ``outside``: the same with the bot run under a tool (gdb, valgrind) outside the sandbox.
- ``command``: the command itself, from its arguments to its report.
"""
