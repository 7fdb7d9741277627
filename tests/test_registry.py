"""The plugin registry: packages contribute rule plugins and rule files through
the ``blockyard`` entry points (blockyard_register_plugins and
blockyard_register_rulesets), bundled plugins included."""

from __future__ import annotations

import types

import pytest

import blockyard
from blockyard import PluginError, hookimpl, registry


def test_bundled_plugins_are_registered_through_the_entry_point():
    import importlib.metadata

    eps = [ep for ep in importlib.metadata.entry_points(group="blockyard")
           if ep.value == "blockyard.plugins.bundled"]
    assert eps, "blockyard's own entry point is missing"
    reg = registry.registry()
    for name in ("line-clearing", "weighted-dealing", "line-scoring", "end-when-stuck",
                 "clock", "continue", "zen-refill", "swaps", "rotation"):
        assert reg.get(name).source == "blockyard"


def make_package(plugin_name, folder=None):
    class Nothing:
        def __init__(self, params):
            pass

    module = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_plugins(register):
        register(plugin_name, Nothing)

    @hookimpl
    def blockyard_register_rulesets(register):
        if folder is not None:
            register(folder)

    module.blockyard_register_plugins = blockyard_register_plugins
    module.blockyard_register_rulesets = blockyard_register_rulesets
    return module, Nothing


def test_a_package_registers_plugins_and_rule_files(tmp_path):
    (tmp_path / "extra.toml").write_text(
        '[ruleset]\nextends = "eu-classic"\nid = "eu-extra"\nname = "Extra"\n')
    reg = registry.Registry()
    module, factory = make_package("nothing", tmp_path)
    reg.add_module(module, "some-package")
    assert reg.get("nothing").factory is factory
    assert reg.get("nothing").source == "some-package"
    assert reg.ruleset_paths == [(tmp_path, "some-package")]


def test_a_plugin_name_registered_twice_is_an_error():
    reg = registry.Registry()
    reg.add_module(make_package("same")[0], "package-a")
    with pytest.raises(PluginError, match=r"'same' is registered twice.*package-a.*package-b"):
        reg.add_module(make_package("same")[0], "package-b")


def test_a_package_with_a_misspelled_registration_hook_is_refused():
    module = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_plugin(register):
        pass

    module.blockyard_register_plugin = blockyard_register_plugin
    with pytest.raises(PluginError, match="package 'typo'"):
        registry.Registry().add_module(module, "typo")


def test_the_environment_switch_disables_third_party_plugins(monkeypatch):
    monkeypatch.setenv("BLOCKYARD_DISABLE_PLUGINS", "1")
    assert registry.plugins_disabled()
    reg = registry.reload()
    assert reg.get("line-clearing") is not None  # bundled plugins stay
    assert all(entry.source == "blockyard" for entry in reg.plugins.values())
    monkeypatch.delenv("BLOCKYARD_DISABLE_PLUGINS")
    assert not registry.plugins_disabled()
    registry.reload()
    assert blockyard.load_ruleset("eu-classic").id == "eu-classic"
