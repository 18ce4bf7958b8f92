"""One generic registry for everything parrot looks up by name (translators, engines, comparison
modes, ...): :class:`Registry` ``[T]``.

An entry comes from one of three places, looked at in this order:

* ``@registry.register(name)`` (or ``registry.add(name, obj)``) in code already imported;
* a built-in ``"module:attribute"`` path, imported only when its name is asked for (importing
  chdb alone costs a second, an LLM client more);
* an entry point in the registry's group (``[project.entry-points."parrot.translators"]`` in a
  plugin's ``pyproject.toml``), so a third-party package adds one without editing parrot.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

T = TypeVar("T")
Obj = TypeVar("Obj")


class RegistryError(LookupError):
    """A name no entry answers to, or an entry that is not what the registry holds."""


class Registry(Generic[T]):
    """Named entries of one kind; ``check`` rejects a loaded object that is not a ``T``."""

    def __init__(
        self,
        kind: str,
        *,
        group: str | None = None,
        builtin: Mapping[str, str] | None = None,
        check: Callable[[object], bool] | None = None,
        expects: str = "",
        error: type[Exception] = RegistryError,
    ):
        self.kind = kind  # what error messages call an entry ("translator", "engine", ...)
        self.group = group  # the entry-point group plugins declare entries in
        self.builtin = dict(builtin or {})  # name -> "module:attribute", imported on demand
        self._check = check
        self._expects = expects or f"a {kind}"  # what ``check`` wants, for its error
        self._error = error
        self._loaded: dict[str, T] = {}

    def add(self, name: str, obj: T) -> T:
        """Register ``obj`` as ``name`` (again with the same object is harmless)."""
        if name in self._loaded and self._loaded[name] is not obj:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._loaded[name] = obj
        return obj

    def register(self, name: str) -> Callable[[Obj], Obj]:
        """Decorator form of :meth:`add`."""

        def decorate(obj: Obj) -> Obj:
            self.add(name, obj)  # type: ignore[arg-type]
            return obj

        return decorate

    def plugins(self) -> dict[str, EntryPoint]:
        """The entry points installed packages declare in this registry's group."""
        if self.group is None:
            return {}
        return {ep.name: ep for ep in entry_points(group=self.group)}

    def names(self) -> list[str]:
        """Every name that can be asked for (nothing is imported)."""
        return sorted(set(self._loaded) | set(self.builtin) | set(self.plugins()))

    def get(self, name: str) -> T:
        """The entry ``name``, importing its module or loading its entry point if needed."""
        if name not in self._loaded:
            if name in self.builtin:
                module, _, attribute = self.builtin[name].partition(":")
                loaded = importlib.import_module(module)
                if attribute and name not in self._loaded:  # a module may register itself
                    self._accept(name, getattr(loaded, attribute), self.builtin[name])
            elif name in (plugins := self.plugins()):
                self._accept(
                    name,
                    plugins[name].load(),
                    f"entry point {plugins[name].value} in group {self.group}",
                )
        try:
            return self._loaded[name]
        except KeyError:
            raise self._error(
                f"unknown {self.kind} {name!r} (available: {', '.join(self.names())})"
            ) from None

    def _accept(self, name: str, obj: object, origin: str) -> None:
        if self._check is not None and not self._check(obj):
            raise self._error(f"{self.kind} {name!r} ({origin}) is not {self._expects}")
        self._loaded.setdefault(name, obj)  # type: ignore[arg-type]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self._loaded or name in self.builtin or name in self.plugins()

    def __iter__(self) -> Iterator[str]:
        """Names in registration order (loaded entries first), then the rest."""
        yield from self._loaded
        yield from (n for n in self.names() if n not in self._loaded)

    def loaded(self) -> dict[str, T]:
        """The entries imported so far, by name, in registration order."""
        return dict(self._loaded)
