"""Threads and processes that work beside the commands: the job executor and its leases, the
asynchronous history follower and its lifecycle, and SQLite's WAL checkpointer."""
