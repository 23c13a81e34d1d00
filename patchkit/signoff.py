"""Sign-off records: what a smoke test proved, bound to the exact bytes of the whole target package,
the environment it ran in and the launch configuration; optionally signed (HMAC-SHA256).

Schema 2 (JSON object; ``validate`` checks every field strictly: booleans are booleans):
  schema            2
  patchkit          patchkit version that wrote it (the gate requires the same version)
  created           ISO-8601 UTC time
  passed            bool: every smoke stage passed (then ``failure`` is null and every stage passed)
  target            {distribution, version}
  patches           [{name, version, strategy}]   (from the journal)
  files             {relative path: sha256}       (every file a journalled patch wrote)
  package           {folder, count, sha256, hashes: {relative path: sha256}}: every file of the
                    target's import package (``__pycache__`` excluded); sha256 is over the sorted
                    ``path NUL sha256 LF`` lines
  environment       {python, torch, cuda, gpu_model, gpu_count, ...}; the gate compares torch and
                    gpu_model with the launch host
  config            {tp, model_path, model_config_sha256, draft_model_path, draft_config_sha256,
                     threshold, server_args}; a built-in full-size shape (``--model-config``) adds
                    {weights: "dummy", model_shape, num_layers, full_num_layers, params,
                     weights_gib_per_rank, shape_note}: dummy weights, not a quality check
  stages            [{name, passed, detail, seconds}]
  timings           {time_to_ready_s, first_request_latency_s, total_s}
  failure           null or {stage, message, location}
  gpu_memory        optional {source, interval_s, samples, released, gpus: [{index, rank,
                    baseline_mib, peak_mib, after_mib, total_mib}]}: nvidia-smi sampled during the
                    run, per GPU index (``rank``: the tensor-parallel rank on it); ``released``:
                    every GPU back near its baseline after teardown (a passing record needs it);
                    a merged record (``patchkit smoke-merge``) keeps each part's GPUs, ``part`` naming it
  config.merged_from  a merged record only: [{part, created, cells}], one entry per matrix part
  signature         optional {alg: "hmac-sha256", key_id, value}: HMAC of the canonical JSON of
                    every other field, keyed by ``$PATCHKIT_SIGNOFF_KEY``

Trust model: without a key the record is a tamper-evident *checklist*, not a proof: anyone who can
write the target can also write a record. With a key held only by the smoke host (and CI), a record
typed by hand or edited after the fact fails ``--verify-signature``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Optional

from . import __version__, journal as jr
from .fsutil import TMP_SUFFIX, atomic_write, read_nofollow, real_dir, sha256_bytes, sha256_file
from .ftypes import JournalError, OutsideTarget, SignoffError, Target

SCHEMA = 2
DEFAULT_NAME = "signoff.json"
#: environment variable holding the HMAC key (any string; keep it off the launch host if you can)
KEY_ENV = "PATCHKIT_SIGNOFF_KEY"
_SHA = re.compile(r"[0-9a-f]{64}")


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
    except (JournalError, OutsideTarget):
        return {}, []
    files, patches = {}, []
    for e in j.entries:
        try:
            p = j.file(e)
        except OutsideTarget:
            files[e.file] = "outside"
            continue
        files[e.file] = sha256_file(p) if p.exists() else "missing"
        rec = {"name": e.patch, "version": e.patch_version, "strategy": e.strategy}
        if rec not in patches:
            patches.append(rec)
    return files, patches


def package_folder(target: Target) -> Path:
    from .target import import_name
    return target.root / import_name(target.distribution)


def package_manifest(target: Target) -> dict:
    """{folder, count, sha256, hashes} over every file of the target's import package: about
    0.2 s for SGLang's 3,600 files (bench/fault_injection.py measures it)."""
    top = package_folder(target)
    hashes: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", jr.STATE_DIR))
        for name in filenames:
            if name.endswith(TMP_SUFFIX):
                continue
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, target.root).replace(os.sep, "/")
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                hashes[rel] = sha256_bytes(b"symlink:" + os.readlink(p).encode())
            else:
                with open(p, "rb") as fh:
                    hashes[rel] = hashlib.file_digest(fh, "sha256").hexdigest() if hasattr(hashlib, "file_digest") \
                        else sha256_bytes(fh.read())
    lines = "".join(f"{rel}\0{hashes[rel]}\n" for rel in sorted(hashes))
    return {"folder": top.name, "count": len(hashes), "sha256": sha256_bytes(lines.encode()),
            "hashes": dict(sorted(hashes.items()))}


def gpus() -> list[tuple[str, str]]:
    """(model, driver) of every NVIDIA GPU nvidia-smi lists; empty without one."""
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    rows = [x.strip() for x in r.stdout.splitlines() if x.strip()] if r.returncode == 0 else []
    return [(row.split(",")[0].strip(), row.split(",")[-1].strip()) for row in rows]


def environment_now() -> dict:
    """What the gate compares with a record: torch version (from metadata, never imported) and the
    first GPU's model (nvidia-smi), each None when absent."""
    env: dict = {}
    try:
        import importlib.metadata as md
        env["torch"] = md.version("torch")
    except Exception:
        env["torch"] = None
    found = gpus()
    env["gpu_model"] = found[0][0] if found else None
    return env


def build(target: Target, passed: bool, environment: dict, config: dict, stages: list[dict],
          timings: dict, failure: Optional[dict]) -> dict:
    """The record for the target as it is now (journalled files, whole package manifest)."""
    files, patches = current_files(target)
    return {
        "schema": SCHEMA, "patchkit": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "passed": passed,
        "target": {"distribution": target.distribution, "version": target.version},
        "patches": patches, "files": files, "package": package_manifest(target),
        "environment": environment, "config": config,
        "stages": stages, "timings": timings, "failure": failure,
    }


# ---------------------------------------------------------------------------- signing
def _canonical(record: dict) -> bytes:
    body = {k: v for k, v in record.items() if k != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def key_id(key: str) -> str:
    return hashlib.sha256(b"patchkit-signoff-key:" + key.encode()).hexdigest()[:16]


def sign(record: dict, key: str) -> dict:
    """``record`` with an HMAC-SHA256 ``signature`` over every other field."""
    mac = hmac.new(key.encode(), _canonical(record), hashlib.sha256).hexdigest()
    return {**record, "signature": {"alg": "hmac-sha256", "key_id": key_id(key), "value": mac}}


def signature_problem(record: dict, key: Optional[str]) -> Optional[str]:
    """Why the record's signature does not verify with ``key`` (None: it does)."""
    sig = record.get("signature")
    if sig is None:
        return "the sign-off is not signed (typed by hand, or written without $PATCHKIT_SIGNOFF_KEY)"
    if not key:
        return f"--verify-signature needs the key in ${KEY_ENV}"
    if sig.get("key_id") != key_id(key):
        return f"the sign-off was signed with another key (key id {sig.get('key_id')}, yours {key_id(key)})"
    good = hmac.new(key.encode(), _canonical(record), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(good, str(sig.get("value"))):
        return "the signature does not match the record (edited after signing?)"
    return None


def write(record: dict, path: Path, key: Optional[str] = None) -> None:
    """Write the record atomically; signed when ``key`` or ``$PATCHKIT_SIGNOFF_KEY`` is given."""
    key = key or os.environ.get(KEY_ENV) or None
    if key:
        record = sign(record, key)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.parent.name == jr.STATE_DIR:
        real_dir(path.parent)  # a symlinked .patchkit/ is refused
    atomic_write(path, (json.dumps(record, indent=2, sort_keys=False) + "\n").encode(), 0o644)


# ---------------------------------------------------------------------------- validation
def _type(where: str, value, kind: type, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise SignoffError(f"'{where}' must be {kind.__name__}{' or null' if allow_none else ''}, "
                           f"got {json.dumps(value)}")


def validate(doc: object) -> dict:
    """``doc`` if it is a well-formed, self-consistent schema-2 record; else SignoffError naming
    the field (``"passed": "false"`` is not a boolean; a failure means not passed)."""
    if not isinstance(doc, dict):
        raise SignoffError(f"the record must be a JSON object, got {type(doc).__name__}")
    if doc.get("schema") != SCHEMA or isinstance(doc.get("schema"), bool):
        raise SignoffError(f"unknown sign-off schema {json.dumps(doc.get('schema'))} (this patchkit reads {SCHEMA}; "
                           f"records before schema 2 do not bind the package: run 'patchkit smoke' again)")
    required = ("patchkit", "created", "passed", "target", "patches", "files", "package", "environment",
                "config", "stages", "timings", "failure")
    missing = [k for k in required if k not in doc]
    if missing:
        raise SignoffError(f"missing field(s) {', '.join(missing)}")
    extra = sorted(set(doc) - set(required) - {"schema", "signature", "cells", "plan", "gpu_memory"})
    if extra:
        raise SignoffError(f"unknown field(s) {', '.join(extra)}")
    _type("patchkit", doc["patchkit"], str)
    _type("created", doc["created"], str)
    _type("passed", doc["passed"], bool)
    _type("target", doc["target"], dict)
    for k in ("distribution", "version"):
        _type(f"target.{k}", doc["target"].get(k), str)
    _type("patches", doc["patches"], list)
    for i, p in enumerate(doc["patches"]):
        _type(f"patches[{i}]", p, dict)
        for k in ("name", "version", "strategy"):
            _type(f"patches[{i}].{k}", p.get(k), str)
    _type("files", doc["files"], dict)
    for rel, sha in doc["files"].items():
        if not isinstance(sha, str) or not (_SHA.fullmatch(sha) or sha == "missing"):
            raise SignoffError(f"'files.{rel}' must be a sha256, got {json.dumps(sha)}")
    pkg = doc["package"]
    _type("package", pkg, dict)
    _type("package.folder", pkg.get("folder"), str)
    _type("package.count", pkg.get("count"), int)
    _type("package.hashes", pkg.get("hashes"), dict)
    if not isinstance(pkg.get("sha256"), str) or not _SHA.fullmatch(pkg["sha256"]):
        raise SignoffError(f"'package.sha256' must be a sha256, got {json.dumps(pkg.get('sha256'))}")
    if len(pkg["hashes"]) != pkg["count"] or not all(isinstance(v, str) and _SHA.fullmatch(v) for v in pkg["hashes"].values()):
        raise SignoffError("'package.hashes' must hold 'count' sha256 values")
    lines = "".join(f"{rel}\0{pkg['hashes'][rel]}\n" for rel in sorted(pkg["hashes"]))
    if sha256_bytes(lines.encode()) != pkg["sha256"]:
        raise SignoffError("'package.sha256' does not match 'package.hashes'")
    _type("environment", doc["environment"], dict)
    for k in ("torch", "gpu_model"):
        _type(f"environment.{k}", doc["environment"].get(k), str, allow_none=True)
    _type("config", doc["config"], dict)
    _type("config.tp", doc["config"].get("tp"), int, allow_none=True)
    _validate_shape(doc["config"])
    _type("stages", doc["stages"], list)
    for i, s in enumerate(doc["stages"]):
        _type(f"stages[{i}]", s, dict)
        _type(f"stages[{i}].name", s.get("name"), str)
        _type(f"stages[{i}].passed", s.get("passed"), bool)
    _type("timings", doc["timings"], dict)
    _type("failure", doc["failure"], dict, allow_none=True)
    if doc["failure"] is not None:
        _type("failure.stage", doc["failure"].get("stage"), str)
        _type("failure.message", doc["failure"].get("message"), str)
    if "cells" in doc:  # a matrix record: one entry per option set (patchkit/smoke/matrixrun.py)
        _type("cells", doc["cells"], list)
        for i, c in enumerate(doc["cells"]):
            _type(f"cells[{i}]", c, dict)
            _type(f"cells[{i}].name", c.get("name"), str)
            _type(f"cells[{i}].verdict", c.get("verdict"), str)
        if doc["passed"] and (not doc["cells"] or any(c["verdict"] not in ("pass", "refused") for c in doc["cells"])):
            raise SignoffError("'passed' is true but a cell did not pass")
    if "plan" in doc:
        _type("plan", doc["plan"], dict)
    if "gpu_memory" in doc:
        _validate_gpu_memory(doc["gpu_memory"])
        if doc["passed"] and doc["gpu_memory"]["released"] is False:
            raise SignoffError("'passed' is true but 'gpu_memory.released' is false (GPU memory left after teardown)")
    if doc["passed"]:
        if doc["failure"] is not None:
            raise SignoffError(f"'passed' is true but 'failure' names stage {doc['failure'].get('stage')!r}")
        bad = [s["name"] for s in doc["stages"] if not s["passed"]]
        if bad:
            raise SignoffError(f"'passed' is true but stage {bad[0]!r} did not pass")
    sig = doc.get("signature")
    if sig is not None:
        _type("signature", sig, dict)
        if sig.get("alg") != "hmac-sha256" or not isinstance(sig.get("value"), str) or not isinstance(sig.get("key_id"), str):
            raise SignoffError("'signature' must be {alg: hmac-sha256, key_id, value}")
    return doc


def _validate_shape(config: dict) -> None:
    """The full-size fields of ``config`` (all or none: a shape without ``weights`` could pass for a
    real model)."""
    keys = ("weights", "model_shape", "num_layers", "full_num_layers")
    present = [k for k in keys if k in config]
    if not present:
        return
    missing = [k for k in keys if k not in config]
    if missing:
        raise SignoffError(f"'config.{present[0]}' needs 'config.{missing[0]}' (a full-size shape names all of "
                           f"{', '.join(keys)})")
    _type("config.weights", config["weights"], str)
    _type("config.model_shape", config["model_shape"], str)
    _type("config.num_layers", config["num_layers"], int)
    _type("config.full_num_layers", config["full_num_layers"], int)
    if not 1 <= config["num_layers"] <= config["full_num_layers"]:
        raise SignoffError(f"'config.num_layers' {config['num_layers']} must be 1..{config['full_num_layers']} "
                           f"(config.full_num_layers)")


def _validate_gpu_memory(gm: object) -> None:
    _type("gpu_memory", gm, dict)
    _type("gpu_memory.source", gm.get("source"), str)
    _type("gpu_memory.samples", gm.get("samples"), int)
    _type("gpu_memory.released", gm.get("released"), bool, allow_none=True)
    _type("gpu_memory.gpus", gm.get("gpus"), list)
    seen = set()
    for i, g in enumerate(gm["gpus"]):
        _type(f"gpu_memory.gpus[{i}]", g, dict)
        for k in ("index", "baseline_mib", "peak_mib"):
            _type(f"gpu_memory.gpus[{i}].{k}", g.get(k), int)
        for k in ("rank", "after_mib", "total_mib"):
            _type(f"gpu_memory.gpus[{i}].{k}", g.get(k), int, allow_none=True)
        _type(f"gpu_memory.gpus[{i}].part", g.get("part"), str, allow_none=True)
        where = (g.get("part"), g["index"])  # a merged record: one entry per part and GPU
        if where in seen:
            raise SignoffError(f"'gpu_memory.gpus[{i}].index' {g['index']} appears twice")
        seen.add(where)


def shape_note(record: dict) -> Optional[str]:
    """``dummy weights, full-size shape llama3-70b (40 of 80 layers)`` for a full-size record, else None."""
    c = record.get("config") or {}
    if "weights" not in c:
        return None
    layers, full = c.get("num_layers"), c.get("full_num_layers")
    span = f"{layers} of {full} layers" if layers != full else f"{layers} layers"
    return f"{c['weights']} weights, full-size shape {c.get('model_shape')} ({span})"


def read(path: Path) -> dict:
    """The validated record at ``path``: SignoffError (one line) for a symlink, bad JSON or schema."""
    try:
        raw = read_nofollow(Path(path))
    except OutsideTarget as exc:
        raise SignoffError(str(exc)) from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SignoffError(f"not JSON ({exc})") from None
    return validate(doc)


def mismatch(record: dict, target: Target, tp: Optional[int] = None, verify_signature: bool = False,
             key: Optional[str] = None, environment: Optional[dict] = None) -> Optional[str]:
    """Why ``record`` does not sign off the target as it is now (None: it does).

    Checks, in order: schema, signature (always when the record is signed and a key is set;
    required with ``verify_signature``), passed, target version, patchkit version, environment
    (torch, GPU model), the journalled files, every file of the package, the tp size.
    """
    try:
        validate(record)
    except SignoffError as exc:
        return f"malformed sign-off: {exc}"
    key = key if key is not None else os.environ.get(KEY_ENV) or None
    if verify_signature or (key and record.get("signature") is not None):
        why = signature_problem(record, key)
        if why:
            return why
    if not record["passed"]:
        f = record.get("failure") or {}
        return f"the sign-off on record failed at stage '{f.get('stage', '?')}': {f.get('message', '')}"
    t = record["target"]
    if t["version"] != target.version or t["distribution"] != target.distribution:
        return f"the sign-off is for {t['distribution']} {t['version']}, the target is {target.version}"
    if record["patchkit"] != __version__:
        return f"the sign-off was made with patchkit {record['patchkit']}, this is patchkit {__version__}"
    env = environment if environment is not None else environment_now()
    for k, label in (("gpu_model", "GPU"), ("torch", "torch")):
        then, now = record["environment"].get(k), env.get(k)
        if then != now:
            return f"the sign-off was made with {label} {then}, this host has {label} {now}"
    files, _ = current_files(target)
    signed = record["files"]
    if set(files) != set(signed):
        return f"the sign-off covers files {sorted(signed)}, the journal has {sorted(files)}"
    for rel, sha in files.items():
        if signed.get(rel) != sha:
            return f"{rel}: sha256 {sha[:12]} is not the signed-off {str(signed.get(rel))[:12]} (file changed since the smoke test)"
    now_pkg = package_manifest(target)
    if now_pkg["sha256"] != record["package"]["sha256"]:
        then_h, now_h = record["package"]["hashes"], now_pkg["hashes"]
        for rel in sorted(set(then_h) | set(now_h)):
            if then_h.get(rel) != now_h.get(rel):
                what = "added" if rel not in then_h else "removed" if rel not in now_h else "changed"
                return f"{rel}: {what} since the smoke test (the sign-off binds every file of the package)"
        return "the package manifest differs from the signed-off one"
    if tp is not None:
        rtp = record["config"].get("tp")
        if rtp != tp:
            return f"the sign-off was made with --tp {rtp}, this launch uses --tp {tp}"
    return None
