// Path-based navigation over the History API: the current location as a hook, links that do not
// reload the page, and URL updates that do not add history entries (the time slider).
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";

type Listener = () => void;
const listeners = new Set<Listener>();

function notify(): void {
  for (const listener of listeners) listener();
}

window.addEventListener("popstate", notify);

export interface Location {
  path: string;
  query: URLSearchParams;
  href: string;
}

function current(): Location {
  return {
    path: window.location.pathname,
    query: new URLSearchParams(window.location.search),
    href: window.location.pathname + window.location.search,
  };
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const listener = () => setLocation(current());
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return location;
}

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === current().href) return;
  if (options.replace) window.history.replaceState(null, "", href);
  else window.history.pushState(null, "", href);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

/** Change the URL without a new history entry and without re-rendering the page. */
export function replaceQuietly(href: string): void {
  window.history.replaceState(null, "", href);
}

type LinkProps = JSX.AnchorHTMLAttributes<HTMLAnchorElement> & {
  href: string;
  children: ComponentChildren;
};

export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
