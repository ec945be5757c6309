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
What it means: the file is larger than `--max-input-size` (32 MiB by default).

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
expected, or permissions forbid reading it.

Why it matters: nothing can be translated from it.

How to fix it: check the path and its permissions.
""", "check the path and its permissions")

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

_code("A2N022", "undefined-variable", "warning", "A ${VAR} reference names nothing defined.", """
What it means: `${NAME}` is neither set by `Define`, nor by `--define`, nor in
the environment Debian's envvars provide. httpd warns and leaves the text as
it is, so the translation keeps `${NAME}` literally.

Why it matters: the literal text ends up in a path or name in nginx.

How to fix it: pass `--define NAME=value`, or set it with `Define`.
""", "pass --define NAME=value")

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
What it means: the module named in `<IfModule>` is neither loaded by the input
(`LoadModule`), nor built into httpd or shipped by Debian's apache2 packages,
nor given with `--module`, so the section's content was skipped. (An MPM other
than the one in use, such as prefork under Debian's default event MPM, is
skipped the same way.)

Why it matters: if the real server loads the module, its directives apply
there but not in the translation.

How to fix it: pass `--module NAME` if the server loads it.
""", "pass --module NAME if the server loads it")

_code("A2N025", "empty-input", "warning", "The input holds no directives.", """
What it means: after comments and blank lines nothing is left.

Why it matters: the output will be an empty configuration.

How to fix it: check that the right file was given.
""", "check the input path")

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
