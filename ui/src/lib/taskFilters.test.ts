import { describe, expect, it } from "vitest";
import { taskQuery } from "./taskFilters";

describe("tasklist filters", () => {
  it("asks Camunda for my tasks, my groups' tasks and unassigned ones", () => {
    expect(taskQuery("mine", "kermit", ["sales"])).toEqual({ assignee: "kermit" });
    expect(taskQuery("groups", "kermit", ["sales", "accounting"])).toEqual({
      candidateGroups: "sales,accounting",
    });
    expect(taskQuery("unassigned", null, [])).toEqual({ unassigned: true });
    expect(taskQuery("all", null, [])).toEqual({});
  });

  it("has nothing to ask without a user or groups", () => {
    expect(taskQuery("mine", null, [])).toBeNull();
    expect(taskQuery("groups", "kermit", [])).toBeNull();
  });
});
