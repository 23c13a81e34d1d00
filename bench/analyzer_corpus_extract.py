"""How the corpus excerpts were made (needs a local clone of the project).

Usage: python3 bench/analyzer_recall.py --unpack /tmp/c
       python3 bench/analyzer_corpus_extract.py CASE_ID REPO_GITDIR FIX_COMMIT spec.json /tmp/c/analyzer_corpus
       python3 bench/analyzer_recall.py --pack /tmp/c/analyzer_corpus
-- writes OUT/CASE_ID/{buggy,fixed}/...
spec: {"files": {"path/in/repo.py": ["ClassA", "ClassB"]}, "strip": "src/" (prefix to drop), ...case fields}"""
import ast, json, subprocess, sys, re
from pathlib import Path
case, g, fix, specf, out = sys.argv[1:6]
spec = json.loads(Path(specf).read_text())
OUT = Path(out) / case
def show(rev, path):
    r = subprocess.run(["git", "-C", g, "show", f"{rev}:{path}"], capture_output=True, text=True)
    if r.returncode: raise SystemExit(f"missing {rev}:{path}")
    return r.stdout
def only_imports(node):
    if isinstance(node, (ast.Import, ast.ImportFrom)): return True
    if isinstance(node, (ast.If, ast.Try)):
        body = list(node.body) + list(getattr(node, "orelse", [])) + [s for h in getattr(node, "handlers", []) for s in h.body]
        return all(isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass, ast.Assign, ast.Expr)) for s in body)
    return False
def trim(src, classes):
    lines = src.splitlines()
    tree = ast.parse(src)
    keep = set()
    # leading comments/docstring header
    first = tree.body[0].lineno if tree.body else len(lines) + 1
    for i in range(1, first): keep.add(i)
    def want(node):
        if isinstance(node, ast.ClassDef) and node.name in classes: return True
        if only_imports(node): return True
        if isinstance(node, ast.Expr) and node is tree.body[0]: return True
        if isinstance(node, (ast.If, ast.Try)):  # classes defined under `if is_x_available():`
            return any(isinstance(n, ast.ClassDef) and n.name in classes for n in ast.walk(node))
        return False
    for node in tree.body:
        if want(node):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for i in range(start, node.end_lineno + 1): keep.add(i)
    out, prev = [], 0
    for i in sorted(keep):
        if prev and i != prev + 1: out.append("")
        out.append(lines[i - 1]); prev = i
    text = "\n".join(out) + "\n"
    ast.parse(text)
    return text
strip = spec.get("strip", "")
for side, rev in (("buggy", fix + "^"), ("fixed", fix)):
    for path, classes in spec["files"].items():
        rel = spec.get("dest", {}).get(path) or (path[len(strip):] if strip and path.startswith(strip) else path)
        dest = OUT / side / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(trim(show(rev, path), set(classes)))
        p = dest.parent
        while p != OUT / side:
            (p / "__init__.py").touch(exist_ok=True) if not (p / "__init__.py").exists() else None
            p = p.parent
for side in ("buggy", "fixed"):
    for rel, (src, classes) in spec.get("extra", {}).items():
        dest = OUT / side / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        text = Path(src).read_text()
        dest.write_text(trim(text, set(classes)) if classes else text)
# read line: first `self.<attr>` read in the read file of buggy
rf = spec["read_file"]; rf = rf[len(strip):] if strip and rf.startswith(strip) else rf
src = (OUT / "buggy" / rf).read_text().splitlines()
pat = re.compile(spec.get("read_pattern") or (r"(?<![`\w.])self\.%s\b(?!`)(?!\s*(:[^=]*)?=[^=])" % re.escape(spec["attribute"])))
line = next(i for i, l in enumerate(src, 1) if pat.search(l) and (not spec.get("read_after") or i > 0))
if spec.get("read_nth"):
    line = [i for i, l in enumerate(src, 1) if pat.search(l)][spec["read_nth"]]
sha = lambda rev: subprocess.run(["git", "-C", g, "rev-parse", rev], capture_output=True, text=True).stdout.strip()
meta = {"project": spec["project"], "url": spec["url"], "buggy_commit": sha(fix + "^"), "fixed_commit": sha(fix),
        "files": list(spec.get("extra", {})) + [spec.get("dest", {}).get(p) or (p[len(strip):] if strip and p.startswith(strip) else p) for p in spec["files"]],
        "class": spec["class"], "attribute": spec["attribute"], "kind": spec["kind"],
        "read": {"file": rf, "line": line}, "summary": spec["summary"]}
(OUT / "case.json").write_text(json.dumps(meta, indent=1) + "\n")
print(case, meta["read"], src[line - 1].strip()[:80])
