"""`flowledger bench`: flowledger side by side with SpiffWorkflow on the same BPMN workloads,
plus engine-level figures (append, rebuild, replay, cold start). Entry point: `cli.main`.

Measures through the public `Engine` API and the event store; changes nothing in the engine.
"""
