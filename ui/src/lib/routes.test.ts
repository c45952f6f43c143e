import { describe, expect, it } from "vitest";
import { loginHref, matchRoute, safeNext } from "./routes";

describe("routes", () => {
  it("matches the contract's paths", () => {
    expect(matchRoute("/")).toEqual({ name: "home" });
    expect(matchRoute("/cockpit/")).toEqual({ name: "dashboard" });
    expect(matchRoute("/cockpit/definitions/order%3A1%3Aabc")).toEqual({
      name: "definition",
      id: "order:1:abc",
    });
    expect(matchRoute("/cockpit/definitions/order%3A1%3Aabc/migrate")).toEqual({
      name: "migration",
      id: "order:1:abc",
    });
    expect(matchRoute("/cockpit/batches")).toEqual({ name: "batches" });
    expect(matchRoute("/cockpit/instances")).toEqual({ name: "instances" });
    expect(matchRoute("/cockpit/instances/42")).toEqual({ name: "instance", id: "42" });
    expect(matchRoute("/cockpit/decisions/d1")).toEqual({ name: "decision", id: "d1" });
    expect(matchRoute("/tasklist/tasks/t1")).toEqual({ name: "task", id: "t1" });
    expect(matchRoute("/tasklist/start/p1")).toEqual({ name: "start", id: "p1" });
    expect(matchRoute("/elsewhere")).toEqual({ name: "notFound" });
  });

  it("returns from sign-in only to a path of this site", () => {
    expect(safeNext("/cockpit/instances/1?position=5")).toBe("/cockpit/instances/1?position=5");
    expect(safeNext("https://evil.example/")).toBe("/cockpit");
    expect(safeNext("//evil.example/")).toBe("/cockpit");
    expect(safeNext("/\\evil.example/")).toBe("/cockpit");
    expect(safeNext("/login?next=/x")).toBe("/cockpit");
    expect(safeNext(null)).toBe("/cockpit");
    expect(loginHref("/tasklist?filter=mine")).toBe("/login?next=%2Ftasklist%3Ffilter%3Dmine");
  });
});

import { formKeyHref, isGeneratedFormKey } from "./formKey";

describe("form keys", () => {
  it("resolves app: keys against the context path", () => {
    expect(formKeyHref("embedded:app:forms/confirm.html", "/shop")).toBe("/shop/forms/confirm.html");
    expect(formKeyHref("app:forms/a.html", null)).toBe("/forms/a.html");
    expect(formKeyHref("/static/form.html", null)).toBe("/static/form.html");
    expect(formKeyHref("camunda-forms:deployment:x.form", null)).toBeNull();
    expect(formKeyHref(null, "/x")).toBeNull();
    expect(isGeneratedFormKey("embedded:engine://engine/:engine/task/1/rendered-form")).toBe(true);
    expect(isGeneratedFormKey("embedded:app:forms/a.html")).toBe(false);
  });
});
