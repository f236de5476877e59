"""Configuration files: YAML read with the line of every key, validated by pydantic models.

Every configuration file of the project (study files, sweep specs, the
``kubernetes:`` block, latency sweeps) is described by one model derived from
:class:`ConfigModel` (unknown keys are errors).  :func:`validate` turns a
pydantic ``ValidationError`` into one :class:`~throttlelab.errors.SpecError`
line that names the file, the line, the key and what is allowed, e.g.::

    studies/x.yaml:7: key 'runs[0].parameter': unknown key (allowed: name, notebook, parameters, requires, title)

:func:`reference_markdown` renders a model as the reference table docs/configuration.md
shows (``scripts/readme_tables.py`` writes it, a test checks it is current).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from throttlelab.errors import SpecError

M = TypeVar("M", bound="ConfigModel")
KeyLines = dict[tuple, int | str]
"""Line (1-based) of each key path, e.g. ``("runs", 0, "notebook") -> 7``; or, for a value that did not come
from the file, a text saying where it came from (e.g. ``"x.yaml (overridden)"``), named instead of ``file:line``."""


class ValueAt(ValueError):
    """A bad value a model's validator found at a key below the one it validates (e.g. ``limits[2]``).

    Raised inside a validator, it becomes one pydantic error; :func:`validate` names the key
    ``path`` (relative to the field the validator checks, or to the model with ``absolute``) and
    reports such errors after every plain type error of the document, in field order.
    """

    def __init__(self, path: tuple, message: str, *, absolute: bool = False):
        super().__init__(message)
        self.path = tuple(path)
        self.absolute = absolute


def _simple_name(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", value):
        raise ValueError(f"must be a simple name (letters, digits, '-', '_', '.'), got {value!r}")
    return value


SimpleName = Annotated[str, AfterValidator(_simple_name)]
"""A name used as a folder: letters, digits, ``-``, ``_``, ``.``."""


class ConfigModel(BaseModel):
    """Base of every configuration model: unknown keys are errors, instances are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def read_yaml(path: str | Path) -> tuple[Any, KeyLines]:
    """A YAML file's document and the line of every key in it.

    Raises
    ------
    SpecError
        When the file cannot be read or is not valid YAML (with its line).
    """
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise SpecError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    lines: KeyLines = {}
    if node is not None:
        _collect_lines(node, (), lines)
    return doc, lines


def _collect_lines(node: Any, prefix: tuple, out: KeyLines) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            path = (*prefix, key_node.value)
            out[path] = key_node.start_mark.line + 1
            _collect_lines(value_node, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            path = (*prefix, i)
            out[path] = item.start_mark.line + 1
            _collect_lines(item, path, out)


def dotted(path: tuple) -> str:
    """``("runs", 0, "notebook")`` -> ``runs[0].notebook``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def where(source: str | Path | None, lines: KeyLines | None, path: tuple) -> str:
    """``file:line`` of a key path (the nearest enclosing key that has a line), or the file alone."""
    src = str(source) if source is not None else "<config>"
    for n in range(len(path), 0, -1):
        line = (lines or {}).get(tuple(path[:n]))
        if isinstance(line, str):
            return line
        if line:
            return f"{src}:{line}"
    return src


def config_error(source: str | Path | None, lines: KeyLines | None, path: tuple, message: str) -> SpecError:
    """The :class:`SpecError` for ``message`` about the key at ``path``."""
    return SpecError(f"{where(source, lines, path)}: key '{dotted(path)}': {message}")


def validate(model: type[M], doc: Any, *, source: str | Path | None = None, lines: KeyLines | None = None,
             prefix: tuple = ()) -> M:
    """``model`` validated from ``doc``; the first problem as a :class:`SpecError` with file and line."""
    if not isinstance(doc, Mapping):
        what = "empty" if doc is None else f"a {type(doc).__name__}"
        raise SpecError(f"{where(source, lines, prefix)}: expected a mapping of keys "
                        f"({', '.join(model.model_fields)}), got {what}")
    try:
        return model.model_validate(dict(doc))
    except ValidationError as exc:
        loc, message = first_problem(model, exc)
        raise config_error(source, lines, (*prefix, *loc), message) from None


def first_problem(model: type[ConfigModel], exc: ValidationError) -> tuple[tuple, str]:
    """The key path and message of the problem to report: the first type error, else the first :class:`ValueAt`."""
    errors = exc.errors()
    plain = [e for e in errors if not isinstance((e.get("ctx") or {}).get("error"), ValueAt)]
    err = (plain or errors)[0]
    found = (err.get("ctx") or {}).get("error")
    if isinstance(found, ValueAt):
        return (found.path if found.absolute else (*err["loc"], *found.path)), str(found)
    return tuple(err["loc"]), _message(model, err, ())


def _message(model: type[ConfigModel], err: dict, prefix: tuple) -> str:
    if err["type"] == "extra_forbidden":
        owner = _model_at(model, err["loc"][:-1])
        import difflib

        names = sorted(owner.model_fields) if owner else []
        close = difflib.get_close_matches(str(err["loc"][-1]), names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"unknown key ({hint}allowed: {', '.join(names)})"
    if err["type"] == "missing":
        return "required"
    msg = err["msg"]
    msg = msg[len("Value error, "):] if msg.startswith("Value error, ") else msg
    if "input" in err and err["type"] not in ("value_error",):
        msg += f", got {err['input']!r}"
    return msg


def _model_at(model: type[ConfigModel], loc: tuple) -> type[ConfigModel] | None:
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return None
        current = _inner_model(field.annotation)
        if current is None:
            return None
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def load_config(path: str | Path, model: type[M]) -> tuple[M, KeyLines]:
    """Read and validate a YAML configuration file."""
    doc, lines = read_yaml(path)
    return validate(model, doc, source=path, lines=lines), lines


def reference_markdown(model: type[ConfigModel], *, level: int = 4, title: str | None = None) -> str:
    """A model (and the models nested in it) as Markdown tables: key, type, default, meaning (``title``: the
    heading of the model's own table, default its class name)."""
    out, seen, todo = [], set(), [(title or model.__name__, model)]
    while todo:
        title, m = todo.pop(0)
        if m in seen:
            continue
        seen.add(m)
        out += [f"{'#' * level} `{title}`", "", (m.__doc__ or "").strip().splitlines()[0], "",
                "| key | type | default | meaning |", "|---|---|---|---|"]
        for name, field in m.model_fields.items():
            default = "required" if field.is_required() else f"`{field.get_default(call_default_factory=True)!r}`"
            out.append(f"| `{field.alias or name}` | {_type_name(field.annotation)} | {default} | "
                       f"{(field.description or '').replace('|', '/')} |")
            inner = _inner_model(field.annotation)
            if inner is not None:
                todo.append((inner.__name__, inner))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        names = list(dict.fromkeys(_type_name(a) for a in typing.get_args(annotation)))
        if "int" in names and "float" in names:
            names[names.index("int")] = "number"
            names.remove("float")
        return " or ".join(names)
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
    if origin in (list, tuple):
        args = typing.get_args(annotation)
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return "mapping"
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation)).replace("NoneType", "null")
