"""The read side: every list, count and lookup over the ACT_* tables that the REST API, the CLI
and the services answer with, each declared once.

`declaration` holds `Search` (what a list reads, its filters, sort keys, tie-breaking order and
row builder) and the generic `find`, `count` and `first` that run any of them. One module per
Camunda query family declares its query Structs (Camunda's query-DTO field names), its result
rows and its searches: `runtime`, `tasks`, `external_tasks`, `jobs` (jobs and incidents),
`event_subscriptions`, `definitions`, `decisions`, and the history ones (`history_instances`,
`history_tasks`, `history_variables`, `history_jobs`, `history_operations`; `history` holds what
they share). The `*_reads` modules answer the services in `core.views` Structs: `reads`
(definitions, instances, tasks, variables, history), `decision_reads`, `job_reads` and
`subscription_reads`.

Commands read a few of these tables too; they do so only through
`flowledger.engine.lookups`, which names each table a command reads.
"""
