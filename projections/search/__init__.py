"""The read model: the lists over the ACT_* tables, each declared once.

`declaration` holds `Search` (what a list reads, its filters, sort keys, tie-breaking order and
row builder) and the generic `find`, `count` and `first` that run any of them. One module per
Camunda query family declares its query Structs (Camunda's query-DTO field names), its result
rows and its searches: `runtime`, `tasks`, `external_tasks`, `jobs` (jobs and incidents),
`event_subscriptions`, `repository`, and the history ones (`history_instances`,
`history_tasks`, `history_variables`, `history_jobs`; `history` holds what they share).
engine-rest lists them as they are; `projections.queries` answers the engine's reads from them.
"""
