"""Helpers shared by lit.cfg.py and the lit.local.cfg files."""
import os


def optional_feature(config, lit_config, name, problem):
    """Adds lit feature `name` to `config` unless `problem` says why what it
    needs is missing.

    scripts/test.sh installs and builds everything the tests need and sets
    PBC_REQUIRE_ALL_TESTS=1, which makes a missing feature an error: on a
    machine set up by the project's own scripts no test may be skipped for
    want of a package. Run by hand, lit skips those tests with a note."""
    if problem is None:
        config.available_features.add(name)
    elif os.environ.get("PBC_REQUIRE_ALL_TESTS") == "1":
        lit_config.fatal("tests that need %s cannot run: %s" % (name, problem))
    else:
        lit_config.note("skipping the tests that need %s: %s" % (name, problem))
