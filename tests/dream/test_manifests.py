"""Package versions read from a repository's manifests, for the version-drift check."""

from __future__ import annotations

import json
from pathlib import Path

from dreamd.dream.folder import checks
from dreamd.dream.folder.manifests import (
    PROJECT_VERSION_KEY,
    parse_cargo_toml,
    parse_go_mod,
    parse_package_json,
    parse_pyproject,
    read_manifests,
)


class TestManifests:
    def test_package_json(self) -> None:
        """Own version and every dependency table; paths, tags and aliases give no version."""
        text = json.dumps(
            {
                "name": "app",
                "version": "2.0.1",
                "dependencies": {"react": "^18.2.0", "local": "file:../x", "tag": "latest"},
                "devDependencies": {"vitest": "~1.6.0"},
                "peerDependencies": {"@types/node": ">=20.1"},
            }
        )
        assert parse_package_json(text) == {
            "app": "2.0.1",
            PROJECT_VERSION_KEY: "2.0.1",
            "react": "18.2.0",
            "vitest": "1.6.0",
            "@types/node": "20.1",
        }

    def test_pyproject_takes_pins_only(self) -> None:
        """``==`` pins name a version; ranges do not; Poetry tables are read too."""
        text = """
[project]
name = "tool"
version = "0.3.0"
dependencies = ["click>=8", "httpx[http2]==0.27.0 ; python_version>'3.10'"]
[project.optional-dependencies]
test = ["pytest==8.2.0"]
[tool.poetry.dependencies]
python = "^3.11"
rich = "^13.7"
"""
        assert parse_pyproject(text) == {
            "tool": "0.3.0",
            PROJECT_VERSION_KEY: "0.3.0",
            "httpx": "0.27.0",
            "pytest": "8.2.0",
            "rich": "13.7",
        }

    def test_cargo_toml(self) -> None:
        """Package version and dependency tables, plain strings or tables with a version."""
        text = """
[package]
name = "crate"
version = "0.9.0"
[dependencies]
serde = { version = "1.0.190", features = ["derive"] }
anyhow = "1"
local = { path = "../local" }
[dev-dependencies]
insta = "=1.34.0"
"""
        assert parse_cargo_toml(text) == {
            "crate": "0.9.0",
            PROJECT_VERSION_KEY: "0.9.0",
            "serde": "1.0.190",
            "anyhow": "1",
            "insta": "1.34.0",
        }

    def test_go_mod(self) -> None:
        """The go directive and required modules, also under their last path part."""
        text = """module example.com/app

go 1.22

require github.com/spf13/cobra v1.8.0
require (
\tgolang.org/x/mod/v2 v2.1.0 // indirect
)
replace github.com/a/b => github.com/c/d v9.9.9
"""
        assert parse_go_mod(text) == {
            "go": "1.22",
            "github.com/spf13/cobra": "1.8.0",
            "golang.org/x/mod/v2": "2.1.0",
            "cobra": "1.8.0",
            "mod": "2.1.0",
        }

    def test_malformed_manifests_give_nothing(self) -> None:
        """A manifest that does not parse contributes no versions."""
        assert parse_package_json("{") == {}
        assert parse_package_json("[1]") == {}
        assert parse_pyproject("[project") == {}
        assert parse_cargo_toml("= 1") == {}

    def test_read_manifests_reads_the_repo_top(self, tmp_path: Path) -> None:
        """All four manifests are read; the first one naming a package wins."""
        (tmp_path / "package.json").write_text('{"dependencies": {"left-pad": "1.3.0"}}')
        (tmp_path / "pyproject.toml").write_text(
            '[project]\nname = "p"\nversion = "1.0"\ndependencies = ["left-pad==9.9"]\n'
        )
        (tmp_path / "go.mod").write_text("module m\n\ngo 1.21\n")
        found = read_manifests(tmp_path)
        assert found["left-pad"] == "1.3.0"
        assert (found["p"], found[PROJECT_VERSION_KEY], found["go"]) == ("1.0", "1.0", "1.21")

    def test_read_manifests_of_an_empty_folder(self, tmp_path: Path) -> None:
        """No manifest, no versions."""
        assert read_manifests(tmp_path) == {}

    def test_checks_reexports_the_reader(self) -> None:
        """The drift check's callers find read_manifests beside version_drift."""
        assert checks.read_manifests is read_manifests
