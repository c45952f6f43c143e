"""DMN resources the DMN tests deploy: a dish table and a beverages table that requires it (the
shape of Camunda's getting-started example, written here), and a literal expression."""

from __future__ import annotations

from xml.sax.saxutils import escape

DMN13 = "https://www.omg.org/spec/DMN/20191111/MODEL/"
DMN11 = "http://www.omg.org/spec/DMN/20151101/dmn.xsd"


def _rule(rule_id: str, entries: list[str], outputs: list[str]) -> str:
    entries, outputs = [escape(e) for e in entries], [escape(o) for o in outputs]
    ins = "".join(
        f"<inputEntry id='{rule_id}-i{n}'><text>{e}</text></inputEntry>"
        for n, e in enumerate(entries)
    )
    outs = "".join(
        f"<outputEntry id='{rule_id}-o{n}'><text>{o}</text></outputEntry>"
        for n, o in enumerate(outputs)
    )
    return f"<rule id='{rule_id}'>{ins}{outs}</rule>"


DISH_RULES = [
    ("fall-small", ['"Fall"', "<= 8"], ['"Spareribs"']),
    ("winter-small", ['"Winter"', "<= 8"], ['"Roastbeef"']),
    ("spring-tiny", ['"Spring"', "<= 4"], ['"Dry Aged Gourmet Steak"']),
    ("spring-small", ['"Spring"', "[5..8]"], ['"Steak"']),
    ("big", ['"Fall","Winter","Spring"', "> 8"], ['"Stew"']),
    ("summer", ['"Summer"', "-"], ['"Light Salad and a nice Steak"']),
]

BEVERAGE_RULES = [
    ("ribs", ['"Spareribs"', ""], ['"Aecht Schlenkerla Rauchbier"']),
    ("stew", ['"Stew"', ""], ['"Guiness"']),
    ("roast", ['"Roastbeef"', ""], ['"Bordeaux"']),
    (
        "steaks",
        ['"Steak","Dry Aged Gourmet Steak","Light Salad and a nice Steak"', ""],
        ['"Pinot Noir"'],
    ),
    ("children", ["", "true"], ['"Apple Juice"']),
]


def _dish_decision(hit_policy: str, type_ref: str, attributes: str = "") -> str:
    rules = "".join(_rule(i, e, o) for i, e, o in DISH_RULES)
    return f"""<decision id="dish" name="Dish"{attributes}>
    <decisionTable id="dishTable" hitPolicy="{hit_policy}">
      <input id="season" label="Season">
        <inputExpression id="seasonExpression"
            typeRef="string"><text>season</text></inputExpression>
      </input>
      <input id="guests" label="How many guests">
        <inputExpression id="guestsExpression"
            typeRef="{type_ref}"><text>guestCount</text></inputExpression>
      </input>
      <output id="dishOutput" label="Dish" name="desiredDish" typeRef="string" />
      {rules}
    </decisionTable>
  </decision>"""


def dish(namespace: str = DMN13, hit_policy: str = "UNIQUE", *, type_ref: str = "integer") -> bytes:
    decision = _dish_decision(
        hit_policy, type_ref, ' camunda:versionTag="v1" camunda:historyTimeToLive="30"'
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="{namespace}" xmlns:camunda="http://camunda.org/schema/1.0/dmn"
    id="dinnerDecisions" name="Dinner Decisions" namespace="http://camunda.org/schema/1.0/dmn">
  {decision}
</definitions>""".encode()


def dinner() -> bytes:
    """`beverages` (COLLECT) requires `dish`."""
    drinks = "".join(_rule(i, e, o) for i, e, o in BEVERAGE_RULES)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="{DMN13}"
    id="dinner" name="Dinner" namespace="http://camunda.org/schema/1.0/dmn">
  <decision id="beverages" name="Beverages">
    <informationRequirement id="needsDish">
      <requiredDecision href="#dish" />
    </informationRequirement>
    <decisionTable id="beverageTable" hitPolicy="COLLECT">
      <input id="dishInput" label="Dish">
        <inputExpression id="dishExpression"
            typeRef="string"><text>desiredDish</text></inputExpression>
      </input>
      <input id="children" label="Guests with children">
        <inputExpression id="childrenExpression"
            typeRef="boolean"><text>guestsWithChildren</text></inputExpression>
      </input>
      <output id="beverageOutput" label="Beverages" name="beverages" typeRef="string" />
      {drinks}
    </decisionTable>
  </decision>
  {_dish_decision("UNIQUE", "integer")}
</definitions>""".encode()


def literal(text: str, type_ref: str = "double") -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="{DMN13}" id="fees" name="Fees" namespace="n">
  <decision id="fee" name="Fee">
    <variable id="feeVariable" name="fee" typeRef="{type_ref}" />
    <literalExpression id="feeExpression"><text>{text}</text></literalExpression>
  </decision>
</definitions>""".encode()


def table(
    inputs: list[tuple[str, str]],
    outputs: list[tuple[str, str]],
    rules: list[tuple[str, list[str], list[str]]],
    *,
    hit_policy: str = "UNIQUE",
    aggregation: str | None = None,
    decision_id: str = "t",
    extra: str = "",
) -> bytes:
    """A one-table resource: inputs (expression, typeRef), outputs (name, typeRef)."""
    ins = "".join(
        f"<input id='in{n}'><inputExpression id='ie{n}' typeRef='{t}'><text>{e}</text>"
        "</inputExpression></input>"
        for n, (e, t) in enumerate(inputs)
    )
    outs = "".join(
        f"<output id='out{n}' name='{name}' typeRef='{t}' />" for n, (name, t) in enumerate(outputs)
    )
    body = "".join(_rule(i, e, o) for i, e, o in rules)
    agg = f" aggregation='{aggregation}'" if aggregation else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="{DMN13}" id="defs" name="Defs" namespace="n">
  <decision id="{decision_id}" name="T">{extra}
    <decisionTable id="tt" hitPolicy="{hit_policy}"{agg}>{ins}{outs}{body}</decisionTable>
  </decision>
</definitions>""".encode()
