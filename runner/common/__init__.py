"""What every layer of koth shares: reading documents and files from strangers, the
files koth ships, its own compiled C, progress on stderr, the fork server of its helpers."""
