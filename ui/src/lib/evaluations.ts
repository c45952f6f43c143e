// A decision evaluation as the decision page reads it: its inputs, the rules it matched (in
// rule order) and what each matched rule output.
import type { components } from "../api/schema";

type Evaluation = components["schemas"]["HistoricDecisionInstanceDto"];

export interface MatchedRule {
  ruleId: string;
  ruleOrder: number | null;
  outputs: { name: string; value: unknown }[];
}

export function matchedRules(evaluation: Evaluation): MatchedRule[] {
  const rules = new Map<string, MatchedRule>();
  for (const output of evaluation.outputs ?? []) {
    const ruleId = output.ruleId ?? "(no rule)";
    const rule = rules.get(ruleId) ?? { ruleId, ruleOrder: output.ruleOrder, outputs: [] };
    rule.outputs.push({ name: output.clauseName || output.variableName || output.clauseId || "?", value: output.value });
    rules.set(ruleId, rule);
  }
  return [...rules.values()].sort((a, b) => (a.ruleOrder ?? 0) - (b.ruleOrder ?? 0));
}

export function inputsOf(evaluation: Evaluation): { name: string; value: unknown }[] {
  return (evaluation.inputs ?? []).map((input) => ({
    name: input.clauseName || input.clauseId || "?",
    value: input.value,
  }));
}
