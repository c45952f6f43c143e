"""The indexes engine-rest's list pages read, so that a page of 50 stays fast at 100,000 instances.

Cockpit and Tasklist page through history newest first and through tasks by creation time;
without an index in the list's order every page sorts the whole table (measured by
`python -m flowledger.tools.bench.list_pages` at 100,000 instances on SQLite: a page of finished
process instances by start time took 167 ms, of activity instances 480 ms, of tasks 50 ms).

Each index holds the whole order of the list it serves: the column sorted by, descending for the
lists read newest first, then the search's tie-breaking order (`Search.then`, ascending, ending
with the id so that pages never overlap). A page reads its keys from the index in order and
stops, skipping a deep page's first 5,000 entries without reading their rows
(`search.declaration` reads keys first, then rows). On the sorted column alone, the ties would
be left to sort, which MariaDB does by sorting every row (and in either direction the order of
ties differs from the list's). A filter every row of the list is checked against (`finished`,
`unfinished`: END_TIME_) sits at the end of the start-time indexes. A list filtered by a column
the planners pick an index for (`PROC_DEF_KEY_ = ?`, `ASSIGNEE_ IS NULL` in candidate lists)
gets an index led by that column, going on in the list's order. `END_TIME_ IS NULL` is not
offered to SQLite's planner (`search.filters.NotIndexed`): without statistics it would read all
running instances' rows through it rather than one instance's.

An index named as Camunda's starts with the columns of Camunda's index and goes on with what its
list orders by or reads; five of revision 0002's are recreated so (`_WIDENED`). InnoDB appends
the primary key to every index anyway.

As migration 0003 says, every index costs a B-tree page per command that writes its table: the
whole-table lists of activity instances, variables and variable updates by time get none, as
those tables are written by almost every command (indexes for them in the same shape took about
a tenth of usertask_gateway's instances per second on SQLite, against a few per cent for all of
these). They stay as slow as a sort of the table; the lists of one process instance, which
Cockpit reads, have their indexes.
Lists also read rows they skip where a filter is not in the index (runtime lists by definition
key or variable name).

Revision ID: 0006_list_indexes
Revises: 0005_history_level
Create Date: 2026-12-03
"""

from __future__ import annotations

from flowledger.migrations.ddl import IndexSpec, create_indexes, drop_indexes

revision = "0006_list_indexes"
down_revision = "0005_history_level"
branch_labels = None
depends_on = None

# (index, table, columns) as revision 0002 created them: recreated below under the same name,
# with the columns their lists order by (or read) after Camunda's.
_WIDENED: tuple[IndexSpec, ...] = (
    ("ACT_IDX_HI_PRO_INST_END", "ACT_HI_PROCINST", ("END_TIME_",)),
    ("ACT_IDX_HI_PRO_INST_PROC_DEF_KEY", "ACT_HI_PROCINST", ("PROC_DEF_KEY_",)),
    ("ACT_IDX_TASK_ASSIGNEE", "ACT_RU_TASK", ("ASSIGNEE_",)),
    ("ACT_IDX_IDENT_LNK_USER", "ACT_RU_IDENTITYLINK", ("USER_ID_",)),
    ("ACT_IDX_IDENT_LNK_GROUP", "ACT_RU_IDENTITYLINK", ("GROUP_ID_",)),
)

# (index, table, columns), each with the list it serves. Lists read newest first have their
# sorted column descending; their ties stay ascending, as `Search.then` orders them.
_LISTS: tuple[IndexSpec, ...] = (
    # /history/process-instance by startTime, finished or not (END_TIME_ answers the filter
    # from the index); not Camunda's ACT_IDX_HI_PRO_INST_PROC_TIME (START_TIME_, END_TIME_),
    # whose END_TIME_ would come between the start time and the id.
    ("ACT_IDX_HI_PRO_INST_START", "ACT_HI_PROCINST", ("START_TIME_ DESC", "ID_", "END_TIME_")),
    # ... finished by endTime.
    ("ACT_IDX_HI_PRO_INST_END", "ACT_HI_PROCINST", ("END_TIME_ DESC", "START_TIME_", "ID_")),
    # ... of one process definition key by startTime.
    (
        "ACT_IDX_HI_PRO_INST_PROC_DEF_KEY",
        "ACT_HI_PROCINST",
        ("PROC_DEF_KEY_", "START_TIME_ DESC", "ID_"),
    ),
    # /history/task by startTime, finished or not; and finished by endTime.
    ("ACT_IDX_HI_TASK_INST_START", "ACT_HI_TASKINST", ("START_TIME_ DESC", "ID_", "END_TIME_")),
    ("ACT_IDX_HI_TASK_INST_END", "ACT_HI_TASKINST", ("END_TIME_ DESC", "START_TIME_", "ID_")),
    # /task by created, Tasklist's newest first; one assignee's, and the unassigned ones
    # (ASSIGNEE_ IS NULL) that every candidate list reads.
    ("ACT_IDX_TASK_CREATE", "ACT_RU_TASK", ("CREATE_TIME_ DESC", "ID_")),
    ("ACT_IDX_TASK_ASSIGNEE", "ACT_RU_TASK", ("ASSIGNEE_", "CREATE_TIME_ DESC", "ID_")),
    # /task?candidateUser= and ?candidateGroup(s)=: the tasks of the candidates, read from the
    # index alone.
    ("ACT_IDX_IDENT_LNK_USER", "ACT_RU_IDENTITYLINK", ("USER_ID_", "TYPE_", "TASK_ID_")),
    ("ACT_IDX_IDENT_LNK_GROUP", "ACT_RU_IDENTITYLINK", ("GROUP_ID_", "TYPE_", "TASK_ID_")),
)


def upgrade() -> None:
    drop_indexes(_WIDENED)
    create_indexes(_LISTS)


def downgrade() -> None:
    drop_indexes(_LISTS)
    create_indexes(_WIDENED)
