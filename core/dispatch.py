"""Fast hook calls for the engine's hot path.

pluggy's hook caller is general (wrappers, monitoring, historic calls) and costs
several microseconds per call. The engine asks a few hooks on every move, so it
compiles each one, once per ruleset, into a plain chain of the implementations
in pluggy's own call order, with pluggy's semantics: a single-answer hook
returns the first non-``None`` answer; the others return the list of non-``None``
answers. Hooks with wrapper implementations keep pluggy's caller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy


def compile_hook(pm: pluggy.PluginManager, name: str) -> Callable[..., Any]:
    """A callable taking the hook's keyword arguments, equivalent to ``pm.hook.<name>``."""
    caller = getattr(pm.hook, name)
    impls = caller.get_hookimpls()
    if any(i.hookwrapper or i.wrapper for i in impls):
        return caller
    chain = [(i.function, tuple(i.argnames)) for i in reversed(impls)]
    firstresult = bool(caller.spec and caller.spec.opts.get("firstresult"))

    if firstresult:
        def call_first(**kwargs: Any) -> Any:
            for func, names in chain:
                result = func(*[kwargs[n] for n in names])
                if result is not None:
                    return result
            return None
        return call_first

    def call_all(**kwargs: Any) -> list[Any]:
        results = []
        for func, names in chain:
            result = func(*[kwargs[n] for n in names])
            if result is not None:
                results.append(result)
        return results
    return call_all


class Hooks:
    """The compiled hooks of one ruleset, by hook name without the prefix
    (``hooks.clear(game=..., board=..., placed=...)``), and which hooks any plugin
    implements (``hooks.has("rescue")``)."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self._pm = pm
        self._implemented = {
            name.removeprefix("blockyard_")
            for name in dir(pm.hook)
            if name.startswith("blockyard_") and getattr(pm.hook, name).get_hookimpls()
        }

    def has(self, short_name: str) -> bool:
        return short_name in self._implemented

    def __getattr__(self, short_name: str) -> Callable[..., Any]:
        func = compile_hook(self._pm, "blockyard_" + short_name)
        setattr(self, short_name, func)
        return func
