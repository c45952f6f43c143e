"""The engine's services, the doors for its verbs, named as Camunda's `ProcessEngine` names them:
`repository_service` (deployments, definitions), `runtime_service` (instances, variables,
messages, signals, incidents), `task_service`, `external_task_service`, `management_service`
(jobs, the job executor, limits), `decision_service`, `history_service` (ACT_HI_* lists, cleanup,
the history projection) and flowledger's own `audit_service` (the log as evidence).

Each builds a command for the bus or reads `projections.queries`; `base` holds what they share.
Identity and authorization services come next, in their own modules.
"""
