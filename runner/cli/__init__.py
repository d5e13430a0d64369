"""The `koth` command: its arguments and subcommands."""
