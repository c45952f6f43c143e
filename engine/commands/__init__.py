"""The command side: a command's one handler, its unit of work, and the commit that appends it.

`bus.CommandBus` runs each command through its handler (`handlers/`, by area) on a
`unit_of_work.UnitOfWork`; `group_commit` shares SQLite's one write transaction between waiting
commands; `lookups` are the reads a command makes of tables written in its own transaction.
"""
