// The time slider's state: which of the instance's positions is shown, the state there (from a
// bounded per-position cache, fetched debounced while the reader drags or steps), and the URL's
// `position` kept in step with history.replaceState.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import type { InstanceState, Trail } from "../../api/extensions";
import { isNotAvailable } from "../../components/common";
import { PositionCache, debounce, indexAtOrBefore } from "../../lib/positionCache";
import { replaceQuietly } from "../../router";
import { instanceHref } from "./url";

export interface At {
  state: InstanceState;
  /** null: the server has no trail endpoint (the timeline stands in) */
  trail: Trail | null;
}

export interface TimeTravel {
  index: number;
  position: number | null;
  last: number;
  /** the slider is on the newest position and follows it (no `position` in the URL) */
  following: boolean;
  at: At | null;
  loading: boolean;
  error: unknown;
  go: (index: number) => void;
  goToPosition: (position: number) => void;
  follow: () => void;
}

const DEBOUNCE_MS = 120;

export function useTimeTravel(id: string, positions: number[], urlPosition: number | null): TimeTravel {
  const trailMissing = useRef(false);
  const states = useMemo(() => new PositionCache<InstanceState>((position) => api.state(id, position)), [id]);
  const trails = useMemo(
    () =>
      new PositionCache<Trail | null>((position) =>
        trailMissing.current
          ? Promise.resolve(null)
          : api.trail(id, position).catch((error: unknown) => {
              if (!isNotAvailable(error)) throw error;
              trailMissing.current = true;
              return null;
            }),
      ),
    [id],
  );
  const last = positions.length - 1;
  const [following, setFollowing] = useState(urlPosition === null);
  const [index, setIndex] = useState(() =>
    urlPosition === null ? Math.max(0, last) : indexAtOrBefore(positions, urlPosition),
  );
  const [shownState, setShownState] = useState<InstanceState | null>(null);
  const [shownTrail, setShownTrail] = useState<Trail | null>(null);
  // the trail joins the state only when both are of the same position
  const at: At | null = shownState && {
    state: shownState,
    trail: shownTrail?.position === shownState.position ? shownTrail : null,
  };
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const wanted = useRef<number | null>(null);

  // the state and the trail load apart: the state (fast) is drawn at once, the trail (what
  // was passed, the flows taken) joins when it arrives; until then the timeline stands in
  const load = (position: number) => {
    states.get(position).then(
      (state) => {
        if (wanted.current !== position) return;
        setShownState(state);
        setLoading(false);
        setError(undefined);
      },
      (failure: unknown) => {
        if (wanted.current !== position) return;
        setLoading(false);
        setError(failure);
      },
    );
    trails.get(position).then(
      (trail) => {
        if (wanted.current !== position || trail === null) return;
        setShownTrail(trail);
      },
      () => undefined,
    );
  };
  const loadRef = useRef(load);
  loadRef.current = load;
  const fetchLater = useMemo(() => debounce((position: number) => loadRef.current(position), DEBOUNCE_MS), []);
  useEffect(() => () => fetchLater.cancel(), [fetchLater]);

  /** Draw position `i`: at once from the cache, else fetched (debounced unless `immediate`). */
  const show = (i: number, immediate = false) => {
    const position = positions[i];
    if (position === undefined) return;
    wanted.current = position;
    const hit = states.peek(position);
    if (hit) {
      const trail = trails.peek(position) ?? null;
      setShownState(hit);
      if (trail !== null) setShownTrail(trail);
      setError(undefined);
      setLoading(false);
      if (trail !== null || trailMissing.current) {
        fetchLater.cancel();
        return;
      }
      fetchLater(position);
      return;
    }
    setLoading(true);
    if (immediate) {
      fetchLater.cancel();
      load(position);
    } else fetchLater(position);
  };

  // positions arrive (or grow after an action): follow the newest, or find the URL's
  const key = `${positions.length}:${positions[last] ?? ""}`;
  useEffect(() => {
    if (positions.length === 0) return;
    const i = following || urlPosition === null ? last : indexAtOrBefore(positions, urlPosition);
    setIndex(i);
    show(i, true);
  }, [key]);

  // back / forward in the browser history: the URL's position wins
  useEffect(() => {
    if (positions.length === 0) return;
    if (urlPosition === null) {
      setFollowing(true);
      setIndex(last);
      show(last, true);
    } else if (positions[index] !== urlPosition) {
      const i = indexAtOrBefore(positions, urlPosition);
      setFollowing(false);
      setIndex(i);
      show(i, true);
    }
  }, [urlPosition]);

  const go = (i: number) => {
    const clamped = Math.min(Math.max(0, i), last);
    setIndex(clamped);
    setFollowing(false);
    replaceQuietly(instanceHref(id, { position: positions[clamped] ?? null }));
    show(clamped);
  };

  return {
    index,
    position: positions[index] ?? null,
    last,
    following,
    at,
    loading,
    error,
    go,
    goToPosition: (position: number) => go(indexAtOrBefore(positions, position)),
    follow: () => {
      setFollowing(true);
      setIndex(last);
      replaceQuietly(instanceHref(id, { position: null }));
      show(last);
    },
  };
}
