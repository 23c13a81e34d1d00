"""Files on disk: hashes, atomic writes, a lock, the user cache folder."""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Iterator

from .ftypes import LockError, NotWritable


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(Path(path).read_bytes())


def cache_dir() -> Path:
    """The user cache: ``$PATCHKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/patchkit``, else ~/.cache/patchkit."""
    env = os.environ.get("PATCHKIT_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "patchkit"


def check_writable(path: Path) -> None:
    """Raise NotWritable (naming the path) unless the file and its folder can be written."""
    folder = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        raise NotWritable(f"{path}: file is not writable (read-only site-packages? use a venv or --target-dir)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise NotWritable(f"{folder}: folder is not writable, cannot write {path.name} atomically")


def atomic_write(path: Path, data: bytes, mode: int | None = None, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old or the new bytes, never a mix.

    Temp file in the same folder, fsync, rename over, fsync the folder; the original file mode
    is kept (or ``mode`` is applied).
    """
    path = Path(path)
    if mode is None:
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".patchkit-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if durable or mode != 0o600:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if not durable:
        return
    with contextlib.suppress(OSError):
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


@contextlib.contextmanager
def file_lock(lock_path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold an exclusive advisory lock; wait up to ``timeout`` seconds, then raise LockError."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    holder = ""
                    with contextlib.suppress(OSError, ValueError):
                        holder = f" (pid {int(Path(lock_path).read_text().strip() or 0)})"
                    raise LockError(
                        f"{lock_path}: another patchkit process holds the lock{holder}; "
                        f"waited {timeout:.0f}s"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
