"""Batches (issue 37): an operation over many targets (instances, jobs, external tasks) run in
the background by jobs, as Camunda's batches. The events are `core.events.batches`; here are what
a batch is made of (`model`) and its decisions (`decisions`).

Pure: no SQL, no clock; which operation a batch type runs is the engine's registry.
"""
