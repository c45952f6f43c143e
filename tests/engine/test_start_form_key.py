"""ACT_RE_PROCDEF.HAS_START_FORM_KEY_ says whether a definition's start event names a form key,
as Camunda's parser sets it (a generated `camunda:formData` form alone is no key)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from flowledger import Engine
from flowledger.projections.tables import ACT_RE_PROCDEF

MODELS = Path(__file__).parents[1] / "ui" / "models"
CAMUNDA = 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'


def test_a_start_form_key_is_recorded_and_form_data_alone_is_none(tmp_path: Path) -> None:
    keyed = tmp_path / "keyed.bpmn"
    keyed.write_text(
        (MODELS / "no_diagram.bpmn")
        .read_text()
        .replace(
            '<bpmn:startEvent id="begin" />',
            f'<bpmn:startEvent id="begin" {CAMUNDA} camunda:formKey="embedded:app:start.html" />',
        )
    )
    with Engine("sqlite://") as engine:
        engine.deploy(MODELS / "invoice.bpmn")  # formData on its start event, no formKey
        engine.deploy(MODELS / "no_diagram.bpmn")  # no form at all
        engine.deploy(keyed)
        with engine.reading() as conn:
            rows = conn.execute(
                sa.select(ACT_RE_PROCDEF.c.KEY_, ACT_RE_PROCDEF.c.HAS_START_FORM_KEY_).order_by(
                    ACT_RE_PROCDEF.c.KEY_, ACT_RE_PROCDEF.c.VERSION_
                )
            ).all()
    assert [(key, bool(has)) for key, has in rows] == [
        ("invoice", False),
        ("noDiagram", False),
        ("noDiagram", True),
    ]
