"""Sign-off records: what a smoke test proved, bound to exact file hashes and configuration.

Schema 1 (JSON object):
  schema            1
  patchkit          patchkit version that wrote it
  created           ISO-8601 UTC time
  passed            bool: every smoke stage passed
  target            {distribution, version}
  patches           [{name, version, strategy}]   (from the journal)
  files             {relative path: sha256}       (every file a journalled patch wrote)
  environment       {python, torch, cuda, gpu_model, gpu_count}
  config            {tp, model_path, model_config_sha256, draft_model_path, draft_config_sha256,
                     threshold, server_args}
  stages            [{name, passed, detail, seconds}]
  timings           {time_to_ready_s, first_request_latency_s, total_s}
  failure           null or {stage, message, location}
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path
from typing import Optional

from . import __version__, journal as jr
from .fsutil import atomic_write, sha256_file
from .ftypes import JournalError, Target

SCHEMA = 1
DEFAULT_NAME = "signoff.json"


def default_path(target: Target) -> Path:
    return target.root / jr.STATE_DIR / DEFAULT_NAME


def config_sha(folder: Optional[str]) -> Optional[str]:
    """sha256 of a model folder's config.json (model identity without hashing weights)."""
    if not folder:
        return None
    p = Path(folder) / "config.json"
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None


def current_files(target: Target) -> tuple[dict[str, str], list[dict]]:
    """(file -> sha256 now, patches) for every file the journal says a patch wrote."""
    try:
        j = jr.load(target)
    except JournalError:
        return {}, []
    files, patches = {}, []
    for e in j.entries:
        p = target.file(e.file)
        files[e.file] = sha256_file(p) if p.exists() else "missing"
        rec = {"name": e.patch, "version": e.patch_version, "strategy": e.strategy}
        if rec not in patches:
            patches.append(rec)
    return files, patches


def build(target: Target, passed: bool, environment: dict, config: dict, stages: list[dict],
          timings: dict, failure: Optional[dict]) -> dict:
    files, patches = current_files(target)
    return {
        "schema": SCHEMA, "patchkit": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "passed": passed,
        "target": {"distribution": target.distribution, "version": target.version},
        "patches": patches, "files": files, "environment": environment, "config": config,
        "stages": stages, "timings": timings, "failure": failure,
    }


def write(record: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(record, indent=2, sort_keys=False) + "\n").encode(), 0o644)


def read(path: Path) -> dict:
    doc = json.loads(Path(path).read_text())
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError(f"unknown sign-off schema {doc.get('schema') if isinstance(doc, dict) else '?'}")
    return doc


def mismatch(record: dict, target: Target, tp: Optional[int] = None) -> Optional[str]:
    """Why ``record`` does not sign off the target as it is now (None: it does)."""
    if not record.get("passed"):
        f = record.get("failure") or {}
        return f"the sign-off on record failed at stage '{f.get('stage', '?')}': {f.get('message', '')}"
    t = record.get("target", {})
    if t.get("version") != target.version or t.get("distribution") != target.distribution:
        return f"the sign-off is for {t.get('distribution')} {t.get('version')}, the target is {target.version}"
    files, _ = current_files(target)
    signed = record.get("files", {})
    if set(files) != set(signed):
        return f"the sign-off covers files {sorted(signed)}, the journal has {sorted(files)}"
    for rel, sha in files.items():
        if signed.get(rel) != sha:
            return f"{rel}: sha256 {sha[:12]} is not the signed-off {str(signed.get(rel))[:12]} (file changed since the smoke test)"
    if tp is not None:
        rtp = (record.get("config") or {}).get("tp")
        if rtp != tp:
            return f"the sign-off was made with --tp {rtp}, this launch uses --tp {tp}"
    return None
