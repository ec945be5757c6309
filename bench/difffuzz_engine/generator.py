"""Seeded generator of small valid Apache configurations weighted towards interactions.

`generate(seed)` gives the same case for the same seed (`random.Random(seed)`, no other source of
randomness). A case has one to three virtual hosts (or only the main server) on port 80 and high ports,
with names, aliases and wildcard aliases, and a small pool of URL paths per host: every feature places its
sections and directives on paths of that pool, so that two sections govern the same path, a rewrite or an
alias crosses an access boundary, a header is set in one section and unset in another. Features:

- access rules of both generations (`Require` with RequireAll/Any/None and negation, `Order/Allow/Deny/
  Satisfy`, Basic authentication against a generated password file) in <Location>, <LocationMatch>,
  <Directory>, <DirectoryMatch>, <Files>, <FilesMatch>, <If>/<ElseIf>/<Else>, <Limit>, <LimitExcept>;
- Alias, AliasMatch, Redirect, RedirectMatch; RewriteRule/RewriteCond with flags at server level, per
  directory and in .htaccess files (AllowOverride);
- ProxyPass routes, exclusions and balancers, <Proxy> sections (verify stands echo servers in for them);
- Header/RequestHeader with always/onsuccess/env=/expr=, SetEnvIf, ErrorDocument, DirectoryIndex, Options,
  FallbackResource.

About a third of the cases serve their own document root (`verify --docroot`): those may have .htaccess
files; their aliases point at the document root itself (verify serves one tree for every root), and their
<DirectoryMatch> patterns are unanchored (an anchored one would name the original path, not the tree's).
The others let verify make each root from the requests, and may alias separate directories.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .htpasswd import apr1_line, sha1_line
from .model import PASSWORD_FILE, Case, Node, directive, section

BASE = "/srv/fuzz"
WORDS = ["app", "admin", "static", "api", "files", "private", "docs", "img", "data", "shop", "old", "blog"]
SUBWORDS = ["sub", "inner", "v2", "x"]
FILES = ["a.txt", "secret.txt", "page.php", "data.json", "notes.bak", "home.html", "index.html"]
USERS = [("alice", "wonderland"), ("bob", "builder"), ("verify", "verify")]   # verify:verify: verify's own probes
CUSTOM_HEADERS = ["X-Fuzz-A", "X-Fuzz-B", "X-Fuzz-C"]
SECURITY_HEADERS = [("X-Frame-Options", "DENY"), ("X-Frame-Options", "SAMEORIGIN"),
                    ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                    ("Strict-Transport-Security", '"max-age=600"'),
                    ("Content-Security-Policy", "\"default-src 'self'\"")]
ENV_VARS = ["fz_txt", "fz_debug", "fz_local", "fz_www"]
SETENVIF = {
    "fz_txt": ("SetEnvIf", "Request_URI", '"\\.txt$"'),
    "fz_debug": ("SetEnvIf", "Query_String", "debug"),
    "fz_local": ("SetEnvIf", "Remote_Addr", '"^127\\."'),
    "fz_www": ("SetEnvIfNoCase", "Host", '"^www\\."'),
}
EXPRS = ['"%{QUERY_STRING} =~ /debug/"', '"%{HTTP_HOST} =~ /^www\\./"', "\"%{REQUEST_METHOD} == 'POST'\"",
         '"-n %{HTTP:Authorization}"', '"%{REQUEST_URI} =~ m#\\.txt$#"', '"-R \'10.0.0.0/8\'"']
HEADER_EXPRS = ['"expr=%{REQUEST_URI} =~ m#\\.txt$#"', '"expr=%{QUERY_STRING} =~ /debug/"',
                '"expr=%{REQUEST_STATUS} == 404"', '"expr=-z %{HTTP:Authorization}"']


@dataclass
class Target:
    """A URL path a construct names, for the probes: on which host, and what to try there."""
    host: "VHost"
    path: str
    tags: set[str] = field(default_factory=set)    # auth, methods, query, file, dir, proxy, rewrite, htaccess


@dataclass
class VHost:
    body: list[Node]              # where its directives go (the <VirtualHost>'s children, or the top level)
    names: list[str]              # ServerName first, then literal aliases
    wildcards: list[str]          # names a wildcard alias matches (e.g. x.v1.fuzz.test)
    port: int
    root: str                     # DocumentRoot
    paths: list[str]              # the URL path pool
    rewrite_on: bool = False
    locations: dict = field(default_factory=dict)     # path -> its <Location> (a second feature may join it)
    directories: dict = field(default_factory=dict)   # filesystem path -> its <Directory>


class Generator:
    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.own_docroot = self.r.random() < 0.35
        self.case = Case(seed, [], own_docroot=self.own_docroot)
        self.targets: list[Target] = []
        self.hosts: list[VHost] = []
        self.env_set: set[str] = set()
        self.auth_zones = 0
        self.backends = 0
        self.pools = 0
        self.aliases = 0
        self.security = False

    # ----------------------------------------------------------------------------- helpers
    def pick(self, seq):
        return self.r.choice(list(seq))

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def weighted(self, pairs):
        items, weights = zip(*pairs)
        return self.r.choices(items, weights)[0]

    def target(self, vh: VHost, path: str, *tags: str) -> None:
        self.targets.append(Target(vh, path, set(tags)))

    def fs(self, vh: VHost, path: str) -> str:
        return vh.root + ("" if path == "/" else path)

    def location(self, vh: VHost, path: str, reuse: float = 0.5) -> Node:
        """The <Location> for PATH: an existing one (often: interactions), else a new one."""
        if path in vh.locations and self.chance(reuse):
            return vh.locations[path]
        arg = path + ("/" if path != "/" and self.chance(0.2) else "")
        node = section("Location", arg)
        vh.body.append(node)
        vh.locations.setdefault(path, node)
        return node

    def directory(self, vh: VHost, path: str, reuse: float = 0.5) -> Node:
        fs = self.fs(vh, path)
        if fs in vh.directories and self.chance(reuse):
            return vh.directories[fs]
        node = section("Directory", fs + ("/" if self.chance(0.25) else ""))
        vh.body.append(node)
        vh.directories.setdefault(fs, node)
        return node

    def sub_path(self, vh: VHost) -> str:
        base = self.pick(vh.paths)
        return base if self.chance(0.6) else f"{base}/{self.pick(SUBWORDS)}"

    def env_var(self, vh: VHost) -> str:
        name = self.pick(ENV_VARS)
        if name not in self.env_set or self.chance(0.3):
            self.env_set.add(name)
            where = vh.body if self.chance(0.8) else self.case.config
            where.insert(0, directive(*SETENVIF[name], name))
        return name

    # ----------------------------------------------------------------------------- access rules
    def require_leaf(self, vh: VHost, auth: bool, negatable: bool = False) -> Node:
        choices = [("all granted", 4), ("all denied", 4), ("ip 127.0.0.1", 3), ("ip 10.0.0.0/8", 2),
                   ("local", 1), ("method GET HEAD", 1), ("expr", 1), ("env", 1)]
        if auth:
            choices += [("valid-user", 5), ("user alice", 3), ("user bob alice", 1)]
        kind = self.weighted(choices)
        if negatable and kind.startswith(("ip", "env", "user", "expr", "local")) and self.chance(0.5):
            return self._require(vh, kind, negate=True)
        return self._require(vh, kind)

    def _require(self, vh: VHost, kind: str, negate: bool = False) -> Node:
        words = ["not"] if negate else []
        if kind == "expr":
            words += ["expr", self.pick(EXPRS)]
        elif kind == "env":
            words += ["env", self.env_var(vh)]
        else:
            words += kind.split()
        return directive("Require", *words)

    def auth_lines(self) -> list[Node]:
        self.auth_zones += 1
        return [directive("AuthType", "Basic"), directive("AuthName", f'"Zone {self.auth_zones}"'),
                directive("AuthUserFile", PASSWORD_FILE)]

    def access_block(self, vh: VHost, allow_auth: bool = True) -> tuple[list[Node], set[str]]:
        """Access rules of one generation or the other (sometimes both), and the probe tags they call for."""
        auth = allow_auth and self.chance(0.4)
        out: list[Node] = self.auth_lines() if auth else []
        tags = {"auth"} if auth else set()
        style = self.weighted([("new", 6), ("old", 3), ("mixed", 1)])
        if style in ("new", "mixed"):
            shape = self.weighted([("single", 4), ("all", 2), ("any", 2), ("none", 1), ("nested", 1)])
            if shape == "single":
                out.append(self.require_leaf(vh, auth))
            elif shape == "all":
                leaves = [self.require_leaf(vh, auth, negatable=True) for _ in range(self.r.randint(2, 3))]
                if all(leaf.args[0] == "not" for leaf in leaves):
                    leaves.insert(0, directive("Require", "all", "granted"))
                out.append(section("RequireAll", children=leaves))
            elif shape == "any":
                out.append(section("RequireAny", children=[self.require_leaf(vh, auth)
                                                           for _ in range(self.r.randint(2, 3))]))
            elif shape == "none":
                # <RequireNone> alone can never grant: inside a <RequireAll> with something that can
                none = section("RequireNone", children=[self.require_leaf(vh, auth)
                                                        for _ in range(self.r.randint(1, 2))])
                out.append(section("RequireAll", children=[directive("Require", "all", "granted"), none]))
            else:
                inner = section(self.pick(["RequireAll", "RequireAny"]),
                                children=[self.require_leaf(vh, auth) for _ in range(2)])
                if inner.name == "RequireAll":
                    inner.children[1] = self.require_leaf(vh, auth, negatable=True)
                out.append(section("RequireAny", children=[self.require_leaf(vh, auth), inner]))
        if style in ("old", "mixed"):
            order = self.pick(["deny,allow", "allow,deny", "Deny,Allow", "mutual-failure"])
            out.append(directive("Order", order))
            for _ in range(self.r.randint(1, 2)):
                who = self.weighted([("all", 3), ("127.0.0.1", 2), ("10.0.0.0/8", 2), ("env", 1),
                                     ("127.0.0.0/255.0.0.0", 1)])
                if who == "env":
                    who = "env=" + self.env_var(vh)
                out.append(directive(self.pick(["Allow", "Deny"]), "from", who))
            if auth and style == "old":
                out.append(directive("Require", "valid-user"))
            if auth or self.chance(0.2):
                out.append(directive("Satisfy", self.pick(["Any", "All"])))
        if auth and self.chance(0.15):
            out.append(directive("AuthMerging", self.pick(["And", "Or", "Off"])))
        return out, tags

    # ----------------------------------------------------------------------------- features
    def f_access_location(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        body, tags = self.access_block(vh)
        kind = self.weighted([("Location", 5), ("LocationMatch", 2), ("Location~", 1)])
        if kind == "Location":
            node = self.location(vh, path)
        else:
            pattern = self.pick([f'"^{path}"', f'"^{path}/.*\\.txt$"', f'"{path}(/|$)"', f'"(?i)^{path}"'])
            node = section("LocationMatch", pattern) if kind == "LocationMatch" else section("Location", "~", pattern)
            vh.body.append(node)
        node.children.extend(body)
        self.target(vh, path, "access", *tags)

    def f_access_directory(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        body, tags = self.access_block(vh)
        kind = self.weighted([("Directory", 6), ("DirectoryMatch", 2), ("Directory~", 1), ("wild", 1)])
        if kind == "Directory":
            node = self.directory(vh, path)
        elif kind == "wild":
            head, _, last = path.rpartition("/")
            node = section("Directory", f'"{self.fs(vh, head) if head else vh.root}/{last[:2]}*"')
            vh.body.append(node)
        else:
            if self.own_docroot:
                pattern = f'"{path}/?$"'       # unanchored: the tree verify serves is elsewhere
            else:
                pattern = self.pick([f'"^{self.fs(vh, path)}"', f'"^{self.fs(vh, path)}/?$"'])
            node = section("DirectoryMatch", pattern) if kind == "DirectoryMatch" else \
                section("Directory", "~", pattern)
            vh.body.append(node)
        if self.chance(0.3):
            node.children.append(directive("Options", self.pick(["-Indexes", "+Indexes", "None",
                                                                 "+FollowSymLinks -Indexes"])))
        node.children.extend(body)
        self.target(vh, path, "access", "dir", *tags)

    def f_access_files(self, vh: VHost) -> None:
        name = self.pick(FILES + [".htpasswd"])
        stem, _, ext = name.rpartition(".")
        kind = self.weighted([("Files", 3), ("FilesMatch", 3), ("Files~", 1), ("glob", 1), ("ht", 2)])
        if kind == "Files":
            node = section("Files", f'"{name}"')
        elif kind == "glob":
            node = section("Files", f'"*.{ext}"')
        elif kind == "ht":
            node = section("FilesMatch", '"^\\.ht"')
            name = ".htpasswd"
        else:
            pattern = self.pick([f'"\\.({ext}|inc)$"', f'"^{stem}\\."', f'"(?i)\\.{ext}$"'])
            node = section("FilesMatch", pattern) if kind == "FilesMatch" else section("Files", "~", pattern)
        body, tags = self.access_block(vh)
        node.children.extend(body)
        path = self.pick(vh.paths)
        if self.chance(0.4):
            self.directory(vh, path).children.append(node)
        else:
            vh.body.append(node)
            path = self.pick(vh.paths + ["/"])
        self.target(vh, path.rstrip("/") + "/" + name, "access", "file", *tags)

    def f_if(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        host = self.location(vh, path) if self.chance(0.5) else self.directory(vh, path)
        node = section("If", self.pick(EXPRS))
        if self.chance(0.6):
            node.children.extend(self.access_block(vh, allow_auth=False)[0])
        else:
            node.children.extend(self.header_lines(vh, 1))
        host.children.append(node)
        if self.chance(0.4):
            branch = section("ElseIf", self.pick(EXPRS)) if self.chance(0.3) else section("Else")
            branch.children.append(self._require(vh, self.pick(["all granted", "all denied", "ip 127.0.0.1"])))
            host.children.append(branch)
        self.target(vh, path, "query", "methods", "access")

    def f_limit(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        host = self.location(vh, path) if self.chance(0.5) else self.directory(vh, path)
        auth = self.chance(0.3)
        if auth:
            host.children.extend(self.auth_lines())
        if self.chance(0.5):
            node = section("Limit", *self.r.sample(["POST", "PUT", "DELETE", "OPTIONS"], self.r.randint(1, 3)))
        else:
            node = section("LimitExcept", *self.pick([["GET"], ["GET", "HEAD"], ["GET", "POST"]]))
        if self.chance(0.7):
            node.children.append(self._require(vh, self.pick(["all denied", "ip 10.0.0.0/8"]
                                                             + (["valid-user"] if auth else []))))
        else:
            node.children.extend([directive("Order", "deny,allow"), directive("Deny", "from", "all")])
        host.children.append(node)
        self.target(vh, path, "methods", "access", *(["auth"] if auth else []))

    def f_alias(self, vh: VHost) -> None:
        word = self.pick(["alias", "pub", "mirror", "media"] + vh.paths[:1])
        url = "/" + word.strip("/")
        self.aliases += 1
        if self.own_docroot:
            target = vh.root                       # verify serves one tree for every root
        elif self.chance(0.35):
            target = self.fs(vh, self.pick(vh.paths))   # into the root's own tree: across its sections
        else:
            target = f"{BASE}/alias{self.aliases}"
        if self.chance(0.65):
            trail = "/" if self.chance(0.3) else ""
            vh.body.append(directive("Alias", url + trail, target + trail))
        else:
            vh.body.append(directive("AliasMatch", f'"^{url}/(.*)\\.txt$"', f'"{target}/$1.txt"'))
        if not self.own_docroot and self.chance(0.6):
            node = section("Directory", target)
            node.children.extend(self.access_block(vh)[0])
            vh.body.append(node)
        self.target(vh, url, "alias", "file")

    def f_scriptalias(self, vh: VHost) -> None:
        """A CGI directory (its scripts are the request-named files verify writes: not runnable)."""
        if self.own_docroot:
            return self.f_alias(vh)
        url = self.pick(["/cgi-bin", "/scripts"])
        target = f"{BASE}/cgi"
        if self.chance(0.7):
            vh.body.append(directive("ScriptAlias", url + "/", target + "/"))
        else:
            vh.body.append(directive("ScriptAliasMatch", f'"^{url}/(.*\\.cgi)$"', f'"{target}/$1"'))
        if self.chance(0.5):
            node = section("Directory", target)
            node.children.extend(self.access_block(vh)[0])
            vh.body.append(node)
        self.target(vh, url, "alias", "methods")
        self.target(vh, url + "/run.cgi", "file")

    def f_redirect(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        other = self.pick(self.hosts).names[0]
        dest = self.pick([f"http://{other}/moved", "/" + self.pick(WORDS), f"http://{other}{path}"])
        if self.chance(0.6):
            status = self.weighted([(None, 3), ("301", 2), ("permanent", 1), ("temp", 1), ("303", 1),
                                    ("gone", 1)])
            args = ([status] if status else []) + [path] + ([] if status == "gone" else [dest])
            vh.body.append(directive("Redirect", *args))
        else:
            status = self.pick([[], ["301"], ["302"], ["permanent"]])
            vh.body.append(directive("RedirectMatch", *status, f'"^{path}/(.*)\\.txt$"', f'"{dest}/$1.html"'))
        self.target(vh, path, "redirect", "file")

    def rewrite_flags(self, external: bool, proxy: bool) -> str:
        if proxy:
            flags = ["P"] + (["QSA"] if self.chance(0.3) else [])
        elif external:
            flags = [self.pick(["R", "R=301", "R=302", "R=303"]), "L"] + \
                self.r.sample(["QSA", "NE", "NC", "QSD"], self.r.randint(0, 2))
        else:
            flags = self.r.sample(["L", "PT", "QSA", "NC", "END", "E=fz_rw:1"], self.r.randint(0, 3))
        return "[" + ",".join(flags) + "]" if flags else ""

    def rewrite_conds(self) -> list[Node]:
        out = []
        conds = [("%{QUERY_STRING}", "debug", "NC"), ("%{HTTP_HOST}", '"^www\\."', "NC"),
                 ("%{REQUEST_URI}", '"\\.txt$"', ""), ("%{REQUEST_METHOD}", "=POST", ""),
                 ("%{HTTP:Authorization}", '"^$"', ""), ("%{QUERY_STRING}", '"!^$"', "")]
        chosen = self.r.sample(conds, self.weighted([(0, 3), (1, 3), (2, 1)]))
        for i, (var, pattern, flag) in enumerate(chosen):
            flags = [flag] if flag else []
            if i + 1 < len(chosen) and self.chance(0.25):
                flags.append("OR")
            out.append(directive("RewriteCond", var, pattern, *(["[" + ",".join(flags) + "]"] if flags else [])))
        return out

    def rewrite_target(self, vh: VHost, dir_context: bool) -> tuple[str, str]:
        """(substitution, kind): internal path, external redirect, forbidden/gone, or proxy."""
        kind = self.weighted([("internal", 4), ("external", 3), ("F", 2), ("G", 1), ("proxy", 1)])
        if kind == "internal":
            dest = self.pick(vh.paths + ["/" + self.pick(WORDS)])
            return self.pick([f"{dest}/$1", f"{dest}/index.html", dest + "/"]), kind
        if kind == "external":
            return self.pick([f"http://{self.pick(self.hosts).names[0]}/moved/$1", f"{self.pick(vh.paths)}/$1"]), kind
        if kind == "proxy":
            return f"http://{self.backend()}/rw/$1", kind
        return "-", kind

    def f_rewrite_server(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        if not vh.rewrite_on:
            vh.body.append(directive("RewriteEngine", "On"))
            vh.rewrite_on = True
        dest, kind = self.rewrite_target(vh, False)
        pattern = self.pick([f'"^{path}/(.*)$"', f'"^{path}(?:/(.*))?$"', f'"^{path}/(.*\\.txt)$"'])
        flags = {"F": "[F]", "G": "[G]"}.get(kind) or self.rewrite_flags(kind == "external", kind == "proxy")
        if kind == "external" and "R" not in flags:
            flags = "[R,L]"
        rule = directive("RewriteRule", pattern, dest, *([flags] if flags else []))
        vh.body.extend(self.rewrite_conds() + [rule])
        self.target(vh, path, "rewrite", "query", "file")

    def rewrite_dir_lines(self, vh: VHost, rel: str) -> list[Node]:
        dest, kind = self.rewrite_target(vh, True)
        pattern = self.pick(['"^(.*)\\.txt$"', '"^(.*)$"', f'"^{rel}(.*)$"' if rel else '"^sub/(.*)$"',
                             '"^([^/]+)/?$"'])
        flags = {"F": "[F]", "G": "[G]"}.get(kind) or self.rewrite_flags(kind == "external", kind == "proxy")
        if kind == "internal" and "L" not in flags and "END" not in flags:
            flags = "[L]"       # (a rule without L in a directory loops until httpd's limit)
        lines = [directive("RewriteEngine", "On")]
        if self.chance(0.2):
            lines.append(directive("RewriteBase", "/"))
        return lines + self.rewrite_conds() + [directive("RewriteRule", pattern, dest, flags)]

    def f_rewrite_directory(self, vh: VHost) -> None:
        path = self.pick(vh.paths)
        node = self.directory(vh, path) if self.chance(0.8) else self.location(vh, path)
        if node.name == "Directory" and self.chance(0.85) and not _follows(node):
            node.children.append(directive("Options", "+FollowSymLinks"))
        node.children.extend(self.rewrite_dir_lines(vh, ""))
        self.target(vh, path, "rewrite", "file", "query")

    def backend(self) -> str:
        self.backends += 1
        n = self.r.randint(1, 3)
        return f"b{n}.fuzz.test:{8080 + n}"

    def f_proxy(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        shape = self.weighted([("pass", 4), ("balancer", 2), ("location", 2), ("excluded", 1)])
        slash = self.chance(0.6)
        if shape == "balancer":
            self.pools += 1
            pool = f"balancer://pool{self.pools}"
            members = [directive("BalancerMember", f"http://{self.backend()}") for _ in range(self.r.randint(1, 2))]
            vh.body.append(section("Proxy", pool, children=members))
            url = pool + ("/" if slash else "")
        else:
            url = f"http://{self.backend()}" + self.pick(["/", "/base/", "/base", ""])
        if shape == "location":
            node = self.location(vh, path)
            node.children.append(directive("ProxyPass", url))
        else:
            lines = []
            if shape == "excluded":
                lines.append(directive("ProxyPass", f"{path}/{self.pick(SUBWORDS)}", "!"))
            lines.append(directive("ProxyPass", path + ("/" if slash else ""), url))
            if self.chance(0.5):
                lines.append(directive("ProxyPassReverse", path + ("/" if slash else ""), url))
            vh.body.extend(lines)
        if self.chance(0.25):
            vh.body.append(directive("ProxyPreserveHost", "On"))
        if self.chance(0.25):
            guard = section("Proxy", '"*"' if self.chance(0.5) else f'"{url.rstrip("/")}*"')
            guard.children.extend(self.access_block(vh, allow_auth=False)[0])
            vh.body.append(guard)
        if self.chance(0.35):
            vh.body.append(self.request_header(vh))
        self.target(vh, path, "proxy", "methods", "query")

    def request_header(self, vh: VHost) -> Node:
        """A RequestHeader the echo backends report (verify compares Host and X-Forwarded-* they receive)."""
        words = [self.weighted([("set", 4), ("append", 1), ("unset", 1), ("add", 1)]),
                 self.pick(["X-Forwarded-Host", "X-Forwarded-For", "X-Forwarded-Server"])]
        if words[0] != "unset":
            words.append(self.pick(['"front.fuzz.test"', "10.1.2.3", '"a, b"']) if words[1] != "Host"
                         else '"front.fuzz.test"')
        tail = self.weighted([("", 5), ("env", 1), ("expr", 1), ("early", 1)])
        if tail == "env":
            words.append(f"env={self.env_var(vh)}")
        elif tail == "expr":
            words.append(self.pick(HEADER_EXPRS[:2]))
        elif tail == "early":
            words.append("early")
        return directive("RequestHeader", *words)

    def header_lines(self, vh: VHost, count: int) -> list[Node]:
        out = []
        for _ in range(count):
            secure = self.chance(0.35)
            name, value = self.pick(SECURITY_HEADERS) if secure else (self.pick(CUSTOM_HEADERS), self.pick(
                ['"on"', "1", '"a b"']))
            words = []
            cond = self.weighted([("always", 3), ("onsuccess", 1), ("", 5)])
            if cond:
                words.append(cond)
            action = self.weighted([("set", 6), ("append", 1), ("merge", 1), ("add", 1), ("unset", 2)])
            words += [action, name] + ([] if action == "unset" else [value])
            tail = self.weighted([("", 6), ("env", 1), ("!env", 1), ("expr", 2)])
            if tail == "env":
                words.append(f"env={self.env_var(vh)}")
            elif tail == "!env":
                words.append(f"env=!{self.env_var(vh)}")
            elif tail == "expr":
                words.append(self.pick(HEADER_EXPRS))
            out.append(directive("Header", *words))
        return out

    def f_headers(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        where = self.weighted([("vhost", 3), ("location", 3), ("directory", 2), ("files", 1)])
        lines = self.header_lines(vh, self.r.randint(1, 3))
        if where == "vhost":
            vh.body.extend(lines)
        elif where == "location":
            self.location(vh, path).children.extend(lines)
        elif where == "directory":
            self.directory(vh, path).children.extend(lines)
        else:
            vh.body.append(section("FilesMatch", '"\\.(txt|html)$"', children=lines))
        if self.chance(0.2):
            vh.body.append(self.request_header(vh))
        self.target(vh, path, "headers", "file", "query")

    def f_errordocument(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        code = self.pick(["403", "404", "401", "500"])
        value = self.weighted([(f"/errors/{code}.html", 3), (f'"Fuzz error {code}"', 2),
                               (f"http://{vh.names[0]}/oops", 1)])
        line = directive("ErrorDocument", code, value)
        where = self.weighted([("vhost", 3), ("location", 2), ("directory", 1)])
        if where == "vhost":
            vh.body.append(line)
        elif where == "location":
            self.location(vh, path).children.append(line)
        else:
            self.directory(vh, path).children.append(line)
        if value.startswith("/errors/"):
            self.case.files[f"errors/{code}.html"] = f"error page {code}\n"
            self.target(vh, f"/errors/{code}.html", "file")
        self.target(vh, path, "errors", "file")

    def f_index(self, vh: VHost) -> None:
        path = self.sub_path(vh)
        node = self.directory(vh, path) if self.chance(0.6) else self.location(vh, path)
        choice = self.weighted([("index", 3), ("options", 2), ("fallback", 2)])
        if choice == "index":
            node.children.append(directive("DirectoryIndex", *self.pick([["home.html", "index.html"],
                                                                          ["home.html"], ["disabled"],
                                                                          ["index.php", "index.html"]])))
        elif choice == "options":
            node.children.append(directive("Options", self.pick(["-Indexes", "+Indexes", "Indexes",
                                                                 "-Indexes +FollowSymLinks"])))
        else:
            node.children.append(directive("FallbackResource", self.pick(["/index.html", f"{path}/home.html",
                                                                          "disabled"])))
        self.target(vh, path, "dir", "file")

    def f_htaccess(self, vh: VHost) -> None:
        """AllowOverride on a directory and a .htaccess there (cases that serve their own tree)."""
        if not self.own_docroot:
            return self.f_rewrite_directory(vh)
        path = self.pick(vh.paths + ["/"])
        node = self.directory(vh, path, reuse=0.3)
        override = self.weighted([("All", 4), ("AuthConfig", 2), ("FileInfo", 2), ("AuthConfig FileInfo", 2),
                                  ("None", 1), ("Limit", 1), ("Indexes", 1)])
        node.children.append(directive("AllowOverride", *override.split()))
        if not _follows(node):
            node.children.append(directive("Options", "+FollowSymLinks"))
        rel = path.strip("/")
        lines: list[Node] = []
        for _ in range(self.r.randint(1, 2)):
            kind = self.weighted([("access", 4), ("rewrite", 3), ("headers", 2), ("errors", 1), ("index", 1)])
            if kind == "access":
                lines.extend(self.access_block(vh)[0])
            elif kind == "rewrite":
                lines.extend(self.rewrite_dir_lines(vh, ""))
            elif kind == "headers":
                lines.extend(self.header_lines(vh, 1))
            elif kind == "errors":
                lines.append(directive("ErrorDocument", "403", '"Denied here"'))
            else:
                lines.append(directive("DirectoryIndex", "home.html", "index.html"))
        self.case.htaccess.setdefault(rel, []).extend(lines)
        self.target(vh, path, "htaccess", "access", "auth", "file", "query")

    FEATURES = [("f_access_location", 5), ("f_access_directory", 4), ("f_access_files", 3), ("f_if", 2),
                ("f_limit", 2), ("f_alias", 3), ("f_redirect", 2), ("f_rewrite_server", 3),
                ("f_rewrite_directory", 2), ("f_proxy", 3), ("f_headers", 4), ("f_errordocument", 2),
                ("f_index", 2), ("f_htaccess", 3), ("f_scriptalias", 1)]

    # ----------------------------------------------------------------------------- the whole case
    def make_hosts(self) -> None:
        config = self.case.config
        main_only = self.chance(0.15)
        count = 1 if main_only else self.weighted([(1, 4), (2, 4), (3, 2)])
        ports_used: list[int] = []
        for i in range(count):
            port = 80 if i == 0 and self.chance(0.7) else self.pick([80, 8080, 8081])
            name = f"v{i + 1}.fuzz.test"
            names, wild = [name], []
            aliases = []
            if self.chance(0.5):
                names.append("www." + name)
                aliases.append("www." + name)
            if self.chance(0.3):
                aliases.append("*." + name)
                wild.append("x." + name)
            root = f"{BASE}/www" if self.own_docroot or i == 0 or self.chance(0.5) else f"{BASE}/site{i + 1}"
            paths = self.r.sample(WORDS, self.r.randint(2, 3))
            pool = ["/" + w for w in paths]
            if self.chance(0.4):
                pool.append(f"/{paths[0]}/{self.pick(SUBWORDS)}")
            if main_only:
                body = config
                config.append(directive("ServerName", name))
                config.append(directive("DocumentRoot", root))
            else:
                vhost = section("VirtualHost", f"*:{port}")
                vhost.children.append(directive("ServerName", name))
                if aliases:
                    vhost.children.append(directive("ServerAlias", *aliases))
                vhost.children.append(directive("DocumentRoot", root))
                config.append(vhost)
                body = vhost.children
            self.hosts.append(VHost(body, names, wild, port if not main_only else 80, root, pool))
            if port not in ports_used and not main_only:
                ports_used.append(port)
        listen = [directive("Listen", str(p)) for p in (ports_used or [80])]
        config[:0] = listen

    def generate(self) -> Case:
        self.make_hosts()
        if self.chance(0.3):
            # a server-wide rule every host inherits (after the Listen lines)
            top = self.pick([[section("FilesMatch", '"^\\.ht"', children=[directive("Require", "all", "denied")])],
                             [section("Directory", "/", children=[directive("Require", "all", "denied")]),
                              # the roots granted again, as Debian's apache2.conf does for /var/www
                              section("Directory", BASE, children=[directive("Require", "all", "granted")])],
                             [section("Directory", BASE, children=[directive("Options", "-Indexes")])]])
            at = sum(1 for n in self.case.config if n.name == "Listen")
            self.case.config[at:at] = top
        features = self.r.randint(3, 7)
        names = [n for n, _ in self.FEATURES]
        weights = [w for _, w in self.FEATURES]
        for _ in range(features):
            feature = self.r.choices(names, weights)[0]
            vh = self.pick(self.hosts)
            getattr(self, feature)(vh)
        for vh in self.hosts:
            self._shuffle_body(vh)
        self.finish()
        return self.case

    def _shuffle_body(self, vh: VHost) -> None:
        """Sections of a host in random order (their order matters: merging, first match); directives that
        must come before others keep their relative order."""
        body = vh.body
        sections_ = [n for n in body if n.is_section and n.name != "VirtualHost"]
        if len(sections_) < 2:
            return
        shuffled = sections_[:]
        self.r.shuffle(shuffled)
        it = iter(shuffled)
        body[:] = [next(it) if (n.is_section and n.name != "VirtualHost") else n for n in body]

    def finish(self) -> None:
        case = self.case
        case.users = [sha1_line(u, p) if i % 2 == 0 else apr1_line(u, p, f"s{self.seed % 100000:05d}{i}")
                      for i, (u, p) in enumerate(USERS)]
        if self.own_docroot:
            self.make_tree()
        from .probes import requests_for
        case.requests = requests_for(self)
        case.comment = f"difffuzz seed {self.seed}"

    def make_tree(self) -> None:
        """The document root the configuration names: its directories, files and .ht* files."""
        files = self.case.files
        dirs = {""}
        for vh in self.hosts:
            for p in vh.paths:
                parts = p.strip("/").split("/")
                for i in range(1, len(parts) + 1):
                    dirs.add("/".join(parts[:i]))
        for t in self.targets:
            clean = t.path.strip("/")
            if "." in clean.rsplit("/", 1)[-1]:
                head = clean.rpartition("/")[0]
                dirs.add(head)
            elif clean:
                dirs.add(clean)
        for rel in self.case.htaccess:
            dirs.add(rel)
        for d in sorted(dirs):
            prefix = d + "/" if d else ""
            files[prefix + "index.html"] = f"index of /{d}\n"
            files[prefix + "a.txt"] = f"a.txt of /{d}\n"
            if self.chance(0.5) or not d:
                files[prefix + "secret.txt"] = f"secret of /{d}\n"
            if self.chance(0.3):
                files[prefix + "home.html"] = f"home of /{d}\n"
            if self.chance(0.2):
                files[prefix + "notes.bak"] = f"backup of /{d}\n"
        files[".htpasswd"] = self.case.users[0] + "\n"
        for t in self.targets:
            clean = t.path.strip("/")
            if clean and "." in clean.rsplit("/", 1)[-1] and not clean.rsplit("/", 1)[-1].startswith(".ht"):
                files.setdefault(clean, f"{clean}\n")


def _follows(node: Node) -> bool:
    return any(c.name == "Options" and "FollowSymLinks" in " ".join(c.args) for c in node.children)


def generate(seed: int) -> Case:
    return Generator(seed).generate()


def generator_for(seed: int) -> Generator:
    gen = Generator(seed)
    gen.generate()
    return gen
