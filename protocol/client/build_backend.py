"""A PEP 517 / PEP 660 build backend for checkersbot-client, standard library only.

It packs the `checkersbot_client` directory into a pure-Python wheel (and an sdist) from the
`[project]` table of pyproject.toml. It needs nothing to be installed, so `pip install
./protocol/client` works offline with or without build isolation.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

HERE = Path(__file__).resolve().parent
PACKAGE = "checkersbot_client"
# Fixed timestamps: the same sources give the same wheel.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _parse_value(text: str) -> Any:
    text = text.strip()
    if text.startswith('"'):
        return text[1:-1].replace('\\"', '"')
    if text.startswith("["):
        return [_parse_value(v) for v in re.findall(r'"(?:[^"\\]|\\.)*"', text)]
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("{"):
        return {k: _parse_value(v) for k, v in re.findall(r'(\w[\w-]*)\s*=\s*("[^"]*")', text)}
    raise ValueError(f"pyproject.toml: unsupported value {text!r}")


def read_pyproject(text: str) -> Dict[str, Dict[str, Any]]:
    """The tables of pyproject.toml. `tomllib` where there is one (3.11+); else a reader of the
    forms this file uses (strings, booleans, arrays of strings, inline tables of strings)."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(text)
    tables: Dict[str, Dict[str, Any]] = {}
    current: Dict[str, Any] = {}
    pending = ""
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not pending else raw.strip()
        if not line or line.startswith("#"):
            continue
        if pending:
            pending += " " + line
            if line.startswith("]"):
                key, value = pending.split("=", 1)
                current[key.strip()] = _parse_value(value)
                pending = ""
            continue
        if line.startswith("["):
            node = tables
            for part in line.strip("[]").split("."):
                node = node.setdefault(part, {})
            current = node
            continue
        key, value = line.split("=", 1)
        if value.strip() == "[":
            pending = line
            continue
        current[key.strip()] = _parse_value(value)
    return tables


def _project() -> Dict[str, Any]:
    project: Dict[str, Any] = read_pyproject((HERE / "pyproject.toml").read_text())["project"]
    return project


def _dist_name(project: Mapping[str, Any]) -> str:
    return re.sub(r"[-_.]+", "_", str(project["name"])).lower()


def _metadata(project: Mapping[str, Any]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
        f"License: {project['license']['text']}",
    ]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    lines.append("Description-Content-Type: text/markdown")
    readme = (HERE / project["readme"]).read_text()
    return "\n".join(lines) + "\n\n" + str(readme)


def _package_files() -> List[Tuple[str, bytes]]:
    files = []
    for path in sorted((HERE / PACKAGE).iterdir()):
        if path.suffix in (".py", ".typed") and path.is_file():
            files.append((f"{PACKAGE}/{path.name}", path.read_bytes()))
    return files


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    project = _project()
    name, version = _dist_name(project), project["version"]
    info = f"{name}-{version}.dist-info"
    files = files + [
        (f"{info}/METADATA", _metadata(project).encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: checkersbot build_backend\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{info}/top_level.txt", f"{PACKAGE}\n".encode()),
    ]
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files)
    record += f"{info}/RECORD,,\n"
    filename = f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files + [(f"{info}/RECORD", record.encode())]:
            entry = zipfile.ZipInfo(path, EPOCH)
            entry.external_attr = 0o644 << 16
            whl.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return filename


# --- PEP 517 -----------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(
        config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel holding a .pth file that puts this directory on sys.path."""
    pth = (str(HERE) + "\n").encode()
    return _write_wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", pth)])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    names = ["pyproject.toml", "build_backend.py", "README.md"]
    names += [path for path, _ in _package_files()]
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        pkg_info = _metadata(project).encode()
        for name, data in [(n, (HERE / n).read_bytes()) for n in names] + [("PKG-INFO",
                                                                              pkg_info)]:
            entry = tarfile.TarInfo(f"{base}/{name}")
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 315532800
            tar.addfile(entry, io.BytesIO(data))
    return filename
