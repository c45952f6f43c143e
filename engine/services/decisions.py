"""Camunda's DecisionService: evaluate a deployed decision outside any process instance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.engine.services.base import Service


class DecisionService(Service):
    def evaluate_decision(
        self,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        definition_id: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.DecisionResult:
        """Evaluate the latest version of the decision `key` (or a given definition id) over
        `variables` (decisionService.evaluateDecisionById/ByKey). The evaluation is recorded in
        the log with its inputs, matched rules and outputs; a violated hit policy or a failed
        expression raises and records nothing."""
        if key is None and definition_id is None:
            raise ValueError("evaluate_decision needs a decision key or a definition_id")
        command = cmd.EvaluateDecision(
            key=key, definition_id=definition_id, variables=dict(variables or {})
        )
        return cast(views.DecisionResult, self._run(command, command_id, actor))
