"""The registry of diagnostic codes.

A code never changes meaning once published. Each entry has a severity, a
one-line summary, a default hint and an explain text in three parts: what it
means, why it matters, and how to fix it by hand. `apache2nginx explain CODE`
prints the explain text.

Ranges: A2N0xx reading and loading the Apache input; A2N1xx directive
dispositions; A2N2xx core, listeners and virtual hosts; A2N9xx the
translator's own self-checks and the nginx validation step.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    name: str
    severity: str
    summary: str
    explain: str
    hint: str | None = None


CODES: dict[str, CodeInfo] = {}


def _code(code: str, name: str, severity: str, summary: str, explain: str, hint: str | None = None) -> None:
    assert code not in CODES, code
    CODES[code] = CodeInfo(code, name, severity, summary, explain.strip(), hint)


def lookup(code: str) -> CodeInfo:
    try:
        return CODES[code]
    except KeyError:
        raise KeyError(f"unregistered diagnostic code {code}") from None


# ----------------------------------------------------------------- A2N0xx input

_code("A2N001", "syntax-error", "error", "The input is not valid Apache configuration syntax.", """
What it means: the parser found text that httpd would refuse while reading the
configuration, for example a section opener without its closing `>` or a line
that starts with `<` but names no section.

Why it matters: httpd would not start with this file, so there is no behaviour
to translate; a translation of a guess would be a silent divergence.

How to fix it: correct the line the diagnostic points at and run
`apachectl configtest` (or `apache2 -t`) to confirm httpd accepts it.
""", "fix the line so that `apache2 -t` accepts it")

_code("A2N002", "unclosed-section", "error", "A section is opened but never closed.", """
What it means: a `<Name ...>` opener has no matching `</Name>` before the end of
the file. httpd reports "<Name> was not closed".

Why it matters: httpd refuses such a file; every directive after the opener
would otherwise be read as part of the section.

How to fix it: add the missing `</Name>` where the section should end.
""", "add the matching closing tag")

_code("A2N003", "stray-closing-tag", "error", "A closing tag has no open section.", """
What it means: a `</Name>` appears where no section is open. httpd reports
"</Name> without matching <Name> section".

Why it matters: httpd refuses the file.

How to fix it: remove the closing tag or add the opener it belongs to.
""", "remove the closing tag or add its opener")

_code("A2N004", "mismatched-closing-tag", "error", "A closing tag does not match the open section.", """
What it means: the innermost open section is `<A>` but the closing tag is
`</B>` (names are compared case-insensitively, as httpd does). httpd reports
"Expected </A> but saw </B>".

Why it matters: httpd refuses the file.

How to fix it: close the sections in the reverse order they were opened.
""", "close sections in reverse order of opening")

_code("A2N005", "unterminated-quote", "warning", "A quoted argument has no closing quote.", """
What it means: an argument starts with `"` or `'` but the line ends before the
matching quote. httpd accepts this and takes the rest of the line, spaces
included, as the argument (the 2.0-style `ErrorDocument 404 "text` relies on it).

Why it matters: it is usually a typo; when the closing quote was meant to be on
the next line, httpd reads that next line as a separate directive.

How to fix it: add the closing quote, or use `\\` at the end of the line to
continue a long argument.
""", "close the quote on the same line, or continue the line with a trailing backslash")

_code("A2N006", "ignored-text-after-tag", "warning", "Text after a section tag is ignored by httpd.", """
What it means: httpd reads a section opener up to its last `>` and a closer as
the single word `</Name>`; anything after that on the line is silently
ignored. A common case is a comment after `<IfDefine X> # note`, or two closing
tags on one line (`</VirtualHost> </IfModule>`), where the second is NOT read.

Why it matters: the ignored text may have been meant as configuration.

How to fix it: put each tag and each comment on its own line.
""", "put the text on its own line")

_code("A2N007", "byte-order-mark", "warning", "The file starts with a UTF-8 byte-order mark.", """
What it means: the file begins with the bytes EF BB BF. The translator skips
them; httpd 2.4 does not, and reads them as part of the first directive name
("Invalid command '\\xef\\xbb\\xbfServerName'") unless that line is a comment or blank.

Why it matters: the Apache side may not start with this file.

How to fix it: save the file as UTF-8 without BOM.
""", "save the file without a byte-order mark")

_code("A2N008", "not-utf8", "info", "The file is not valid UTF-8 and was read as Latin-1.", """
What it means: some bytes are not valid UTF-8. httpd treats configuration as
bytes; the translator reads such a file as Latin-1 and writes UTF-8 output.

Why it matters: a path or header value with non-ASCII bytes will be written in
UTF-8 in the nginx configuration, which may not name the same file.

How to fix it: convert the file to UTF-8, or check the non-ASCII values in the
output by hand.
""", "convert the file to UTF-8")

_code("A2N010", "binary-input", "error", "The input looks like a binary file, not a configuration.", """
What it means: the file contains NUL bytes or is mostly non-text.

Why it matters: httpd cannot read it as configuration and neither can the
translator; it is usually the wrong file (an archive, a compiled module).

How to fix it: point the translator at the text configuration file.
""", "check that the path names a text configuration file")

_code("A2N011", "input-too-large", "error", "The input file is larger than the configured limit.", """
What it means: the file is larger than `--max-input-size` (32 MiB by default);
or the files it includes add up to more than four times that; or `${VAR}`
substitution makes one argument longer than 65,536 characters or all of them
more than the limit (a Define that doubles itself: `Define A ${A}${A}`).

Why it matters: real configurations, even with tens of thousands of redirects,
are a few megabytes; a larger file is usually a log or data file passed by
mistake, and reading it would use a great deal of memory.

How to fix it: check the path, or raise `--max-input-size`.
""", "check the path, or raise --max-input-size")

_code("A2N012", "nesting-too-deep", "error", "Sections are nested deeper than the translator supports.", """
What it means: more sections are open at once than the limit (100 levels).
Real configurations nest a handful of levels.

Why it matters: such input is almost certainly generated or corrupt.

How to fix it: flatten the nesting.
""", "flatten the nesting")

_code("A2N013", "unreadable-input", "error", "An input file or directory cannot be read.", """
What it means: the file does not exist, is a directory where a file was
expected, or permissions forbid reading it; or it is not a regular file (a
device such as /dev/zero, a named pipe, a socket), which is never read; or an
Include names more files than the translator reads from one pattern (65,536
names a glob matches, 4,096 files under the directories it names, which are
walked recursively; `Include /` names the whole disk).

Why it matters: nothing can be translated from it.

How to fix it: check the path and its permissions.
""", "check the path and its permissions")

_code("A2N015", "number-out-of-range", "error", "A number is larger than httpd or nginx accepts.", """
What it means: an argument holds a number with a thousand digits or more, or
a value the translation would write beyond what nginx's parser accepts
(a time or size over 2^63 milliseconds or bytes, a status code over 999, a
port over 65535, an upstream server's weight, max_fails or max_conns past
2^63-1, its fail_timeout in milliseconds or past 2^63 seconds).

Why it matters: httpd refuses such values when it starts (or reads them as
something else after an overflow), and nginx refuses the translated line, so
no faithful translation exists.

How to fix it: write the value httpd should use, within its range.
""", "write a value within the directive's range")

_code("A2N016", "stale-output-removed", "info", "A file an earlier run wrote into the output tree is gone from this one.", """
What it means: `convert --out-dir` found a file it had written before (it
starts with the generated header, or is a sites-enabled/ link into
sites-available/) for an Apache site or file that this conversion no longer
has, and removed it once the new tree was written.

Why it matters: nginx includes every `*.conf` of conf.d/ and sites-enabled/;
a leftover server block would keep answering for a site Apache dropped.

How to fix it: nothing; the message records the removal.
""", "nothing to do: the file belonged to a site that is gone")

_code("A2N017", "foreign-file-in-output-tree", "warning", "The output tree holds a file apache2nginx did not write, which nginx will include.", """
What it means: `convert --out-dir` writes nginx.conf to include every
`*.conf` of conf.d/ (and of sites-enabled/ in the Debian layout); this file is
there, and it was not written by apache2nginx, so it is left as it is.

Why it matters: nginx will load it with the translation: a server or a map in
it may take requests meant for a translated site, or make `nginx -t` fail.

How to fix it: move the file out of the tree, or keep it knowingly (a
hand-written addition); or write the tree into an empty directory.
""", "move the file out of the output tree, or keep it knowingly")

_code("A2N014", "empty-input-directory", "error", "An input directory holds no configuration files.", """
What it means: a directory was given as input, but it holds no `*.conf` file
(nor `.htaccess`).

Why it matters: there is nothing to translate; an empty output would hide the
mistake.

How to fix it: pass the directory that holds the site files (for Debian,
`sites-enabled/`), or the main `apache2.conf`.
""", "pass the directory that holds the .conf files")

_code("A2N020", "missing-include", "error", "An Include names a file that does not exist.", """
What it means: `Include` (not `IncludeOptional`) names a path, or a wildcard
that matches nothing in a directory that does not exist, so httpd would refuse
to start. Relative paths are resolved against ServerRoot (`--server-root`, the
file's ServerRoot directive, or the input's own directory).

Why it matters: the included directives would be missing from the translation.

How to fix it: pass `--server-root DIR` pointing at a copy of the server root,
copy the missing file next to the configuration, or use
`--missing-includes warn` to translate without it (the gap is then reported).
""", "pass --server-root, or --missing-includes warn to translate without it")

_code("A2N021", "include-loop", "error", "Files include each other in a loop.", """
What it means: a file includes itself, directly or through other files.
httpd stops at its recursion limit with an error.

Why it matters: the configuration cannot be read.

How to fix it: remove the Include that closes the loop (the chain is listed).
""", "remove the Include that closes the loop")

_code("A2N022", "undefined-variable", "error", "A ${VAR} reference names nothing defined.", """
What it means: `${NAME}` is neither a `Define` with a value (in the input or
given with `--define NAME=VALUE`) nor a variable of the environment httpd
starts with: what Debian's envvars exports (read beside apache2.conf), or
`--env NAME=VALUE`. The environment of the shell running apache2nginx is not
consulted, since httpd would not see it. httpd warns (AH00111) and keeps the
text as it is.

Why it matters: nginx reads `${NAME}` as one of its own variables, so the text
cannot be handed to it: the directive (or section) holding it is not
translated, and counts as unsupported. A RewriteCond or RewriteRule is left
out with the rest of its rule; an access rule left out refuses its region
(deny all) rather than grant more than httpd would. The conversion exits 1.

How to fix it: give the value the server has: `--env NAME=VALUE` for a variable
of the environment (as envvars or a systemd unit sets it), `--define
NAME=VALUE` for a Define, or set it with `Define` in the configuration.
""", "pass --env NAME=VALUE or --define NAME=VALUE")

_code("A2N023", "conditional-assumed", "info", "A startup condition was evaluated against the translation target.", """
What it means: `<IfFile>`, `<IfVersion>`, `<IfDirective>` or `<IfSection>` tests
the server that will run the configuration. The translator evaluated it against
its target profile (Apache 2.4 with the modules the input loads plus Debian's
defaults, and files on this machine).

Why it matters: on the real server the answer may differ, and with it the
directives that take effect.

How to fix it: check the condition; use `--module` and `--define` to state the
real server's profile.
""", "state the real server's profile with --module/--define")

_code("A2N024", "unknown-module-condition", "warning", "An <IfModule> names a module outside the profile; its content was skipped.", """
What it means: the module named in `<IfModule>` is not in the module profile,
so the section's content was skipped. For an input that loads its modules (a
whole server: `LoadModule` lines) the profile is what httpd has at that point:
its built-in modules, those loaded before the section, and `--module`; httpd
skips the section too, and the diagnostic is a note. For an input that loads
none (a site file), it is every module built into httpd or shipped by Debian's
apache2 packages, and `--module` (an MPM other than the one in use, such as
prefork under Debian's default event MPM, is skipped the same way): a warning,
since the real server may load it.

Why it matters: if the real server loads the module, its directives apply
there but not in the translation.

How to fix it: pass `--module NAME` if the server loads it (or load it with
`LoadModule` before the section, as httpd needs).
""", "pass --module NAME if the server loads it")

_code("A2N025", "empty-input", "warning", "The input holds no directives.", """
What it means: after comments and blank lines nothing is left. When no input
of the conversion holds a directive (an empty file, empty stdin) it is an error
and nothing is written; an empty file among others is a warning.

Why it matters: the output would be an empty configuration, or a generated
default server that hides the mistake.

How to fix it: check that the right file was given.
""", "check the input path")

_code("A2N026", "macro-use-error", "error", "A mod_macro Use or UndefMacro line cannot be expanded.", """
What it means: `Use` names a macro that is not defined at that point (macros
are defined in file order, wherever the `<Macro>` stands), passes a different
number of values than the macro has parameters, or uses a macro inside its own
expansion; or `UndefMacro` names no defined macro. httpd refuses to start with
each of these.

Why it matters: the directives the macro would have produced are not in the
translation, and httpd itself does not accept the configuration.

How to fix it: define the macro before its first `Use`, pass one value per
parameter (quote values that contain blanks), and do not let a macro use itself.
""", "check the macro's definition and the Use line")

_code("A2N027", "macro-definition-error", "error", "A <Macro> definition is invalid.", """
What it means: a `<Macro>` section has no name, or two of its parameters have
the same name (or an empty one). httpd refuses to start.

Why it matters: the macro is not defined, so every `Use` of it fails too.

How to fix it: give the macro a name and each parameter a distinct name,
conventionally starting with `$`, `%` or `@`.
""", "name the macro and give each parameter its own name")

# ------------------------------------------------------------ A2N1xx dispositions

_code("A2N100", "unknown-directive", "error", "The directive is not known to Apache httpd or its common modules.", """
What it means: the name is not a directive of httpd 2.4 or of any module the
translator knows (every module Debian ships, plus common third-party ones).
httpd itself would refuse it ("Invalid command") unless a module you load
provides it.

Why it matters: nothing was translated for it, and a typo here means the
Apache side does not start either.

How to fix it: check the spelling (the hint names the closest known
directive); if a third-party module provides it, translate its effect by hand.
""", None)

_code("A2N101", "unsupported-directive", "error", "The directive has no nginx translation; nothing was emitted for it.", """
What it means: the directive is known, but the translator has no faithful or
approximate nginx form for it yet, so the output does not contain its effect.

Why it matters: the nginx server will not do what this directive made Apache
do. If it restricted access, the translation is less strict than the original.

How to fix it: translate its effect by hand in the emitted server or location
(the source comment marks where it belongs), or remove it from the Apache side
if it is not needed.
""", "translate this directive by hand")

_code("A2N102", "not-applicable", "info", "The directive has no meaning in nginx and was left out on purpose.", """
What it means: the directive configures something nginx does differently or
not at all (module loading, process management, MPM tuning); nothing needs to
be emitted for the translation to behave the same.

Why it matters: usually nothing; the note is there so every directive has a
stated fate.

How to fix it: nothing to do; tune the nginx equivalent (worker_processes,
worker_connections) on its own merits.
""", None)

_code("A2N103", "directive-in-wrong-context", "warning", "The directive is not allowed where it stands.", """
What it means: httpd only accepts this directive in some contexts (server
config, virtual host, directory, .htaccess); here it appears elsewhere. httpd
rejects it unless it sits in a section that is skipped (for example an
`<IfModule>` for a module that is not loaded).

Why it matters: the Apache side may not start, or the directive never had an effect.

How to fix it: move it to a context the httpd documentation allows.
""", "move it to a context httpd allows")

# ------------------------------------------------------- A2N2xx core and vhosts

_code("A2N200", "vhost-port-not-listening", "warning", "A virtual host names a port no Listen opens.", """
What it means: `<VirtualHost addr:port>` names a port that no `Listen` in the
input opens. In httpd such a virtual host never receives a request.

Why it matters: nginx opens every `listen` it is given, so copying the port
would expose a server Apache never served. The translation emits no `listen`
for it.

How to fix it: add the `Listen` on the Apache side if the site should be
reachable, or remove the dead virtual host.
""", "add a Listen for the port, or remove the virtual host")

_code("A2N201", "listen-assumed-from-vhosts", "info", "No Listen in the input; ports were taken from the virtual hosts.", """
What it means: the input is a virtual-host file without `Listen` directives
(they usually live in ports.conf), so the translator listens on the ports the
`<VirtualHost>` lines name.

Why it matters: if the real server does not listen on one of them, Apache
would not have served that virtual host.

How to fix it: translate the full server configuration (apache2.conf) instead
of the site file to let the translator see the real Listen lines.
""", "translate the full server config to use the real Listen lines")

_code("A2N202", "vhost-hostname-address", "warning", "A virtual host address is a host name, resolved by DNS at startup.", """
What it means: `<VirtualHost www.example.com:80>` makes httpd resolve the name
once at startup and bind the virtual host to the resulting IP addresses.
The translator cannot know them.

Why it matters: the nginx server listens on all addresses of the port instead,
so it may answer requests Apache sent to another virtual host.

How to fix it: use IP addresses (or `*`) in `<VirtualHost>`; the httpd
documentation recommends it.
""", "use an IP address or * in <VirtualHost>")

_code("A2N203", "servername-scheme-port", "info", "A scheme or port in ServerName was dropped.", """
What it means: `ServerName https://www.example.com:443` uses the scheme and
port only to build self-referential URLs. nginx `server_name` takes host names
only.

Why it matters: redirects nginx generates use the listening port and scheme.

How to fix it: nothing, unless the server sits behind port mapping; then
consider `absolute_redirect off;`.
""", None)

_code("A2N204", "wildcard-name-as-regex", "info", "A wildcard server name was rewritten as a regular expression.", """
What it means: httpd allows `*` and `?` anywhere in ServerAlias; nginx accepts
wildcards only as a leading `*.` or a trailing `.*`. Other forms become an
anchored, case-insensitive regular expression that matches the same names.

Why it matters: nginx tries regular-expression names after exact and wildcard
names, whereas httpd takes the first virtual host in configuration order, so
precedence between virtual hosts can differ when names overlap.

How to fix it: prefer distinct names; review overlapping aliases.
""", None)

_code("A2N205", "main-server-default", "info", "The main server became the default server on ports no virtual host uses.", """
What it means: directives outside `<VirtualHost>` configure httpd's main
server, which answers requests on sockets that no virtual host covers.

Why it matters: nothing, when the main server is meant as a fallback.

How to fix it: nothing to do.
""", None)

_code("A2N206", "tls-without-certificate", "error", "A TLS virtual host has no certificate.", """
What it means: the virtual host has `SSLEngine on` but no `SSLCertificateFile`
(none inherited either). httpd refuses to start such a server. nginx refuses
a `listen ... ssl` server without `ssl_certificate` unless it rejects every
handshake, which is what the translation does (`ssl_reject_handshake on`),
so it fails closed rather than serving plain HTTP on a TLS port.

Why it matters: the server answers no TLS client until a certificate is set.

How to fix it: add SSLCertificateFile/SSLCertificateKeyFile on the Apache side
(or ssl_certificate/ssl_certificate_key in nginx) and remove
`ssl_reject_handshake on`.
""", "add SSLCertificateFile and SSLCertificateKeyFile")

_code("A2N207", "key-in-certificate-file", "info", "The private key is read from the certificate file.", """
What it means: without `SSLCertificateKeyFile`, httpd reads the private key
from the `SSLCertificateFile` itself (a combined PEM). nginx always needs
`ssl_certificate_key`, so it names the same file.

Why it matters: nothing, if the file holds the key, as httpd requires.

How to fix it: nothing to do.
""")

# ------------------------------------------------------ A2N9xx self-checks, lint

_code("A2N900", "self-check-failed", "error", "The generated nginx configuration failed the translator's own re-parse.", """
What it means: the translator re-parses everything it writes with crossplane;
this output did not parse. It is a bug in the translator, never in your input.

Why it matters: the output would not load in nginx.

How to fix it: report the bug with the input that caused it; the output was
not written.
""", "report this as a bug with the input")

_code("A2N901", "nginx-test-failed", "error", "`nginx -t` rejected the configuration.", """
What it means: the real nginx binary, run in a sandbox prefix, refused the
configuration; the message is nginx's own.

Why it matters: nginx will not start with it.

How to fix it: correct the reported line; if the file was generated by this
tool, report the bug with the Apache input.
""", None)

_code("A2N902", "nginx-not-found", "error", "No nginx binary was found to test the configuration.", """
What it means: `lint` runs the real `nginx -t` and could not find the binary
(searched `--nginx`, $PATH, /usr/sbin/nginx).

Why it matters: without it the configuration's syntax is not proven.

How to fix it: install nginx (Debian: `apt-get install nginx`) or pass `--nginx PATH`.
""", "install nginx or pass --nginx PATH")

_code("A2N903", "nginx-test-warning", "warning", "`nginx -t` printed a warning.", """
What it means: nginx accepted the configuration but warned about it (for
example a duplicate MIME type or a conflicting server name).

Why it matters: warnings often mark a behaviour difference, such as a server
name that will never be selected.

How to fix it: read nginx's message and correct the reported line.
""", None)

# ------------------------------------------- A2N96x lint: structural checks of nginx files

_code("A2N904", "undefined-variable-in-output", "error", "An Apache variable left undefined reached the output.", """
What it means: an Apache `${NAME}` the input left undefined (reported as
A2N022) appears in the generated configuration, which the translator must
never allow: nginx reads `${NAME}` as one of its own variables. The directive
holding it should have been left out; another directive's translation carried
the text. It is a bug in the translator.

Why it matters: nginx would refuse the configuration (unknown variable) or,
worse, expand one of its own variables of that name.

How to fix it: define the variable (`--env NAME=VALUE` or `--define
NAME=VALUE`) and report the bug with the input that caused it; the output was
not written.
""", "define the variable, and report this as a bug with the input")

_code("A2N905", "unknown-variable-in-output", "error", "The generated configuration reads a variable nginx does not know.", """
What it means: a directive of the generated configuration reads an nginx
variable (`$name`) that no nginx module provides and nothing in the
configuration declares (`set`, `map`, `geo`, a named regex capture ...),
or writes a `$` that no variable name follows (a literal dollar sign of the
input the translator failed to write as `${a2n_dollar}`). It is a bug in
the translator, never in your input.

Why it matters: nginx refuses the whole configuration (`unknown "name"
variable`, or `invalid variable name`), so no site would start.

How to fix it: report the bug with the input that caused it; the output was
not written.
""", "report this as a bug with the input")

_code("A2N960", "add-header-dropped", "warning", "A block's own add_header drops the headers it would inherit.", """
What it means: a server, location or `if` block has `add_header` directives
of its own while an enclosing level (http, server or an outer location) has
others that it does not repeat. nginx's array directives are inherited only by
a block that defines none of its own, so the enclosing headers are not sent
for requests this block handles. httpd's `Header` directives, by contrast,
merge from every section that applies.

Why it matters: security headers set once at the server level
(Strict-Transport-Security, X-Frame-Options, Content-Security-Policy ...)
silently disappear from exactly the URLs that add a header of their own.

How to fix it: repeat every enclosing `add_header` inside the block (the
message lists them), or move the block's own header to the enclosing level.
nginx 1.29.3 and later also offer `add_header_inherit merge;`.
""", "repeat the enclosing add_header directives in this block")

_code("A2N961", "alias-traversal", "error", "A prefix location without a trailing slash has an alias with one.", """
What it means: `location /files { alias /data/files/; }` maps the rest of the
URI after `/files` onto the directory, so `/files../secret` becomes
`/data/files/../secret`: one directory above the alias target is readable.

Why it matters: it is a path traversal: files next to the aliased directory
(configuration, keys, other sites) can be downloaded.

How to fix it: make both end the same way: `location /files/ { alias
/data/files/; }` (and, if `/files` itself must answer, `location = /files {
return 301 /files/; }`), or drop the slash from both.
""", "end the location with a slash too, or drop it from the alias")

_code("A2N962", "if-in-location", "warning", "An `if` inside a location does more than return, rewrite or set.", """
What it means: an `if` block inside a location holds directives other than
`return`, `rewrite ... last|break|redirect|permanent` and `set` (a `rewrite`
without a flag is fine beside a `return`, or a `rewrite` of every URI that
redirects, which answer before the request goes on). nginx turns such an `if` into a nested location configuration that replaces the enclosing
one when the condition is true ("if is evil"): directives such as `try_files`,
`proxy_pass` with a URI, `add_header` of the enclosing location, or a second
`if` behave in surprising ways.

Why it matters: requests that meet the condition may be served with a
different configuration than the one you read, including lost headers or
access rules, or crash into a 404 or 500.

How to fix it: keep only `return`, `rewrite ... last` and `set` inside the
`if` (an `add_header` or an `error_page` next to a `return` is fine: it shapes
that response);
express the rest with `map` (to compute a variable), separate locations, or
`try_files`.
""", "keep only return/rewrite/set inside if; use map or separate locations for the rest")

_code("A2N963", "upstream-without-keepalive", "warning", "An upstream keeps no idle connections.", """
What it means: an `upstream` block has no `keepalive N` directive, so nginx
opens a new connection to a backend for every request and closes it after.

Why it matters: httpd's mod_proxy reuses backend connections by default; the
nginx side then pays a TCP (and TLS) handshake per request, adds latency and
can exhaust ephemeral ports under load.

How to fix it: add `keepalive 32;` (or a number suited to the backends) to the
upstream, and in every location that proxies to it set
`proxy_http_version 1.1;` and `proxy_set_header Connection "";`. When the
upstream's source comment names an Apache `ProxyPass ... disablereuse=On` (or
`enablereuse=Off`), httpd does not reuse connections either and nothing is
reported.
""", "add `keepalive 32;` to the upstream")

_code("A2N964", "proxy-keepalive-headers-missing", "warning",
      "proxy_pass to an upstream without HTTP/1.1 and an empty Connection header.", """
What it means: a `proxy_pass` sends requests to an upstream block, but where it
stands `proxy_http_version 1.1` and `proxy_set_header Connection ""` are not
both in effect. nginx talks HTTP/1.0 with `Connection: close` to backends by
default, so the upstream's `keepalive` connections are never reused. (Remember
that a location with any `proxy_set_header` of its own inherits none from the
levels above.)

Why it matters: every request opens a new backend connection, unlike httpd's
mod_proxy, which reuses them.

How to fix it: set `proxy_http_version 1.1;` and `proxy_set_header Connection
"";` in the location (or the server, if the location sets no
`proxy_set_header` of its own). A WebSocket location may set Connection from a
variable instead.
""", "set proxy_http_version 1.1 and proxy_set_header Connection \"\" here")

_code("A2N965", "proxy-pass-needs-resolver", "error", "proxy_pass with variables and no resolver in effect.", """
What it means: the address of a `proxy_pass` (or another `*_pass`) contains
variables, so nginx resolves its host name when a request arrives rather than
at start-up, and that needs a `resolver` directive. None is in effect at this
place, and the host is neither an IP address nor the name of an upstream
block.

Why it matters: every request that reaches it fails with 502 Bad Gateway and
"no resolver defined to resolve ..." in the error log; `nginx -t` does not
notice.

How to fix it: add `resolver 127.0.0.53;` (your DNS server) at the http or
server level, or proxy to a named `upstream` block (resolved at start-up), or
remove the variables from the host part.
""", "add a resolver, or proxy to a named upstream")

_code("A2N966", "location-widens-apache-boundary", "error",
      "A bare prefix location widens the path boundary of the Apache section it comes from.", """
What it means: the generated configuration says (in its source comment) that
this `location /p` comes from an Apache `<Location /p>`, `ProxyPass /p` or
`Alias /p`. httpd matches such a path on segment boundaries: `/p` and `/p/...`
but not `/pX`. nginx's `location /p` is a plain string prefix and also takes
`/pX`, `/p.bak`, `/p-admin` ...

Why it matters: requests Apache sent elsewhere are now proxied to the backend,
served from the alias, or given this section's access rules: the routing (and
possibly the exposure) changed without anyone editing the Apache side.

How to fix it: write `location = /p { ... }` plus `location ^~ /p/ { ... }`
(what `apache2nginx convert` emits), or end the prefix with a slash if `/p`
itself need not match.
""", "use `location = /p` and `location ^~ /p/` as convert does")

_code("A2N967", "gixy-finding", "warning", "gixy reported a problem in the configuration.", """
What it means: gixy (gixy-ng), the nginx configuration security analyser,
found an issue; the message gives its check (plugin) name, summary and reason.
The severity follows gixy's: HIGH is an error, MEDIUM a warning, LOW and
UNSPECIFIED are info.

Why it matters: gixy's checks cover well-known nginx pitfalls such as
header injection through $uri, SSRF through proxy_pass variables, host
header spoofing and regular expressions open to ReDoS.

How to fix it: follow the reference URL in the message (gixy documents each
check with examples); if the finding does not apply, skip that check with
`--gixy-skip PLUGIN`.
""", None)

_code("A2N968", "gixy-failed", "warning", "gixy could not check the configuration.", """
What it means: `lint` found a gixy program but it failed: it exited with an
error, timed out, or printed no JSON report (for example an old gixy without
`-f json`, or a configuration it cannot read).

Why it matters: gixy's security checks were not applied to this file; the
other checks still ran.

How to fix it: run gixy yourself on the file to see its message; install a
current gixy-ng in its own environment (`pipx install gixy-ng`) and point
`--gixy` or A2N_GIXY at it, or pass `--no-gixy`.
""", "run gixy on the file to see why; or pass --no-gixy")

_code("A2N969", "unknown-variable", "error", "A directive reads a variable nginx does not know.", """
What it means: a directive reads an nginx variable (`$name` or `${name}`)
that no module of nginx 1.22 (as Debian builds it) provides and nothing in
the configuration declares: no `set`, `map`, `geo`, `split_clients`,
`auth_request_set`, `perl_set`/`js_set` and no named capture of a regex
(`(?<name>...)`). Declarations count wherever they stand in the http block.
A `$` that no name follows (`"a$"`, `"$-"`) is reported too: nginx refuses
it (`invalid variable name`) and has no escape for a dollar sign; a `geo` or
`map` variable whose value is `$` writes one. Found without running nginx; not checked when the configuration loads a
dynamic module whose variables are not modelled, nor in the stream and mail
contexts.

Why it matters: nginx refuses the whole configuration (`unknown "name"
variable`, with no line number), so none of its sites start.

How to fix it: correct the variable's name (a typo, or a module's variable
such as `$geoip_country_code` without its `load_module`), or declare it
(`set $name value;`, or a `map`).
""", "correct or declare the variable")


def _short(code: str, name: str, severity: str, summary: str, meaning: str, matters: str, fix: str,
           hint: str | None = None) -> None:
    _code(code, name, severity, summary,
          f"What it means: {meaning}\n\nWhy it matters: {matters}\n\nHow to fix it: {fix}", hint)


_short("A2N208", "regex-location-first-match", "warning", "A <LocationMatch> became a regular-expression location.",
       "httpd merges every <LocationMatch> that matches a request, after the <Location> sections; nginx uses the "
       "first matching regular-expression location and skips them entirely for prefixes marked ^~.",
       "requests that match several sections, or that fall under a translated <Location> prefix, do not get "
       "this section's directives in nginx.",
       "check the emitted regex location's order and repeat its directives where the regions overlap.")
_short("A2N239", "error-document-refused", "warning", "An ErrorDocument page is refused by its own access rules.",
       "httpd serves a local ErrorDocument through an internal redirect that passes the page's own access "
       "checks; when they refuse it, httpd keeps the original status and sends its built-in message. nginx's "
       "error_page would answer the refusal's 403 instead, so the translation answers the original status with "
       "nginx's own page.",
       "the error answer's body is nginx's page rather than httpd's message.",
       "grant access to the error page (e.g. `<Files 404.html> Require all granted`), or drop the ErrorDocument.")
_short("A2N240", "directory-index-climbs", "error", "A DirectoryIndex entry climbs out of its directory.",
       "httpd resolves a relative DirectoryIndex entry such as `../other/x.html` against the requested directory "
       "and cleans the URL of the subrequest (`/a/../other/x.html` is `/other/x.html`), so the access rules and "
       "handlers of that URL apply. nginx's index module redirects to the URL as written, which no location "
       "of the cleaned URL matches, so it would serve the file past those rules. The translation answers 403 "
       "where a directory request reaches that entry (its earlier entries are kept).",
       "a directory request httpd answers with that entry's file (or with the next entry, where the file is "
       "missing) is refused by nginx.",
       "name the file by its absolute URL (`DirectoryIndex /other/x.html`), or copy it into the directory.")
_short("A2N241", "tls-file-name-dollar", "warning", "A certificate or key file name holds a `$`.",
       "httpd reads a `$` in SSLCertificateFile, SSLCertificateKeyFile or SSLProxyMachineCertificateFile as "
       "itself. nginx reads `$name` in ssl_certificate, ssl_certificate_key and proxy_ssl_certificate as a "
       "variable, so the translation writes each `$` as `${a2n_dollar}` (a variable that is always `$`). A file "
       "name with variables makes nginx load the file at every TLS handshake, in its worker process rather than "
       "as root at startup.",
       "where the worker's user cannot read the file (a private key readable by root alone), every handshake "
       "fails; otherwise handshakes cost a file read more.",
       "rename the files without `$` (and point both servers at the new names).",
       "rename the file without `$`")
_short("A2N881", "error-document-guarded", "warning",
       "An ErrorDocument page is refused to some clients by its own access rules.",
       "httpd serves a local ErrorDocument through an internal redirect that passes the page's own access "
       "checks: a client the page's login or address rules refuse gets the original status with httpd's built-in "
       "message, a client they let in gets the page. nginx's error_page would answer the refusal's 401 or 403 "
       "instead, and it cannot tell the two kinds of client apart there, so the translation answers the original "
       "status with nginx's own page to every client, with the login's challenge where a login refuses the page "
       "(httpd sends it along with its message).",
       "the error answer's body is nginx's page rather than httpd's message, or rather than the page for the "
       "clients httpd lets see it, and those clients also get the challenge.",
       "grant access to the error page (e.g. `<Files 404.html> Require all granted`), or drop the ErrorDocument.")
_short("A2N876", "error-document-translation-refused", "warning",
       "An ErrorDocument page lies where the translation refuses access.",
       "httpd serves a local ErrorDocument through an internal redirect that passes the page's own access "
       "checks, and answers the original status either way: with the page where they grant it, with its built-in "
       "message (and a login's challenge) where they refuse it. The translation refuses the page's location to "
       "everyone instead (an access rule nginx cannot check exactly, a rewrite rule it does not translate), and "
       "nginx's error_page would answer that 403 for every status sent there, so the translation answers the "
       "original status with nginx's own page.",
       "the error answer's body is nginx's page rather than the page or httpd's message, and it carries no "
       "challenge where httpd's login refuses the page.",
       "make the page's access rules ones nginx can check (e.g. `<Files 404.html> Require all granted`), or "
       "move the page out of the refused region.")
_short("A2N885", "error-document-translation-refused-headers", "warning",
       "The headers of an ErrorDocument page nginx answers without are sent on every answer it stood for.",
       "where httpd serves a local ErrorDocument, the answer carries the page's own headers (the Header lines "
       "of its sections and of the server, onsuccess and always alike), with the original status; where its own "
       "access rules refuse the page, it answers with its built-in message and none of them. The translation "
       "answers the status with nginx's own page where the page's location is refused (a rule nginx cannot "
       "reproduce, or a login or address rule refusing some clients), which cannot tell the two cases apart: "
       "it sends the page's headers on every such answer.",
       "where httpd's rules refuse the page, or the page is missing, nginx's error answer carries headers httpd's "
       "does not.",
       "make the page's access rules ones nginx can check (e.g. `<Files 404.html> Require all granted`), or "
       "move the page out of the refused region.")
_short("A2N886", "error-document-translation-refused-headers-lost", "error",
       "A header of an ErrorDocument page the translation refuses cannot be sent.",
       "where httpd serves a local ErrorDocument, the answer carries the page's own headers. The translation "
       "refuses the page's location and answers the status with nginx's own page; a header whose value depends "
       "on the answer at the page's URL (its status, the URL, a file found there) has no such answer to read "
       "there, so nginx does not send it.",
       "nginx's error answer lacks a header httpd sends with the page; a security header among them is a lost "
       "protection.",
       "give the header an unconditional value, or make the page's access rules ones nginx can check (e.g. "
       "`<Files 404.html> Require all granted`).")
_short("A2N887", "login-refusal-error-document-headers-lost", "error",
       "A header of the ErrorDocument 401 or 403 page cannot be sent where the translation refuses a login or "
       "an access rule.",
       "where httpd's login refuses a request, it answers 401 with the local ErrorDocument page through an "
       "internal redirect, and where its access rules refuse it, 403 with the ErrorDocument 403 page; the answer "
       "carries the page's own headers. The translation refuses the region (an access rule nginx cannot check) "
       "and its 403 sends the page's headers in their place; a header whose value depends on the page's own "
       "answer (its status, its URL, a file found there) has no such answer to read at the refused URL, so nginx "
       "does not send it.",
       "nginx's refusal lacks a header httpd sends with the login's or the refusal's page; a security header "
       "among them is a lost protection.",
       "give the header an unconditional value, or make the region's access rules ones nginx can check.")
_short("A2N290", "hostname-lookups", "warning", "HostnameLookups On: nginx never resolves client addresses.",
       "with HostnameLookups On (or Double) httpd looks up every client's host name: %h in access logs and "
       "%{REMOTE_HOST} in mod_rewrite hold the name. nginx never does reverse DNS, so they hold the address.",
       "access logs show addresses instead of names, and rules that test the client's host name see its address.",
       "resolve addresses when reading the logs (logresolve does it for httpd's log format).")

# ------------------------------------------------------------------ A2N3xx mod_proxy
_short("A2N301", "shadowed-route", "warning", "A ProxyPass/Alias/Redirect entry is never used by httpd.",
       "httpd walks these lists in order and uses the first entry whose prefix matches; an earlier entry with a "
       "shorter prefix (or mod_proxy, which runs before mod_alias) takes every request this one would.",
       "nginx picks the longest prefix, so copying the dead entry would bring it to life and change behaviour.",
       "remove the entry on the Apache side, or move it before the entry that shadows it.")
_short("A2N302", "backend-url-not-translated", "error", "A backend URL or protocol has no nginx translation.",
       "the URL is not http(s)/ws(s) (for example ajp://, h2://, fcgi:// outside SetHandler) or could not be parsed.",
       "requests for this path are not proxied by the translation: a ProxyPass or ProxyPassMatch path answers "
       "502 (never the document root's files, which httpd would not serve there).",
       "proxy the path by hand (uwsgi_pass, scgi_pass, fastcgi_pass, or an HTTP listener on the backend).")
_short("A2N303", "unknown-balancer", "error", "A balancer:// URL names a balancer with no members.",
       "ProxyPass or ProxyPassReverse refers to balancer://NAME but no <Proxy balancer://NAME> with "
       "BalancerMember lines precedes it in the input.",
       "without members there is no upstream to proxy to; nothing was emitted.",
       "translate the file that defines the balancer together with this one, or define the members.")
_short("A2N304", "proxypass-context", "error", "ProxyPass stands where httpd does not honour it.",
       "ProxyPass inside <LocationMatch> is not honoured by httpd (ProxyPassMatch is the form for it).",
       "the directive had no effect on the Apache side; nothing was emitted.",
       "use ProxyPassMatch in <LocationMatch>.")
_short("A2N305", "proxypassmatch-exclusion", "error", "A ProxyPassMatch exclusion is not translated.",
       "ProxyPassMatch RE ! keeps matching requests away from later proxy rules.",
       "without it those requests may be proxied by the translation.",
       "add a regex location for RE that serves the requests locally.")
_short("A2N306", "proxy-capture-decoded", "warning", "A ProxyPassMatch path reaches the backend in another form.",
       "nginx substitutes $1..$9 (or, for a URL without them, $uri) from the decoded, normalised URI into "
       "proxy_pass without re-escaping; a regex location without a path passes the URI as the client sent it. "
       "httpd sends its canonical form: decoded, then re-escaped.",
       "an encoded CR/LF, ? or # in the request can change the backend request (request splitting).",
       "restrict captures, e.g. ([^\\r\\n?#]*), or match against $request_uri.")
_short("A2N307", "max-connections-differ", "warning", "max= becomes max_conns, which rejects instead of queueing.",
       "httpd's max bounds a per-process connection pool and waits for a free connection; nginx's max_conns "
       "returns 502 once the limit is reached (queueing needs nginx Plus).",
       "under load, clients may see 502 where Apache made them wait.",
       "size max_conns with headroom, or drop it.")
_short("A2N308", "proxy-parameter-not-translated", "warning", "A mod_proxy worker or balancer parameter is not translated.",
       "the key=value parameter has no nginx counterpart in this translator.",
       "the backend behaves with nginx's default for that aspect.",
       "check the parameter in the mod_proxy documentation and set the nginx equivalent by hand if one exists.")
_short("A2N309", "nocanon", "warning", "nocanon is approximated.",
       "with nocanon httpd sends the raw request path to the backend; nginx's proxy_pass with a URI part sends "
       "the normalised one.",
       "backends that rely on encoded characters (%2F, %3B) see a different path.",
       "use a proxy_pass without a URI part if the backend path equals the public one.")
_short("A2N339", "nocanon-merged-slashes", "info", "nocanon forwards repeated slashes that httpd merges.",
       "where the backend path is the public one, the translation's proxy_pass has no URI part, so nginx sends the "
       "request URI exactly as the client wrote it, as nocanon does; httpd still merges repeated slashes in the "
       "path first (MergeSlashes, on by default), nginx does not.",
       "a backend sees /a//b where httpd sent /a/b; encoded characters, dot segments and the query are alike.",
       "nothing, usually; normalise repeated slashes in the backend if it depends on them.")
_short("A2N310", "retry-approximated", "warning", "Apache's retry ban is approximated by max_fails/fail_timeout.",
       "after a failed connection httpd puts the worker in error state and sends it nothing for retry seconds "
       "(default 60), even when it is the only one. nginx's fail_timeout is both the window in which max_fails "
       "failures are counted and the time the server is then left out, and nginx never leaves out the only server "
       "of an upstream.",
       "failover timing differs: nginx may try a recovering server sooner, and a lone backend is never banned.",
       "tune max_fails and fail_timeout to the behaviour you want; nginx Plus adds active health checks.")
_short("A2N311", "member-path", "warning", "A balancer member has a path.",
       "httpd prefixes a BalancerMember's path to every request sent to it; nginx upstream servers have no path.",
       "the backend receives requests without that prefix.",
       "put the path into the ProxyPass URL instead.")
_short("A2N312", "backup-approximated", "warning", "A hot standby, spare or lbset became an nginx backup server.",
       "httpd's +H standby, +R spare and lbset tiers map onto nginx's single backup tier; nginx uses backup "
       "servers only when every primary server is unavailable.",
       "spares no longer replace failed members one for one, and lbset tiers above 1 collapse.",
       "review the upstream's backup servers.")
_short("A2N313", "lbmethod-approximated", "warning", "The load-balancing method is approximated.",
       "lbmethod=bytraffic balances by bytes transferred; nginx balances requests round-robin.",
       "the distribution of load differs.",
       "consider least_conn or hash in the upstream.")
_short("A2N314", "lbmethod-unsupported", "error", "The load-balancing method has no nginx equivalent.",
       "lbmethod=heartbeat relies on mod_heartmonitor data nginx does not have.",
       "the upstream falls back to round-robin.",
       "choose an nginx balancing method by hand.")
_short("A2N315", "sticky-sessions-lost", "error", "Balancer session stickiness is not translated.",
       "stickysession/route pin a client to the member named in its session cookie or URL; open-source nginx has "
       "no route-based stickiness and this translator does not yet generate the map-based emulation.",
       "clients are spread over all members; applications keeping session state per member break.",
       "emulate it with map $cookie_NAME -> per-member upstreams, or use hash $cookie_NAME consistent.")
_short("A2N316", "failonstatus-approximated", "warning", "failonstatus is approximated by proxy_next_upstream.",
       "httpd marks the member in error after such a response but still returns it; nginx retries the request "
       "on the next server (for idempotent methods).",
       "clients may get a response from another member instead of the error.",
       "accept the difference, or drop the http_NNN conditions.")
_short("A2N317", "forward-proxy", "error", "A forward proxy has no nginx equivalent.",
       "ProxyRequests On makes httpd an open forward proxy; nginx is not a forward proxy.",
       "clients using the server as a proxy get no service from the translation.",
       "use a dedicated forward proxy (for example Squid).")
_short("A2N318", "via-header", "warning", "ProxyVia On/Full is not translated.",
       "httpd adds a Via header to requests and responses; nginx does not.",
       "backends or clients that read Via see none.",
       "add proxy_set_header Via and add_header Via by hand if they are needed.")

# ------------------------------------------------------------------ A2N4xx mod_alias
_short("A2N401", "regex-redirect-order", "warning", "A RedirectMatch became a regular-expression location.",
       "httpd tries RedirectMatch in list order after ProxyPass; nginx tries regex locations in order after "
       "finding the longest prefix, and skips them under ^~ prefixes.",
       "a request under a translated prefix location is not redirected in nginx.",
       "check the regex locations' order, or move the redirect to a server-level rewrite.")
_short("A2N408", "redirectmatch-captures-refused", "error",
       "A RedirectMatch with captures and a status nginx's rewrite cannot send refuses escaped paths.",
       "httpd substitutes a RedirectMatch's captures from the decoded path and then escapes the URL (but its "
       "query), so a %-escaped CR LF in the path stays escaped in the Location. nginx's `return` writes decoded "
       "captures as they are (a CR LF among them would start a header of the client's choosing), and its "
       "`rewrite`, which escapes them, redirects with 301 or 302 only. For another status (303, 307, 308...) the "
       "translation refuses (403) a request whose path holds a character httpd escapes.",
       "such requests get 403 in nginx where httpd redirects them.",
       "use 301 or 302 for the redirect, or keep the captures to characters that need no escaping "
       "(for example `([-\\w.]+)`).")
_short("A2N402", "alias-slash-mismatch", "info", "An Alias has a trailing slash on one side only.",
       "httpd maps the URL remainder literally, so Alias /a /fs/ turns /a/x into /fs//x and Alias /a/ /fs turns "
       "/a/x into /fsx; the translation keeps this literal mapping (and so never serves outside the directory).",
       "the mapping is usually a mistake on the Apache side.",
       "use slashes on both sides or on neither.")
_short("A2N403", "aliasmatch-capture", "warning", "An AliasMatch capture could reach outside the directory.",
       "a capture substituted after a `/` in the filesystem path may contain `..` segments.",
       "that is a path traversal risk in both servers.",
       "anchor the capture so it cannot start with `..` (e.g. ([^/.][^/]*)).")
_short("A2N404", "cgi-unsupported", "error", "CGI scripts cannot run under nginx.",
       "ScriptAlias maps URLs to CGI programs; nginx runs no CGI.",
       "the URLs are refused (403) instead of running the programs (and instead of serving the document root's "
       "files there, past the target directory's access rules).",
       "run the programs through fcgiwrap and proxy to it with fastcgi_pass.")

# ------------------------------------------------------------------ A2N5xx mod_headers
_short("A2N501", "header-condition", "error", "A conditional header (env=, expr=, early) is not translated.",
       "the header depends on an environment variable or expression the translation does not carry.",
       "the header is missing from every response in the translation.",
       "express the condition with a map that yields an empty value when false, then add_header NAME $var.")
_short("A2N502", "header-format", "error", "A header value uses Apache format specifiers.",
       "%D, %t, %{VAR}e and similar are expanded by mod_headers; nginx needs variables instead.",
       "nothing was emitted for this header.",
       "rewrite the value with nginx variables ($request_time, $msec, ...).")
_short("A2N503", "header-onsuccess", "warning", "A header in httpd's onsuccess table is approximated.",
       "Header set/add without `always` applies to 2xx/3xx and to proxied 4xx/5xx responses in httpd, and `set` "
       "replaces a backend's header of the same name; nginx's add_header without `always` applies to 2xx/3xx "
       "only, so the translation hides the backend's copy and adds its own.",
       "proxied error responses lack the header in nginx.",
       "use `Header always set` if the header belongs on every response.")
_short("A2N504", "header-unset-generated", "warning", "nginx cannot remove a header it generates itself.",
       "Header unset removes any header in httpd; nginx can hide a backend's header but not its own Server, "
       "Date or similar without the headers-more module.",
       "the header is still sent.",
       "use server_tokens off for the version, or build nginx with headers-more.")
_short("A2N506", "header-append-as-line", "warning", "Header append/merge becomes another header line.",
       "httpd's append joins the value to an existing header of that name with a comma (merge only when the "
       "value is not already there); nginx's add_header sends its own line next to the backend's. For list "
       "headers (Vary, Cache-Control, Link...) HTTP defines both forms as the same list.",
       "a client reading a non-list header may see two values; merge may repeat a value the backend sent.",
       "nothing for list headers; otherwise use the headers-more module's more_set_headers.")
_short("A2N507", "request-header-edit", "warning", "RequestHeader edit changes what backends see, not nginx itself.",
       "httpd edits the request header for every later phase, including its own conditional-request checks and "
       "logs; the translation rewrites the copy sent to proxied and FastCGI backends through a map.",
       "nginx's own handling of the request (If-None-Match on static files, access logs) sees the client's value.",
       "nothing, usually: such edits target backends or httpd's own ETag suffixes, which nginx does not produce.")
_short("A2N508", "request-header-chain", "warning", "A RequestHeader builds on the client's value, not an earlier "
       "RequestHeader's.",
       "httpd applies every RequestHeader of a request in order (the main server's, the virtual host's, then the "
       "sections'), so append, merge, setifempty, edit and a conditional set work on what an earlier RequestHeader "
       "of the same header left; the translation computes each from the client's header, and the backend gets "
       "both results.",
       "the backend sees a different value (or two lines) for this header.",
       "fold the operations into one RequestHeader, or set the final value outright.")
_short("A2N509", "header-if-partial-unset", "warning", "A Header unset under <If>/<ElseIf>/<Else> applies to some "
       "requests only.",
       "httpd removes the header where the member of the expression chain that unsets it applies, after every "
       "other section (an inner <Directory>'s or <Location>'s lines too). The translation's add_header lines of "
       "the header, in the server and in the blocks inside it, send nothing there (a map); but nginx can hide a "
       "backend's copy of the header only for every request of a block, so that copy is kept where httpd removes "
       "it. An unset every member of the chain makes (with an <Else>) is translated exactly.",
       "responses where the member applies carry a backend's copy of the header, which httpd removes.",
       "unset the header in every member of the chain, or set it to the wanted value in each one.")
_short("A2N510", "htaccess-headers-server-level", "info", "A .htaccess's `Header always` lines are server-level "
       "add_headers.",
       "a .htaccess read on its own is translated as the server's configuration; httpd reads it only for requests "
       "it maps into the directory, while nginx sends server-level headers also on the 400 it answers itself for "
       "a path it cannot map (one climbing out of the root).",
       "such malformed requests carry the .htaccess's headers in nginx only.",
       "nothing, usually; or translate the .htaccess inside its <Directory> of the server configuration.")
_short("A2N511", "header-before-host", "warning", "nginx answers some malformed requests before it knows the host: "
       "with the default server's headers.",
       "nginx refuses a request line whose path climbs above the root (or holds a malformed %-escape) with 400 "
       "before it reads the Host header, from the default server of the address; httpd answers from the virtual "
       "host the Host names. The default server sends the `Header always` lines of its address's other hosts on "
       "those answers only; where hosts disagree, or the default server sets the header itself, it cannot send "
       "each host's own.",
       "the 400 for such a request carries a header this host does not send, or another host's value.",
       "give every virtual host of the address the same `Header always` security headers (e.g. in the main "
       "server config).")
_short("A2N512", "files-header-walk", "warning", "A file section's Header lines follow nginx's match of the "
       "URL's names, not httpd's directory walk.",
       "httpd matches <Files>/<FilesMatch> against the last name of the filesystem path its directory walk reached: "
       "the walk stops at the first name that is not a directory (a missing one, or a file, the rest being path "
       "info), so for /missing/a.txt or /notes.txt/a.txt the section sees `missing` or `notes.txt`, and for "
       "/page.html/x (page.html a directory) it sees `x`. nginx's nested location matches the names of the URL "
       "itself, whether its directories exist or not, and a name followed by more path (path info).",
       "an error answer (404, 403) to a URL under a missing directory or a file, or any answer under a directory "
       "named like the file, carries the section's header in nginx only.",
       "nothing, usually: the header is only added to such error answers.")
_short("A2N513", "setenvif-underscore-header", "warning", "SetEnvIf on a name with `_` that is no attribute: a "
       "request header nginx ignores.",
       "SetEnvIf's attributes are Remote_Host, Remote_Addr, Server_Addr, Request_Method, Request_Protocol and "
       "Request_URI; any other name is a request header (then a variable an earlier line set), so `SetEnvIf "
       "Query_String debug x` tests a header named Query_String, not the query string. nginx ignores a request "
       "header whose name holds `_` (ignore_invalid_headers), so the variables are translated as httpd sets them "
       "for a request without that header: matching the empty string.",
       "a request carrying such a header sets the variables in httpd only; access rules reading them are refused.",
       "if the query string was meant, test %{QUERY_STRING} with SetEnvIfExpr in httpd (a map over $args in nginx).")
_short("A2N514", "proxy-rule-location-headers", "error", "A [P] rule's proxied answer would need too many "
       "combinations of <Location> headers: refused.",
       "httpd's answer to a request a server-context RewriteRule [P] proxies carries the Header lines of the "
       "<Location>/<LocationMatch> sections matching the original URL. nginx proxies it through an internal "
       "location, of which the translation makes a copy per combination of matching sections; beyond a few "
       "combinations it refuses the rule's proxying instead (deny all), as a security header must not be lost.",
       "the URLs the rule proxies are answered 403.",
       "give the sections' Header lines to the server (or to fewer, nested sections), or translate the rule by "
       "hand.")
_short("A2N516", "header-early", "warning", "A `Header ... early` line is applied as the answer leaves.",
       "httpd applies an `early` line once, when the request is read, to the table the answer will be sent "
       "with: a backend's answer, httpd's own error or an internal redirect replaces the onsuccess table and "
       "drops it, and the header's later lines act on it. nginx has nothing that runs this early; the "
       "translation sends the line like the same line without `early`.",
       "some answers (a backend's, an error page's, an internally redirected one) carry the header, or the "
       "translation's value of it, in nginx only.",
       "drop `early` unless the header must be seen by the request's own processing.")
_short("A2N515", "header-both-tables", "warning", "A header named both by `Header always` and by an onsuccess "
       "Header line: a refused region sends the always line alone.",
       "mod_headers keeps two tables: `Header always` lines go to the one httpd sends on every answer, the others "
       "to the one it sends on the answers its handler makes (a file, a script's or a backend's answer) and drops "
       "on its own errors (403, 404, its own redirects). A header named in both comes twice on a success and once "
       "on an error. Where the translation refuses a region it cannot translate (403 where httpd may answer), "
       "nginx's refusal is an error and sends the always line alone, as httpd's errors do (an always line with "
       "a condition where it holds; where it does not, httpd's error carries no line of the header and the "
       "refusal sends the onsuccess line, as httpd's success does); where it refuses "
       "the whole server for a section it cannot place, in a region without access rules of its own or whose "
       "rules let everyone in (`Require all granted`: where httpd serves), it sends the onsuccess line too for a "
       "GET, HEAD, POST or OPTIONS naming a file (or a directory's index file; any other method gets httpd's 405, "
       "an error), and on a proxied URL (httpd relays the backend's answer, a success as a rule); in a "
       "region with access rules of its own, nginx runs them first (a login is asked with 401, as in httpd) and "
       "refuses after them, with the onsuccess line too where they let the request in to a file.",
       "a request httpd answers with success in a region nginx refuses carries the header once in nginx, twice "
       "in httpd.",
       "give the header to one table only: `Header always set` where it belongs on every answer.")
_short("A2N884", "header-status-gated-refusal-undecided", "error", "A `Header always` line gated on the status "
       "cannot follow httpd on a refusal that sends the header's onsuccess line too.",
       "a `Header always` line whose condition reads the response's status (`expr=%{REQUEST_STATUS} != 200`) goes "
       "to the table httpd sends on every answer, where its condition holds; an onsuccess Header line of the same "
       "header goes to the one httpd sends on its handler's successes only. Where the translation refuses a region "
       "(403 where httpd may answer), the refusal sends the always line's value, as its status says nothing of "
       "httpd's, and the onsuccess line's too. Where the region serves static files and the condition holds on no "
       "answer httpd makes for a file it finds (`== 404`), the refusal tells the two apart by whether the request "
       "names such a file; where it may hold there (`!= 200`: a refused section's 403), or reads more than the "
       "status, it cannot: the onsuccess line goes where the request names a file (everywhere, outside such a "
       "region) beside the always line, and the header's value there follows neither httpd's success nor its "
       "error.",
       "on the refusal, the header carries both values where httpd sends one of them: a security header's value "
       "differs from httpd's.",
       "give the always line an unconditional value (or gate it on what the request says, not the status), or "
       "make the refused section one the translation can place.")
_short("A2N517", "header-env-https", "warning", "A header on env=HTTPS is sent on every TLS answer.",
       "mod_ssl sets HTTPS=on in its fixup, after the request's access checks and the redirects of Redirect and "
       "server-level RewriteRule: an answer httpd makes before it (an access refusal, a refused path, such a "
       "redirect) does not see the variable and carries no header conditioned on env=HTTPS. nginx's $https "
       "holds for every request of a TLS connection.",
       "a refusal or redirect on a TLS connection carries the header in nginx only.",
       "none needed for Strict-Transport-Security and the like: sending them on every TLS answer is what is meant.")
_short("A2N518", "header-server-port-redirect", "warning", "A header condition on %{SERVER_PORT} reads the client's "
       "port after an internal redirect too.",
       "with UseCanonicalName Off httpd's SERVER_PORT is the port the client named (Host header or absolute URI), "
       "else the ServerName's or the scheme's; an internal redirect (a directory's index, an ErrorDocument page) "
       "parses its new URI, which names no port, so there httpd reads the ServerName's or the scheme's port. "
       "nginx keeps the client's port for the whole request.",
       "on a directory's index or an error page asked with a port in Host, the header may be sent in one server "
       "only.",
       "test the port of the listening socket with a <VirtualHost> of its own instead of %{SERVER_PORT}.")
_short("A2N525", "header-unset-env-earlier-lines", "warning", "A `Header unset` with env= empties the "
       "earlier lines of the header where the condition holds.",
       "httpd runs a block's Header lines in order, after those of the blocks it merges before it (the server, "
       "an enclosing <Directory> or .htaccess), so `Header unset NAME env=VAR` takes away what the lines before "
       "it set, for the requests VAR is set for. nginx cannot take a header away: the earlier lines send their "
       "value through a map that is empty where the condition holds, which is the same answer. "
       "A backend's own NAME header is not hidden (proxy_hide_header has no condition).",
       "on a proxied answer, a NAME header the backend sends reaches the client from nginx where httpd removed "
       "it.",
       "if the backend sends the header, hide it for every request (`Header unset NAME` without a condition) or "
       "remove it at the backend.")
_short("A2N505", "header-action-unsupported", "error", "A header action has no nginx translation.",
       "append, merge, edit, setifempty, echo and note need a map over the backend header or a third-party "
       "module.",
       "nothing was emitted for this directive.",
       "implement it with a map on $upstream_http_NAME, proxy_hide_header and add_header.")

# ------------------------------------------------------------------ A2N6xx logging
_short("A2N601", "log-field-approximated", "warning", "A log format field has a slightly different meaning in nginx.",
       "the Apache field maps to an nginx variable whose value differs in unit or timing (see the message).",
       "log processing that relies on the exact value (for example microsecond %D) reads different figures.",
       "adjust the consumers of the log, or compute the value with a map.")
_short("A2N602", "log-field-missing", "warning", "A log format field has no nginx equivalent.",
       "the field (or a status-conditional field) cannot be expressed with nginx variables; `-` is logged instead.",
       "the log lines lack that information.",
       "drop the field, or log a related nginx variable.")
_short("A2N603", "piped-log", "error", "Piped logs have no nginx equivalent.",
       "`CustomLog \"|program\"` or `ErrorLog \"|program\"` feed a program; nginx writes files or syslog.",
       "nothing is logged there by the translation.",
       "log to a file and rotate it, or to syslog:server=unix:/dev/log.")
_short("A2N604", "standard-log-format", "info", "A standard log format name was taken from Debian's apache2.conf.",
       "the site file uses a nickname (combined, common, vhost_combined, ...) that the full server configuration "
       "defines; Debian's definition is used.",
       "if the real server defines it differently, the log lines differ.",
       "translate the full server configuration, or define the format in the file.")
_short("A2N605", "undefined-log-format", "warning", "A CustomLog names a format that is not defined.",
       "httpd logs the nickname text literally when no LogFormat defines it.",
       "the log contains that text instead of request data (the translation does the same).",
       "define the LogFormat or fix the nickname.")
_short("A2N606", "conditional-log", "warning", "A conditional CustomLog logs every request in nginx.",
       "env= and expr= conditions depend on environment variables the translation does not carry.",
       "requests Apache did not log are logged.",
       "add `if=$var` to access_log with a map that is empty or 0 for requests not to log.")
_short("A2N607", "log-level-approximated", "warning", "Per-module or trace log levels are approximated.",
       "nginx has one error_log level; trace1-8 map to debug, which needs a debug build of nginx.",
       "the error log is more or less verbose than httpd's.",
       "set error_log's level by hand.")

# ------------------------------------------------------------------ A2N7xx other modules
_short("A2N701", "unknown-ratelimit-variable", "warning", "A rate-limit variable is not one mod_ratelimit reads.",
       "mod_ratelimit reads only rate-limit (KiB/s) and rate-initial-burst; httpd ignores others such as "
       "rate-limit-period, and so does the translation.",
       "the setting suggests a request-rate limit that never existed: mod_ratelimit limits bandwidth.",
       "remove it, or use limit_req if a request rate limit is wanted.")
_short("A2N702", "environment-variable", "error", "SetEnv is not carried into nginx.",
       "httpd passes environment variables to CGI/FastCGI programs and to other modules' conditions.",
       "programs or conditions reading the variable see nothing.",
       "add fastcgi_param NAME value (FastCGI) or a map feeding the condition.")
_short("A2N717", "setenvif-region-reader", "error", "A variable set by a per-directory SetEnvIf is read where its region only partly applies.",
       "httpd merges the SetEnvIf lines of every section a request falls in; a reader (Header env=, "
       "RequestHeader env=, CustomLog env=) at the server level or in another section sees the per-directory "
       "value for some requests only, and nginx would need a different variable per location.",
       "the header is not sent (or the log condition tests the server-level value) where httpd has the "
       "per-directory value; a Header's env= condition is instead taken to hold for every request, so that "
       "header is also sent where httpd would not send it.",
       "move the SetEnvIf line into the section that reads the variable (or the reader into the section of "
       "the line), or write a map per nginx location by hand.")
_short("A2N715", "setenvif-not-in-script-env", "error", "A variable set per directory by SetEnvIf does not reach scripts or SSI pages.",
       "httpd hands every variable of the request's environment to CGI and FastCGI programs and to SSI's "
       "`echo var`; the translation passes the server-level SetEnvIf variables as fastcgi_param and as nginx "
       "variables SSI can echo, but a variable that per-directory SetEnvIf lines also set would need a value "
       "per nginx location, so it is not passed at all.",
       "the programs see the variable unset, and SSI pages echo `(none)`, where httpd gives them its value.",
       "set the variable at the server level, or pass it by hand with fastcgi_param / set in the locations of "
       "the directory.")
_short("A2N716", "setenvif-empty-in-script-env", "warning", "A SetEnvIf variable set to the empty string reaches scripts as unset.",
       "a SetEnvIf line can set a variable to the empty string; nginx's variable cannot tell that from unset, "
       "so the FastCGI parameter is left out (if_not_empty) and SSI echoes it as unset.",
       "a program testing whether the variable exists, or an SSI page echoing it, sees it unset where httpd has "
       "it empty.",
       "give the variable a non-empty value.")
_short("A2N703", "ratelimit-without-filter", "info", "SetEnv rate-limit without the RATE_LIMIT filter has no effect.",
       "mod_ratelimit only acts where SetOutputFilter RATE_LIMIT is set.",
       "nothing; the translation emits nothing either.",
       "add the filter on the Apache side if a bandwidth limit was intended.")
_short("A2N704", "deflate-as-gzip", "warning", "mod_deflate becomes gzip with small differences.",
       "nginx compresses text/html whenever gzip is on, and gzip_proxied decides from the request's Via header.",
       "a few responses are compressed differently.",
       "adjust gzip_types and gzip_proxied if it matters.")
_short("A2N705", "trusted-proxy-approximated", "warning", "RemoteIPTrustedProxy trusts more in nginx.",
       "httpd ignores private addresses reported by trusted (non-internal) proxies; nginx accepts them.",
       "a client behind such a proxy can claim an internal address.",
       "use RemoteIPInternalProxy semantics knowingly, or filter with geo/map.")
_short("A2N706", "remoteip-trusts-everyone", "error", "RemoteIPHeader without a proxy list trusts every client.",
       "without RemoteIPInternalProxy/TrustedProxy httpd takes the client address from the header of any client; "
       "the translation keeps that with set_real_ip_from 0.0.0.0/0 and ::/0.",
       "any client can choose the address access rules and logs see: a security risk on both sides.",
       "list the real proxies with RemoteIPInternalProxy (set_real_ip_from).")
_short("A2N707", "status-page", "warning", "server-status became stub_status.",
       "nginx's stub_status shows a few counters instead of httpd's scoreboard.",
       "monitoring that parses the page must change; the page must stay protected by its access rules.",
       "check that the location keeps the Require rules of the original.")
_short("A2N708", "balancer-manager", "error", "balancer-manager has no nginx equivalent.",
       "the runtime balancer UI of httpd needs nginx Plus's API in nginx.",
       "nothing is served at that URL; never expose a substitute without authentication.",
       "drop it, or use nginx Plus.")
_short("A2N760", "setenv-fastcgi-param", "warning", "SetEnv became a fastcgi_param.",
       "httpd puts the variable into the request's environment, which CGI and FastCGI programs receive and its "
       "modules' conditions (Header env=, CustomLog env=, %{VAR}e in formats) read; nginx has no request "
       "environment, so the translation passes it to FastCGI programs only.",
       "a header, log line or other condition keyed on the variable behaves as if it were unset.",
       "where such a condition matters, express it with an nginx variable (set or map) by hand.")
_short("A2N761", "add-encoding", "warning", "AddEncoding became a Content-Encoding header from a map.",
       "httpd sets the encoding of files whose name has the extension; the translation adds the header from a map "
       "over the URI (httpd's mod_mime also sets it on proxied responses for such URLs, and so does the map). Where "
       "gzip is on and the file's type is in gzip_types, nginx compresses it once more (httpd's mod_deflate leaves "
       "encoded files alone).",
       "a client may receive a doubly encoded body.",
       "add `gzip off;` where these files are served if gzip is on for their types.")

# ------------------------------------------------------------------ A2N2xx core (continued) and TLS
_short("A2N209", "directory-index-disabled", "warning", "DirectoryIndex disabled answers directories with 403.",
       "nginx's index module cannot be switched off; the translation gives it an absolute entry, an internal "
       "redirect to a location that answers 403, as httpd does for a directory without Options Indexes, after a "
       "relative entry no directory holds, which answers 404 where the URL names no directory (a file followed "
       "by `/`, a missing name), as httpd does.",
       "httpd lists the directory where Options Indexes is on: nginx answers 403.",
       "nothing, or serve listings with an explicit `autoindex on;` location.")
_short("A2N210", "directory-index-absolute", "warning", "An absolute DirectoryIndex entry was not last.",
       "nginx accepts a URL (absolute) index entry only as the last one; later entries are dropped.",
       "requests that Apache answered with a later entry behave differently.",
       "put the absolute entry last on the Apache side.")
_short("A2N211", "error-document-message", "warning", "An ErrorDocument message is served from a named location.",
       "httpd sends the quoted text as the error body; the translation returns the same text from a named "
       "location with default_type text/html.",
       "the Content-Type may differ from httpd's.",
       "nothing, or serve an HTML file instead.")
_short("A2N212", "server-tokens", "warning", "ServerTokens is approximated by server_tokens.",
       "nginx can only send `Server: nginx` (off) or nginx/VERSION (on); httpd's banner text differs.",
       "clients and scanners see a different Server header.",
       "nothing, unless the exact banner matters (that needs headers-more).")
_short("A2N213", "trace-method", "warning", "nginx never answers TRACE.",
       "TraceEnable on (httpd's default) echoes TRACE requests; nginx always returns 405.",
       "clients using TRACE for debugging get 405 (which is safer).",
       "nothing, usually.")
_short("A2N214", "default-charset", "warning", "AddDefaultCharset is approximated by charset.",
       "httpd adds the charset only to text/html and text/plain responses without one; nginx's charset applies "
       "to the charset_types it serves or proxies.",
       "a few responses may carry a different charset parameter.",
       "check the Content-Type of dynamic responses.")
_short("A2N215", "types-config", "warning", "TypesConfig uses nginx's mime.types instead.",
       "Apache's mime.types file has another format; the translation includes nginx's own mime.types.",
       "a few extensions map to different types.",
       "convert custom entries to a types {} block.")
_short("A2N216", "canonical-name", "warning", "UseCanonicalName On is approximated.",
       "nginx uses server_name in its own redirects (server_name_in_redirect on) and the listening port.",
       "behind port mapping, redirects may carry a different port.",
       "consider absolute_redirect off or port_in_redirect off.")
_short("A2N217", "h2c", "warning", "HTTP/2 over cleartext (h2c) has no nginx equivalent.",
       "httpd upgrades HTTP/1.1 connections to HTTP/2 with h2c; nginx does not.",
       "cleartext clients stay on HTTP/1.1.",
       "nothing, or enable HTTP/2 on the TLS listeners.")
_short("A2N218", "no-tls-protocol", "error", "SSLProtocol enables no protocol.",
       "after httpd's left-to-right arithmetic no TLS version remains.",
       "httpd would not start; nothing was emitted.",
       "fix SSLProtocol.")
_short("A2N219", "session-cache-type", "error", "The TLS session cache type is not translated.",
       "only caches on the local machine (shmcb, shm; dbm with A2N228) have an nginx equivalent "
       "(ssl_session_cache shared:...); nginx has no session cache shared between machines (dc:, memcache:, "
       "redis:).",
       "sessions are not cached across workers, let alone across the machines that shared them.",
       "use ssl_session_cache shared:SSL:10m by hand; across machines, session tickets with a shared "
       "ssl_session_ticket_key resume sessions instead.")
_short("A2N228", "session-cache-dbm", "warning", "A DBM session cache became a shared memory zone of 10m.",
       "httpd's dbm: cache is a file on the local disk shared by all its processes and virtual hosts, as nginx's "
       "ssl_session_cache shared:SSL zone is by its workers and servers; but the DBM file grows without bound "
       "(entries leave only when they expire), where the 10m zone holds about 40000 sessions and drops the "
       "oldest when it is full.",
       "under more sessions than the zone holds, some clients make a full handshake where httpd resumed theirs.",
       "raise the zone's size to the sessions alive within SSLSessionCacheTimeout at peak.")
_short("A2N220", "certificate-chain-file", "warning", "SSLCertificateChainFile must be merged into the certificate.",
       "nginx reads intermediate certificates from the ssl_certificate file itself.",
       "clients that need the chain fail to verify the server.",
       "concatenate the certificate and the chain into one file and point both servers at it.")
_short("A2N221", "per-path-client-cert", "error", "A per-path client certificate requirement is not translated.",
       "SSLVerifyClient inside <Location> makes httpd ask for a certificate for that path only.",
       "the path is not protected by a client certificate in the translation: a security loss.",
       "set ssl_verify_client optional on the server and check $ssl_client_verify in the location.")
_short("A2N222", "client-cert-cve", "warning", "Client-certificate servers need nginx 1.26.3/1.27.4 or later.",
       "older nginx lets a TLS 1.3 session resumed from another virtual host skip ssl_verify_client "
       "(CVE-2025-23419).",
       "a client without a certificate may reach the protected server.",
       "run nginx 1.26.3+ (stable) or 1.27.4+, or give the server its own listening address.")
_short("A2N223", "ocsp-stapling", "warning", "OCSP stapling needs a resolver in nginx.",
       "nginx fetches OCSP responses itself and needs `resolver`; responses are cached per worker.",
       "without a resolver nothing is stapled.",
       "add resolver with your DNS servers.")
_short("A2N224", "backend-certificate-checks", "warning", "nginx checks backend certificates less than httpd.",
       "httpd checks the backend certificate's name and expiry even with SSLProxyVerify none; nginx checks "
       "nothing unless proxy_ssl_verify is on.",
       "a backend with a wrong or expired certificate is accepted by nginx: a security loss on untrusted networks.",
       "set proxy_ssl_verify on with proxy_ssl_trusted_certificate and proxy_ssl_name.")
_short("A2N227", "openssl-conf-command-version", "error", "SSLOpenSSLConfCmd needs nginx 1.19.4 or later.",
       "the command becomes nginx's ssl_conf_command, which exists from nginx 1.19.4 (built with OpenSSL 1.1.0+); "
       "the target nginx is older, so nothing was emitted. The group commands (Curves, Groups, ECDHParameters) "
       "become ssl_ecdh_curve on any version.",
       "OpenSSL runs with its defaults for that setting instead of the configured value.",
       "target a newer nginx (--nginx-version), or express the setting with nginx's own ssl_* directives.")
_short("A2N709", "expires-overrides-backend", "warning", "mod_expires becomes nginx's expires.",
       "nginx's expires sets Expires and Cache-Control on every matching response, replacing a backend's; httpd "
       "leaves a response that already has Expires alone.",
       "proxied responses that set their own caching headers get nginx's instead.",
       "scope the expires map away from proxied locations, or map $upstream_http_expires to off first.")
_short("A2N712", "expires-modification-mixed", "error", "A modification-based expiry is mixed with access-based "
       "ones.",
       "nginx's expires counts from the file's modification only with its own `modified` argument, for every "
       "value of its variable; a Content-Type map cannot give one type an access-based time and another a "
       "modification-based one, and a value \"modified 1h\" from a variable sets no header at all.",
       "responses of the named type get no Expires or Cache-Control from nginx.",
       "use access-based times for every type, or give the modification-based types a <FilesMatch> of their own.")
_short("A2N713", "expires-modification-stale", "info", "A modification-based expiry of an old file reads "
       "differently.",
       "for a file modified longer ago than the period, httpd sends `Cache-Control: max-age=0` and an Expires of "
       "the response's time; nginx sends `Cache-Control: no-cache` and the Expires in the past.",
       "both say the response is stale at once; a cache may treat no-cache as stricter.",
       "nothing, usually.")
_short("A2N710", "etag-format", "warning", "FileETag is approximated.",
       "nginx's ETag is always derived from modification time and size; httpd's components are configurable.",
       "ETags differ between the servers, so caches revalidate once after the switch.",
       "nothing, usually.")
_short("A2N711", "encoded-slashes", "error", "nginx decodes %2F in paths.",
       "with AllowEncodedSlashes Off (the default) httpd answers 404 to a path containing %2F; with NoDecode it "
       "keeps it encoded. nginx always decodes it to /.",
       "a request httpd refused can reach a location or backend in nginx.",
       "return 404 for $request_uri ~* %2F where that matters.")
_short("A2N319", "proxy-slash-mismatch", "warning", "ProxyPass path and URL disagree on the trailing slash.",
       "httpd appends the rest of the request path to the URL literally: ProxyPass /a http://b/ sends /a/x as "
       "//x, and ProxyPass /a/ http://b/c sends /a/x as /cx. The translation reproduces it.",
       "backends often treat the doubled or missing slash differently from what was intended.",
       "give both sides a trailing slash, or neither.")
_short("A2N740", "directory-not-translated", "error", "A <Directory> section is not translated.",
       "plain directory paths are mapped to the URLs that reach them; regular-expression (<DirectoryMatch>, "
       "<Directory ~>) and wildcard paths, and directories nested in other sections, are not.",
       "nothing inside it is emitted; when it holds access rules the whole server is refused (deny all), since "
       "nginx cannot tell which URLs it covers.",
       "write the directory out as a plain path, or add its rules to the nginx locations by hand.")
_short("A2N773", "wildcard-directory-unreached", "info", "A wildcard <Directory> applies to no directory the server "
       "serves from.",
       "a <Directory> with a wildcard path (/home/*/public_html) is not translated; when no DocumentRoot or Alias "
       "target can lie under it (UserDir disabled, as RHEL ships it), no request reaches it in httpd either.",
       "nothing: no request is answered from under it.",
       "nothing; if a per-user or other directory is meant to be served, map it with an Alias.")
_short("A2N741", "files-not-translated", "error", "A <Files> or <FilesMatch> section is not translated.",
       "file sections become regular-expression locations nested where they apply; a pattern that names a "
       "directory (`/`) or anchors inside the name, or a file section inside <Location>, is not translated.",
       "nothing inside it is enforced by nginx; where it holds access rules, the region it stands in (the whole "
       "server outside any section) is refused to everyone instead.",
       "add a `location ~ ... { deny all; }` (or what the section says) by hand.")
_short("A2N742", "access-refused", "error", "An access rule nginx cannot check exactly: the region is refused.",
       "Require host and forward-dns, Allow from a host name, Require env/expr and SSLRequire on what nginx "
       "cannot know at that point (variables set by rewrites or expressions, time, integer comparisons, IPv6 "
       "networks in conditions), Digest/LDAP/DBM authentication and some Require combinations have no exact "
       "nginx form. Rather than serve what httpd might refuse, the translation refuses the region to everyone "
       "(`deny all`).",
       "clients httpd admitted get 403 from nginx.",
       "express the rule with Require ip, Require valid-user (AuthType Basic, AuthUserFile) or Require all, or "
       "put the check in front of nginx (auth_request to a service that implements it).")
_short("A2N743", "options-outside-directory", "error", "Options outside <Directory> is only partly translated.",
       "in <Location> or <Files> httpd applies Options only partly (it checks symlinks in its directory walk, "
       "before these sections merge; only mod_rewrite's own check reads their symlink options), but "
       "mod_autoindex reads their Indexes: the translation carries it into a <Location>'s nginx locations "
       "(autoindex on or off). Where the section cannot be placed (an <If>, a <DirectoryMatch>, a <Files> "
       "matching every directory request) and may refuse listings, listings are off in the whole server.",
       "the other options have no effect in the translation; where listings were turned off, nginx refuses "
       "(403) listings httpd serves outside the section.",
       "move Options into the <Directory> it is meant for.")
_short("A2N744", "htaccess-overrides", "warning", "AllowOverride lets .htaccess files change this directory.",
       "httpd reads .htaccess files in every request under the directory and applies what they say (access "
       "rules included); nginx never reads them.",
       "whatever those files say is not in the translation unless they are converted too.",
       "convert them: `apache2nginx convert --docroot DIR` reads every .htaccess the configuration honours.")
_short("A2N745", "rewrite-before-access", "error", "Per-directory rewrites would run before the access rules.",
       "httpd runs .htaccess/<Directory> rewrite rules after authentication and authorization; nginx runs a "
       "location's rewrite directives first, and a rewrite to another location leaves this one's allow/deny "
       "and auth_basic behind.", "a request can reach the rewrite target without passing the access rules.",
       "repeat the access rules in the locations the rules rewrite to (or in the server).")
_short("A2N747", "files-section-segments", "warning", "A refusing file section also covers directories of that name.",
       "httpd matches <Files>/<FilesMatch> against the name of the file a request resolves to; a URL alone does not "
       "say which segment is the file (`/x.php/info` runs x.php with path info). The translation applies the "
       "pattern to every path segment, so path info after a refused file stays refused (a PHP location would "
       "otherwise run it), and a directory whose name matches is refused too.",
       "a directory whose name matches the pattern (e.g. `.well-known` under `^\\.`) is refused by nginx; and "
       "where the file does not exist, nginx still applies the section's rules to its URL (a login or a refusal) "
       "while httpd answers 404, and OPTIONS with 200 and its Allow (httpd answers OPTIONS without a file): httpd "
       "matches the section against the first path segment that does not exist (/missing-dir/.htpasswd is seen "
       "as `missing-dir`), which a rewrite's or an Alias's target may hold where the URL does not. A `Header "
       "always` line whose condition reads the status (`expr=%{REQUEST_STATUS} == 404`) is sent with its value on "
       "nginx's 401 or 403 there, so httpd's own 401 or 403 for an existing file may lack it; and nginx's 401 or "
       "403 in place of httpd's 404 carries the headers of that answer (the challenge, the `Header` lines its "
       "ErrorDocument page is sent with) that httpd's 404 does not.",
       "add a `location ^~ /.well-known/ { ... }` (or the directory concerned) that grants it.")
_short("A2N748", "htaccess-not-allowed", "error", "A .htaccess holds a directive its AllowOverride forbids.",
       "httpd answers 500 Internal Server Error for every request under that directory when its .htaccess holds "
       "a directive outside the classes AllowOverride permits.",
       "the translation refuses those requests (403) rather than apply part of the file.",
       "remove the directive or widen AllowOverride, then convert again.")
_short("A2N778", "htaccess-override-per-server", "error",
       "Servers read a .htaccess under different AllowOverride settings while the main server answers too.",
       "a virtual host's own <Directory> AllowOverride decides what httpd allows in a .htaccess for that virtual "
       "host alone, so the same file can be applied in one server, refused (500) in another and unread in a "
       "third. The translation gives each virtual host its own reading; a section for the main server, which "
       "also answers requests here, would reach every virtual host.",
       "the translation refuses every request under the directory (403) rather than apply the file where httpd "
       "does not, or leave it out where httpd applies it.",
       "set AllowOverride for the directory the same way in every server (or in the main server only), or let "
       "virtual hosts answer every port.")
_short("A2N779", "access-file-name-per-server", "error",
       "Servers' AccessFileName lists name different per-directory files of one directory.",
       "httpd reads, in each directory, the first file of the server's AccessFileName list that the directory "
       "holds, and only that one; a virtual host with its own AccessFileName can so read another file of the "
       "directory than the main server or another virtual host, or none.",
       "the translation refuses every request under the directory (403) rather than apply one server's file to "
       "all of them.",
       "give every server the same AccessFileName, then convert again.")
_short("A2N749", "htaccess-tree", "info", "The .htaccess files of a document root were read.",
       "convert --docroot walks the directory, reads every .htaccess httpd would honour (AllowOverride is not "
       "None for its directory) and translates each as the <Directory> section httpd merges it as.",
       "nothing; later edits to those files need another conversion.", "convert again after editing them.")
_short("A2N750", "exec-cgi", "warning", "Options ExecCGI: CGI handlers outside the input are not seen.",
       "httpd runs a CGI (or mod_fcgid) script in this directory when a handler names it: SetHandler or AddHandler "
       "cgi-script, a ScriptAlias, RewriteRule [H]. The translation honours ExecCGI in every handler it translates "
       "(fcgiwrap where it holds, 403 where it does not), but a handler set in a file outside this input, such as "
       "the main server config's AddHandler cgi-script, is not seen.",
       "files such a handler would run are sent as they are, which can disclose their source.",
       "translate the full server configuration, or add a fcgiwrap location (`location ~ \\.cgi$`) for them.")
_short("A2N751", "multiviews", "warning", "Options MultiViews: no content negotiation in nginx.",
       "httpd finds /doc as doc.html (or doc.en.html, by Accept-Language); nginx looks up the exact name only.",
       "extensionless URLs answer 404.", "add `try_files $uri $uri.html $uri/ =404` where they must work.")
_short("A2N752", "server-side-includes", "warning", "Options Includes: server-side includes are not translated.",
       "mod_include parses .shtml (or XBitHack) pages; nginx's ssi module understands a different subset.",
       "pages are sent with their <!--#include --> comments unprocessed.",
       "turn on `ssi on;` for those locations after checking the directives they use.")
_short("A2N757", "ssi-dialect", "warning", "Server-side includes became nginx's ssi module, a different dialect.",
       "where httpd's INCLUDES filter and Options Includes (or IncludesNOEXEC) meet, the translation turns on "
       "`ssi` (with `ssi_types *` for SetOutputFilter and AddOutputFilter, the listed types for "
       "AddOutputFilterByType; by extension in a nested regex location). nginx's ssi has include, echo, set, "
       "config, block and if, but no exec, fsize, flastmod or printenv; its `if expr=` knows `$v`, `$v = text`, "
       "`$v != text` and /regex/, not httpd's ap_expr; a failed directive prints a different error text; and "
       "nginx parses text/html wherever ssi is on, even when httpd attached the filter to other types only.",
       "pages that use those commands or expressions render differently (an error text in place of the "
       "output); with Options Includes (not IncludesNOEXEC) httpd also runs <!--#exec--> commands, nginx never.",
       "check the SSI commands the pages use; rewrite exec as `<!--# include virtual= -->` of a CGI/FastCGI URL "
       "and expressions in nginx's form.")
_short("A2N758", "ssi-not-translated", "error", "Server-side includes httpd parses are not translated here.",
       "httpd parses these responses (the INCLUDES filter with Options Includes, or XBitHack on an executable "
       "file) but nginx cannot say the same: it cannot test a file's execute bit, a subdirectory that changes "
       "its parent's SSI setting would put both settings into one nginx location, and a filter inside "
       "<Location>, by extension inside <Files>, or shadowing a deeper <Files> section is not translated.",
       "nginx parses those responses differently: unparsed where httpd parses them (the <!--#...--> commands "
       "left in, included parts missing), or parsed where httpd sends them as they are.",
       "add `ssi on;` or `ssi off;` (and `ssi_types`) by hand in the locations concerned, or rename XBitHack pages to .shtml "
       "and attach the filter by extension.")
_short("A2N759", "ssi-setting", "warning", "A mod_include setting with no (or a different) nginx equivalent.",
       "SSITimeFormat, SSIUndefinedEcho, SSIStartTag, SSIEndTag, SSIErrorMsg and SSIETag have no nginx directive "
       "(nginx's defaults equal httpd's, except the error text); SSILastModified on becomes ssi_last_modified, "
       "which keeps a weak ETag; SSILegacyExprParser on selects an expression syntax nginx only partly shares.",
       "parsed pages show dates, undefined variables and errors in nginx's default form, or carry other "
       "validators.", "set the format in the pages themselves (`<!--# config timefmt=... errmsg=... -->`).")
_short("A2N762", "ssi-filter-unparsed", "warning", "The INCLUDES filter is attached where Options Includes is off.",
       "httpd parses nothing there (the filter removes itself), but its set-up already ran: those files are "
       "sent without an ETag and a conditional request never gets 304 Not Modified. nginx sends them as "
       "plain files, with ETag and 304s.", "only the caching validators differ; the content is the same.",
       "nothing, unless clients must not revalidate (then `etag off; if_modified_since off;` for those files).")
_short("A2N753", "accept-path-info", "warning", "AcceptPathInfo On is not translated.",
       "httpd serves /file.html/extra as file.html with PATH_INFO=/extra; nginx's static module answers 404.",
       "such URLs answer 404.", "rewrite them onto the file in a location if they must work.")
_short("A2N754", "password-hashes", "warning", "Some password hashes may not be checked by nginx.",
       "nginx's auth_basic checks $apr1$ and {SHA} itself and hands everything else to the system crypt(3). "
       "bcrypt ($2y$) works only where crypt(3) is libxcrypt (Debian 12 and later); a hash in no known form "
       "never matches.", "those users cannot log in through nginx.",
       "re-create their passwords with `htpasswd -m` (apr1) or make sure the system crypt(3) knows bcrypt.")
_short("A2N755", "group-file-read", "warning", "AuthGroupFile was read at conversion time.",
       "nginx has no group files: the members of the groups a Require group names are written into the "
       "translation as a test on the user name.", "a later change to the group file is not seen by nginx.",
       "convert again after editing the group file.")
_short("A2N756", "access-repeated-headers", "warning",
       "An access decision reads a request header: nginx before 1.23 sees only its first copy.",
       "a Require env (through SetEnvIf on a header), Require expr, SSLRequire or <If> decision tests a request "
       "header. httpd joins repeated header lines into one value (`a, b`); nginx before 1.23 reads only the first "
       "line.",
       "a request repeating the header can be decided differently: nginx decides as httpd would for the first "
       "line alone, so it admits nothing a single-header request would not be admitted for by httpd too.",
       "target nginx 1.23 or later (--nginx-version), or refuse repeated headers in front of nginx.")
_short("A2N784", "error-document-401-url", "info", "ErrorDocument 401 names a full URL, which httpd ignores.",
       "httpd refuses to redirect a 401 (the client would never see the login challenge): it logs AH00113 "
       "and ignores the directive, keeping whatever 401 document applied before. The translation leaves it out.",
       "nothing: both servers answer 401 with the challenge.",
       "remove the directive, or point it to a local document.")
_short("A2N258", "error-document-success-status", "info", "An ErrorDocument for a status below 300 is left out.",
       "httpd accepts an ErrorDocument for a status it knows below 300 (100-103, 200-208, 226) but never sends an "
       "error document for it: such an answer is no error. nginx's error_page refuses a status outside 300-599 "
       "and with it the whole configuration, so the translation leaves the directive out.",
       "nothing: neither server uses it.",
       "remove the directive.")
_short("A2N785", "rewrite-aliased-directory", "error", "Per-directory rewrite rules reached through an Alias: its URLs are refused.",
       "httpd runs a directory's rewrite rules (a <Directory> section or its .htaccess) for every URL that maps "
       "into the directory, an Alias's too; without RewriteBase a relative substitution there is not a URL of the "
       "alias. The translation places the rules under the document root's URL of the directory only, so it "
       "answers 403 for the aliased URLs rather than serve them without the rules.",
       "requests under the Alias get 403 from nginx.",
       "give the aliased directory a RewriteBase and repeat the rules in a <Location> of the alias by hand, or "
       "refuse the alias.")
_short("A2N768", "setenvif-uri-after-rewrite", "warning", "A per-directory rewrite does not run the server's SetEnvIf lines again.",
       "a per-directory RewriteRule's result is an internal redirect in httpd: the new request runs the server's "
       "SetEnvIf lines again on the rewritten URL (the old values are renamed REDIRECT_*), so a `SetEnvIf "
       "Request_URI` variable follows the new path. The translation reads those variables on the request's own "
       "path (as httpd does before its rewrites and index lookups) and sets them again from a rule's result, "
       "under its conditions too; for a variable not read from the path alone, nginx keeps the value read "
       "before the rewrite.",
       "a Header line with env= on such a variable may be sent (or not) for a rewritten request where httpd "
       "does otherwise.",
       "test the rewritten path in the Header line's own condition (expr=%{REQUEST_URI} ...), or set the variable "
       "with the RewriteRule's [E=] flag.")
_short("A2N770", "directory-slash-before-login", "warning",
       "DirectorySlash Off where a login is asked: a directory without its slash is refused before the login.",
       "with DirectorySlash Off httpd refuses (403) a directory requested without its trailing slash once the "
       "request has passed the access checks; nginx refuses it in the rewrite phase, which runs before "
       "auth_basic.",
       "a request without credentials for such a URL gets 403 from nginx where httpd answers 401 and asks for "
       "the login; with credentials both answer 403. Nothing is served that httpd refuses.",
       "nothing to do unless clients rely on the 401 there.")
_short("A2N771", "directory-slash-listing", "warning",
       "DirectorySlash Off with Options Indexes: httpd lists a directory requested without its slash.",
       "mod_autoindex lists a directory at its URL without the trailing slash when DirectorySlash is Off; "
       "nginx's autoindex lists only URLs ending with a slash and redirects the others to them.",
       "such a request gets nginx's 301 to the URL with the slash where httpd answers the listing (200).",
       "link to directories with their trailing slash.")
_short("A2N766", "fallback-into-refused-location", "warning",
       "A FallbackResource URL lies where the translation refuses every request.",
       "httpd looks the fallback URL up with a subrequest, which maps that URL and applies its own sections; the "
       "request falling back is answered as that URL is. Where the URL lies in a section the translation refuses "
       "whole (a RewriteRule inside a <Location> it does not translate, A2N805; rewrite rules under an Alias; an "
       "access rule nginx cannot check), nginx's try_files redirects internally into that refusal, so every "
       "request falling back is refused as well.",
       "requests that fall back get 403 from nginx where httpd may serve, redirect, proxy or fail them.",
       "translate the refused section by hand, or point FallbackResource at a URL outside it.")
_short("A2N767", "fallback-login-challenge", "warning", "A FallbackResource URL asks for a login its requests do not.",
       "httpd looks the fallback URL up with a subrequest; where that URL's sections differ from the request's and "
       "ask for a login, authentication runs in the subrequest, and a request without credentials is answered with "
       "the subrequest's 401, but the login challenge (WWW-Authenticate) stays with the subrequest. nginx's "
       "try_files redirects internally, and auth_basic answers 401 with its challenge.",
       "the 401 a request falling back gets carries a challenge in nginx and none in httpd (a browser shows no login "
       "prompt there); with valid credentials both serve the fallback.",
       "give the fallback URL the same access rules as the URLs that fall back to it, or a fallback outside the "
       "login's region.")
_short("A2N772", "files-rules-path-info", "warning",
       "A file section's rules other than a refusal hold for the file's own URL only.",
       "a <Files>/<FilesMatch> section that grants (or asks for a login) where its directory does not is nested "
       "as a location matching URLs that end with the file's name: matching a segment in the middle of the URL "
       "would also apply its rules to a directory of that name and everything below it, which httpd does not.",
       "a URL going on after the file's name (path info: /style.css/more) keeps the directory's rules in nginx "
       "(often 403), where httpd applies the file's rules and answers 404 (a static file takes no path info). "
       "Conversely, where a directory of the URL does not exist, httpd matches the section against that missing "
       "segment's name and keeps the directory's rules (a login, 401), where nginx applies the file's and "
       "answers 404.",
       "nothing to do: such URLs name no file in either server.")
_short("A2N867", "files-login-realm-path-info", "warning",
       "Path info after a file section's name gets its directory's login realm.",
       "a <Files>/<FilesMatch> section that asks for a login in another realm than its directory is nested as a "
       "location matching URLs that end with the file's name (A2N772). httpd also applies the section to a URL "
       "going on after a matching name that is a file (path info) or does not exist: it challenges in the "
       "section's realm, where nginx keeps the directory's login and challenges in the directory's realm.",
       "such a request gets a WWW-Authenticate naming the directory's realm from nginx, the file section's from "
       "httpd; neither serves a file there.",
       "nothing to do unless clients rely on the realm of such URLs; use one realm for both sections otherwise.")
_short("A2N774", "authtype-without-require", "warning",
       "AuthType with no Require: httpd answers every request in the region 500.",
       "mod_authz_core refuses a request whose merged configuration names an AuthType (other than None) but holds "
       "no authorization directive (AH01627, \"AuthType configured with no corresponding authorization "
       "directives\") with 500 Internal Server Error; the translation answers 500 there too.",
       "nothing differs: both servers answer 500.",
       "add the Require line the login is meant for (usually Require valid-user), or remove the AuthType.")
_short("A2N897", "authtype-without-require-satisfy-any", "warning",
       "AuthType with no Require beside Order/Allow/Deny under Satisfy Any: httpd answers 500 where the hosts "
       "refuse.",
       "Under Satisfy Any httpd serves a request its host check (Order/Allow/Deny) admits without asking for "
       "authorization; for any other address mod_authz_core finds an AuthType (other than None) with no "
       "authorization directive (AH01627) and answers 500 Internal Server Error. The translation keeps the host "
       "list: the addresses it admits are served, the others refused with nginx's 403.",
       "addresses the host check refuses get 403 from nginx where httpd answers 500.",
       "add the Require line the login is meant for (usually Require valid-user), or remove the AuthType.")
_short("A2N775", "require-user-without-authtype", "warning",
       "A Require that needs a user with no AuthType: httpd answers every request in the region 500.",
       "where the merged Require lines can only be met by a user (Require user, group, valid-user) and no AuthType "
       "(or AuthType None) applies, no authentication module runs, and httpd ends the request with 500 (AH00027, "
       "\"No authentication done but request not allowed without authentication\"), credentials or not; the "
       "translation answers 500 there too.",
       "nothing differs: both servers answer 500.",
       "add AuthType Basic, AuthName and AuthUserFile for the login, or a Require that needs no user.")
_short("A2N776", "basic-without-authname", "warning",
       "AuthType Basic with no AuthName where a login is required: httpd answers 500.",
       "mod_auth_basic needs a realm: where the merged Require lines can only be met by a user and AuthType Basic "
       "applies without an AuthName, it ends every request with 500 (AH01615, \"need AuthName\"), with credentials "
       "or without; the translation answers 500 there too (nginx would otherwise ask for the login).",
       "nothing differs: both servers answer 500.",
       "add AuthName \"...\" beside the AuthType.")
_short("A2N720", "fastcgi-files-match", "warning", "A FastCGI FilesMatch became a regex location.",
       "httpd hands a request to FastCGI when the resolved file's name matches; nginx matches the URL with a regex "
       "location guarded by try_files $fastcgi_script_name. Regex locations are not consulted for URLs under a "
       "^~ prefix location.",
       "scripts under a translated ^~ prefix (an Alias, a <Location>) are served as files instead of run.",
       "repeat the FastCGI location inside those prefix locations by hand.")
_short("A2N721", "fastcgi-server-needed", "warning", "Scripts httpd ran itself go to a FastCGI server.",
       "mod_php runs PHP inside httpd and mod_fcgid starts its FastCGI programs (FcgidWrapper) itself; nginx does "
       "neither. The translation sends those scripts with fastcgi_pass to a FastCGI server at a fixed socket "
       "(Debian's php-fpm socket, unix:/run/php/php-fpm.sock), which must be running.",
       "until a FastCGI server listens there, those scripts answer 502; its php.ini and environment may differ "
       "from mod_php's or the wrapper's.",
       "run php-fpm (or the wrapper under spawn-fcgi) on that socket, or change the fastcgi_pass lines.")
_short("A2N722", "cgi-files-through-fcgiwrap", "warning", "CGI scripts in a file section run through fcgiwrap.",
       "nginx runs no CGI programs. A <Files>/<FilesMatch> section with SetHandler cgi-script becomes a regex "
       "location that hands the script to fcgiwrap (a small FastCGI server that runs CGI programs) at "
       "/run/fcgiwrap.socket, Debian's socket, with nginx's guard (fastcgi_split_path_info, try_files) so that "
       "only existing scripts run and the rest of the path is PATH_INFO.",
       "nothing runs until fcgiwrap is installed and listening; a script that is not executable answers 403 "
       "(fcgiwrap) where httpd answers 500, and a directory named like a script 404 where httpd answers 403.",
       "apt-get install fcgiwrap (or change the fastcgi_pass socket).")
_short("A2N723", "exec-cgi-off", "info", "A CGI handler where Options ExecCGI is off answers 403.",
       "mod_cgi and mod_fcgid refuse to run a script (403, before looking for the file) where the merged Options "
       "of its directory lack ExecCGI. The translation's location for those files answers 403 the same way.",
       "none: both servers refuse these requests.",
       "grant Options +ExecCGI in the <Directory> where scripts should run.")
_short("A2N724", "exec-cgi-mixed", "error", "Options ExecCGI differs between the directories a handler covers.",
       "a server-level (or <Directory>) file section hands scripts to a CGI or mod_fcgid handler, and Options "
       "ExecCGI is on in some directories it covers and off in others (or set by a regex section). One nginx regex "
       "location serves them all, so the translation refuses them all (403) rather than run scripts httpd refuses.",
       "scripts that httpd runs in the directories with ExecCGI answer 403.",
       "move the <FilesMatch> into the <Directory> sections that grant ExecCGI.")
_short("A2N725", "ssl-std-env-vars", "warning", "SSLOptions +StdEnvVars: scripts get the SSL_* variables nginx has.",
       "httpd exports some forty SSL_* variables to CGI and FastCGI scripts of a TLS connection. nginx has "
       "variables for the protocol, cipher, session, SNI name and the client certificate's verification, "
       "subject and issuer DNs, serial and validity: the FastCGI locations send those under mod_ssl's names "
       "(only when set). Inside a <Files>/<Directory> section httpd exported them to those scripts only; nginx "
       "sends them to every script of the server.",
       "an application reading another SSL_* variable (a DN part such as SSL_CLIENT_S_DN_CN, SSL_SERVER_*, key "
       "sizes) finds it unset.",
       "add fastcgi_param lines (with a map over $ssl_client_s_dn for a DN part) for the variables it reads.")
_short("A2N726", "add-handler-extensions", "warning", "AddHandler became a regex location over the extensions.",
       "mod_mime gives a handler to every file with one of the listed extensions anywhere after the first dot of "
       "its name (case-insensitive): a.cgi, a.CGI and a.cgi.txt, but not cgi.txt. The translation's regex location "
       "matches the same names in the URL, with nginx's try_files guard, and runs only files that exist.",
       "a directory named like a script (dir.cgi/) followed by a file is sent to the handler by nginx, where httpd "
       "serves the file; and like httpd, a double extension (upload.php.jpg) runs as a script.",
       "prefer <FilesMatch \\.ext$> with SetHandler on the Apache side.")
_short("A2N730", "regex-location-overlap-refused", "error", "URLs two <LocationMatch> sections both match are "
       "refused.",
       "httpd merges every <LocationMatch> (and `<Location ~>`) section that matches a URL, in configuration order; "
       "nginx answers from the first matching regular-expression location. The translation nests in each regex "
       "location a location for every later section that may match the same URLs, with the sections' rules merged "
       "as httpd merges them. Where that cannot be laid out exactly (more than four sections over the same URLs, "
       "an earlier section whose statements read its captures, which the nested expression replaces, or several "
       "of the sections proxying), the URLs both sections match are refused to everyone (`deny all`) instead.",
       "clients httpd admitted to URLs both sections match get 403 from nginx.",
       "give the sections patterns that do not overlap, or merge them into one section.")
_short("A2N727", "directory-missing-headers", "warning", "A <Directory> missing from the document root read "
       "sends its Header always lines on 404s.",
       "httpd merges a <Directory> section only when its directory walk enters that directory, and the walk stops "
       "at the first path segment that does not exist: a section for a directory that is missing from the tree "
       "read with --docroot applies to no request, and every URL under it answers 404 without the section's "
       "headers. nginx's location for those URLs is chosen by the URL alone, and sends the section's `Header "
       "always` lines (add_header ... always) on its 404.",
       "404 answers under the missing directory carry headers in nginx that httpd does not send; once the "
       "directory exists both servers send them.",
       "create the directory, or remove the section if it is a leftover.")
_short("A2N320", "balancer-host-header", "warning", "Balancer members receive one Host header.",
       "without ProxyPreserveHost httpd sends each member its own host:port as Host; nginx sends one value for "
       "the whole upstream (the first member's).",
       "members that check their Host header (name-based virtual hosts) may answer differently.",
       "set ProxyPreserveHost On, or give the members a common name.")
_short("A2N225", "shadowed-server-name", "warning", "A server name is shadowed by an earlier virtual host's wildcard.",
       "httpd selects the first virtual host in configuration order whose ServerName or ServerAlias matches the "
       "Host header; nginx prefers exact names over wildcards. Requests for this name go to the earlier virtual "
       "host in httpd, so the translation leaves the name out of the later server.",
       "if the two virtual hosts differ (access rules, backends), keeping the name would send its requests to a "
       "different site.",
       "remove the shadowed name on the Apache side, or order the virtual hosts as intended.")
_short("A2N238", "name-taken-by-earlier-host", "warning", "A virtual host's name belongs to an earlier virtual host "
       "of its address.",
       "httpd selects the first virtual host of an address, in configuration order, whose ServerName or "
       "ServerAlias matches the Host header, so a later one never answers for a name an earlier one has. A "
       "virtual host without ServerName (and no main ServerName) is known by the machine's name, which nginx "
       "writes `$hostname`. The translation leaves such names out of the later server (nginx would warn "
       "\"conflicting server name\"), and leaves out a virtual host left with no name that is the first on none "
       "of its addresses: httpd never answers from it.",
       "nothing, when the Apache configuration meant it; a virtual host that was meant to answer is missing in "
       "both servers.",
       "give each virtual host its own ServerName, or remove the one that never answers.")
_short("A2N242", "server-name-never-matches", "info", "A ServerAlias no Host header matches in httpd is left out.",
       "httpd answers 400 to a Host header with characters other than letters, digits, `-`, `_`, `.` (and an "
       "IPv6 address in brackets), and matches an IPv6 Host without its brackets, so an alias such as `~^adm` "
       "or `[::1]` never selects its virtual host. nginx would read `~^adm` as a regular expression and match "
       "`[::1]` literally, so the translation leaves the name out.",
       "nothing: the name selects no virtual host in either server.",
       "remove the alias, or write an IPv6 address without brackets (`ServerAlias ::1`).")
_short("A2N321", "fastcgi-uwsgi-backend", "warning", "A FastCGI or uwsgi backend is approximated.",
       "ProxyPass to fcgi:// or uwsgi:// becomes fastcgi_pass/uwsgi_pass with nginx's standard parameters; "
       "httpd builds SCRIPT_FILENAME, PATH_INFO and the environment its own way.",
       "an application reading CGI variables may see different values.",
       "compare the parameters the application logs under both servers.")
_short("A2N322", "rewrite-handler", "warning", "A RewriteRule [H] handler became an internal FastCGI location.",
       "httpd runs the rule's result with the forced handler (mod_php, mod_fcgid, mod_cgi or mod_proxy_fcgi); "
       "nginx has no per-request handler, so the rule rewrites into an internal location that maps the path "
       "onto the document root and passes the file to a FastCGI server (php-fpm, fcgiwrap or the handler's "
       "own address).",
       "nothing runs until that FastCGI server listens there; the script sees nginx's CGI variables (SCRIPT_NAME "
       "names the rewritten path), and php-fpm refuses names outside its security.limit_extensions.",
       "run the FastCGI server on that address (or change fastcgi_pass) and compare what the script logs.")
_short("A2N323", "rewrite-handler-refused", "warning", "A RewriteRule [H=cgi-script] result answers 403.",
       "the rule's result maps under the document root where Options ExecCGI is off, so mod_cgi refuses to run "
       "it (403, or 404 for a missing file), and so does the translation. httpd reads a substitution whose first "
       "directory exists on its disk as a file path instead, which may be where ExecCGI is on.",
       "if the target is a filesystem path on the real server, httpd runs the program there and nginx does not.",
       "route that path to fcgiwrap by hand where Options ExecCGI allows it.")
_short("A2N324", "rewrite-redirect-status", "warning", "%{ENV:REDIRECT_STATUS} is tracked by the rules.",
       "httpd sets REDIRECT_STATUS on the request an internal redirect creates (200 after a per-directory "
       "rewrite, the error status for an ErrorDocument). nginx has no such variable: the translation sets "
       "$a2n_redirect_status to 200 where a per-directory rule redirects internally, and on an error_page pass "
       "reads the error from $status.",
       "internal redirects of other modules (an index file, a try_files fallback) are not marked, and an "
       "error_page with `=code` reports that code instead of the original error.",
       "check rules that compare REDIRECT_STATUS with particular codes by hand.")
_short("A2N325", "rewrite-map-undefined", "warning", "A RewriteMap lookup names a map this input never defines.",
       "httpd starts without the map and every lookup in it yields the lookup's default (`${map:key|default}`, "
       "observed); the translation uses the default too.",
       "the map is usually defined in a file this input does not include: with it, httpd looks keys up.",
       "convert the file that defines the RewriteMap together with this one.")
_short("A2N326", "rewrite-rule-unreachable", "info", "A RewriteRule can never match where it stands.",
       "the rule directly follows an unconditional [N] rule with the same pattern: httpd repeats that rule "
       "until its pattern no longer matches (or answers 500 at its bound), so this one never matches; nothing "
       "is emitted for it.",
       "nothing: httpd never applies the rule either.",
       "remove the rule, or give it a different pattern.")
_short("A2N328", "rewrite-url-lookup", "warning", "RewriteCond -U became a test of the path's form.",
       "-U asks httpd whether a subrequest for the URL succeeds. Where no access rule, refusing rule or "
       "per-directory rule could fail it, httpd fails it only for paths it cannot parse: a % without two hex "
       "digits, %00, an encoded slash, or %2E dot segments climbing above the root (observed on 2.4); the "
       "translation tests the path for exactly those.",
       "modules outside the configuration (or a later change adding access rules) could fail subrequests for "
       "other reasons.",
       "re-check the condition if access rules are added later.")
_short("A2N329", "rewrite-dynamic-prefix", "warning", "A per-directory substitution starts with a request-time value that may be a URL.",
       "in a per-directory context httpd adds the directory's prefix (or RewriteBase) to the expanded "
       "substitution unless it starts with `/` or is an absolute URI; the translation makes the same choice per "
       "request with a map over the expanded path. Where the value is a full URL (http://...), httpd redirects "
       "to it, which an nginx internal rewrite cannot do.",
       "a request whose value is a full URL is redirected by httpd and rewritten to a nonsense path by nginx.",
       "start the substitution with `/` or a literal path, or add [R] if a redirect is meant.")
_short("A2N330", "rewrite-redirect-filesystem-path", "warning", "A per-directory redirect carries the directory's filesystem path.",
       "without RewriteBase, httpd adds the directory's filesystem path to a relative per-directory "
       "substitution, and an [R] rule sends that path in its Location (e.g. http://host/var/www/html/blog/x); "
       "the translation redirects to the same path.",
       "clients are sent to a URL that exposes the filesystem layout and usually does not exist.",
       "add RewriteBase with the URL path of the directory, or start the substitution with `/`.")
_short("A2N331", "rewrite-file-path", "warning", "A server-context substitution is a file path to httpd.",
       "in server context httpd reads a substitution as a filesystem path when its first path segment exists on "
       "the server (mod_rewrite's prefix_stat: /usr, /var, /home, /srv, ...) and serves that file, subject to "
       "the <Directory> sections over it. The translation rewrites to the text as a URL path under the document "
       "root, which usually does not exist.",
       "httpd serves (or refuses) a file that nginx answers 404 for, or serves from a different place.",
       "add [PT] if the substitution is meant as a URL path; to serve the file, give it a URL (an Alias, or an "
       "nginx location with alias) and rewrite to that URL.")
_short("A2N332", "rewrite-file-path-url", "info", "A server-context file-path substitution became the file's URL.",
       "the substitution starts with the DocumentRoot (or an Alias target, or %{DOCUMENT_ROOT}), so httpd reads "
       "it as a filesystem path and serves that file; the translation rewrites to the URL that serves the same "
       "file in nginx.",
       "nothing, unless the file is also reachable under other URLs with different rules.",
       "nothing to do.")
_short("A2N336", "proxy-worker-unused", "warning", "ProxySet names a worker no ProxyPass of the input uses.",
       "ProxySet URL key=value (or inside <Proxy URL>) sets the parameters of the worker httpd shares among every "
       "ProxyPass to that backend. The translation puts them on the nginx upstream of those routes; here no "
       "ProxyPass of the input proxies to it, so nothing carries them.",
       "a ProxyPass to that backend in a file not translated with this one, or a RewriteRule [P] to it, runs with "
       "nginx's defaults for these parameters.",
       "translate the files holding the ProxyPass lines together with this one, or set the proxy_* timeouts there.")
_short("A2N337", "proxy-worker-shared", "warning", "ProxySet and a ProxyPass set the same worker parameter.",
       "httpd's ProxyPass lines to one backend share its worker, so a parameter set by ProxySet and again by a "
       "ProxyPass (timeout=, connectiontimeout=...) has one value for all of them: the one read last. The "
       "translation gives each nginx location its ProxyPass's own value and the others the ProxySet one.",
       "routes without their own value may time out (or keep connections) differently from httpd.",
       "set the parameter in one place: on the ProxySet, or on every ProxyPass.")
_short("A2N338", "proxy-redirect-headers", "info", "ProxyPassReverse becomes proxy_redirect.",
       "httpd's ProxyPassReverse rewrites the backend URL in the Location, Content-Location and URI response "
       "headers; nginx's proxy_redirect rewrites Location and Refresh.",
       "a Content-Location (or URI) header naming the backend reaches the client unchanged; a Refresh header is "
       "rewritten where httpd leaves it.",
       "nothing, usually; rewrite Content-Location with proxy_hide_header and add_header if clients use it.")
_short("A2N340", "proxy-server-hostname", "info", "X-Forwarded-Server names the machine by its host name.",
       "with no ServerName in the input, httpd's X-Forwarded-Server is the name it determined for the machine at "
       "startup: the fully qualified name the host name resolves to, else the host name if it has a dot, else "
       "the address it resolves to. nginx sends $hostname, the host name as the system reports it.",
       "on a machine whose host name is not its fully qualified name the backend sees another server name.",
       "add a ServerName to the input (the translation then sends it), or set the header to the name you want.")
_short("A2N341", "tls-backend-without-ssl-proxy", "error", "A TLS backend is used without SSLProxyEngine On.",
       "httpd proxies to an https:// or wss:// backend only where SSLProxyEngine is on (in the virtual host or "
       "the main server); elsewhere mod_proxy refuses the request (\"SSL Proxy requested ... but not enabled\") "
       "and answers 500. The translation answers 500 on the same paths.",
       "the proxied paths do not work in httpd as configured, nor in the translation.",
       "add SSLProxyEngine On to the virtual host (and check SSLProxyVerify, SSLProxyCACertificateFile), then "
       "convert again; the translation then passes the requests with proxy_pass https://.")
_short("A2N342", "proxy-servlet-mapping", "error", "mapping=servlet paths with parameters are not proxied.",
       "with mapping=servlet httpd matches a ProxyPass path segment by segment, each segment with or without "
       "path parameters (/app;jsessionid=1/x), and rebuilds the path it sends the backend. nginx locations "
       "match the path as written; the translation answers the requests with parameters 502 instead of "
       "guessing the path httpd would send. httpd's servlet mapping also passes a path holding %2F, which the "
       "translation refuses with 404 as httpd does elsewhere.",
       "requests whose path carries ;parameters in the proxied prefix (or %2F) fail in nginx where httpd "
       "proxies them.",
       "have the application keep session ids out of the path (cookies), or add a regex location that proxies "
       "them with the path the backend expects.")
_short("A2N343", "balancer-url-joined", "error", "A ProxyPass path with a trailing slash names a URL without a path.",
       "httpd appends the rest of the request path to the ProxyPass URL as it is. With ProxyPass / balancer://foo "
       "a request for /x becomes balancer://foox, which names no balancer, and with ProxyPass /p/ "
       "http://host:8081 a request for /p/x names the port 8081x: httpd answers 500 for every path but the "
       "ProxyPass path itself. The translation answers 500 for the same requests.",
       "the site behind the balancer is unreachable in httpd as configured, and in the translation.",
       "write both with a trailing slash (ProxyPass / balancer://foo/) and convert again.")
_short("A2N345", "rewrite-document-root-past-route", "info",
       "A RewriteRule result is a document root file that a route's URL would claim.",
       "in server context (without [PT]) httpd maps a substitution whose first path segment does not exist on the "
       "server under the DocumentRoot, and no Alias, ProxyPass or Redirect sees it: they match the request's own "
       "URL. The translation rewrites into an internal location that maps the path onto the document root, so "
       "the route claiming that URL in nginx does not answer it. Where the result is a directory, httpd's mod_dir "
       "works on the request's own URL: it redirects it to add a slash, or looks the index file up as that URL "
       "plus the index name, through the rules again. The internal location does the same, the lookup for GET "
       "and HEAD as an internal redirect to that URL.",
       "a directory reached so: where the index file is not found for the request's own URL, httpd refuses the "
       "listing (403) or tries the next DirectoryIndex name, nginx answers 404; other methods get nginx's index "
       "of the result's directory.",
       "add [PT] if the substitution is meant to reach the route.")
_short("A2N346", "rewrite-document-root-index-refused", "error",
       "A RewriteRule's directory result past a route is refused: its index lookup cannot be followed.",
       "in server context (without [PT]) httpd maps a substitution past the route that claims its URL under the "
       "DocumentRoot (A2N345), and keeps the request's own URL: where the result is a directory, mod_dir looks "
       "each DirectoryIndex name of the result's directory up as that URL plus the name, through the rules "
       "again, and refuses the listing (403) where none is found. nginx's index module would serve the result's "
       "own index file. Where the server's DirectoryIndex lists differ between directories, name a path or are "
       "`disabled`, the translation cannot follow that lookup: the internal location refuses (403) a directory "
       "result whose request URL ends with a slash.",
       "requests that reach a directory this way get 403 from nginx where httpd may serve the index file of the "
       "request's own URL or a listing; the 403 carries the Header lines httpd's answer may (the location's and "
       "its file sections', onsuccess ones too), whether or not the index file is one of those sections'.",
       "add [PT] if the substitution is meant to reach the route, end the substitution with the file's name, or "
       "give the server one DirectoryIndex list.")
_short("A2N347", "regex-route-exact-refused", "error",
       "A URL an earlier regex entry maps is refused: nginx answers it from an exact location.",
       "httpd maps a URL by ProxyPassMatch before any Alias, Redirect or later ProxyPass (and by AliasMatch before "
       "a later Alias), whatever <Location> the URL is in. The translation lays `Alias /docs` out as `location = "
       "/docs` and `location ^~ /docs/`, which nginx picks before any regex location: it nests a copy of the "
       "entry's regex location in the `^~` one, and fills the exact one with the entry's answer, its captures "
       "taken from the one URL. Where those cannot be known (an expression the translator does not read, a "
       "capture that is not plain text, a location the entry nests), the exact location refuses the URL.",
       "the one URL gets 403 from nginx where httpd proxies it or serves the regex entry's file.",
       "give the entries paths and expressions that do not overlap, or write the exact URL as its own entry.")
_short("A2N344", "proxy-encoded-mapping-slash", "warning", "mapping=encoded paths holding %2F answer 404.",
       "with mapping=encoded httpd matches the ProxyPass path against the request as the client encoded it and "
       "passes encoded slashes (%2F) to the backend even with AllowEncodedSlashes Off. The translation keeps "
       "refusing %2F with 404 for the whole server, as httpd does for every other path.",
       "a request whose path holds %2F under the proxied prefix fails in nginx where httpd proxies it.",
       "if the backend needs encoded slashes, add a location for the prefix that skips the %2F check "
       "(merge_slashes off; proxy_pass without a URI part passes the request URI as sent).")
_short("A2N333", "proxy-html-filter", "error", "mod_proxy_html's link rewriting has no nginx equivalent.",
       "with ProxyHTMLEnable On httpd parses proxied HTML and rewrites the URLs in the elements and attributes "
       "ProxyHTMLLinks and ProxyHTMLEvents name, through ProxyHTMLURLMap. nginx has no HTML parser; sub_filter "
       "replaces plain text anywhere in a response.",
       "proxied pages keep the backend's own URLs (internal host names, ports or paths), so their links break.",
       "make the backend generate public URLs (most applications have a base-URL setting), or approximate each "
       "ProxyHTMLURLMap with sub_filter and sub_filter_types text/html.")
_short("A2N327", "rewrite-location-access", "error", "A server-context rewrite crosses a <Location> with access rules.",
       "without [PT], httpd keeps the original URL for <Location> sections and only maps the rewritten path to a "
       "file, so the access rules of the original URL apply; nginx searches locations again with the rewritten "
       "URI, so a rewrite out of a protected prefix would skip its rules (and one into it would add them). A "
       "<Location> granting every request counts too: httpd merges it over the <Directory> rules of the file, "
       "so a rewrite out of it would be refused by them in nginx (and one into it would pass them). The rule is "
       "not translated.",
       "requests the rule applies to are refused (403) in nginx.",
       "add [PT] if the rewritten URL's sections are meant to apply, or repeat the access rules in the target's "
       "location by hand.")
_short("A2N406", "cgi-through-fcgiwrap", "warning", "CGI programs run through fcgiwrap.",
       "nginx runs no CGI programs. A ScriptAlias directory becomes a location that hands each request to "
       "fcgiwrap (a small FastCGI server that runs CGI programs) at /run/fcgiwrap.socket, Debian's socket. The "
       "first path segment after the prefix is the program and the rest is PATH_INFO, as for a flat cgi-bin.",
       "nothing runs until fcgiwrap is installed and listening; a program in a subdirectory is not found, and "
       "a missing program answers 403 (fcgiwrap) rather than httpd's 404.",
       "apt-get install fcgiwrap (or change the fastcgi_pass socket).")
_short("A2N407", "cgi-index-login", "warning", "A ScriptAlias directory's index is looked up before nginx checks "
       "the login.",
       "httpd checks the login of a ScriptAlias directory's own URL (/cgi-bin/) before mod_dir looks for its index "
       "file, so a request without valid credentials gets the directory's 401, without the Header lines of the "
       "file sections matching the index's name. nginx redirects to the index in its rewrite phase, before it "
       "checks credentials: the translation keeps a request without an Authorization header at the directory, "
       "but one with wrong credentials is redirected and refused as the index.",
       "the 401 for the directory's URL with wrong credentials carries the index's file-section headers in "
       "nginx only.",
       "nothing, usually: the headers are only added to that refusal.")
_short("A2N405", "redirect-raw-uri", "info", "A Redirect keeps the raw request path.",
       "the nginx redirect appends the rest of the path from $request_uri, byte for byte as the client sent it; "
       "httpd appends its decoded, slash-merged path re-escaped. They differ only for unusual URLs (// or "
       "needlessly escaped characters). Where a rewrite made the URL (or the raw path does not name the prefix), "
       "the rest is the decoded path, which nginx's `rewrite` escapes as httpd does for spaces, `\"`, `#` and "
       "`%`, but leaves `<`, `>`, `?`, `[`, `\\`, `]`, `^`, `` ` ``, `{`, `|` and `}` as they are and writes bytes "
       "past ASCII in upper-case hex.",
       "the Location of such redirects differs in form, not in the resource it names.",
       "nothing, usually.")
_short("A2N226", "static-post", "info", "nginx answers POST to a static file with 405.",
       "httpd's default handler serves a static file for POST as for GET; nginx's static module answers "
       "405 Not Allowed to any method but GET and HEAD.",
       "a form or client posting to a static URL gets an error instead of the file.",
       "nothing, usually; where it matters, add `error_page 405 =200 $uri;` to that location.")
_short("A2N229", "content-md5", "error", "ContentDigest On: nginx never sends Content-MD5.",
       "with ContentDigest On httpd computes the MD5 of each file its core serves (not of proxied or generated "
       "responses) and sends it as a Content-MD5 header; nginx has no way to compute a body digest, so the "
       "translation serves the same files without the header. ContentDigest Off, httpd's default, is exact.",
       "a client that checks Content-MD5 sees no header; one that requires it fails.",
       "drop the directive (RFC 7231 removed Content-MD5 from HTTP), or publish checksums another way.")
_short("A2N230", "vhost-alias-unknown-name", "error", "A per-host document root depends on a name nginx cannot know.",
       "with UseCanonicalName DNS httpd takes the name it interpolates from a reverse DNS lookup of the address the "
       "request came in on, and with UseCanonicalName On but no ServerName it takes the machine's own host name; "
       "nginx knows neither.",
       "no per-host document root is emitted: requests are served from the plain DocumentRoot.",
       "use UseCanonicalName Off (the Host header) or the VirtualDocumentRootIP form, or write the roots by hand.")
_short("A2N231", "vhost-alias-port", "warning", "%p in a mod_vhost_alias format is the ServerName's port.",
       "httpd's %p is the port of an absolute request URI, else of ServerName, else the scheme's default (the Host "
       "header's port is not used); the translation writes the ServerName's port or the default.",
       "a request naming a port in an absolute URI (GET http://host:8080/ ...) gets another directory in httpd.",
       "nothing, usually: browsers send absolute URIs only to proxies.")
_short("A2N232", "vhost-alias-part-maps", "warning", "Parts of the host name in a document root come from regex maps.",
       "each %N part of a VirtualDocumentRoot format is a map with a regular expression over $host; evaluating it "
       "sets nginx's numbered captures, and a map is evaluated the first time the request uses the root.",
       "a directive that reads $1... of a regex location after the root was first used in that request sees the "
       "map's captures instead.",
       "use named captures (?<name>...) in regex locations of these servers.")
_short("A2N233", "vhost-alias-directory", "error", "A <Directory> inside per-host directories is not applied.",
       "a <Directory> whose path lies at or below the part of a VirtualDocumentRoot that depends on the host applies "
       "in httpd to the hosts whose files are there; the translation maps sections to URLs through one document "
       "root, which here is a per-host expression, so the section applies to no request.",
       "its directives (access rules, options, handlers) are missing for those hosts: a security-relevant loss.",
       "write a server block for the host with its own root and repeat the section's rules there.")
_short("A2N234", "mime-dotted-extension", "info", "A mod_mime extension with a dot never matches.",
       "mod_mime splits a file name at its dots and looks every part up on its own, so an extension argument "
       "such as `css.gz` is never found (httpd accepts it silently); the type of `x.css.gz` comes from `css` and "
       "`gz` separately.",
       "nothing is emitted for it, as httpd applies nothing.",
       "remove the argument, or give the single extensions (AddEncoding gzip .gz).")
_short("A2N235", "listing-cosmetics", "warning", "nginx's autoindex listings lose a mod_autoindex setting.",
       "the input enables directory listings (Options Indexes), which become nginx's autoindex. autoindex draws a "
       "plain list: it has no icons, alt texts, descriptions, header or readme files, sort orders, style sheets "
       "or fancy-indexing options, so this directive's effect is lost.",
       "listings look different; the files listed are the same.",
       "style listings with autoindex_format xml/json and an XSLT or script, or add_before_body/add_after_body "
       "for headers and readmes.")
_short("A2N236", "listing-ignore", "error", "Files IndexIgnore hid from listings are listed by nginx.",
       "IndexIgnore keeps matching names out of httpd's directory listings. nginx's autoindex hides only names "
       "that start with a dot and has no way to hide others.",
       "backups, editor files and similar names httpd kept out of listings are shown to everyone (they could "
       "still be fetched by name in httpd too, but nobody learnt their names from a listing).",
       "refuse those names outright (location ~ pattern { deny all; }), move them out of the document root, or "
       "switch listings off.")
_short("A2N237", "client-cert-refusal", "info", "A client without a certificate is refused after the handshake.",
       "with SSLVerifyClient require httpd aborts the TLS handshake of a client that sends no certificate (a "
       "certificate_required alert); nginx's ssl_verify_client on completes the handshake and answers 400 "
       "(\"No required SSL certificate was sent\").",
       "such a client sees an HTTP 400 page instead of a TLS error; nothing is served either way.",
       "nothing to do unless clients or monitoring depend on the handshake failing.")

# ------------------------------------------------------------------ A2N8xx mod_rewrite
_short("A2N801", "rewrite-extra-arguments", "error", "A RewriteRule has more than three arguments.",
       "httpd refuses the line (\"RewriteRule: bad flag delimiters\"); usually a comment written after the flags.",
       "httpd would not start with it.", "move the comment to its own line.")
_short("A2N802", "rewrite-inherit", "error", "Inherited per-directory rewrite rules are not copied.",
       "RewriteOptions Inherit makes httpd run the parent context's rules too. Virtual hosts inheriting the main "
       "server's rules are translated; a directory or .htaccess inheriting its parent directory's are not.",
       "requests the parent's rules would rewrite are not rewritten.", "copy the parent's rules into this context.")
_short("A2N803", "rewrite-option", "warning", "A RewriteOptions switch has no nginx counterpart.",
       "edge switches (AllowAnyURI, MergeBase, ...) change how httpd matches or builds URLs.",
       "a few unusual requests may be rewritten differently.", "check the affected rules by hand.")
_short("A2N804", "rewrite-map", "error", "A RewriteMap (or a lookup in it) is not translated.",
       "txt maps become nginx map blocks read from the map file, and int:tolower of the host name becomes $host. "
       "dbm maps are binary databases, prg: maps run a program and dbd:/fastdbd: query SQL at request time; "
       "rnd maps pick at random; other int: functions have no nginx equivalent.",
       "rules that look values up in the map are not translated.",
       "export a dbm map as a txt map, or write an nginx `map $key $value { ... }` (or an auth_request / "
       "backend service for program and SQL lookups) and use the variable in the rule.")
_short("A2N805", "rewrite-in-location", "error", "Rewrite directives inside <Location> are not translated.",
       "httpd runs them per directory against the mapped file path, a combination with no clean nginx form.",
       "requests under that Location are not rewritten.", "move the rules to the server or a <Directory>.")
_short("A2N806", "rewrite-variable", "error", "A server variable has no nginx equivalent.",
       "the %{...} variable (ENV:, SSL:, TIME_*, look-aheads, ...) cannot be read in nginx by this translator.",
       "the rule that uses it was not translated.", "rewrite the condition with nginx variables by hand.")
_short("A2N807", "rewrite-backreference", "error", "A %N back-reference has no matching condition group.",
       "%N refers to a capture of the last matched RewriteCond; there is none with that number.",
       "httpd substitutes an empty string; the rule was not translated.", "fix the back-reference.")
_short("A2N808", "rewrite-test-string", "error", "A RewriteCond test string combines several values.",
       "nginx's if compares one variable; a composite test string needs a set/map first.",
       "the rule was not translated.", "build the value with `set $v ...;` and test $v.")
_short("A2N809", "rewrite-file-test", "error", "A RewriteCond file test has no nginx equivalent.",
       "-l/-L/-h (symbolic link), -F and -U (sub-request look-ups) cannot be tested in nginx.",
       "the rule was not translated.", "replace the test, or handle the case in the application.")
_short("A2N810", "rewrite-size-test", "warning", "RewriteCond -s is approximated by -f.",
       "httpd tests for a non-empty regular file; nginx can only test that the file exists.",
       "an empty file counts as present in nginx.", "nothing, usually.")
_short("A2N811", "rewrite-comparison", "error", "A lexicographic or numeric comparison has no nginx equivalent.",
       "RewriteCond <, >, <=, >=, -lt, -gt and friends compare values; nginx if only matches and tests equality.",
       "the rule was not translated.", "enumerate the values with a map, or use a regular expression.")
_short("A2N812", "rewrite-proxy", "error", "A [P] rule is not translated.",
       "the rule proxies to a URL built from the request; the translation does not generate the proxy location.",
       "matching requests are not proxied.", "use ProxyPass/ProxyPassMatch, or proxy_pass in a location by hand.")
_short("A2N880", "rewrite-proxy-past-access", "error", "A [P] rule past access rules is refused.",
       "httpd applies the access rules of the <Location>/<Directory> sections of the original URL before a "
       "RewriteRule [P] proxies it. The translation proxies through an internal location, which those rules do not "
       "reach, so the rule is not translated; left out, nginx would serve the URL's local file where httpd "
       "proxies, with other headers (httpd's proxied answer carries its onsuccess Header lines, whatever its "
       "status). The requests the rule applies to are refused (403) instead, with the headers httpd's answer "
       "could carry.",
       "requests the rule proxies get 403 from nginx where httpd answers from the backend.",
       "use ProxyPass in the <Location> (its access rules then apply to the proxied location), or proxy_pass "
       "by hand.")
_short("A2N813", "rewrite-flag", "error", "A RewriteRule flag is not translated.",
       "loops ([N]), handlers ([H]) and types forced together with a substitution or conditions ([T]) have no "
       "direct nginx form in this translator; the flag's arguments may also be malformed.", "the rule was not translated.", "translate the rule by hand.")
_short("A2N814", "rewrite-env", "warning", "[E=...] sets an nginx variable instead of an environment variable.",
       "modules that read the environment variable in httpd (logging conditions, headers, CGI) do not see it.",
       "their behaviour differs unless wired to the variable.", "use the nginx variable where it is consumed.")
_short("A2N815", "rewrite-redirect-loop", "error", "A redirect to the same URL.",
       "[R] with substitution - redirects a request to itself.", "clients loop.", "fix the rule.")
_short("A2N816", "rewrite-redirect-escaping", "warning", "A redirect target is not escaped as httpd would.",
       "without [NE] httpd escapes characters such as # and spaces in the redirect; nginx sends them as written.",
       "the Location header differs for such targets.", "escape the target or add [NE] on the Apache side.")
_short("A2N817", "dangling-rewrite-cond", "warning", "A RewriteCond is not followed by a RewriteRule.",
       "conditions apply to the next rule only; at the end of a context httpd ignores them.",
       "the condition does nothing.", "remove it or add its rule.")
_short("A2N818", "rewrite-engine-off", "info", "Rewrite rules in a context where RewriteEngine is not on.",
       "RewriteEngine defaults to off and is not inherited from the main server into virtual hosts.",
       "httpd ignores these rules; so does the translation.", "add RewriteEngine On if the rules are meant to run.")
_short("A2N819", "https-static", "info", "A %{HTTPS} condition is decided per server.",
       "on a plain-HTTP server %{HTTPS} is always off, on a TLS server always on; the rule is kept or dropped "
       "accordingly, with no runtime test.", "nothing: it is exact.", "nothing to do.")
_short("A2N820", "front-controller-server-context", "warning", "A server-context front controller became try_files.",
       "in server context %{REQUEST_FILENAME} is still the URL path, so httpd's -f/-d tests look for /index.php "
       "at the filesystem root and nearly always fail; the translation applies the usual intent (test the "
       "document root) with try_files.",
       "existing files are served by nginx where httpd handed every request to the script.",
       "use %{DOCUMENT_ROOT}%{REQUEST_FILENAME} or FallbackResource on the Apache side.")
_short("A2N821", "per-directory-phase", "warning", "Per-directory rewrites run before access checks in nginx.",
       "httpd runs .htaccess and <Directory> rewrites in the fixup phase, after authentication and authorization; "
       "nginx runs a location's rewrite directives before allow/deny and auth_basic.",
       "a rewrite into another location can skip the access rules httpd enforced first.",
       "repeat the access rules in the target location.")
_short("A2N822", "canonical-host-server", "warning", "A canonical-host rewrite became a server of its own.",
       "the redirected host names get their own server block with a return; nginx selects it by name, ignoring a "
       "port in the Host header, whereas %{HTTP_HOST} includes it (so `Host: example.com:80` is redirected by "
       "nginx but not matched by the Apache condition).",
       "only clients that send an explicit port in Host see a difference.",
       "nothing, usually.")
_short("A2N823", "rewrite-double-slash", "warning", "A redirect target gets a doubled slash, as in httpd.",
       "in server context the URL path starts with `/`, so `^(.*)$` captures it and `https://host/$1` becomes "
       "`https://host//path`. The translation reproduces it.",
       "clients follow the doubled slash; some servers treat it as a different path.",
       "use `^/?(.*)$` (or %{REQUEST_URI}) in the rule.")
_short("A2N824", "rewrite-engine-assumed", "warning", "RewriteEngine is assumed on for a snippet.",
       "the input has rewrite rules but never sets RewriteEngine, and is a snippet (no Listen, <VirtualHost>, "
       "ServerRoot nor LoadModule); such a file is usually included where the engine is on, so its rules are "
       "translated. On its own, httpd would ignore them, as the translation does for a whole configuration "
       "(A2N818).",
       "if the including context leaves the engine off, the translation rewrites where httpd did not.",
       "add RewriteEngine On (or Off) to the file to make its intent explicit.")
_short("A2N825", "rewrite-proxy", "warning", "A [P] rule proxies through an internal location.",
       "the rewrite leads to an internal location that proxies to the fixed backend with the rest of the path; "
       "like httpd's default worker it does not reuse connections.",
       "the backend sees a new connection for each request.",
       "use ProxyPass where the target is fixed; it gives connection reuse too.")
_short("A2N868", "file-section-rule-proxy-headers", "warning",
       "A file section's headers on a per-directory [P] rule's answers under a missing directory.",
       "httpd matches <Files>/<FilesMatch> against the name its directory walk stops at: under a directory that "
       "does not exist (/sub/a.txt with no sub/) that is the missing directory's name, so the section does not "
       "apply; a per-directory RewriteRule [P] still proxies such a URL, and the backend's answer goes out "
       "without the section's Header lines. nginx matches the file section's location against the URL's names, "
       "so its proxied answer carries them.",
       "a proxied answer under a missing directory carries headers in nginx only.",
       "put the headers on the rule's directory (or the proxied URL's <Location>) rather than on a file section, "
       "or make the rule's pattern match only names under existing directories.")
_short("A2N869", "limit-except-skips-rewrite-refusal", "error",
       "A method section's methods are refused where a refusal runs in nginx's rewrite phase.",
       "nginx gives the methods a limit_except block catches that block's configuration, which holds none of "
       "the location's rewrite-phase statements (if, return): a refusal the translation makes there (a "
       "<LocationMatch> or env= rule it checks with `if`) would not run for them, and the block's login would "
       "let them through where httpd refuses. The methods the block catches are refused (deny all) instead.",
       "those methods are answered 403 at these URLs, where httpd may admit some of them (or ask for a login).",
       "write the refusal as Require rules nginx checks in its access phase (Require ip, Require all denied), "
       "or move the method section to a <Location> the refusal does not cover.")
_short("A2N826", "directory-rewrite-unmapped", "error", "Rewrite rules in a <Directory> outside the DocumentRoot.",
       "per-directory rules apply to the URLs that map into the directory; only directories under the server's "
       "DocumentRoot are mapped by this translator (Alias targets are not yet).",
       "the rules were not translated.", "move them to the server context with the URL prefix in the pattern.")
_short("A2N827", "rewrite-type", "warning", "A [T=type] rule became a regex location.",
       "httpd forces the response type for every request the pattern matches; the translation uses a regular-"
       "expression location with an empty types map and that default_type.",
       "requests under a ^~ prefix location (a translated Location, Alias or ProxyPass) keep their usual type.",
       "repeat the types/default_type inside those locations if they serve such files.")
_short("A2N828", "rewrite-backref-escaping", "warning", "[B] back-reference escaping differs in nginx.",
       "httpd's [B] (and BNP, BCTLS, BNE) %-escapes the captured text before it is put into the substitution. "
       "nginx's rewrite copies captures as they are, except in the query part of the target when the request "
       "URI itself contained %-escapes or `+`; then it escapes space, #, %, &, +, ; and ?.",
       "a capture holding a raw `&`, `=` or `/` reaches the backend unescaped: a query parameter can be split.",
       "avoid the capture in the query (pass the path instead), or validate the characters in the pattern "
       "(e.g. `([A-Za-z0-9_-]+)`), which makes both servers agree.")
_short("A2N830", "rewrite-dependent-rule", "error", "A rule depends on a [C] or [S] rule that is not translated.",
       "a rule chained to an untranslated [C] rule, or inside the range of an untranslated [S] rule, would run "
       "where httpd skips it.", "the rule was not translated either.",
       "translate the head rule by hand, then this one.")
_short("A2N831", "rewrite-map-file", "error", "A RewriteMap file is missing or unreadable.",
       "httpd checks txt and rnd map files when it starts and refuses to run without them; the translation "
       "reads the entries into nginx `map` blocks, so without the file its maps are empty.",
       "every lookup in the translation gives the default value.",
       "convert where the map file is present, or pass --server-root so a relative path resolves.")
_short("A2N832", "rewrite-map-tolower", "warning", "An int:tolower lookup of the host became $host.",
       "nginx's $host is the Host header's name in lower case, without a port. For %{SERVER_NAME} that is what "
       "httpd gives under UseCanonicalName Off (the default); %{HTTP_HOST} also carries the port when the "
       "client sent one.", "a rule that relies on the port in the lowered value sees none.",
       "nothing, usually; match the port with %{SERVER_PORT} if it matters.")
_short("A2N833", "rewrite-next-bounded", "warning", "An [N] rule is repeated a fixed number of times.",
       "[N] restarts the ruleset with the rewritten URL until the rule stops matching (httpd's bound is 32000 "
       "rounds, or N=limit). nginx has no loop in its rewrite phase, so the rule is written out in a row: as "
       "many times as httpd allows when N=limit is small (then exact, a further match answers 500 as in httpd), "
       "16 times otherwise.",
       "a URL that needs more rounds is rewritten only partly by nginx.",
       "keep the rounds a URL needs under the bound, or do the replacement in the application.")
_short("A2N834", "rewrite-map-random", "warning", "An rnd RewriteMap became split_clients.",
       "httpd picks one of a key's `a|b|c` alternatives at random on every lookup; nginx's split_clients picks by "
       "a hash of $request_id, which is random per request. The spread is the same (each alternative an equal "
       "share), the sequence is not, and two lookups in one request agree in nginx.",
       "only the order in which alternatives come up differs.", "nothing, usually.")
_short("A2N835", "directory-rewrite-unserved", "warning", "Rewrite rules in a <Directory> no URL reaches.",
       "per-directory rules apply to requests whose file lies in the directory. No DocumentRoot or Alias of this "
       "configuration maps URLs into it (nor above it), or an Alias, Redirect or ProxyPass maps the URL the document "
       "root would give it before the document root does, so httpd never applies them for this input, and nothing "
       "is emitted.",
       "none for this configuration; if another file (the main server config, an included vhost) maps URLs into "
       "that directory, its rules are missing from the translation of this file alone.",
       "translate the files together (a directory or the main config with its Includes).")
_short("A2N836", "front-controller-path-info", "warning", "A path after an existing file reaches the front controller.",
       "httpd maps /file.ext/more to the existing file with path info /more, so `RewriteCond %{REQUEST_FILENAME} "
       "!-f` is false and the request is not rewritten: a static file answers 404 (no path info), a script runs "
       "with PATH_INFO. nginx's try_files tests the whole path, which does not exist, and hands the request to the "
       "front controller.",
       "such URLs get the application's answer (often 200) in nginx where httpd answered 404.",
       "if that matters, add `location ~ \\.[^/]+/ { ... }` rules for the file types that take path info, or "
       "refuse such URLs.")
_short("A2N837", "rewrite-directory-proxied", "info", "Per-directory rules under a proxied URL never run.",
       "a ProxyPass maps these URLs to a backend, so httpd never walks the directory for them and its "
       "per-directory rewrite rules (in <Directory> or .htaccess) do not run; the translation leaves them out of "
       "the proxied location.",
       "nothing: the rules apply to the files the directory serves under other URLs.",
       "move the rules into a <Location> if they were meant for the proxied URLs.")
_short("A2N838", "rewrite-directory-refused", "error", "Per-directory rules that may refuse are left out: the directory is refused.",
       "the per-directory rewrite rules of a directory could not be translated (see the error beside each), and "
       "one of them may answer with an error status in httpd ([F], [G], [R=4xx/5xx], or an internal redirect "
       "that comes back to the same rules until httpd's redirect limit answers 500). Rather than serve what httpd "
       "refuses, the translation answers 403 for every URL of the directory.",
       "requests httpd serves under the directory get 403 from nginx.",
       "rewrite the rules so that they translate (see the error beside each rule), or refuse the URLs with an "
       "access rule of the directory.")
_short("A2N882", "rewrite-directory-proxy-refused", "error", "Per-directory rules that proxy are left out: the directory is refused.",
       "the per-directory rewrite rules of a directory could not be translated (see the error beside each), and "
       "one of them proxies ([P]). httpd answers those requests from the backend, and its answer of any status "
       "carries the onsuccess Header lines (`Header` without always) of the server and of the URL's sections, "
       "a security header such as Strict-Transport-Security among them; left out, nginx would serve the URL's "
       "local file or answer its own 404 without them. Where the server has such lines, the translation "
       "answers 403 for every URL of the directory instead, with the headers httpd's answer could carry.",
       "requests httpd proxies or serves under the directory get 403 from nginx.",
       "rewrite the rules so that they translate (see the error beside each rule), or proxy with ProxyPass in "
       "a <Location>.")
_short("A2N890", "rewrite-directory-regex-refused", "error", "A regex location over directories with different per-directory rules is refused.",
       "httpd runs a directory's per-directory rewrite rules (in <Directory> or .htaccess) for every file of the "
       "directory, whatever <LocationMatch> section its URL also matches. nginx chooses the section's regex "
       "location over the directories' prefix locations and runs only its rewrite statements, so the translation "
       "repeats the directory's rules there; where the location's URLs may lie under directories with different "
       "rules, one location cannot hold the right set for each URL, and it answers 403 instead.",
       "requests the regular-expression location matches get 403 from nginx.",
       "anchor the <LocationMatch> pattern under one directory, or give the directories the same rules.")
_short("A2N839", "rewrite-directory-symlinks", "warning", "Per-directory RewriteEngine without FollowSymLinks: the directory answers 403.",
       "a <Directory> turns RewriteEngine on while its Options allow neither FollowSymLinks nor "
       "SymLinksIfOwnerMatch. httpd then answers 403 to every request for a file of the directory, whether or not "
       "it has rules (mod_rewrite's fixup, AH00670). The translation answers 403 there too, at nginx's rewrite "
       "phase, which runs before its access checks. A section merged later without Options of its own (a "
       "<Directory> below, a <Location> or <LocationMatch>, a <Files>) applies the directory's +/- Options "
       "modifiers again: where that brings FollowSymLinks back, httpd runs the directory's rules and serves the "
       "file, and so does the translation (for the URLs the <Location> sections match, and URLs ending in a name "
       "the <Files> section matches).",
       "a request httpd would first refuse otherwise (401 from authentication) gets 403 from nginx; so does a "
       "URL with path info after a file whose <Files> section brings FollowSymLinks back (404 from httpd).",
       "add Options +SymLinksIfOwnerMatch to the directory if the rules are meant to run, or turn the engine off.")
_short("A2N844", "rewrite-directory-symlinks-unplaced", "error",
       "Per-directory RewriteEngine where an untranslated section takes FollowSymLinks away: the directory "
       "answers 403.",
       "a <Directory> turns RewriteEngine on, and an <If>, <DirectoryMatch> or <Directory ~> section that may apply "
       "to its files sets Options without FollowSymLinks or SymLinksIfOwnerMatch. httpd merges that section after "
       "the <Directory> sections and answers 403 wherever it applies (mod_rewrite's fixup, AH00670). The "
       "translation cannot tell where the section applies, and running the rules there would serve what httpd "
       "refuses, so it answers 403 for every URL of the directory.",
       "requests httpd serves or redirects under the directory, where the section does not apply, get 403 from "
       "nginx.",
       "set those Options in a <Directory>, <Files> or <Location> section, or add Options +SymLinksIfOwnerMatch to "
       "the section if the rules are meant to run there.")
_short("A2N780", "rewrite-passthrough-location-proxy", "error",
       "RewriteRule [PT] into a <Location> that proxies: not translated, its requests refused.",
       "[PT] hands the rewritten URL to httpd's translate hooks, but mod_proxy finds a ProxyPass written inside a "
       "<Location> through the sections of the request's original URL (merged before the rewrite): the result is "
       "not proxied, httpd maps it under the document root, with that directory's access rules. nginx would "
       "search its locations again and proxy the rewritten URL. The requests the rule matches are refused (403) "
       "instead.",
       "requests httpd serves (or refuses) through the rule get 403 from nginx.",
       "write the ProxyPass at server level (or rewrite with [P] to the backend), then convert again.")
_short("A2N840", "rewrite-directory-slash-untold", "warning", "A server-context rewrite may map to a directory: mod_dir's redirect is not reproduced.",
       "in server context (without [PT]) mod_rewrite changes only the file a request maps to; the request's path "
       "stays. Where that file is a directory, mod_dir answers 301 to the request's own path with a slash added "
       "(after the access checks), unless the path ends with one. The translation reproduces that after the "
       "rule's rewrite, except where a later rule may rewrite the result again, the result is a file under an "
       "Alias target, or access rules or per-directory rewrite rules (a refusal, a redirect: mod_rewrite's fixup "
       "runs before mod_dir's) over the target would answer first in httpd: there this warning stands.",
       "where the result is a directory, httpd redirects the request's path while nginx serves the directory's "
       "index, or redirects to the rewritten path plus a slash.",
       "add [PT] (httpd then redirects the rewritten path, as nginx does), or end the substitution with a file name.")
_short("A2N841", "rewrite-directory-index-rules", "warning", "A directory result's index file is looked up through the rules again.",
       "mod_dir looks a directory URL's index file up with a subrequest for a URL plus the index name "
       "(/path/index.html), which the server's rewrite rules see again; their answer for it (a redirect of its "
       "own, another file) becomes the answer, and where their result names no file httpd tries the next name, "
       "then refuses the listing (403). Where a server-context rule (without [PT]) maps a request whose path ends "
       "with a slash to a directory, that URL is the request's own path plus the name, and nginx looks the index "
       "up under the rewritten path, except where the translation follows the lookup (GET and HEAD, every "
       "DirectoryIndex list of the server the same single name, no listing allowed): an internal redirect to "
       "/path/index.html runs the server's rules again. Where a rule ([PT] or not) may rewrite the index file URL "
       "of a directory it leaves alone or makes, nginx's index module looks the file up without the rules and "
       "redirects to it only where it exists, and the server's rules then rewrite it.",
       "for such directory requests httpd may redirect to /path/index.html/ or serve another file than nginx; "
       "where nginx follows the lookup through the rules, it answers 404 where their result names no file and "
       "httpd refuses the listing (403).",
       "add [PT] where the rule maps to a directory, or keep the rules from matching the index file's path (a "
       "RewriteCond on %{REQUEST_URI}).")
_short("A2N883", "rewrite-proxy-directory-index-moved", "error", "A [P] rule's directory index lookup after a server-context rewrite is refused.",
       "a per-directory RewriteRule [P] on a directory URL leaves mod_dir's fixup to run, which looks each "
       "DirectoryIndex name up in a subrequest for r->uri plus the name. A server-context rule without [PT] "
       "keeps r->uri, the request's own path: the subrequest is for that path plus the index name, which the "
       "server's rules see again (a rule mapping a whole tree to the directory maps it to the directory once "
       "more, and the subrequest's mod_dir answers 301 to /path/index.html/, which becomes the answer). nginx's "
       "rewrite changes $uri, and its lookup runs the per-directory rules only, on the rewritten path, so it "
       "would proxy what httpd redirects or serves otherwise. What nginx would proxy for such a directory (or "
       "for its index lookup) is refused (403) instead.",
       "requests whose path a server rule maps to the directory get 403 from nginx where httpd redirects, "
       "serves or proxies the index lookup's answer.",
       "add [PT] if the substitution is meant as a URL path, or keep the rule from matching the index file's "
       "path (a RewriteCond on %{REQUEST_URI}).")
_short("A2N842", "rewrite-location-headers", "error", "A server-context rewrite's result falls under a section with Header lines.",
       "without [PT], httpd keeps the original URL for <Location> sections: the served result carries the Header "
       "lines of the sections matching the original URL, and those of the result's own <Directory>/<Files>. The "
       "translation carries the original URL's <Location> headers through the server's add_header list, which an "
       "nginx location with add_header lines of its own does not inherit; where such a location may serve the "
       "result, the rule is not translated and the requests it applies to are refused (403), with the headers "
       "httpd's answer could carry. So is a rule whose result falls under a <Location> with Header lines that the "
       "original URL is not in: httpd never merges that section for the request, nginx's location of the result "
       "applies its lines (a set or an unset alike).",
       "requests the rule rewrites are refused (403) where httpd serves the result.",
       "add [PT] if the rewritten URL's sections are meant to apply, or move the Header lines to the server "
       "level or to the result's section.")
_short("A2N879", "rewrite-location-fallback", "error", "A server-context rewrite crosses a <Location> with FallbackResource.",
       "without [PT], httpd keeps the original URL for <Location> sections and only maps the rewritten path to a "
       "file: where that file is missing, mod_dir's FallbackResource of the sections matching the original URL "
       "looks the fallback URL up with a subrequest, which the server's rules rewrite again (one whose result is "
       "missing too falls back again, until httpd's recursion limit answers 500). nginx searches locations again "
       "with the rewritten URI, so a rewrite out of such a <Location> loses its fallback (404) and one into it "
       "gains one httpd never applies. The rule is not translated and the requests it applies to are refused "
       "(403).",
       "requests the rule rewrites are refused (403) where httpd serves the result, its fallback, or answers 404 "
       "or 500.",
       "add [PT] if the rewritten URL's sections are meant to apply, or move the FallbackResource to the server "
       "level or to the result's <Directory>.")
_short("A2N843", "rewrite-if-without-fallback", "warning", "Per-directory rules in an nginx `if` under a FallbackResource.",
       "a rule with a condition (or one that does not end the request) becomes an nginx `if` block; where its "
       "condition holds but the rule does not end the request (its pattern does not match, or it rewrites and "
       "goes on), nginx serves the request with the `if` block's configuration, which has no try_files: the "
       "FallbackResource does not apply there.",
       "such requests for a missing file answer 404 in nginx where httpd serves the fallback URL (from its "
       "backend where a ProxyPass maps the fallback URL: mod_dir takes a proxied subrequest as found).",
       "give the rule a pattern that the condition's requests always match, or move the fallback into the "
       "rules (a front-controller RewriteRule with !-f and !-d conditions).")
_short("A2N846", "rewrite-directory-rules-replaced", "info", "A later <Directory> of the same path replaces these rewrite rules.",
       "httpd merges the <Directory> sections of one path in configuration order; mod_rewrite takes the rules of "
       "the last one holding any mod_rewrite directive (RewriteEngine alone counts) and drops the earlier ones' "
       "unless RewriteOptions Inherit says otherwise, while the engine setting carries over.",
       "httpd never applies the earlier section's rules; the translation leaves them out too.",
       "move the rules into one section, or remove the ones that never run.")
_short("A2N847", "rewrite-index-error-file-headers", "warning", "A rule's error for a directory's index file carries a file section's headers in nginx.",
       "mod_dir looks a directory URL's index file up with a subrequest that runs the per-directory rewrite rules; "
       "when a rule answers it with an error ([F], [G], [R=4xx]), httpd sends that error for the directory "
       "request, whose headers no <Files> section matching the index file's name adds. nginx redirects to the "
       "index file internally, into that section's location, and answers the error there with its `Header "
       "always` lines.",
       "the error answer for a directory URL carries the file section's headers in nginx only.",
       "exclude the index file's name from the rule's pattern, or from the file section.")
_short("A2N850", "rewrite-unsafe-prefix-stat", "warning", "[UnsafePrefixStat]: httpd may read the result as a file path.",
       "in server context httpd 2.4.60+ reads a substitution as a filesystem path only when its first path segment "
       "is the rule's own text and exists on the server; [UnsafePrefixStat] makes it do so also when that segment "
       "comes from a back-reference or a variable, known only per request. The translation rewrites the result as "
       "a URL path under the document root, which is what httpd does where the segment does not exist.",
       "where the request's value names a directory that exists on the server (/etc, /home, ...), httpd serves "
       "(or refuses) that file and nginx answers from the document root.",
       "drop [UnsafePrefixStat] and rewrite to a URL (an Alias, or an nginx location with alias, for files outside "
       "the document root).")
_short("A2N851", "rewrite-unsafe-untested", "error", "Where httpd 2.4.60+ refuses a rule's result is not tested.",
       "httpd 2.4.60+ answers 403 where the `?` that splits a rule's result comes from the request (a decoded "
       "%3f) rather than from the substitution, unless [UnsafeAllow3F], and where the rewritten query holds a "
       "space or control character. The translation tests for both where the rule's values allow it; with "
       "[UnsafeAllow3F] together with [QSL], or with back-references [B] escapes only in part before the query, "
       "where httpd splits the query off is not tested, and the rule is not emitted.",
       "nothing is emitted for the rule: requests it governs are not rewritten.",
       "drop [UnsafeAllow3F], or escape the back-references wholly ([B]).")
_short("A2N852", "rewrite-redirect-capture-escaping", "info", "nginx escapes a redirect's request values almost as httpd.",
       "without [NE] httpd escapes the values a redirect expands (back-references, %{REQUEST_URI}) with "
       "ap_escape_uri, as mod_dir escapes the request's path in its redirect of a directory a rewrite maps to. The "
       "translation lets nginx's `rewrite` escape them, which does the same for spaces, control characters, `\"`, "
       "`#` and `%`, but leaves `?`, `<`, `>`, `[`, `\\`, `]`, `^`, `` ` ``, `{`, `|` and `}` as "
       "they are and writes bytes past ASCII in upper-case hex (%C3%A9 where httpd writes %c3%a9); in the query "
       "part it also escapes `&`, `+` and `;`, which httpd keeps.",
       "the Location header differs for requests whose path holds those characters; clients resolve both alike, "
       "except where a query value holds `&`, `+` or `;`, or the path a `?` (nginx's Location ends its path there).",
       "nothing, usually.")
_short("A2N860", "rewrite-end-past-access", "error", "A per-directory [END] rewrite into a protected section is refused.",
       "httpd serves the result of a per-directory rewrite through an internal redirect: the access rules of the "
       "result's own <Location>/<Directory> sections apply, and with [END] no rewrite rule runs again (neither the "
       "server's nor any directory's). nginx's `break` would serve the result in the rule's own location, past "
       "those access rules; `last` would select the result's location but run its per-directory rules again. "
       "Where the result may fall under such rules, the rule is not translated and the requests it applies to "
       "are refused (403).",
       "requests the rule rewrites get 403 from nginx where httpd may serve the result.",
       "rewrite to a URL outside the directories that have rewrite rules, or refuse the URLs on the Apache side.")
_short("A2N861", "rewrite-file-past-access", "error", "A server-context rewrite to a file past its directory's access rules is refused.",
       "without [PT] httpd reads a server-context substitution as a file path: where its first segment is not a "
       "directory on the server, under the DocumentRoot, where no Alias or ProxyPass applies (they match the "
       "request's own URL), but the file's <Directory> and .htaccess access rules do (a .htaccess that httpd "
       "refuses answers 500), and so do the per-directory rewrite rules of its directories (which may redirect or "
       "refuse it) and the Header lines of its sections. Where a route claims that URL in nginx, the rewritten URL "
       "would be routed there, past those rules; the rule is not translated and the requests it applies to are "
       "refused (403).",
       "requests the rule rewrites get 403 from nginx where httpd may serve the file or answer otherwise.",
       "add [PT] if the substitution is meant as a URL, or rewrite to a URL no route claims.")
_short("A2N862", "rewrite-end-past-route", "error", "A per-directory [END] rewrite to a URL a Redirect, Alias or ProxyPass maps is refused.",
       "httpd serves the result of a per-directory rewrite through an internal redirect, which maps the new URL "
       "through mod_alias and mod_proxy again (a Redirect or RedirectMatch answers it, an Alias or ProxyPass "
       "serves it), while with [END] no rewrite rule runs again. nginx's `break` would serve the result in the "
       "rule's own location, past that entry; `last` would select the entry's location but run the per-directory "
       "rules of the result's URL again. Where the result may fall under such rules, the rule is not translated "
       "and the requests it applies to are refused (403).",
       "requests the rule rewrites get 403 from nginx where httpd redirects, serves or proxies the result.",
       "rewrite to a URL outside the directories that have rewrite rules, or map the URL on the Apache side.")
_short("A2N877", "rewrite-end-past-settings", "error", "A per-directory [END] rewrite into a section with its own settings is refused.",
       "httpd serves the result of a per-directory rewrite through an internal redirect, which merges the "
       "configuration of the new URL's <Location>/<Directory> sections (their DirectoryIndex, Header, "
       "FallbackResource...) and only theirs, while with [END] no rewrite rule runs again. nginx's `break` would "
       "serve the result in the rule's own location, with that location's settings; `last` would select the "
       "result's location but run its per-directory rules again. Where the result may fall under such rules, the rule is not translated "
       "and the requests it applies to are refused (403).",
       "requests the rule rewrites get 403 from nginx where httpd serves the result.",
       "rewrite to a URL outside the directories that have rewrite rules, or give the result's URL the rule "
       "directory's settings.")
_short("A2N863", "rewrite-location-headers-unknown", "error",
       "The refusal of a <Location> with a RewriteRule cannot send the headers of httpd's answer.",
       "httpd runs the RewriteRules of a <Location> in its fixup against the mapped file path; where none applies "
       "it serves the file, and that success carries the onsuccess Header lines as well as the `Header always` "
       "ones, where a rule's redirect or error carries the always lines alone. The translation refuses the "
       "section (403, A2N805) and sends the onsuccess line of a header both tables name where nginx's tests of "
       "the rules' patterns and conditions say httpd serves the file. Here a rule cannot be so tested (it "
       "rewrites to a URL, chains or skips rules, or has a condition nginx cannot test), so the refusal sends the "
       "always line alone.",
       "requests httpd serves under the section lack the onsuccess value of that header in nginx's 403.",
       "translate the <Location>'s RewriteRule by hand, or give the header to one table only.")
_short("A2N866", "rewrite-into-refused-location", "warning", "A [PT] rewrite into a <Location> the translation refuses is refused too.",
       "a server-context RewriteRule with [PT] hands its result to the translate hooks, and httpd walks the <Location> "
       "sections of the new URL, as nginx searches the locations of the rewritten URI. Where the result falls under "
       "a <Location> the translation refuses whole (a RewriteRule inside it is not translated, A2N805), nginx "
       "refuses the rewritten requests as well, where httpd applies that section's rules and may serve them.",
       "requests the rule rewrites into that section get 403 from nginx where httpd may serve them.",
       "translate the <Location>'s RewriteRule by hand, then drop the refusal.")
_short("A2N889", "rewrite-into-refused-directory", "warning",
       "A rewrite into a directory the translation refuses is refused too.",
       "httpd maps the result of a server-context RewriteRule to a file, with [PT] or without, and runs the "
       "<Directory> sections and .htaccess files of that file's directory for it; a per-directory rule's result "
       "is served through an internal redirect, which does the same. nginx searches the locations of the "
       "rewritten URI. Where the result falls in a directory the translation refuses whole because it "
       "leaves the directory's per-directory rewrite rules out (A2N838, A2N882), nginx refuses the rewritten "
       "requests as well, where httpd runs those rules and may serve them.",
       "requests the rule rewrites into that directory get 403 from nginx where httpd may serve them.",
       "translate the directory's per-directory rules by hand, then drop the refusal.")
_short("A2N870", "rewrite-perdir-into-refused-location", "warning",
       "A per-directory rewrite into a <Location> the translation refuses meets that refusal.",
       "httpd serves a per-directory rewrite's result through an internal redirect, which walks the <Location> "
       "sections of the new URL, as nginx searches the locations of the rewritten URI. Where the result falls "
       "under a <Location> the translation refuses whole (a RewriteRule inside it is not translated, A2N805), "
       "nginx refuses the rewritten requests as well, where httpd applies that section's rules and may serve, "
       "redirect or answer 404 for them.",
       "requests the rule rewrites into that section get 403 from nginx where httpd may answer otherwise.",
       "translate the <Location>'s RewriteRule by hand, then drop the refusal.")
_short("A2N871", "rewrite-perdir-into-refused-alias", "error",
       "A per-directory rewrite into an Alias the translation refuses meets that refusal.",
       "httpd serves a per-directory rewrite's result through an internal redirect, which maps the new URL "
       "through mod_alias again. Where the result falls under an Alias into a directory with per-directory "
       "rewrite rules, which the translation refuses (A2N785), nginx refuses the rewritten requests as well, "
       "where httpd serves the aliased file (after [END] no rule runs there again) or runs the directory's "
       "rules on it.",
       "requests the rule rewrites under that Alias get 403 from nginx where httpd may serve them.",
       "rewrite to the directory's document-root URL instead of the Alias, or repeat the directory's rules in a "
       "<Location> of the alias by hand, then drop the refusal.")
_short("A2N891", "files-login-missing-page-redirect", "warning",
       "A file section's login meets a 404 that httpd redirects to its ErrorDocument URL.",
       "httpd matches <Files>/<FilesMatch> against the name its directory walk stops at: under a directory that "
       "does not exist (/missing/.htpasswd is seen as `missing`) the section does not apply, and httpd answers "
       "404, which an ErrorDocument 404 to a full URL turns into a redirect (302) without a challenge. nginx "
       "matches the section's pattern against the URL's last name and asks for the login there (401 with "
       "WWW-Authenticate).",
       "URLs of the section's names under a missing directory get a login prompt from nginx where httpd "
       "redirects to the error page; nothing is served either way.",
       "nothing to do where a login prompt on those URLs does no harm: nginx serves nothing there either.")
_short("A2N893", "index-refusal-file-headers", "warning",
       "A refusal of a directory's index file carries a file section's headers in nginx.",
       "mod_dir looks a directory URL's index file up with a subrequest that runs the access checks of the "
       "sections matching the index file; when they refuse it (a login, a Require, a deny), httpd sends that "
       "refusal for the directory request, whose headers no <Files> section matching the index file's name "
       "adds: the subrequest stops before its Header lines apply. nginx redirects to the index file "
       "internally, into that section's location, and refuses there with its `Header always` lines.",
       "the refusal of a directory URL carries the file section's headers in nginx only.",
       "keep the index file's name out of the file section holding the Header lines, or set the headers in "
       "the directory's own section.")
_short("A2N895", "rewrite-into-failing-htaccess", "error",
       "A rewrite into a directory whose .htaccess httpd refuses meets the translation's refusal.",
       "A .htaccess holding a directive its AllowOverride forbids makes httpd answer 500 Internal Server Error "
       "for every request whose directory walk reads it (A2N748), a request a RewriteRule rewrites there too: "
       "the internal redirect walks the new URL's directories. The translation refuses that directory (403), "
       "and nginx's rewritten URI meets the same refusal.",
       "requests the rule rewrites into that directory get 403 from nginx where httpd answers 500.",
       "remove the directive from the .htaccess or widen AllowOverride.")
_short("A2N899", "request-header-reapplied", "warning",
       "A RequestHeader append, merge or edit runs twice on a per-directory rewrite's result in httpd.",
       "mod_rewrite serves a per-directory rewrite to a URL path through an internal redirect; mod_headers "
       "applied the original request's RequestHeader lines to the request headers in its fixups already, and "
       "the redirected request shares that table and runs its fixups again: a server's append or edit (and a "
       "merge of a value holding a comma) changes the header a second time. nginx's rewrite applies the line "
       "once.",
       "backends reached through such a rewrite see the appended value once in nginx where httpd sends it "
       "twice (an edit applied once).",
       "use RequestHeader set with the final value, or put the line in the section of the rewrite's target.")
_short("A2N829", "rewrite-cookie-lifetime", "warning", "[CO] cookie lifetime is sent as Max-Age.",
       "httpd computes an `expires=` date from the lifetime in minutes; nginx cannot compute a date, so the "
       "translation sends `Max-Age` with the same number of seconds.",
       "clients that ignore Max-Age (very old ones) keep the cookie for the session only.",
       "nothing, usually; set the cookie in the application if the exact header matters.")


def explains(code: str):
    """The differences CODE declares it can cause (`effects.Effect`s); empty when it explains none."""
    from .code_effects import DECLARED
    return DECLARED.get(code, ())
