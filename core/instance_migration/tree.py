"""The instance's shape on the target: which activity instance sits under which, the flow scopes
the move adds (emerging) or removes, and the execution tree that carries it.

Camunda moves an instance top-down: an activity instance whose target lies in a flow scope its
parent does not stand for gets that scope created above it (one instance per scope and parent,
shared by its siblings); an unmapped scope instance is removed and its children attach to the
nearest instance above that moves. The execution tree then follows Camunda's rules: a scope has
an execution of its own; one thing in a scope runs on the scope's execution (a scope activity
on a child of it); several run on concurrent children of it. Executions keep their ids wherever
they keep their role, so tasks, jobs and variables stay where they were.

Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Rejected
from ..model import Activity, ProcessModel
from ..state import Execution, InstanceState
from .instance_validation import MigratingInstance
from .scopes import emerging_chain, nearest_moving


@dataclass
class Node:
    """An activity instance of the target: one that moves, or one the move creates."""

    id: str
    activity: Activity | None  # None: the process instance itself
    parent: str | None
    new: bool = False
    children: list[str] = field(default_factory=list)  # activity instances, then tokens
    tokens: list[str] = field(default_factory=list)  # executions waiting in a continuation

    @property
    def is_scope(self) -> bool:
        return self.activity is None or self.activity.is_scope


class TargetTree:
    """The activity instance tree on the target, with the instances the move creates."""

    def __init__(
        self,
        state: InstanceState,
        instance: MigratingInstance,
        target: ProcessModel,
        new_id: object,
    ) -> None:
        self.state = state
        self.instance = instance
        self.model = target
        self.nodes: dict[str, Node] = {state.id: Node(state.id, None, None)}
        self.removed: list[str] = []  # activity instances the move ends, deepest first
        self._emerging: dict[tuple[str, str], str] = {}
        self._new_id = new_id
        for ai_id, ai in instance.activity_instances.items():
            if ai.instruction is None:
                self.removed.append(ai_id)
                continue
            assert ai.target is not None
            parent = self._parent_for(ai_id, ai.target)
            self.nodes[ai_id] = Node(ai_id, ai.target, parent)
        self.removed.sort(key=self._depth, reverse=True)
        for node in list(self.nodes.values()):
            if node.parent is not None and not node.new:
                self.nodes[node.parent].children.append(node.id)
        for transition in instance.transitions.values():
            assert transition.target is not None
            above = (
                state.id
                if transition.parent_id == state.id
                else self._moving_from(transition.parent_id)
            )
            parent = self._under(above, transition.target)
            self.nodes[parent].tokens.append(transition.job.execution_id)

    def _depth(self, ai_id: str) -> int:
        depth = 0
        while ai_id != self.state.id:
            ai_id = self.instance.activity_instances[ai_id].parent_id
            depth += 1
        return depth

    def _moving_from(self, ai_id: str) -> str:
        """`ai_id` itself when it moves, else its nearest ancestor that does."""
        if self.instance.activity_instances[ai_id].instruction is not None:
            return ai_id
        return nearest_moving(self.instance, self.state.id, ai_id)

    def _parent_for(self, ai_id: str, target: Activity) -> str:
        return self._under(nearest_moving(self.instance, self.state.id, ai_id), target)

    def _under(self, above: str, target: Activity) -> str:
        """The node the target activity's instance hangs from: `above`, or a scope created
        below it for each flow scope between them."""
        above_activity = self.model.id
        if above != self.state.id:
            moving = self.instance.activity_instances[above].target
            assert moving is not None
            above_activity = moving.id
        chain = emerging_chain(self.model, target, above_activity)
        if chain is None:
            raise Rejected(
                f"The target activity '{target.id}' does not lie within '{above_activity}'"
            )
        parent = above
        for scope_id in chain:
            key = (parent, scope_id)
            created = self._emerging.get(key)
            if created is None:
                new_id = self._new_id()  # type: ignore[operator]
                created = f"{scope_id}:{new_id}"
                if len(created) > 64:
                    created = str(new_id)
                self._emerging[key] = created
                self.nodes[created] = Node(
                    created, self.model.activities[scope_id], parent, new=True
                )
                self.nodes[parent].children.append(created)
            parent = created
        return parent

    @property
    def emerged(self) -> list[Node]:
        """The instances the move creates, outermost first."""
        return [node for node in self.nodes.values() if node.new]

    @property
    def reshaped(self) -> bool:
        """Whether the tree's shape changes: a scope added or removed, or an activity that turns
        from a non-scope into a scope or back."""
        if self.removed or self._emerging:
            return True
        return any(
            ai.target is not None and ai.target.is_scope != ai.source.is_scope
            for ai in self.instance.activity_instances.values()
        )


@dataclass
class Carrier:
    """Where the parts of the old tree go: activity instance -> the execution it runs on (a
    scope's: its scope execution); waiting token -> its new execution; an old execution that
    is gone -> the execution that carries on for it ("" for none: a removed scope's)."""

    of_instance: dict[str, str] = field(default_factory=dict)
    of_token: dict[str, str] = field(default_factory=dict)
    of_execution: dict[str, str] = field(default_factory=dict)


def executions(tree: TargetTree, new_id: object) -> tuple[dict[str, Execution], Carrier]:
    """The execution tree for the target tree, in Camunda's shape, reusing old executions where
    they keep their role."""
    return _Builder(tree, new_id).build()


class _Builder:
    def __init__(self, tree: TargetTree, new_id: object) -> None:
        self.tree = tree
        self.old = tree.state.executions
        self.new_id = new_id
        self.scope_of = {
            x.scope_activity_instance_id: x.id
            for x in self.old.values()
            if x.is_scope and x.scope_activity_instance_id is not None
        }
        self.built: dict[str, Execution] = {}
        self.carrier = Carrier()
        self.successor: dict[str, str] = {}

    def build(self) -> tuple[dict[str, Execution], Carrier]:
        self.scope_execution(self.tree.nodes[self.tree.state.id], None)
        for eid in self.old:
            if eid not in self.built:
                self.carrier.of_execution[eid] = self.successor.get(eid, "")
        return self.built, self.carrier

    def fresh(self) -> str:
        return str(self.new_id())  # type: ignore[operator]

    def scope_execution(self, node: Node, parent: str | None) -> str:
        eid = self.scope_of.get(node.id)
        if eid is None or eid in self.built:
            eid = self.fresh()
        activity_id = self.tree.model.id if node.activity is None else node.activity.id
        self.built[eid] = Execution(
            id=eid,
            parent_id=parent,
            is_scope=True,
            is_concurrent=False,
            is_active=False,
            scope_activity_instance_id=node.id,
            scope_activity_id=activity_id,
        )
        if parent is not None:
            self.built[parent].children.append(eid)
        self.carrier.of_instance[node.id] = eid
        self.fill(node, eid)
        return eid

    def old_token(self, item: str, node: Node) -> str | None:
        """The execution an item ran on before, when it was a token of its own (not the scope
        execution of its parent)."""
        if item in node.tokens:
            return item
        ai = self.tree.state.activity_instances.get(item)
        if ai is None:
            return None  # created by the move
        runs_on = self.old[ai.execution_id]
        if runs_on.is_scope and runs_on.scope_activity_instance_id == item:
            above = self.old.get(runs_on.parent_id or "")
            return above.id if above is not None and above.is_concurrent else None
        if runs_on.is_scope:
            return None  # it ran on its parent's scope execution
        return runs_on.id

    def fill(self, node: Node, eid: str) -> None:
        items = [*node.children, *node.tokens]
        if not items and node.activity is not None:
            # a scope activity that waits itself (a task with boundary events): its scope
            # execution is at it, active as its old one was
            execution = self.built[eid]
            execution.activity_id = node.activity.id
            execution.activity_instance_id = node.id
            ai = self.tree.state.activity_instances.get(node.id)
            runs_on = None if ai is None else self.old.get(ai.execution_id)
            execution.is_active = True if runs_on is None else runs_on.is_active
            return
        if len(items) == 1:
            self.place(items[0], node, eid)
            return
        for item in items:
            token = self.old_token(item, node)
            reuse = token is not None and self.old[token].is_concurrent
            cid = token if reuse and token not in self.built else self.fresh()
            assert cid is not None
            self.built[cid] = Execution(
                id=cid, parent_id=eid, is_scope=False, is_concurrent=True, is_active=False
            )
            self.built[eid].children.append(cid)
            self.place(item, node, cid)

    def place(self, item: str, node: Node, on: str) -> None:
        """The item runs on execution `on` (a non-scope activity, a waiting token) or below it
        (a scope activity)."""
        token = self.old_token(item, node)
        if token is not None and token != on:
            self.successor[token] = on
        child = self.tree.nodes.get(item)
        if child is not None and child.is_scope:
            self.scope_execution(child, on)
            return
        execution = self.built[on]
        if child is not None:
            assert child.activity is not None
            ai = self.tree.state.activity_instances[item]
            execution.activity_id = child.activity.id
            execution.activity_instance_id = item
            execution.is_active = self.old[ai.execution_id].is_active
            self.carrier.of_instance[item] = on
            return
        waiting = self.old[item]
        transition = next(
            t for t in self.tree.instance.transitions.values() if t.job.execution_id == item
        )
        assert transition.target is not None
        execution.activity_id = transition.target.id
        execution.is_active = waiting.is_active
        self.carrier.of_token[item] = on
