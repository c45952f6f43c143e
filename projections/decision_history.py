"""Decision history: ACT_HI_DECINST, ACT_HI_DEC_IN and ACT_HI_DEC_OUT from the evaluations the
log records (`DecisionEvaluated` over the API, `ActivityDecisionEvaluated` in an instance), and
their removal with the instances, definitions or deployments they belong to.

One historic decision instance per decision evaluated, required decisions included (they name
the evaluated one as their root, as Camunda's do). Event in, row changes out; no reads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table

from flowledger.core import events as ev
from flowledger.core.ids import derived_id
from flowledger.core.state import InstanceState
from flowledger.core.variables import StoredValue, storage_columns

from .changes import ChangeSet, Purge, Row, blank_row, db_time
from .runtime import BYTEARRAY_HISTORY, bytearray_row
from .tables import ACT_GE_BYTEARRAY, ACT_HI_DEC_IN, ACT_HI_DEC_OUT, ACT_HI_DECINST

_INSTANCE_ROW = blank_row(ACT_HI_DECINST)
_INPUT_ROW = blank_row(ACT_HI_DEC_IN)
_OUTPUT_ROW = blank_row(ACT_HI_DEC_OUT)

Evaluated = ev.DecisionEvaluated | ev.ActivityDecisionEvaluated


def decision_input_id(decision_instance_id: str, index: int) -> str:
    """Derived (a rebuild writes the same), and in the clauses' order when sorted."""
    return f"{derived_id(decision_instance_id, 'decision-inputs')}-{index:05d}"


def decision_output_id(decision_instance_id: str, index: int) -> str:
    """Derived, and in the order recorded (by rule, then clause) when sorted."""
    return f"{derived_id(decision_instance_id, 'decision-outputs')}-{index:05d}"


def project_evaluation(e: Evaluated, s: InstanceState | None, changes: ChangeSet) -> None:
    """The rows of one evaluation; `s` is the instance that evaluated it (None over the API)."""
    root = e.root
    root_process = s.root_process_instance_id if s is not None else None
    removal = (
        db_time(e.removal_time)
        if isinstance(e, ev.DecisionEvaluated) and e.removal_time is not None
        else None
    )
    if s is not None and s.removal_time is not None:  # removal-time strategy start
        removal = db_time(s.removal_time)
    for decision in e.decisions:
        row = dict(_INSTANCE_ROW)
        row.update(
            ID_=decision.decision_instance_id,
            DEC_DEF_ID_=decision.definition_id,
            DEC_DEF_KEY_=decision.definition_key,
            DEC_DEF_NAME_=decision.definition_name,
            EVAL_TIME_=db_time(e.time),
            COLLECT_VALUE_=decision.collect_value,
            USER_ID_=e.user_id,
            ROOT_DEC_INST_ID_=(None if decision is root else root.decision_instance_id),
            DEC_REQ_ID_=e.requirements_id,
            DEC_REQ_KEY_=e.requirements_key,
            REMOVAL_TIME_=removal,
        )
        if s is not None and isinstance(e, ev.ActivityDecisionEvaluated):
            row.update(
                PROC_DEF_KEY_=s.definition_key,
                PROC_DEF_ID_=s.definition_id,
                PROC_INST_ID_=s.id,
                ROOT_PROC_INST_ID_=root_process,
                ACT_ID_=e.activity_id,
                ACT_INST_ID_=e.activity_instance_id,
            )
        changes.insert(ACT_HI_DECINST, decision.decision_instance_id, row)
        for index, given in enumerate(decision.inputs):
            input_id = decision_input_id(decision.decision_instance_id, index)
            values = _value_columns(input_id, given.clause_id, given.value, root_process, changes)
            row = dict(_INPUT_ROW)
            row.update(
                ID_=input_id,
                DEC_INST_ID_=decision.decision_instance_id,
                CLAUSE_ID_=given.clause_id,
                CLAUSE_NAME_=given.clause_name,
                CREATE_TIME_=db_time(e.time),
                ROOT_PROC_INST_ID_=root_process,
                REMOVAL_TIME_=removal,
                **values,
            )
            changes.insert(ACT_HI_DEC_IN, input_id, row)
        for index, out in enumerate(decision.outputs):
            output_id = decision_output_id(decision.decision_instance_id, index)
            name = out.variable_name or out.clause_id or "value"
            values = _value_columns(output_id, name, out.value, root_process, changes)
            row = dict(_OUTPUT_ROW)
            row.update(
                ID_=output_id,
                DEC_INST_ID_=decision.decision_instance_id,
                CLAUSE_ID_=out.clause_id,
                CLAUSE_NAME_=out.clause_name,
                RULE_ID_=out.rule_id,
                RULE_ORDER_=out.rule_order,
                VAR_NAME_=out.variable_name,
                CREATE_TIME_=db_time(e.time),
                ROOT_PROC_INST_ID_=root_process,
                REMOVAL_TIME_=removal,
                **values,
            )
            changes.insert(ACT_HI_DEC_OUT, output_id, row)


def project_evaluation_deleted(
    e: ev.HistoricDecisionInstanceDeleted, _s: None, changes: ChangeSet
) -> None:
    """Cleanup removed an evaluation made over the API: the evaluated decision's instance and
    the required decisions' instances that name it their root, with their inputs and outputs."""
    purge_decision_history(changes, "ROOT_DEC_INST_ID_", e.decision_instance_id)
    purge_decision_history(changes, "ID_", e.decision_instance_id)


def project_decisions_deleted(
    e: ev.HistoricDecisionInstancesDeleted, _s: InstanceState, changes: ChangeSet
) -> None:
    """Decision instances an instance evaluated, deleted by id (Camunda's
    DeleteHistoricDecisionInstancesBulkCmd): each with its inputs, outputs and byte arrays."""
    for decision_instance_id in e.decision_instance_ids:
        purge_decision_history(changes, "ID_", decision_instance_id)


def project_decision_removal_time(
    e: ev.HistoricDecisionRemovalTimeSet | ev.InstanceDecisionRemovalTimeSet,
    _s: InstanceState | None,
    changes: ChangeSet,
) -> None:
    """A removal time set after the fact (Camunda's addRemovalTimeToDecisionsByDecisionInstanceId,
    or ...ByRootDecisionInstanceId when `hierarchical`): the decision instance's rows, or every
    decision instance's of the evaluation, with their inputs, outputs and byte arrays."""
    stamp = (("REMOVAL_TIME_", db_time(e.removal_time)),)
    if e.hierarchical:
        root = e.root_decision_instance_id
        purge_decision_history(changes, "ROOT_DEC_INST_ID_", root, stamp, in_order=True)
        purge_decision_history(changes, "ID_", root, stamp, in_order=True)
    else:
        purge_decision_history(changes, "ID_", e.decision_instance_id, stamp, in_order=True)


def project_decision_values_erased(decisions: list[ev.ErasedDecision], changes: ChangeSet) -> None:
    """The sealed inputs and outputs of decisions hold nothing any more (their keys were
    destroyed): the value columns emptied, as a rebuild from the log writes them."""
    for decision in decisions:
        erase = [decision_input_id(decision.decision_instance_id, i) for i in decision.inputs]
        for row_id in erase:
            changes.update(ACT_HI_DEC_IN, row_id, ERASED_COLUMNS)
            changes.delete(ACT_GE_BYTEARRAY, derived_id(row_id, "decision-value"))
        for i in decision.outputs:
            row_id = decision_output_id(decision.decision_instance_id, i)
            changes.update(ACT_HI_DEC_OUT, row_id, ERASED_COLUMNS)
            changes.delete(ACT_GE_BYTEARRAY, derived_id(row_id, "decision-value"))


# The value columns of an erased value (`core.personal_data.erased_value`): type null, nothing.
ERASED_COLUMNS: Row = {
    "VAR_TYPE_": "null",
    "BYTEARRAY_ID_": None,
    "DOUBLE_": None,
    "LONG_": None,
    "TEXT_": None,
    "TEXT2_": None,
}


def _value_columns(
    row_id: str, name: str, value: StoredValue, root_process: str | None, changes: ChangeSet
) -> Row:
    """A value's columns as ACT_HI_VARINST keeps them; a serialized one in a byte array row."""
    cols = storage_columns(value)
    blob_id = None
    if cols.data is not None:
        blob_id = derived_id(row_id, "decision-value")
        blob = bytearray_row(blob_id, name, cols.data, BYTEARRAY_HISTORY, root_process)
        changes.insert(ACT_GE_BYTEARRAY, blob_id, blob)
    return {
        "VAR_TYPE_": value.type,
        "BYTEARRAY_ID_": blob_id,
        "DOUBLE_": cols.double,
        "LONG_": cols.long,
        "TEXT_": cols.text,
        "TEXT2_": cols.text2,
    }


def purge_decision_history(
    changes: ChangeSet,
    column: str,
    value: str,
    values: tuple[tuple[str, Any], ...] = (),
    *,
    roots: Table | None = None,
    in_order: bool = False,
) -> None:
    """Delete the historic decision instances whose `column` is `value` (PROC_INST_ID_: an
    instance's, PROC_DEF_ID_: a process definition's, DEC_DEF_ID_: a decision definition's)
    with their inputs and outputs: the byte arrays first (found through the rows naming them),
    then the inputs and outputs (found through their decision instances), then the instances.
    With `values`, set those columns of the same rows instead (an ended instance's removal
    time). With `roots`, `value` names a root instance (`Purge.roots`)."""
    for table in (ACT_HI_DEC_IN, ACT_HI_DEC_OUT):
        changes.purge(
            Purge(
                ACT_GE_BYTEARRAY,
                column,
                value,
                via=ACT_HI_DECINST,
                ref="BYTEARRAY_ID_",
                owner="DEC_INST_ID_",
                through=table,
                values=values,
                roots=roots,
                in_order=in_order,
            )
        )
    for table in (ACT_HI_DEC_IN, ACT_HI_DEC_OUT):
        changes.purge(
            Purge(
                table,
                column,
                value,
                via=ACT_HI_DECINST,
                owner="DEC_INST_ID_",
                values=values,
                roots=roots,
                in_order=in_order,
            )
        )
    changes.purge(
        Purge(ACT_HI_DECINST, column, value, values=values, roots=roots, in_order=in_order)
    )
