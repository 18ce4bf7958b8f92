"""The SQL features of a source query, read from its sqlglot AST: the constructs of the
reliability matrix beside an item's translation types and tags.

A feature is named when some node of the parsed source is of one of its expression classes
(window functions, recursive CTEs, date arithmetic, string functions, …); a source sqlglot cannot
parse has no features. Pure and memoized: a run's report asks once per distinct source.
"""

from __future__ import annotations

from functools import lru_cache

from sqlglot import exp

from parrot.sqlfacts import statements as parsed

MEMO = 8192  # source texts remembered

# feature -> the expression classes that show it (one is enough)
FEATURES: dict[str, tuple[type[exp.Expr], ...]] = {
    "window function": (exp.Window,),
    "CTE": (exp.CTE,),
    "aggregate": (exp.AggFunc,),
    "GROUP BY": (exp.Group,),
    "HAVING": (exp.Having,),
    "join": (exp.Join,),
    "subquery": (exp.Subquery,),
    "set operation": (exp.Union, exp.Intersect, exp.Except),
    "CASE / IF": (exp.Case, exp.If),
    "CAST": (exp.Cast, exp.TryCast),
    "NULL handling": (exp.Coalesce, exp.Nullif, exp.Is),
    "date arithmetic": (
        exp.DateAdd,
        exp.DateSub,
        exp.DateDiff,
        exp.DateTrunc,
        exp.TsOrDsAdd,
        exp.TimestampAdd,
        exp.TimestampSub,
        exp.TimestampDiff,
        exp.TimestampTrunc,
        exp.Interval,
        exp.Extract,
        exp.StrToTime,
        exp.TimeToStr,
        exp.StrToDate,
        exp.CurrentDate,
        exp.CurrentTimestamp,
    ),
    "string function": (
        exp.Substring,
        exp.Concat,
        exp.ConcatWs,
        exp.DPipe,
        exp.Upper,
        exp.Lower,
        exp.Trim,
        exp.Length,
        exp.StrPosition,
        exp.Left,
        exp.Right,
        exp.Pad,
        exp.Initcap,
        exp.Reverse,
        exp.Repeat,
        exp.GroupConcat,
        exp.ArrayToString,
        exp.Split,
    ),
    "pattern match": (
        exp.Like,
        exp.ILike,
        exp.RegexpLike,
        exp.RegexpExtract,
        exp.RegexpReplace,
        exp.SimilarTo,
        exp.Glob,
    ),
    "JSON": (
        exp.JSONExtract,
        exp.JSONExtractScalar,
        exp.JSONBExtract,
        exp.ParseJSON,
        exp.JSONObject,
        exp.JSONArray,
    ),
    "ORDER BY … LIMIT": (exp.Limit, exp.Fetch),
    "DISTINCT": (exp.Distinct,),
}

# functions sqlglot leaves unnamed (exp.Anonymous) whose name says date arithmetic
DATE_FUNCTIONS = frozenset(
    {
        "date",
        "datetime",
        "julianday",
        "unixepoch",
        "adddays",
        "addmonths",
        "addyears",
        "addhours",
        "subtractdays",
        "subtractmonths",
        "todate",
        "todatetime",
        "tostartofweek",
        "tostartofyear",
    }
)


_BY_CLASS: dict[type, frozenset[str]] = {}  # one entry per expression class met (a few hundred)


def _class_features(cls: type[exp.Expr]) -> frozenset[str]:
    """The features a node of class ``cls`` shows by its class alone (memoized)."""
    known = _BY_CLASS.get(cls)
    if known is None:
        known = frozenset(name for name, classes in FEATURES.items() if issubclass(cls, classes))
        _BY_CLASS[cls] = known
    return known


def _named(node: exp.Expr, found: set[str]) -> None:
    found |= _class_features(type(node))
    if isinstance(node, exp.Anonymous) and str(node.name).lower() in DATE_FUNCTIONS:
        found.add("date arithmetic")
    if isinstance(node, exp.With) and node.args.get("recursive"):
        found.add("recursive CTE")


@lru_cache(maxsize=MEMO)
def features(sql: str, dialect: str) -> tuple[str, ...]:
    """The features of ``sql`` (read in ``dialect``), in :data:`FEATURES` order."""
    try:  # the judge's parse of the same source, when it read its facts (parsed once a run)
        statements = parsed(sql, dialect)
    except ValueError:  # sqlglot's other parse failure (SqlglotError gives no statement)
        return ()
    found: set[str] = set()
    for statement in statements:
        for node in statement.walk():
            _named(node, found)
    order = [*FEATURES, "recursive CTE"]
    return tuple(name for name in order if name in found)
