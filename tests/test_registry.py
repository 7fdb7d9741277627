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


# -- BLOCKYARD_LOAD_PLUGINS: an allow-list of third-party packages -------------------------

@pytest.fixture
def fake_packages():
    """Two third-party packages beside Blockyard's own entry point: the
    distribution ``blockyard-alpha`` (entry point ``alpha``, plugin
    ``alpha-rule``) and ``Blockyard_Beta`` (entry point ``beta``, plugin
    ``beta-rule``). Yields a function that reloads the registry with them
    installed and the environment given; afterwards the real registry is back."""
    import importlib.metadata

    real = importlib.metadata.entry_points

    def fake_entry_point(dist, name, plugin):
        module = make_package(plugin)[0]
        return types.SimpleNamespace(name=name, value=f"{name}_module", group="blockyard",
                                     dist=types.SimpleNamespace(name=dist),
                                     load=lambda: module)

    fakes = [fake_entry_point("blockyard-alpha", "alpha", "alpha-rule"),
             fake_entry_point("Blockyard_Beta", "beta", "beta-rule")]

    def entry_points(group):
        bundled = [ep for ep in real(group=group) if ep.value == registry.BUNDLED_MODULE]
        return [*bundled, *fakes]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importlib.metadata, "entry_points", entry_points)
        patch.delenv(registry.DISABLE_ENV, raising=False)
        patch.delenv(registry.LOAD_ENV, raising=False)

        def load(**environment):
            for name, value in environment.items():
                patch.setenv(name, value)
            return registry.reload()

        yield load
    registry.reload()


def third_party(reg):
    return sorted(name for name, entry in reg.plugins.items() if entry.source != "blockyard")


def test_without_an_allow_list_every_package_loads(fake_packages):
    reg = fake_packages()
    assert third_party(reg) == ["alpha-rule", "beta-rule"]
    assert reg.get("alpha-rule").source == "blockyard-alpha"
    assert reg.problems == []


def test_the_load_list_allows_packages_by_distribution_or_entry_point_name(fake_packages):
    # a distribution name, spelled with other case and separators: only alpha loads
    reg = fake_packages(BLOCKYARD_LOAD_PLUGINS="Blockyard_Alpha")
    assert third_party(reg) == ["alpha-rule"]
    assert reg.get("line-clearing").source == "blockyard"  # Blockyard's own always load
    # an entry-point name, with blanks around it, and a distribution name
    reg = fake_packages(BLOCKYARD_LOAD_PLUGINS=" beta , blockyard-alpha")
    assert third_party(reg) == ["alpha-rule", "beta-rule"]
    assert reg.problems == []


def test_an_empty_load_list_loads_no_third_party_package(fake_packages):
    reg = fake_packages(BLOCKYARD_LOAD_PLUGINS="")
    assert third_party(reg) == []
    assert reg.get("weighted-dealing") is not None
    assert blockyard.load_ruleset("eu-classic").id == "eu-classic"


def test_a_name_on_the_load_list_that_nothing_has_is_reported(fake_packages, monkeypatch,
                                                              capsys):
    monkeypatch.setattr(registry, "_reported", set())
    reg = fake_packages(BLOCKYARD_LOAD_PLUGINS="alpha,gamma,blockyard")
    assert capsys.readouterr().err == ("blockyard: BLOCKYARD_LOAD_PLUGINS names 'gamma', but "
                                       "no installed plugin package has that name\n")
    assert third_party(reg) == ["alpha-rule"]
    assert reg.problems == ["BLOCKYARD_LOAD_PLUGINS names 'gamma', but no installed plugin "
                            "package has that name"]


def test_the_disable_switch_wins_over_the_load_list(fake_packages):
    reg = fake_packages(BLOCKYARD_LOAD_PLUGINS="alpha", BLOCKYARD_DISABLE_PLUGINS="1")
    assert third_party(reg) == []
    assert reg.problems == []


def test_a_registration_hook_with_a_wrong_argument_is_a_plugin_error():
    """pluggy's validation of a package's registration hooks (here an argument
    the specification does not have) becomes a PluginError naming the package;
    the PluginValidationError is its cause."""
    import pluggy

    module = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_plugins(register, extra):
        pass

    module.blockyard_register_plugins = blockyard_register_plugins
    with pytest.raises(PluginError, match=r"(?s)package 'bad-args'.*\{'extra'\}") as caught:
        registry.Registry().add_module(module, "bad-args")
    assert isinstance(caught.value.__cause__, pluggy.PluginValidationError)


def test_package_version_of_bundled_installed_and_runtime_plugins():
    assert registry.package_version("blockyard") == blockyard.__version__
    assert registry.package_version("pluggy") == __import__("pluggy").__version__
    assert registry.package_version("runtime") is None
    assert registry.package_version("no-such-package-anywhere") is None


def test_end_when_stuck_is_a_no_op_kept_for_old_rule_files(rule_file):
    """No bundled rule file names ``end-when-stuck`` (the engine itself ends a
    stuck tray game); a rule file that still names it loads, and the plugin
    answers no hook, so the game is the same with it and without it."""
    from importlib.resources import files

    from blockyard.bots import get_bot
    from blockyard.plugins.endings import EndWhenStuck

    rule_files = [p for p in files("blockyard.rulesets").iterdir() if p.name.endswith(".toml")]
    assert len(rule_files) >= 10
    for path in rule_files:
        assert "end-when-stuck" not in path.read_text(encoding="utf-8"), path.name
    assert not [name for name in dir(EndWhenStuck) if name.startswith("blockyard_")]
    old = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "old-classic"\nname = "Old"\n'
        "[plugins.end-when-stuck]\n"))
    assert "end-when-stuck" in dict(old.plugin_objects)
    games = []
    for ruleset in (old, blockyard.load_ruleset("eu-classic")):
        game = blockyard.new_game(ruleset, seed=11)
        get_bot("greedy", seed=2).play(game, max_moves=400)
        games.append((game.score, game.moves, game.over_reason, game.log[1:]))
    assert games[0] == games[1] and games[0][2] == "stuck"


def test_the_first_use_from_several_threads_loads_once(monkeypatch):
    # a server's worker threads may all ask at once: one load, the others wait
    import threading

    loads = []
    real_load = registry._load
    threads_count = 8

    class CountingLock:
        """The registry's lock, counting the threads that came to it."""

        def __init__(self):
            self.lock = threading.RLock()
            self.came = threading.Condition()
            self.arrivals = 0

        def __enter__(self):
            with self.came:
                self.arrivals += 1
                self.came.notify_all()
            return self.lock.__enter__()

        def __exit__(self, *exc):
            return self.lock.__exit__(*exc)

    lock = CountingLock()

    def slow_load():
        loads.append(threading.get_ident())
        # the load lasts until every thread has come to the lock (a condition with a
        # deadline, not a time): each of them meets the load in progress
        with lock.came:
            assert lock.came.wait_for(lambda: lock.arrivals == threads_count, timeout=60)
        return real_load()

    monkeypatch.setattr(registry, "_registry", None)
    monkeypatch.setattr(registry, "_registry_lock", lock)
    monkeypatch.setattr(registry, "_load", slow_load)
    got, errors = [], []

    def ask():
        try:
            got.append(registry.registry())
        except Exception as exc:  # pragma: no cover - the failure this test looks for
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == [] and len(loads) == 1
    assert len(got) == 8 and all(reg is got[0] for reg in got)


def test_a_rule_file_reusing_an_id_is_said_once_per_run_not_warned_on_every_scan(
        isolated_home, capsys, recwarn):
    from blockyard import paths
    from blockyard.discovery import clear_caches

    folder = paths.user_rulesets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    twin = folder / "my-eu.toml"
    twin.write_text('[ruleset]\nextends = "eu-classic"\nid = "eu-classic"\nname = "Mine"\n',
                    encoding="utf-8")
    capsys.readouterr()
    for _ in range(3):  # every command scans the rule folders again
        clear_caches()
        infos = {info.id: info for info in blockyard.list_rulesets()}
        assert infos["eu-classic"].source == "bundled"
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]
    err = capsys.readouterr().err.splitlines()
    assert err == [f"blockyard: rule file {twin} (user) uses id 'eu-classic', already taken by "
                   f"{infos['eu-classic'].path} (bundled); it is ignored: give it another "
                   "[ruleset] id"]
