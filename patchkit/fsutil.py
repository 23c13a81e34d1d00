"""Files on disk: hashes, atomic and durable writes, containment inside a root, a lock, the cache.

Every write goes through ``os.open``/``os.write``/``os.fsync``/``os.replace`` (never buffered
io), so a test can count and interrupt them; OSErrors become one-line PatchkitErrors.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Iterator

from .ftypes import DiskFull, LockError, NotWritable, OutsideTarget, WriteFailed

#: suffix of the temp files atomic_write creates next to their destination
TMP_SUFFIX = ".patchkit-tmp"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


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


def write_error(path: Path, exc: OSError, doing: str = "writing") -> WriteFailed | NotWritable:
    """The one-line PatchkitError for an OSError raised while ``doing`` something to ``path``."""
    why = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFull(f"{path}: no space left on the device while {doing} ({why})")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return NotWritable(f"{path}: {why} while {doing} (read-only target? run as its owner or use a venv)")
    return WriteFailed(f"{path}: {why} while {doing}")


# ---------------------------------------------------------------------------- containment
def check_rel(rel: object) -> str | None:
    """Why ``rel`` is not a relative POSIX path that stays inside a root (None: it is)."""
    if not isinstance(rel, str) or not rel:
        return f"must be a relative path string, got {rel!r}"
    if "\x00" in rel or "\\" in rel:
        return f"{rel!r} holds a NUL or a backslash"
    if rel.startswith("/") or any(p in ("", ".", "..") for p in rel.split("/")):
        return f"{rel!r} is absolute or holds '..' (must stay inside the target)"
    return None


def inside(root: Path, rel: object, what: str = "path") -> Path:
    """``root / rel`` after proving it stays inside ``root``: ``rel`` is a relative POSIX path
    without ``..``, its resolved folder lies under the resolved root, and it is not a symlink.
    Raises OutsideTarget."""
    why = check_rel(rel)
    if why:
        raise OutsideTarget(f"{what} {why}")
    real_root = Path(os.path.realpath(root))
    path = Path(root) / rel
    real_parent = Path(os.path.realpath(path.parent))
    if real_parent != real_root and real_root not in real_parent.parents:
        raise OutsideTarget(f"{what} {rel!r}: resolves to {real_parent}, outside the target root {real_root}")
    if path.is_symlink():
        raise OutsideTarget(f"{what} {rel!r}: is a symlink; patchkit does not write through links")
    return path


def real_dir(path: Path, create: bool = False) -> bool:
    """True when ``path`` is a real folder (not a symlink); creates it when asked. A symlink or a
    non-folder there raises OutsideTarget."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            pass
        except OSError as exc:
            raise write_error(path, exc, "creating the folder") from None
        fsync_dir(path.parent)
        st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise OutsideTarget(f"{path}: is a symlink; patchkit keeps its state only in a real folder inside the target")
    if not stat.S_ISDIR(st.st_mode):
        raise OutsideTarget(f"{path}: is not a folder")
    return True


def read_nofollow(path: Path) -> bytes:
    """The bytes of a regular file, refusing a symlink at ``path`` (OutsideTarget)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutsideTarget(f"{path}: is a symlink; refused") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OutsideTarget(f"{path}: is not a regular file")
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------- writes
def check_writable(path: Path) -> None:
    """Raise NotWritable (naming the path) unless the file and its folder can be written."""
    folder = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        raise NotWritable(f"{path}: file is not writable (read-only site-packages? use a venv or --target-dir)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise NotWritable(f"{folder}: folder is not writable, cannot write {path.name} atomically")


def fsync_dir(folder: Path) -> None:
    """fsync a folder so a rename/unlink in it survives a crash (best effort where unsupported)."""
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY | _CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def atomic_write(path: Path, data: bytes, mode: int | None = None, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old or the new bytes, never a mix.

    Temp file (O_EXCL, O_NOFOLLOW) in the same folder, fsync, rename over, fsync the folder; the
    original file mode is kept (or ``mode`` is applied). OSErrors raise DiskFull / NotWritable /
    WriteFailed naming ``path``; the temp file is removed.
    """
    path = Path(path)
    if mode is None:
        try:
            mode = os.lstat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    tmp = path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns() % 10**9}{TMP_SUFFIX}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        try:
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, WriteFailed):
            raise write_error(path, exc) from None
        raise
    if durable:
        fsync_dir(path.parent)


def remove(path: Path, durable: bool = True) -> bool:
    """Unlink ``path`` (True if it was there) and fsync its folder."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise write_error(path, exc, "removing it") from None
    if durable:
        fsync_dir(path.parent)
    return True


# ---------------------------------------------------------------------------- lock
@contextlib.contextmanager
def file_lock(lock_path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold an exclusive advisory lock; wait up to ``timeout`` seconds, then raise LockError.

    The lock file is opened without following links and removed on release (also after an
    error), so a failed command leaves nothing behind; a waiter that locked a file removed under
    it notices (inode changed) and locks the new one.
    """
    lock_path = Path(lock_path)
    made_dir = not lock_path.parent.exists()
    if made_dir and not lock_path.parent.parent.is_dir():
        try:
            lock_path.parent.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_error(lock_path.parent.parent, exc, "creating the folder") from None
    real_dir(lock_path.parent, create=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OutsideTarget(f"{lock_path}: is a symlink; refusing to lock through it") from None
            raise write_error(lock_path, exc, "taking the lock") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OutsideTarget(f"{lock_path}: is not a regular file")
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
            try:
                same = os.fstat(fd).st_ino == os.lstat(lock_path).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)  # the holder removed the file while we waited: lock the new one
    try:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        if made_dir:
            with contextlib.suppress(OSError):
                os.rmdir(lock_path.parent)  # only when empty: a failed first command leaves no folder
