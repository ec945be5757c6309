"""Each diagnostic code's declaration of the differences it can cause (see `effects.py` for the form).

Every registered code has an entry; `explains(code)` in `codes.py` reads it. An empty declaration means
the code never explains a difference: loading decisions apply to both servers alike, and notes (info)
do not change what a client sees unless they say so here.
"""
from __future__ import annotations

from .effects import Effect, effects

DECLARED: dict[str, tuple[Effect, ...]] = {
    "A2N001": effects(),  # error: The input is not valid Apache configuration syntax.
    "A2N002": effects(),  # error: A section is opened but never closed.
    "A2N003": effects(),  # error: A closing tag has no open section.
    "A2N004": effects(),  # error: A closing tag does not match the open section.
    "A2N005": effects(),  # warning: A quoted argument has no closing quote.
    "A2N006": effects(),  # warning: Text after a section tag is ignored by httpd.
    "A2N007": effects(),  # warning: The file starts with a UTF-8 byte-order mark.
    "A2N008": effects(),  # info: The file is not valid UTF-8 and was read as Latin-1.
    "A2N010": effects(),  # error: The input looks like a binary file, not a configuration.
    "A2N011": effects(),  # error: The input file is larger than the configured limit.
    "A2N012": effects(),  # error: Sections are nested deeper than the translator supports.
    "A2N013": effects(),  # error: An input file or directory cannot be read.
    "A2N014": effects(),  # error: An input directory holds no configuration files.
    "A2N020": effects(),  # error: An Include names a file that does not exist.
    "A2N021": effects(),  # error: Files include each other in a loop.
    "A2N022": effects(),  # warning: A ${VAR} reference names nothing defined.
    "A2N023": effects(),  # info: A startup condition was evaluated against the translation target.
    "A2N024": effects(),  # warning: An <IfModule> names a module outside the profile; its content was skip
    "A2N025": effects(),  # warning: The input holds no directives.
    "A2N026": effects(),  # error: A mod_macro Use or UndefMacro line cannot be expanded.
    "A2N027": effects(),  # error: A <Macro> definition is invalid.
    "A2N100": effects('directive'),  # error: The directive is not known to Apache httpd or its common modules.
    "A2N101": effects('directive'),  # error: The directive has no nginx translation; nothing was emitted for it.
    "A2N102": effects(),  # info: The directive has no meaning in nginx and was left out on purpose.
    "A2N103": effects('directive'),  # warning: The directive is not allowed where it stands.
    "A2N200": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A virtual host names a port no Listen opens.
    "A2N201": effects(),  # info: No Listen in the input; ports were taken from the virtual hosts.
    "A2N202": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A virtual host address is a host name, resolved by DNS at startup.
    "A2N203": effects(),  # info: A scheme or port in ServerName was dropped.
    "A2N204": effects(),  # info: A wildcard server name was rewritten as a regular expression.
    "A2N205": effects(),  # info: The main server became the default server on ports no virtual host use
    "A2N206": effects('*'),  # error: A TLS virtual host has no certificate.
    "A2N207": effects(),  # info: The private key is read from the certificate file.
    "A2N900": effects('*'),  # error: The generated nginx configuration failed the translator's own re-parse
    "A2N901": effects('*'),  # error: `nginx -t` rejected the configuration.
    "A2N902": effects('*'),  # error: No nginx binary was found to test the configuration.
    "A2N903": effects(),  # warning: `nginx -t` printed a warning.
    "A2N960": effects(),  # warning: A block's own add_header drops the headers it would inherit.
    "A2N961": effects('*'),  # error: A prefix location without a trailing slash has an alias with one.
    "A2N962": effects(),  # warning: An `if` inside a location does more than return, rewrite or set.
    "A2N963": effects(),  # warning: An upstream keeps no idle connections.
    "A2N964": effects(),  # warning: proxy_pass to an upstream without HTTP/1.1 and an empty Connection hea
    "A2N965": effects('*'),  # error: proxy_pass with variables and no resolver in effect.
    "A2N966": effects('*'),  # error: A bare prefix location widens the path boundary of the Apache section 
    "A2N967": effects(),  # warning: gixy reported a problem in the configuration.
    "A2N968": effects(),  # warning: gixy could not check the configuration.
    "A2N208": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A <LocationMatch> became a regular-expression location.
    "A2N290": effects(),  # warning: HostnameLookups On: nginx never resolves client addresses.
    "A2N301": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A ProxyPass/Alias/Redirect entry is never used by httpd.
    "A2N302": effects('*'),  # error: A backend URL or protocol has no nginx translation.
    "A2N303": effects('*'),  # error: A balancer:// URL names a balancer with no members.
    "A2N304": effects('*'),  # error: ProxyPass stands where httpd does not honour it.
    "A2N305": effects('*'),  # error: A ProxyPassMatch exclusion is not translated.
    "A2N306": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A ProxyPassMatch path reaches the backend in another form.
    "A2N307": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: max= becomes max_conns, which rejects instead of queueing.
    "A2N308": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A mod_proxy worker or balancer parameter is not translated.
    "A2N309": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: nocanon is approximated.
    "A2N339": effects('backend path'),  # info: nocanon forwards repeated slashes that httpd merges.
    "A2N310": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: Apache's retry ban is approximated by max_fails/fail_timeout.
    "A2N311": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A balancer member has a path.
    "A2N312": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A hot standby, spare or lbset became an nginx backup server.
    "A2N313": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: The load-balancing method is approximated.
    "A2N314": effects('*'),  # error: The load-balancing method has no nginx equivalent.
    "A2N315": effects('*'),  # error: Balancer session stickiness is not translated.
    "A2N316": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: failonstatus is approximated by proxy_next_upstream.
    "A2N317": effects('*'),  # error: A forward proxy has no nginx equivalent.
    "A2N318": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: ProxyVia On/Full is not translated.
    "A2N401": effects('backend', 'body', 'location', 'status'),  # warning: A RedirectMatch became a regular-expression location.
    "A2N402": effects(),  # info: An Alias has a trailing slash on one side only.
    "A2N403": effects('backend', 'body', 'location', 'status'),  # warning: An AliasMatch capture could reach outside the directory.
    "A2N404": effects('*'),  # error: CGI scripts cannot run under nginx.
    "A2N501": effects('backend header', 'header'),  # error: A conditional header (env=, expr=, early) is not translated.
    "A2N502": effects('backend header', 'header'),  # error: A header value uses Apache format specifiers.
    "A2N503": effects('backend header', 'header'),  # warning: A header in httpd's onsuccess table is approximated.
    "A2N504": effects('backend header', 'header'),  # warning: nginx cannot remove a header it generates itself.
    "A2N506": effects('backend header', 'header'),  # warning: Header append/merge becomes another header line.
    "A2N507": effects('backend header', 'header'),  # warning: RequestHeader edit changes what backends see, not nginx itself.
    "A2N508": effects('backend header', 'header'),  # warning: A RequestHeader builds on the client's value, not an earlier RequestHe
    "A2N509": effects('header:added', 'backend header'),  # warning: A Header unset under <If> applies to some requests only.
    "A2N510": effects('header:added@error-status'),  # info: A .htaccess's `Header always` lines are server-level add_headers.
    "A2N505": effects('backend header', 'header'),  # error: A header action has no nginx translation.
    "A2N601": effects(),  # warning: A log format field has a slightly different meaning in nginx.
    "A2N602": effects(),  # warning: A log format field has no nginx equivalent.
    "A2N603": effects('*'),  # error: Piped logs have no nginx equivalent.
    "A2N604": effects(),  # info: A standard log format name was taken from Debian's apache2.conf.
    "A2N605": effects(),  # warning: A CustomLog names a format that is not defined.
    "A2N606": effects(),  # warning: A conditional CustomLog logs every request in nginx.
    "A2N607": effects(),  # warning: Per-module or trace log levels are approximated.
    "A2N701": effects(),  # warning: A rate-limit variable is not one mod_ratelimit reads.
    "A2N702": effects('*'),  # error: SetEnv is not carried into nginx.
    "A2N717": effects('*'),  # error: A variable set by a per-directory SetEnvIf is read where its region on
    "A2N703": effects(),  # info: SetEnv rate-limit without the RATE_LIMIT filter has no effect.
    "A2N704": effects('header'),  # warning: mod_deflate becomes gzip with small differences.
    "A2N705": effects('backend header x-forwarded-for', 'status'),  # warning: RemoteIPTrustedProxy trusts more in nginx.
    "A2N706": effects('backend header x-forwarded-for', 'status'),  # error: RemoteIPHeader without a proxy list trusts every client.
    "A2N707": effects('body', 'header', 'status'),  # warning: server-status became stub_status.
    "A2N708": effects('backend', 'body', 'status'),  # error: balancer-manager has no nginx equivalent.
    "A2N760": effects(),  # warning: SetEnv became a fastcgi_param.
    "A2N761": effects(),  # warning: AddEncoding became a Content-Encoding header from a map.
    "A2N209": effects('*'),  # error: DirectoryIndex disabled cannot be expressed.
    "A2N210": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: An absolute DirectoryIndex entry was not last.
    "A2N211": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: An ErrorDocument message is served from a named location.
    "A2N212": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: ServerTokens is approximated by server_tokens.
    "A2N213": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: nginx never answers TRACE.
    "A2N214": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: AddDefaultCharset is approximated by charset.
    "A2N215": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: TypesConfig uses nginx's mime.types instead.
    "A2N216": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: UseCanonicalName On is approximated.
    "A2N217": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: HTTP/2 over cleartext (h2c) has no nginx equivalent.
    "A2N218": effects('*'),  # error: SSLProtocol enables no protocol.
    "A2N219": effects('*'),  # error: The TLS session cache type is not translated.
    "A2N228": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A DBM session cache became a shared memory zone of 10m.
    "A2N220": effects(),  # warning: SSLCertificateChainFile must be merged into the certificate.
    "A2N221": effects('connection', 'status'),  # error: A per-path client certificate requirement is not translated.
    "A2N222": effects('connection', 'status'),  # warning: Client-certificate servers need nginx 1.26.3/1.27.4 or later.
    "A2N223": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: OCSP stapling needs a resolver in nginx.
    "A2N224": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: nginx checks backend certificates less than httpd.
    "A2N227": effects('*'),  # error: SSLOpenSSLConfCmd needs nginx 1.19.4 or later.
    "A2N709": effects('header cache-control', 'header expires'),  # warning: mod_expires becomes nginx's expires.
    "A2N712": effects('header cache-control:missing', 'header expires:missing'),  # error: A modification-based expiry is mixed with access-based ones.
    "A2N713": effects('header cache-control:changed', 'header expires:changed'),  # info: A modification-based expiry of an old file reads differently.
    "A2N710": effects('header etag'),  # warning: FileETag is approximated.
    "A2N711": effects('backend', 'body', 'status'),  # error: nginx decodes %2F in paths.
    "A2N319": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: ProxyPass path and URL disagree on the trailing slash.
    "A2N740": effects('*'),  # error: A <Directory> section is not translated.
    "A2N741": effects('*'),  # error: A <Files> or <FilesMatch> section is not translated.
    "A2N742": effects('*'),  # error: An access rule nginx cannot check exactly: the region is refused.
    "A2N743": effects('*'),  # error: Options outside <Directory> is not translated.
    "A2N744": effects(),  # warning: AllowOverride lets .htaccess files change this directory.
    "A2N745": effects('*'),  # error: Per-directory rewrites would run before the access rules.
    "A2N747": effects('status'),  # warning: A refusing file section also covers directories of that name.
    "A2N748": effects('*'),  # error: A .htaccess holds a directive its AllowOverride forbids.
    "A2N749": effects(),  # info: The .htaccess files of a document root were read.
    "A2N750": effects(),  # warning: Options ExecCGI: CGI handlers outside the input are not seen.
    "A2N751": effects(),  # warning: Options MultiViews: no content negotiation in nginx.
    "A2N752": effects(),  # warning: Options Includes: server-side includes are not translated.
    "A2N757": effects(),  # warning: Server-side includes became nginx's ssi module, a different dialect.
    "A2N758": effects('*'),  # error: Server-side includes httpd parses are not translated here.
    "A2N759": effects(),  # warning: A mod_include setting with no (or a different) nginx equivalent.
    "A2N762": effects(),  # warning: The INCLUDES filter is attached where Options Includes is off.
    "A2N753": effects(),  # warning: AcceptPathInfo On is not translated.
    "A2N754": effects(),  # warning: Some password hashes may not be checked by nginx.
    "A2N755": effects(),  # warning: AuthGroupFile was read at conversion time.
    "A2N756": effects(),  # warning: An access decision reads a request header: nginx before 1.23 sees only
    "A2N720": effects('backend', 'body', 'status'),  # warning: A FastCGI FilesMatch became a regex location.
    "A2N721": effects('backend', 'body', 'status'),  # warning: Scripts httpd ran itself go to a FastCGI server.
    "A2N722": effects('backend', 'body', 'status'),  # warning: CGI scripts in a file section run through fcgiwrap.
    "A2N723": effects(),  # info: A CGI handler where Options ExecCGI is off answers 403.
    "A2N724": effects('body', 'status'),  # error: Options ExecCGI differs between the directories a handler covers.
    "A2N725": effects(),  # warning: SSLOptions +StdEnvVars: scripts get the SSL_* variables nginx has.
    "A2N726": effects('backend', 'body', 'status'),  # warning: AddHandler became a regex location over the extensions.
    "A2N320": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: Balancer members receive one Host header.
    "A2N225": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A server name is shadowed by an earlier virtual host's wildcard.
    "A2N321": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A FastCGI or uwsgi backend is approximated.
    "A2N322": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A RewriteRule [H] handler became an internal FastCGI location.
    "A2N323": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A RewriteRule [H=cgi-script] result answers 403.
    "A2N324": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: %{ENV:REDIRECT_STATUS} is tracked by the rules.
    "A2N325": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: A RewriteMap lookup names a map this input never defines.
    "A2N326": effects(),  # info: A RewriteRule can never match where it stands.
    "A2N328": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: RewriteCond -U became a test of the path's form.
    "A2N329": effects('body', 'location', 'status'),  # warning: A per-directory substitution starts with a request-time value that may
    "A2N330": effects(),  # warning: A per-directory redirect carries the directory's filesystem path.
    "A2N331": effects('body', 'header', 'status'),  # warning: A server-context substitution is a file path to httpd.
    "A2N332": effects(),  # info: A server-context file-path substitution became the file's URL.
    "A2N336": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: ProxySet names a worker no ProxyPass of the input uses.
    "A2N337": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: ProxySet and a ProxyPass set the same worker parameter.
    "A2N338": effects(),  # info: ProxyPassReverse becomes proxy_redirect.
    "A2N333": effects('*'),  # error: mod_proxy_html's link rewriting has no nginx equivalent.
    "A2N327": effects('*'),  # error: A server-context rewrite crosses a <Location> with access rules.
    "A2N406": effects('backend', 'body', 'location', 'status'),  # warning: CGI programs run through fcgiwrap.
    "A2N405": effects('backend', 'body', 'location', 'status'),  # info: A Redirect keeps the raw request path.
    "A2N226": effects('body', 'header', 'status'),  # info: nginx answers POST to a static file with 405.
    "A2N229": effects('*'),  # error: ContentDigest On: nginx never sends Content-MD5.
    "A2N230": effects('*'),  # error: A per-host document root depends on a name nginx cannot know.
    "A2N231": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: %p in a mod_vhost_alias format is the ServerName's port.
    "A2N232": effects('backend', 'body', 'connection', 'header', 'location', 'status'),  # warning: Parts of the host name in a document root come from regex maps.
    "A2N233": effects('*'),  # error: A <Directory> inside per-host directories is not applied.
    "A2N234": effects(),  # info: A mod_mime extension with a dot never matches.
    "A2N235": effects('body'),  # warning: nginx's autoindex listings lose a mod_autoindex setting.
    "A2N236": effects('body'),  # error: Files IndexIgnore hid from listings are listed by nginx.
    "A2N801": effects('*'),  # error: A RewriteRule has more than three arguments.
    "A2N802": effects('*'),  # error: Inherited per-directory rewrite rules are not copied.
    "A2N803": effects('*'),  # warning: A RewriteOptions switch has no nginx counterpart.
    "A2N804": effects('*'),  # error: A RewriteMap (or a lookup in it) is not translated.
    "A2N805": effects('*'),  # error: Rewrite directives inside <Location> are not translated.
    "A2N806": effects('*'),  # error: A server variable has no nginx equivalent.
    "A2N807": effects('*'),  # error: A %N back-reference has no matching condition group.
    "A2N808": effects('*'),  # error: A RewriteCond test string combines several values.
    "A2N809": effects('*'),  # error: A RewriteCond file test has no nginx equivalent.
    "A2N810": effects('backend', 'body', 'location', 'status'),  # warning: RewriteCond -s is approximated by -f.
    "A2N811": effects('*'),  # error: A lexicographic or numeric comparison has no nginx equivalent.
    "A2N812": effects('*'),  # error: A [P] rule is not translated.
    "A2N813": effects('*'),  # error: A RewriteRule flag is not translated.
    "A2N814": effects('header', 'status'),  # warning: [E=...] sets an nginx variable instead of an environment variable.
    "A2N815": effects('*'),  # error: A redirect to the same URL.
    "A2N816": effects('location'),  # warning: A redirect target is not escaped as httpd would.
    "A2N817": effects(),  # warning: A RewriteCond is not followed by a RewriteRule.
    "A2N818": effects(),  # info: Rewrite rules in a context where RewriteEngine is not on.
    "A2N819": effects(),  # info: A %{HTTPS} condition is decided per server.
    "A2N820": effects('backend', 'body', 'status'),  # warning: A server-context front controller became try_files.
    "A2N821": effects('status'),  # warning: Per-directory rewrites run before access checks in nginx.
    "A2N822": effects('location', 'status'),  # warning: A canonical-host rewrite became a server of its own.
    "A2N823": effects('location'),  # warning: A redirect target gets a doubled slash, as in httpd.
    "A2N824": effects('*'),  # warning: RewriteEngine is assumed on for a snippet.
    "A2N825": effects('backend header x-forwarded-host', 'backend header x-forwarded-server'),  # warning: A [P] rule proxies through an internal location.
    "A2N826": effects('*'),  # error: Rewrite rules in a <Directory> outside the DocumentRoot.
    "A2N827": effects('header content-type', 'status'),  # warning: A [T=type] rule became a regex location.
    "A2N828": effects('backend', 'location', 'status'),  # warning: [B] back-reference escaping differs in nginx.
    "A2N830": effects('*'),  # error: A rule depends on a [C] or [S] rule that is not translated.
    "A2N831": effects('*'),  # error: A RewriteMap file is missing or unreadable.
    "A2N832": effects('backend', 'location', 'status'),  # warning: An int:tolower lookup of the host became $host.
    "A2N833": effects('backend', 'body', 'location', 'status'),  # warning: An [N] rule is repeated a fixed number of times.
    "A2N834": effects('backend', 'body', 'header', 'location', 'status'),  # warning: An rnd RewriteMap became split_clients.
    "A2N835": effects(),  # warning: Rewrite rules in a <Directory> no URL reaches.
    "A2N829": effects('header set-cookie'),  # warning: [CO] cookie lifetime is sent as Max-Age.
}
