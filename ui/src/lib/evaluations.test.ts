import { describe, expect, it } from "vitest";
import { inputsOf, matchedRules } from "./evaluations";

const output = (ruleId: string, ruleOrder: number, clauseName: string, value: unknown) => ({
  clauseId: "c",
  clauseName,
  createTime: null,
  decisionInstanceId: "d",
  id: `${ruleId}-${clauseName}`,
  removalTime: null,
  rootProcessInstanceId: null,
  ruleId,
  ruleOrder,
  type: "String",
  value,
  variableName: clauseName,
});

describe("decision evaluations", () => {
  it("groups outputs by the rule that matched, in rule order", () => {
    const evaluation = {
      outputs: [output("r3", 3, "risk", "low"), output("r1", 1, "risk", "high"), output("r1", 1, "note", "big")],
      inputs: [
        {
          clauseId: "a",
          clauseName: "Amount",
          createTime: null,
          decisionInstanceId: "d",
          id: "i",
          removalTime: null,
          rootProcessInstanceId: null,
          type: "Long",
          value: 9000,
        },
      ],
    } as unknown as Parameters<typeof matchedRules>[0];
    expect(matchedRules(evaluation)).toEqual([
      { ruleId: "r1", ruleOrder: 1, outputs: [{ name: "risk", value: "high" }, { name: "note", value: "big" }] },
      { ruleId: "r3", ruleOrder: 3, outputs: [{ name: "risk", value: "low" }] },
    ]);
    expect(inputsOf(evaluation)).toEqual([{ name: "Amount", value: 9000 }]);
  });
});
