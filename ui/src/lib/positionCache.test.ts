import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PositionCache, debounce, indexAtOrBefore } from "./positionCache";

describe("position cache", () => {
  it("fetches a position once, sharing the request in flight", async () => {
    const load = vi.fn(async (position: number) => ({ position }));
    const cache = new PositionCache(load);
    const [a, b] = await Promise.all([cache.get(5), cache.get(5)]);
    expect(a).toBe(b);
    expect(await cache.get(5)).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.peek(5)).toEqual({ position: 5 });
    expect(cache.peek(6)).toBeUndefined();
  });

  it("forgets the least recently used position beyond its capacity", async () => {
    const load = vi.fn(async (position: number) => position * 10);
    const cache = new PositionCache(load, 2);
    await cache.get(1);
    await cache.get(2);
    cache.peek(1); // 1 is now the most recently used
    await cache.get(3);
    expect(cache.has(1)).toBe(true);
    expect(cache.has(2)).toBe(false);
    expect(cache.size).toBe(2);
  });

  it("does not keep a failure", async () => {
    let fail = true;
    const cache = new PositionCache(async (position: number) => {
      if (fail) throw new Error("down");
      return position;
    });
    await expect(cache.get(1)).rejects.toThrow("down");
    fail = false;
    expect(await cache.get(1)).toBe(1);
  });

  it("serves 10,000 positions without growing past its bound", async () => {
    const cache = new PositionCache(async (position: number) => position, 500);
    for (let p = 1; p <= 10_000; p += 1) await cache.get(p);
    expect(cache.size).toBe(500);
    expect(cache.has(10_000)).toBe(true);
    expect(cache.has(9_500)).toBe(false);
  });
});

describe("debounce", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("calls once with the last arguments after the reader stops", () => {
    const fn = vi.fn();
    const debounced = debounce(fn, 100);
    for (let i = 0; i < 50; i += 1) debounced(i);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith(49);
  });

  it("can be cancelled", () => {
    const fn = vi.fn();
    const debounced = debounce(fn, 100);
    debounced();
    debounced.cancel();
    vi.advanceTimersByTime(200);
    expect(fn).not.toHaveBeenCalled();
  });
});

describe("slider positions", () => {
  it("finds the stop at or before a position", () => {
    const positions = [24, 27, 28, 35, 40];
    expect(indexAtOrBefore(positions, 24)).toBe(0);
    expect(indexAtOrBefore(positions, 30)).toBe(2);
    expect(indexAtOrBefore(positions, 99)).toBe(4);
    expect(indexAtOrBefore(positions, 1)).toBe(0);
    expect(indexAtOrBefore([], 5)).toBe(0);
  });
});
