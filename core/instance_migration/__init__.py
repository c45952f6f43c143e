"""Process instance migration (Camunda's migration plans): move running instances of one process
definition onto another, activity by activity. Not schema migrations: those are `migrations/`.

`plan` holds the plan and its instructions (shared by every piece), `generate` maps equal
activities, `plan_validation` checks a plan against both models before anything moves,
`instance_validation` checks one instance against a valid plan, `execute` decides the events
that move it. Pure, as all of `core`.
"""
