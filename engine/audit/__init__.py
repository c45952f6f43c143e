"""The log as evidence: reading and replaying it, the state of an instance at any moment,
verification of log, states and tables against each other, rebuilds, and audit packages."""
