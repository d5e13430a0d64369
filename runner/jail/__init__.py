"""What runs inside the sandbox: the zygote that forks and walls in every bot process,
the walls themselves, the C blank, and the build's driver and step helper. No koth imports:
these files are copied into the Docker image and run there alone."""
