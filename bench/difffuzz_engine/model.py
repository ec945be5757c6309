"""A generated case: the Apache configuration as a tree of directives and sections (so that the reducer
can drop and simplify its parts), the .htaccess files and other files of its document root, its users,
and the requests aimed at it; and how a case is written out as a directory `apache2nginx verify` runs
(and a fixture candidate keeps).

A case directory holds `apache.conf`, `requests.txt`, `users.htpasswd` when the configuration names it,
and, when the case serves its own tree, `docroot/` (with its `.htaccess` files) and `args.txt` holding
`--docroot docroot` (the fixtures' convention for extra verify arguments).
"""
from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

PASSWORD_FILE = "users.htpasswd"     # named relative in AuthUserFile: found next to apache.conf
DOCROOT_DIR = "docroot"


@dataclass
class Node:
    """A directive (`children` None) or a section. `args` are the words as written (quotes included)."""
    name: str
    args: list[str] = field(default_factory=list)
    children: list["Node"] | None = None

    @property
    def is_section(self) -> bool:
        return self.children is not None

    def render(self, depth: int = 0) -> list[str]:
        pad = "    " * depth
        head = " ".join([self.name] + self.args)
        if not self.is_section:
            return [pad + head]
        lines = [f"{pad}<{head}>"]
        for child in self.children:
            lines.extend(child.render(depth + 1))
        lines.append(f"{pad}</{self.name}>")
        return lines

    def walk(self):
        yield self
        for child in self.children or ():
            yield from child.walk()

    def to_json(self):
        return [self.name, self.args] + ([[c.to_json() for c in self.children]] if self.is_section else [])

    @staticmethod
    def from_json(data) -> "Node":
        return Node(data[0], list(data[1]), [Node.from_json(c) for c in data[2]] if len(data) > 2 else None)


def section(name: str, *args: str, children: list[Node] | None = None) -> Node:
    return Node(name, list(args), list(children or []))


def directive(name: str, *args: str) -> Node:
    return Node(name, list(args))


def render(nodes: list[Node]) -> str:
    lines: list[str] = []
    for node in nodes:
        lines.extend(node.render())
    return "\n".join(lines) + "\n"


@dataclass
class Case:
    seed: int
    config: list[Node]
    htaccess: dict[str, list[Node]] = field(default_factory=dict)   # docroot-relative directory -> directives
    files: dict[str, str] = field(default_factory=dict)             # docroot-relative file -> content
    users: list[str] = field(default_factory=list)                  # htpasswd lines
    requests: list[str] = field(default_factory=list)               # verify's request-file lines
    own_docroot: bool = False                                       # served from docroot/ (verify --docroot)
    comment: str = ""                                               # a header for apache.conf

    def copy(self) -> "Case":
        return copy.deepcopy(self)

    def config_text(self) -> str:
        head = "".join(f"# {line}\n" for line in self.comment.splitlines())
        return head + render(self.config)

    def size(self) -> int:
        """Directives and sections, in the configuration and the .htaccess files."""
        return sum(1 for n in self.config for _ in n.walk()) + \
            sum(1 for nodes in self.htaccess.values() for n in nodes for _ in n.walk())

    def uses_password_file(self) -> bool:
        nodes = [n for top in self.config for n in top.walk()] + \
            [n for nodes in self.htaccess.values() for top in nodes for n in top.walk()]
        return any(n.name.lower() == "authuserfile" for n in nodes)

    def key(self) -> str:
        """What identifies the case's content (the reducer's cache key)."""
        return json.dumps([self.config_text(), {k: render(v) for k, v in sorted(self.htaccess.items())},
                           sorted(self.files.items()), self.users, self.requests, self.own_docroot])

    def write(self, directory: Path) -> Path:
        """Write the case as a directory verify runs in (readable by the servers' workers)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "apache.conf").write_text(self.config_text())
        (directory / "requests.txt").write_text("".join(r + "\n" for r in self.requests))
        if self.uses_password_file():
            (directory / PASSWORD_FILE).write_text("".join(u + "\n" for u in self.users))
        if self.own_docroot:
            root = directory / DOCROOT_DIR
            root.mkdir(exist_ok=True)
            for rel, text in sorted(self.files.items()):
                target = root / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
            for rel, nodes in sorted(self.htaccess.items()):
                target = root / rel / ".htaccess"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(render(nodes))
            (directory / "args.txt").write_text(f"--docroot {DOCROOT_DIR}\n")
        open_to_workers(directory)
        return directory

    def verify_args(self) -> list[str]:
        return ["--docroot", DOCROOT_DIR] if self.own_docroot else []

    def to_json(self) -> dict:
        return {"seed": self.seed, "config": [n.to_json() for n in self.config],
                "htaccess": {k: [n.to_json() for n in v] for k, v in self.htaccess.items()},
                "files": self.files, "users": self.users, "requests": self.requests,
                "own_docroot": self.own_docroot, "comment": self.comment}

    @staticmethod
    def from_json(data: dict) -> "Case":
        return Case(data["seed"], [Node.from_json(n) for n in data["config"]],
                    {k: [Node.from_json(n) for n in v] for k, v in data["htaccess"].items()}, dict(data["files"]),
                    list(data["users"]), list(data["requests"]), data["own_docroot"], data.get("comment", ""))


def open_to_workers(top: Path) -> None:
    """httpd's and nginx's workers (www-data) read the tree: every directory 0755, every file 0644. (The
    directories above it must be searchable: the runner makes its own with mode 0755.)"""
    for dirpath, dirnames, filenames in os.walk(top):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)
