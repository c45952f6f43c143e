// Keeps the time slider fast over thousands of positions: states already fetched are drawn at
// once from a bounded cache, a fetch in flight is shared, and while the reader drags only the
// position the slider rests on is fetched (debounced).

export class PositionCache<T> {
  private readonly done = new Map<number, T>();
  private readonly pending = new Map<number, Promise<T>>();

  constructor(
    private readonly load: (position: number) => Promise<T>,
    private readonly capacity = 500,
  ) {}

  /** The state at `position` if it is cached (and marks it recently used). */
  peek(position: number): T | undefined {
    const value = this.done.get(position);
    if (value !== undefined) {
      this.done.delete(position);
      this.done.set(position, value);
    }
    return value;
  }

  has(position: number): boolean {
    return this.done.has(position);
  }

  get size(): number {
    return this.done.size;
  }

  get(position: number): Promise<T> {
    const cached = this.peek(position);
    if (cached !== undefined) return Promise.resolve(cached);
    const inFlight = this.pending.get(position);
    if (inFlight) return inFlight;
    const promise = this.load(position).then(
      (value) => {
        this.pending.delete(position);
        this.done.set(position, value);
        while (this.done.size > this.capacity) {
          const oldest = this.done.keys().next().value as number;
          this.done.delete(oldest);
        }
        return value;
      },
      (error: unknown) => {
        this.pending.delete(position);
        throw error;
      },
    );
    this.pending.set(position, promise);
    return promise;
  }

  clear(): void {
    this.done.clear();
    this.pending.clear();
  }
}

export interface Debounced<A extends unknown[]> {
  (...args: A): void;
  cancel(): void;
}

export function debounce<A extends unknown[]>(fn: (...args: A) => void, wait: number): Debounced<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const debounced = (...args: A) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn(...args);
    }, wait);
  };
  debounced.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return debounced;
}

/** The index of the last position at or before `position` in ascending `positions` (0 if none). */
export function indexAtOrBefore(positions: readonly number[], position: number): number {
  let low = 0;
  let high = positions.length - 1;
  let found = 0;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (positions[mid]! <= position) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}
