"""List and count endpoints: `GET|POST /x` and `GET|POST /x/count`, made once for every resource.

A resource describes its list as a `Listing` (the query Struct GET parameters fill, the JSON
query body, the sort keys, how to find a page and how to count: for most, its read model
`Search` and the DTO derived from its rows); `list_routes` makes the handlers. GET reads the
query from the query string (`rest.params`), POST from the JSON body with its `sorting` list;
`firstResult`/`maxResults` come from the query string in both cases. A filter the search cannot
evaluate (`InvalidQuery`) is the client's mistake: a 400.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec
from litestar import Request, get, post
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.params import JSONBody

from flowledger.engine import Engine
from flowledger.projections.queries.declaration import Search, count, find
from flowledger.projections.queries.filters import InvalidQuery

from .dto import CountResultDto, to_dto
from .errors import invalid
from .params import (
    Sort,
    check_query_limits,
    flag,
    paging,
    query_from_params,
    sorting_from_body,
    sorting_from_params,
    with_dates,
)

# Q is the query Struct (a JSON query body is a subclass of it), R a search row, D a result DTO.
Q = TypeVar("Q", bound=msgspec.Struct)
R = TypeVar("R", bound=msgspec.Struct)
D = TypeVar("D", bound=msgspec.Struct)
AnyRequest = Request[Any, Any, Any]
Params = Mapping[str, str]
# What a listing finds with: (engine, query, sorting, query string) → one page of DTOs.
Find = Callable[[Engine, Q, list[Sort], Params], list[D]]


@contextmanager
def refused_as_400() -> Iterator[None]:
    """A filter the search cannot evaluate is the client's mistake: 400."""
    try:
        yield
    except InvalidQuery as exc:
        raise invalid(str(exc)) from None


def read_page(
    engine: Engine, search: Search[Q, R], query: Q, sorting: list[Sort], params: Params
) -> list[R]:
    """One page of search rows, `firstResult`/`maxResults` from the query string."""
    first, maximum = paging(params)
    with engine.reading() as conn:
        return find(conn, search, query, sorting, first, maximum)


def find_with(search: Search[Q, R], result: type[D]) -> Find[Q, D]:
    """A `Listing.find` from a search and the DTO derived from its rows; rows holding variable
    values take Camunda's `deserializeValues` (default true) from the query string."""

    def found(engine: Engine, query: Q, sorting: list[Sort], params: Params) -> list[D]:
        deserialize = flag(params, "deserializeValues")
        rows = read_page(engine, search, query, sorting, params)
        return [to_dto(result, row, deserialize=deserialize) for row in rows]

    return found


def count_with(search: Search[Q, Any]) -> Callable[[Engine, Q], int]:
    """A `Listing.count` from a search."""

    def counted(engine: Engine, query: Q) -> int:
        with engine.reading() as conn:
            return count(conn, search, query)

    return counted


def _no_conditions(text: str, parameter: str) -> Any:
    raise invalid(f"Query parameter '{parameter}' is not supported")


@dataclass(frozen=True)
class Listing(Generic[Q, D]):
    """One resource's list: `path` (`/process-instance`), the `query` Struct GET parameters fill,
    the JSON query `body` (the query plus `sorting`; None: no POST forms), the `result` DTO of one
    entry (for the OpenAPI document), the allowed sort keys, and how to find a page (paging read
    from the query string) and how to count."""

    path: str
    query: type[Q]
    body: type[Q] | None
    result: type[D]
    sorts: Collection[str]
    find: Find[Q, D]
    count: Callable[[Engine, Q], int]
    # GET parameters written `name_op_value,...` (e.g. `variables`) → the attributes they fill,
    # parsed by `parse_conditions(text, parameter)`.
    conditions: Mapping[str, str] = field(default_factory=dict)
    parse_conditions: Callable[[str, str], Any] = _no_conditions
    # GET parameters that are dates in Camunda's format.
    dates: Collection[str] = ()
    # The 400 message for a JSON query with `orQueries`; None when they are supported (or absent).
    or_queries_refused: str | None = None
    # Sort keys Camunda has that this server refuses with a 400 naming them.
    unsupported_sorts: Collection[str] = ()

    def from_params(self, params: Params) -> Q:
        """The query from GET parameters; `orQueries` only a JSON query can carry."""
        plain = {k: params[k] for k in params if k not in self.conditions and k != "orQueries"}
        query = query_from_params(with_dates(plain, self.dates), self.query)
        parsed = {
            attribute: self.parse_conditions(text, parameter)
            for parameter, attribute in self.conditions.items()
            if (text := params.get(parameter))
        }
        if not parsed:
            return query
        query = msgspec.structs.replace(query, **parsed)
        check_query_limits(query)  # the conditions too: their count, their operators
        return query

    def from_body(self, body: Q | None) -> Q:
        query = body if body is not None else (self.body or self.query)()
        check_query_limits(query)
        if self.or_queries_refused and getattr(query, "or_queries", None):
            raise invalid(self.or_queries_refused)
        return query

    def _refuse_sort(self, by: str | None) -> None:
        if by in self.unsupported_sorts:
            raise invalid(f"Cannot set query parameter 'sortBy' to value '{by}': not supported")

    def sorting_from_params(self, params: Params) -> list[Sort]:
        self._refuse_sort(params.get("sortBy"))
        return sorting_from_params(params, self.sorts)

    def sorting_from_body(self, query: Q) -> list[Sort]:
        sorting = getattr(query, "sorting", None)
        for entry in sorting if isinstance(sorting, list) else [sorting]:
            if entry is not None:
                self._refuse_sort(entry.sort_by)
        return sorting_from_body(sorting, self.sorts)


def searched(
    search: Search[Q, Any],
    *,
    path: str,
    body: type[Q] | None,
    result: type[D],
    **options: Any,
) -> Listing[Q, D]:
    """The `Listing` of a read model search: GET parameters fill its query Struct, its entries
    are the DTO derived from its rows."""
    return Listing(
        path=path,
        query=search.query,
        body=body,
        result=result,
        sorts=search.sorts,
        find=find_with(search, result),
        count=count_with(search),
        **options,
    )


def named(handler: Callable[..., Any], name: str) -> Callable[..., Any]:
    # The function name is the OpenAPI operationId and summary.
    handler.__name__ = handler.__qualname__ = name
    return handler


def list_routes(
    listing: Listing[Q, D],
    *,
    get_list: str | None = None,
    post_list: str | None = None,
    get_count: str | None = None,
    post_count: str | None = None,
    **options: Any,
) -> list[HTTPRouteHandler]:
    """The handlers of `listing` named by the arguments (an operation without a name is not
    served); `options` go to every route decorator (e.g. `before_request`)."""
    # The annotations name Q and D: the signature namespace makes them the listing's classes.
    options = {
        "sync_to_thread": True,
        "signature_namespace": {"Q": listing.body or listing.query, "D": listing.result},
        **options,
    }
    path = listing.path

    def list_by_params(engine: NamedDependency[Engine], request: AnyRequest) -> list[D]:
        params = request.query_params
        with refused_as_400():
            query = listing.from_params(params)
            return listing.find(engine, query, listing.sorting_from_params(params), params)

    def list_by_body(
        engine: NamedDependency[Engine], request: AnyRequest, data: JSONBody[Q | None] = None
    ) -> list[D]:
        with refused_as_400():
            query = listing.from_body(data)
            sorting = listing.sorting_from_body(query)
            return listing.find(engine, query, sorting, request.query_params)

    def count_by_params(engine: NamedDependency[Engine], request: AnyRequest) -> CountResultDto:
        with refused_as_400():
            return CountResultDto(listing.count(engine, listing.from_params(request.query_params)))

    def count_by_body(
        engine: NamedDependency[Engine], data: JSONBody[Q | None] = None
    ) -> CountResultDto:
        with refused_as_400():
            return CountResultDto(listing.count(engine, listing.from_body(data)))

    routes: list[HTTPRouteHandler] = []
    if get_list:
        routes.append(get(path, **options)(named(list_by_params, get_list)))
    if post_list:
        routes.append(post(path, status_code=200, **options)(named(list_by_body, post_list)))
    if get_count:
        routes.append(get(f"{path}/count", **options)(named(count_by_params, get_count)))
    if post_count:
        handler = named(count_by_body, post_count)
        routes.append(post(f"{path}/count", status_code=200, **options)(handler))
    return routes
