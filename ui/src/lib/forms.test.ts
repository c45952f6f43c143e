import { describe, expect, it } from "vitest";
import type { FormField } from "../api/extensions";
import {
  fieldsFromFormVariables,
  initialValues,
  normalizeDate,
  toVariables,
  validateField,
  validateForm,
} from "./forms";

function field(
  id: string,
  type: string,
  constraints: [string, string | null][] = [],
  extra: Partial<FormField> = {},
): FormField {
  return {
    id,
    label: id,
    type,
    defaultValue: null,
    values: [],
    constraints: constraints.map(([name, config]) => ({ name, config })),
    datePattern: null,
    ...extra,
  } as FormField;
}

describe("validation", () => {
  it("requires a value for a required field", () => {
    const f = field("name", "string", [["required", null]]);
    expect(validateField(f, "")).toBe("This field is required.");
    expect(validateField(f, "  ")).toBe("This field is required.");
    expect(validateField(f, "Ann")).toBeNull();
    expect(validateField(field("note", "string"), "")).toBeNull();
  });

  it("checks min and max length", () => {
    const f = field("code", "string", [
      ["minlength", "2"],
      ["maxlength", "4"],
    ]);
    expect(validateField(f, "a")).toBe("Enter at least 2 characters.");
    expect(validateField(f, "abcde")).toBe("Enter at most 4 characters.");
    expect(validateField(f, "abc")).toBeNull();
  });

  it("checks whole numbers and their bounds", () => {
    const f = field("amount", "long", [
      ["min", "1"],
      ["max", "1000"],
    ]);
    expect(validateField(f, "1.5")).toBe("Enter a whole number.");
    expect(validateField(f, "x")).toBe("Enter a whole number.");
    expect(validateField(f, "0")).toBe("Enter 1 or more.");
    expect(validateField(f, "1001")).toBe("Enter 1000 or less.");
    expect(validateField(f, "1000")).toBeNull();
  });

  it("checks dates and enum options", () => {
    expect(validateField(field("due", "date"), "2026-02-30")).toBe(
      "Enter a date such as 2026-12-31.",
    );
    expect(validateField(field("due", "date"), "28/02/2026")).toBeNull();
    const color = field("color", "enum", [], {
      values: [
        { id: "red", name: "Red" },
        { id: "blue", name: "Blue" },
      ],
    });
    expect(validateField(color, "green")).toBe("Choose one of the options.");
    expect(validateField(color, "red")).toBeNull();
  });

  it("never blocks on a read-only field or a checkbox", () => {
    expect(validateField(field("id", "string", [["readonly", null], ["required", null]]), ""))
      .toBeNull();
    expect(validateField(field("ok", "boolean", [["required", null]]), false)).toBeNull();
  });

  it("collects one message per failing field", () => {
    const fields = [field("a", "string", [["required", null]]), field("b", "long")];
    expect(validateForm(fields, { a: "", b: "x" })).toEqual({
      a: "This field is required.",
      b: "Enter a whole number.",
    });
  });
});

describe("typed variables", () => {
  it("sends Camunda's types and leaves read-only and empty optional fields out", () => {
    const fields = [
      field("name", "string"),
      field("amount", "long"),
      field("approved", "boolean"),
      field("due", "date"),
      field("color", "enum"),
      field("id", "string", [["readonly", null]]),
      field("note", "string"),
    ];
    const values = {
      name: " Ann ",
      amount: "42",
      approved: true,
      due: "31/12/2026",
      color: "red",
      id: "x",
      note: "",
    };
    expect(toVariables(fields, values)).toEqual({
      name: { value: "Ann", type: "String" },
      amount: { value: 42, type: "Long" },
      approved: { value: true, type: "Boolean" },
      due: { value: "2026-12-31T00:00:00.000+0000", type: "Date" },
      color: { value: "red", type: "String" },
    });
  });

  it("starts from the defaults", () => {
    const fields = [
      field("a", "string", [], { defaultValue: "x" }),
      field("b", "boolean", [], { defaultValue: "true" }),
      field("c", "long", [], { defaultValue: 5 }),
      field("d", "date", [], { defaultValue: "01/02/2026" }),
      field("e", "string"),
    ];
    expect(initialValues(fields)).toEqual({ a: "x", b: true, c: "5", d: "2026-02-01", e: "" });
  });

  it("reads Camunda's form-variables when there are no form fields", () => {
    const fields = fieldsFromFormVariables({
      amount: { value: 3, type: "Integer" },
      ok: { value: true, type: "Boolean" },
    });
    expect(fields.map((f) => [f.id, f.type])).toEqual([
      ["amount", "long"],
      ["ok", "boolean"],
    ]);
    expect(normalizeDate("2026-12-01T10:00:00")).toBe("2026-12-01");
  });
});
