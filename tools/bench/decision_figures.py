"""Decision tables: evaluations per second of a 100-rule table (two inputs, FEEL entries) under
UNIQUE, FIRST, COLLECT and COLLECT SUM, and the time to parse it; then the UNIQUE table deployed
and evaluated as users call it, each evaluation recorded in the log and the decision history
(level full, SQLite WAL synchronous=NORMAL): `Engine.evaluate_decision` in process, and
`POST /decision-definition/key/fee/evaluate` over HTTP (`flowledger serve`'s app in a process of
its own, N client threads with a keep-alive connection each).
`python -m flowledger.tools.bench.decision_figures` prints the figures as JSON.

The peer, when installed (the `bench` extra): SpiffWorkflow's DMN engine on the same inputs and
the same table in its own entry syntax (Python expressions; `? >= 700 and ? < 800` for the
range), each evaluation a fresh task, as it runs inside a business rule task. SpiffWorkflow stops
a UNIQUE table at its first match (it does not check uniqueness) and has no aggregations: its
COLLECT is compared with ours without SUM.

The table: rule i matches category "c<i mod 10>" and an amount in [100·i..100·(i+1)), so one
rule matches an input inside the table's range and every rule's entries are evaluated for each
input (as Camunda evaluates them).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from xml.sax.saxutils import escape

from flowledger.core.dmn import evaluate_decision, parse_dmn

RULES = 100
POLICIES = (("UNIQUE", None), ("FIRST", None), ("COLLECT", None), ("COLLECT", "SUM"))


def _quoted(text: str) -> str:
    return f'"{text}"'


def _feel_range(low: int, high: int) -> str:
    return f"[{low}..{high})"


def _peer_range(low: int, high: int) -> str:
    return f"? >= {low} and ? < {high}"  # SpiffWorkflow's entries are Python expressions


def table(
    rules: int,
    hit_policy: str,
    aggregation: str | None,
    amount_entry: Callable[[int, int], str] = _feel_range,
) -> bytes:
    """The benchmark table; `amount_entry` writes rule i's amount range in the engine's syntax."""
    body = "".join(
        f"<rule id='r{i}'>"
        f"<inputEntry id='r{i}c'><text>{escape(_quoted(f'c{i % 10}'))}</text></inputEntry>"
        f"<inputEntry id='r{i}a'><text>{escape(amount_entry(i * 100, (i + 1) * 100))}</text>"
        "</inputEntry>"
        f"<outputEntry id='r{i}f'><text>{i}</text></outputEntry></rule>"
        for i in range(rules)
    )
    aggregate = f" aggregation='{aggregation}'" if aggregation else ""
    return f"""<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="fees"
  name="Fees" namespace="bench">
  <decision id="fee" name="Fee">
    <decisionTable id="t" hitPolicy="{hit_policy}"{aggregate}>
      <input id="category" label="category"><inputExpression id="ce" typeRef="string">
      <text>category</text></inputExpression></input>
      <input id="amount" label="amount"><inputExpression id="ae" typeRef="double">
      <text>amount</text></inputExpression></input>
      <output id="f" name="fee" label="fee" typeRef="integer" />
      {body}
    </decisionTable>
  </decision>
</definitions>""".encode()


def _inputs(evaluations: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    inputs = []
    for _ in range(evaluations):
        i = rng.randrange(RULES)
        inputs.append({"category": f"c{i % 10}", "amount": i * 100 + rng.random() * 99})
    return inputs


def measure(evaluations: int, repeat: int, seed: int = 7) -> dict[str, Any]:
    inputs = _inputs(evaluations, seed)
    figures: dict[str, Any] = {"rules": RULES, "evaluations": evaluations}
    for policy, aggregation in POLICIES:
        source = table(RULES, policy, aggregation)
        started = time.perf_counter()
        requirements = parse_dmn(source, "fees.dmn")
        parse_ms = (time.perf_counter() - started) * 1000
        rates = []
        for _ in range(repeat):
            started = time.perf_counter()
            for variables in inputs:
                evaluate_decision(requirements, "fee", variables)
            rates.append(evaluations / (time.perf_counter() - started))
        name = policy if aggregation is None else f"{policy} {aggregation}"
        figures[name] = {
            "parse_ms": round(parse_ms, 1),
            "evaluations_per_second": round(statistics.median(rates)),
            "min": round(min(rates)),
            "max": round(max(rates)),
        }
    return figures


def measure_recorded(evaluations: int, repeat: int, seed: int = 7) -> dict[str, Any]:
    """The UNIQUE table deployed, evaluated through the engine: every evaluation a command that
    appends its event and writes its history rows (a fresh database per repetition)."""
    from flowledger.engine import Engine

    inputs = _inputs(evaluations, seed)
    rates = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{Path(folder) / 'decisions.db'}"
            with Engine(url, sqlite_synchronous="NORMAL", history_level="full") as engine:
                engine.deploy({"fees.dmn": table(RULES, "UNIQUE", None)})
                started = time.perf_counter()
                for variables in inputs:
                    engine.evaluate_decision("fee", variables)
                rates.append(evaluations / (time.perf_counter() - started))
    return _spread(rates)


def measure_rest(evaluations: int, repeat: int, clients: int, seed: int = 7) -> dict[str, Any]:
    """The UNIQUE table deployed over REST and evaluated with `POST .../evaluate` by `clients`
    threads (a fresh server and database per repetition)."""
    import httpx

    from .rest_workload import running_server

    inputs = [
        {
            "variables": {
                "category": {"value": v["category"], "type": "String"},
                "amount": {"value": v["amount"], "type": "Double"},
            }
        }
        for v in _inputs(evaluations, seed)
    ]
    rates = []
    for _ in range(repeat):
        with (
            tempfile.TemporaryDirectory() as folder,
            running_server(Path(folder) / "rest.db") as url,
        ):
            deployed = httpx.post(
                f"{url}/deployment/create",
                files={"fees.dmn": ("fees.dmn", table(RULES, "UNIQUE", None))},
                data={"deployment-name": "fees"},
                timeout=60,
            )
            deployed.raise_for_status()

            def drive(part: Sequence[dict[str, Any]]) -> None:
                with httpx.Client(base_url=url, timeout=60) as client:
                    for body in part:
                        answer = client.post("/decision-definition/key/fee/evaluate", json=body)
                        answer.raise_for_status()

            parts = [inputs[i::clients] for i in range(clients)]
            started = time.perf_counter()
            with ThreadPoolExecutor(clients) as pool:
                list(pool.map(drive, parts))
            rates.append(evaluations / (time.perf_counter() - started))
    return {"clients": clients, **_spread(rates)}


def _spread(rates: Sequence[float]) -> dict[str, Any]:
    return {
        "evaluations_per_second": round(statistics.median(rates)),
        "min": round(min(rates)),
        "max": round(max(rates)),
    }


def peer_table(rules: int, hit_policy: str) -> bytes:
    """The benchmark table in SpiffWorkflow's entry syntax."""
    return table(rules, hit_policy, None, _peer_range)


def measure_peer(evaluations: int, repeat: int, seed: int = 7) -> dict[str, Any] | None:
    """SpiffWorkflow's evaluations per second of the same table, or None if not installed."""
    try:
        from lxml import etree
        from SpiffWorkflow.bpmn.script_engine import PythonScriptEngine
        from SpiffWorkflow.dmn.engine.DMNEngine import DMNEngine
        from SpiffWorkflow.dmn.parser.BpmnDmnParser import BpmnDmnParser
    except ImportError:
        return None
    inputs = _inputs(evaluations, seed)
    workflow = SimpleNamespace(script_engine=PythonScriptEngine())
    figures: dict[str, Any] = {}
    for policy in ("UNIQUE", "FIRST", "COLLECT"):
        parser = BpmnDmnParser()
        parser.add_dmn_xml(etree.fromstring(peer_table(RULES, policy)), "fees.dmn")
        decision_parser = parser.dmn_parsers["fee"]
        decision_parser.parse()
        engine = DMNEngine(decision_parser.decision.decisionTables[0])
        rates = []
        for _ in range(repeat):
            started = time.perf_counter()
            for variables in inputs:
                engine.result(SimpleNamespace(data=dict(variables), workflow=workflow))
            rates.append(evaluations / (time.perf_counter() - started))
        figures[policy] = {
            "evaluations_per_second": round(statistics.median(rates)),
            "min": round(min(rates)),
            "max": round(max(rates)),
        }
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m flowledger.tools.bench.decision_figures")
    parser.add_argument("--evaluations", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clients", type=int, default=4, help="REST client threads")
    parser.add_argument(
        "--no-recorded", action="store_true", help="only the table in memory, no database"
    )
    args = parser.parse_args(argv)
    figures = measure(args.evaluations, args.repeat)
    if not args.no_recorded:
        figures["recorded in process"] = measure_recorded(args.evaluations, args.repeat)
        figures["recorded over REST"] = measure_rest(args.evaluations, args.repeat, args.clients)
    peer = measure_peer(args.evaluations, args.repeat)
    if peer is not None:
        figures["spiffworkflow"] = peer
        figures["ratio"] = {
            policy: round(
                figures[policy]["evaluations_per_second"] / peer[policy]["evaluations_per_second"],
                2,
            )
            for policy in peer
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
