"""Filtered, sorted, paged lists over the ACT_* tables: the queries behind engine-rest's lists.

One module per Camunda query (tasks, instances, history, ...); each defines its query Struct
(Camunda's query DTO field names) and `find`/`count` functions over a read connection.
"""
