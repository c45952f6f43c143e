import { describe, expect, it } from "vitest";
import { editText, isEditable, parseVariable } from "./variables";

describe("variable edits", () => {
  it("reads each type", () => {
    expect(parseVariable("String", " a ")).toEqual({ ok: true, body: { value: " a ", type: "String" } });
    expect(parseVariable("Integer", "42")).toEqual({ ok: true, body: { value: 42, type: "Integer" } });
    expect(parseVariable("Long", "-7")).toEqual({ ok: true, body: { value: -7, type: "Long" } });
    expect(parseVariable("Double", "1.5")).toEqual({ ok: true, body: { value: 1.5, type: "Double" } });
    expect(parseVariable("Boolean", "false")).toEqual({ ok: true, body: { value: false, type: "Boolean" } });
    expect(parseVariable("Json", '{"a":1}')).toEqual({ ok: true, body: { value: '{"a":1}', type: "Json" } });
    expect(parseVariable("Null", "x")).toEqual({ ok: true, body: { value: null, type: "Null" } });
    expect(parseVariable("Date", "2026-12-06T10:00:00.000+0000").ok).toBe(true);
  });

  it("refuses what the type cannot hold, saying why", () => {
    expect(parseVariable("Integer", "1.5")).toEqual({ ok: false, message: "Integer needs a whole number" });
    expect(parseVariable("Integer", "3000000000")).toEqual({
      ok: false,
      message: "3000000000 does not fit a Integer",
    });
    expect(parseVariable("Boolean", "yes").ok).toBe(false);
    expect(parseVariable("Json", "{").ok).toBe(false);
    expect(parseVariable("Date", "tomorrow").ok).toBe(false);
    expect(parseVariable("Bytes", "x").ok).toBe(false);
  });

  it("starts editing from the current value", () => {
    expect(editText("Integer", 5)).toBe("5");
    expect(editText("Json", { a: 1 })).toBe('{"a":1}');
    expect(editText("String", null)).toBe("");
    expect(isEditable("Bytes")).toBe(false);
    expect(isEditable("Long")).toBe(true);
  });
});
