import { describe, expect, it } from "vitest";
import {
  EMPTY_FILTERS,
  filterProblems,
  filtersToSearch,
  formatVariableFilter,
  historyFilterQuery,
  historyPageQuery,
  pageCount,
  parseFilters,
  parseVariableFilter,
  toCamundaDate,
} from "./instanceSearch";

describe("instance search URL state", () => {
  it("round-trips every filter through the URL", () => {
    const filters = {
      businessKey: "INV-7",
      state: "incident" as const,
      definitionKey: "invoice",
      variable: "amount_gt_1000",
      startedAfter: "2026-12-01T00:00",
      startedBefore: "2026-12-02T10:30",
      endedAfter: "",
      endedBefore: "2026-12-05",
      page: 3,
    };
    const search = filtersToSearch(filters);
    expect(parseFilters(new URLSearchParams(search))).toEqual(filters);
  });

  it("leaves empty filters and the first page out of the URL", () => {
    expect(filtersToSearch(EMPTY_FILTERS)).toBe("");
    expect(filtersToSearch({ ...EMPTY_FILTERS, businessKey: "A 1" })).toBe("?businessKey=A+1");
  });

  it("ignores an unknown state and a nonsense page", () => {
    const filters = parseFilters(new URLSearchParams("state=exploded&page=-2"));
    expect(filters.state).toBe("");
    expect(filters.page).toBe(1);
    expect(parseFilters(new URLSearchParams("page=2.5")).page).toBe(1);
  });
});

describe("history query", () => {
  it("maps each state to Camunda's history parameters", () => {
    const of = (state: string) =>
      historyFilterQuery(parseFilters(new URLSearchParams(`state=${state}`)));
    expect(of("running")).toEqual({ unfinished: true });
    expect(of("ended")).toEqual({ finished: true });
    expect(of("incident")).toEqual({ withIncidents: true });
    expect(of("suspended")).toEqual({ suspended: true });
  });

  it("pages with firstResult/maxResults, newest first", () => {
    const query = historyPageQuery({ ...EMPTY_FILTERS, businessKey: "K", page: 3 }, 20);
    expect(query).toEqual({
      processInstanceBusinessKey: "K",
      sortBy: "startTime",
      sortOrder: "desc",
      firstResult: 40,
      maxResults: 20,
    });
  });

  it("sends dates in Camunda's format and the variable filter as is", () => {
    const query = historyFilterQuery({
      ...EMPTY_FILTERS,
      variable: "invoice_number_eq_7",
      startedAfter: "2026-12-06T18:47",
      endedBefore: "2026-12-07",
    });
    expect(query).toEqual({
      variables: "invoice_number_eq_7",
      startedAfter: "2026-12-06T18:47:00.000+0000",
      finishedBefore: "2026-12-07T00:00:00.000+0000",
    });
  });

  it("counts pages", () => {
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(25, 25)).toBe(1);
    expect(pageCount(26, 25)).toBe(2);
  });
});

describe("variable filter", () => {
  it("splits name, operator and value, names with underscores too", () => {
    expect(parseVariableFilter("invoice_number_eq_INV_7")).toEqual({
      name: "invoice_number",
      operator: "eq",
      value: "INV_7",
    });
    expect(parseVariableFilter("amount_gteq_10")).toEqual({
      name: "amount",
      operator: "gteq",
      value: "10",
    });
    expect(parseVariableFilter("amount")).toBeNull();
    expect(formatVariableFilter({ name: "amount", operator: "lt", value: "5" })).toBe("amount_lt_5");
  });

  it("names what is wrong before asking the server", () => {
    expect(filterProblems({ ...EMPTY_FILTERS, variable: "amount", startedAfter: "yesterday" }))
      .toHaveLength(2);
    expect(filterProblems({ ...EMPTY_FILTERS, variable: "a_eq_1" })).toEqual([]);
  });
});

describe("dates", () => {
  it("accepts days, minutes, seconds and milliseconds", () => {
    expect(toCamundaDate("2026-12-06")).toBe("2026-12-06T00:00:00.000+0000");
    expect(toCamundaDate("2026-12-06T01:02:03.4")).toBe("2026-12-06T01:02:03.400+0000");
    expect(toCamundaDate("06/12/2026")).toBeNull();
  });
});
