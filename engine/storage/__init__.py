"""Where the engine keeps things: its database and connections, the stream store that reads and
folds the log, the codec of its events, and the cache of instance states."""
