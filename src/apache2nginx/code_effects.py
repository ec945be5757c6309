"""Each diagnostic code's declaration of the differences it can cause (see `effects.py` for the form).

Every registered code has an entry; `explains(code)` in `codes.py` reads it. A declaration says what the
approximation or omission the code reports can change in what a client or a backend sees, in which
direction and under which condition, and no more: a diagnostic is a claim of cause, so a declaration wider
than the truth lets an unrelated difference hide behind it.

An empty declaration means the code never explains a difference: loading decisions apply to both servers
alike, lint and self-check codes speak of nginx files rather than of a translation's behaviour, logs are
not compared, and a note (info) changes nothing a client sees unless its text says so. `*` is kept for a
whole section or directive left out whose directives may do anything; `directive` for a generic "this
directive was not translated", resolved to what that directive's module can change.
"""
from __future__ import annotations

from .effects import Effect, effects

# What a rewrite rule can change: a rule left out (or applied differently) redirects, serves, proxies or
# sets headers where the other server does not.
_REWRITE = ("status", "location", "body", "backend", "header")
# Which virtual host or location answers: everything a client sees from it (a TLS handshake aside).
_ROUTING = ("status", "location", "body", "backend", "header")
# A route's fixed error answer (a `return` in nginx's rewrite phase) comes before nginx's access checks: where
# httpd refuses the request first (401/403), nginx answers the error in place of httpd's refusal, so the
# refusal's own headers (its challenge, its ErrorDocument page's) are missing. A security header stays
# unexplainable whatever the code declares.
_ROUTE_ERROR_BEFORE_ACCESS = ("status:changed@httpd-refused,server-error",
                              "header:missing@httpd-refused,server-error")

DECLARED: dict[str, tuple[Effect, ...]] = {
    # ------------------------------------------------------------ A2N0xx reading and loading: both servers alike
    "A2N001": effects(),
    "A2N002": effects(),
    "A2N003": effects(),
    "A2N004": effects(),
    "A2N005": effects(),
    "A2N006": effects(),
    "A2N007": effects(),
    "A2N008": effects(),
    "A2N010": effects(),
    "A2N011": effects(),
    "A2N012": effects(),
    "A2N013": effects(),
    "A2N014": effects(),
    "A2N015": effects(),
    "A2N016": effects(),
    "A2N017": effects(),
    "A2N020": effects(),
    "A2N021": effects(),
    "A2N022": effects("directive"),     # the directive holding the undefined ${VAR} is left out
    "A2N023": effects(),
    "A2N024": effects(),
    "A2N025": effects(),
    "A2N026": effects(),
    "A2N027": effects(),

    # ------------------------------------------------------------ A2N1xx dispositions
    "A2N100": effects("directive"),     # unknown directive: nothing emitted; an unknown module may change anything
    "A2N101": effects("directive"),     # nothing emitted for the directive: what its module does is missing
    "A2N102": effects(),                # left out on purpose: no meaning in nginx
    "A2N103": effects("directive"),     # a directive httpd does not honour where it stands: its effect may differ

    # ------------------------------------------------------------ A2N2xx core, listeners, virtual hosts
    "A2N200": effects("connection@nginx-failed"),  # no listen emitted for the port: nginx refuses the
    # connection (verify's httpd, given the virtual host's port, answers there)
    "A2N201": effects(),
    "A2N202": effects(*_ROUTING),       # nginx listens on every address: another virtual host may answer
    "A2N203": effects(),                # ServerName's scheme/port only matter behind port mapping
    "A2N204": effects(),                # same names matched; precedence differs only for overlapping names (A2N225)
    "A2N205": effects(),
    "A2N206": effects("connection@nginx-failed"),  # nginx rejects every TLS handshake of the server
    "A2N207": effects(),
    "A2N208": effects(*_ROUTING),       # a request under another section misses this section's directives
    "A2N209": effects("status@directory-request", "body@directory-request", "header@directory-request"),
    "A2N210": effects("status@directory-request", "body@directory-request", "backend@directory-request",
                      "header@directory-request"),  # the index entries after the absolute one are dropped
    "A2N211": effects("header content-type@error-status"),  # the message is served as text/html
    "A2N212": effects("header server"),
    "A2N213": effects("status@trace-method", "header@trace-method"),  # nginx answers TRACE with 405
    "A2N214": effects("header content-type"),
    "A2N215": effects("header content-type"),   # nginx's mime.types maps a few extensions otherwise
    "A2N216": effects("location@redirect"),     # nginx's own redirects name server_name and the listening port
    "A2N217": effects("header upgrade:missing"),  # httpd offers h2c with Upgrade: h2c
    "A2N218": effects("connection@https"),      # httpd does not start; nginx uses its default protocols
    "A2N219": effects(),                # TLS session caching: handshake cost only
    "A2N228": effects(),                # TLS session caching: handshake cost only
    "A2N220": effects("connection@https,nginx-failed"),  # clients that need the chain fail to verify nginx
    "A2N221": effects("connection@https", "status@https"),  # the path's client-certificate check is missing
    "A2N222": effects(),                # only a TLS 1.3 session resumed from another virtual host skips the check;
    # verify opens a fresh session for every request
    "A2N223": effects(),                # no OCSP response stapled: nothing compared
    "A2N224": effects("backend:added", "status@server-error"),  # nginx accepts a backend certificate httpd refuses
    "A2N227": effects("connection@https"),      # OpenSSL's default for the setting
    "A2N238": effects(),                # names httpd never selects are left out; nothing else changes
    "A2N242": effects(),                # the alias matches no Host header in httpd; it is left out
    "A2N225": effects(),                # the name is left out of the later server: httpd never selects it either
    "A2N226": effects("status@unsafe-method,status-405", "header@unsafe-method,status-405",
                      "location@unsafe-method,status-405"),  # nginx's 405 replaces httpd's directory redirect too
    "A2N229": effects("header content-md5:missing@not-proxied"),
    "A2N230": effects("status", "body", "location"),  # served from the plain DocumentRoot
    "A2N231": effects(),                # differs only for absolute request URIs, which verify does not send
    "A2N232": effects("status", "location", "body", "backend"),  # $1.. of a regex location read the map's captures
    "A2N233": effects("*"),             # a <Directory> applied to no request: its directives are missing
    "A2N234": effects(),                # httpd applies nothing either
    "A2N235": effects("body@directory-request"),  # listings look different
    "A2N236": effects("body@directory-request"),  # listings show names httpd hid
    "A2N237": effects("connection:changed@https"),  # httpd's handshake failure is nginx's 400
    "A2N239": effects("body@error-status"),  # nginx's own error page where httpd sends its message
    "A2N241": effects("connection@https,nginx-failed"),  # a worker that cannot read the file fails handshakes
    "A2N240": effects("status@directory-request", "body@directory-request",  # a refusal where httpd
                      "header@directory-request"),  # answers with the entry's file or the next entry's
    "A2N881": effects("body@error-status", "header www-authenticate:added@error-status,credentials"),  # nginx's
    # own error page where httpd sends its message or the page; the page's challenge also to the clients whose
    # credentials httpd took
    "A2N876": effects("body@error-status", "header www-authenticate:missing@error-status"),  # nginx's own
    # error page where httpd sends the page or its message, without the challenge of a login refusing the page
    "A2N885": effects("header:added@error-status"),  # the page's headers where httpd refuses the page
    "A2N886": effects("header:missing@error-status"),  # a page header nginx cannot give in place of the page
    "A2N887": effects("header:missing@status-403"),  # a login or refusal page's header nginx's refusal cannot give
    "A2N290": effects("status", "location", "backend"),  # rewrite conditions on %{REMOTE_HOST} see an address

    # ------------------------------------------------------------ A2N3xx mod_proxy and routes
    "A2N301": effects(),                # a dead entry left out: httpd never uses it either
    "A2N302": effects("directive"),     # the ProxyPass is not translated: the path is not proxied
    "A2N303": effects("directive"),     # no members, nothing emitted for the ProxyPass
    "A2N304": effects(),                # httpd does not honour it either
    "A2N305": effects("backend:added", "status@proxied", "location@proxied", "header@proxied"),  # nginx proxies what
    # the exclusion kept local
    "A2N306": effects("backend path@encoded-path", "backend path@unnormalised-path", "backend query@encoded-path",
                      "status@encoded-path"),  # decoded, normalised captures reach the backend
    "A2N307": effects("status@server-error"),   # max_conns answers 502 where httpd queues
    "A2N308": effects("status@server-error", "connection", "backend", "header@proxied"),  # nginx's default for the
    # parameter (timeouts, keepalive, member state)
    "A2N309": effects("backend path@encoded-path", "backend path@unnormalised-path", "backend query@encoded-path"),
    "A2N339": effects("backend path@doubled-slash"),  # nginx keeps the repeated slashes httpd merges
    "A2N310": effects("backend", "status@server-error"),  # failover timing
    "A2N311": effects("backend path"),  # the member's path prefix
    "A2N312": effects("backend", "status@server-error"),  # one backup tier
    "A2N313": effects("backend"),       # another distribution of requests
    "A2N314": effects("backend"),       # round-robin instead
    "A2N315": effects("backend"),       # no stickiness
    "A2N316": effects("backend", "status@proxied", "header@proxied", "location@proxied"),  # nginx retries on
    # another member where httpd returns the error
    "A2N317": effects("directive"),     # ProxyRequests On: no forward proxy
    "A2N318": effects("header via:missing@proxied", "backend header via:missing"),
    "A2N319": effects(),                # the translation reproduces httpd's literal join
    "A2N320": effects("backend header host"),  # one Host for every member
    "A2N321": effects("status@no-backend-process", "header@no-backend-process", "body@no-backend-process"),  # nginx's
    # CGI parameters; the application behind it is not run by verify
    "A2N322": effects("status@no-backend-process", "location:missing@no-backend-process",
                      "header@no-backend-process", "body@no-backend-process"),  # the internal FastCGI location
    # answers where httpd's own handling (a directory's redirect) did
    "A2N323": effects("status@status-403"),  # httpd may run a file-path target nginx refuses
    "A2N324": effects(*_REWRITE),       # internal redirects of other modules are not marked
    "A2N325": effects(),                # both servers use the lookup's default
    "A2N326": effects(),                # httpd never applies the rule either
    "A2N328": effects(),                # the same test of the path's form in both
    "A2N329": effects("status", "location:missing"),  # httpd redirects to a full URL, nginx rewrites
    "A2N330": effects(),                # the translation redirects to the same path
    # httpd serves a file nginx does not find, or that a proxy or redirect route of the URL answers in nginx
    "A2N331": effects("status", "body", "location", "backend", "header@redirect", "header@proxied",
                      "header@status-404"),  # another answer (a route's, a 404) than the file's, headers and all
    "A2N332": effects(),                # the same file, by its URL
    "A2N336": effects("status@server-error", "connection"),  # a route outside the input runs with nginx's defaults
    "A2N337": effects("status@server-error", "connection"),  # a route's timeout or keepalive differs
    "A2N338": effects("header content-location:changed@proxied", "header uri:changed@proxied",
                      "header refresh:changed@proxied"),
    "A2N340": effects(),                # the same host name where it is the machine's fully qualified name
    # both answer 500 (httpd cannot reach the backend either); nginx answers before its access checks, where httpd
    # refuses first (401/403)
    "A2N341": effects(*_ROUTE_ERROR_BEFORE_ACCESS),
    "A2N342": effects("status@server-error", "backend:missing@server-error", "backend path@server-error",
                      "header@server-error", "body@server-error",  # nginx answers 502 where httpd proxies
                      "status@encoded-slash", "backend:missing@encoded-slash", "header@encoded-slash",
                      "body@encoded-slash"),  # and 404 for %2F, which httpd's servlet mapping passes
    "A2N343": effects(*_ROUTE_ERROR_BEFORE_ACCESS),  # both answer 500 but for the path itself (as A2N341)
    # httpd's trailing-slash redirect and index lookup of the mapped directory work on the request's URL
    "A2N345": effects("status@redirect", "location@redirect", "body@redirect", "header@redirect",
                      "status@directory-request", "location@directory-request", "body@directory-request",
                      "header@directory-request"),
    # the document root's internal location refuses a directory whose index lookup it cannot follow (403)
    "A2N347": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the one URL of an exact location is refused (403)
    "A2N346": effects("status@directory-request", "location@directory-request", "body@directory-request",
                      "header@directory-request"),
    "A2N344": effects("status@encoded-slash", "backend:missing@encoded-slash", "header@encoded-slash",
                      "body@encoded-slash"),  # 404 where httpd proxies the %2F path
    "A2N333": effects("body", "backend", "header@proxied"),  # proxied HTML keeps the backend's URLs
    "A2N327": effects(*_REWRITE),       # the rule is not translated

    # ------------------------------------------------------------ A2N4xx mod_alias
    "A2N401": effects("status", "location:missing", "backend:added", "header"),  # not redirected under a ^~ prefix
    "A2N402": effects(),                # the literal mapping is kept
    "A2N403": effects(),                # the same risk in both servers
    "A2N404": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # ScriptAlias: the programs are not run, their URLs refused (403)
    "A2N405": effects("location@unnormalised-path", "location@encoded-path"),  # raw path in the Location
    "A2N408": effects("status@nginx-refused", "location:missing@nginx-refused", "body@nginx-refused",
                      "header@nginx-refused"),  # refused where the captures need escaping
    "A2N407": effects("header:added@nginx-refused,credentials,directory-request"),  # wrong credentials: the
    # index's 401, with its file sections' headers
    "A2N406": effects("status", "header:missing", "body"),  # fcgiwrap: not run by verify; 403 for a missing program

    # ------------------------------------------------------------ A2N5xx mod_headers
    "A2N501": effects("header:missing", "header:changed@proxied", "backend header:missing",
                      "backend header:changed"),  # nothing emitted: no header (a backend's copy stays)
    "A2N502": effects("header:missing", "header:changed@proxied", "backend header:missing",
                      "backend header:changed"),  # nothing emitted for the header
    "A2N503": effects("header:missing@proxied,error-status",  # proxied 4xx/5xx: nginx's add_header does not fire
                      "header:changed@proxied"),              # a conditional header keeps the backend's copy
    "A2N504": effects("header:added"),  # nginx still sends a header it generates itself
    "A2N517": effects("header:added@error-status", "header:added@redirect", "header:missing@error-status",
                      "header:missing@redirect"),  # answers made before mod_ssl's fixup
    "A2N518": effects("header:added@directory-request,host-port", "header:missing@directory-request,host-port",
                      "header:added@error-status,host-port", "header:missing@error-status,host-port"),  # the
    # client's port after an internal redirect, where httpd reads the default one
    "A2N525": effects("header:added@proxied", "header:changed@proxied"),  # the backend's copy is not hidden
    "A2N506": effects("header:changed@same-items"),  # another line instead of a comma-joined value (merge may
    # repeat a value, an append follow a later line)
    "A2N507": effects("status:changed@not-proxied,conditional-request"),  # nginx's own If-None-Match check sees
    # the client's value
    "A2N508": effects("backend header"),  # computed from the client's value
    "A2N509": effects("header:added", "backend header"),  # an unset made under only some <If> branches
    "A2N510": effects("header:added@error-status"),  # a .htaccess's always-headers also on nginx's own 400
    "A2N511": effects("header@refused-before-host"),   # nginx's 400 before Host: the default server's headers
    "A2N512": effects("header:added@error-status,inner-segment", "header:added@path-info"),  # a file section's
    # header on an error where httpd matched the section against a missing name or a file higher up the path, or
    # under a directory named like the file
    "A2N514": effects("status@status-403", "body@status-403", "header@status-403", "backend@status-403",
                      "location@status-403"),   # the proxied URLs refused
    "A2N515": effects("header:changed@nginx-refused"),  # a refusal sends the always line of a header named in
    # both tables alone, where httpd's success sends both
    "A2N516": effects("header:added", "header:changed@proxied"),  # an early line sent as a late one: on answers
    # whose table httpd replaced after the request was read, and in place of a backend's copy
    "A2N884": effects("header:changed@nginx-refused"),  # a refusal sends a status-gated always line and the
    # header's onsuccess line together, where httpd sends one of them
    "A2N513": effects(),    # the SetEnvIf header is one verify's requests never carry (nginx ignores it)
    "A2N505": effects("header:missing", "header:changed", "backend header:missing", "backend header:changed"),

    # ------------------------------------------------------------ A2N6xx logging: logs are not compared
    "A2N601": effects(),
    "A2N602": effects(),
    "A2N603": effects(),
    "A2N604": effects(),
    "A2N605": effects(),
    "A2N606": effects(),
    "A2N607": effects(),

    # ------------------------------------------------------------ A2N7xx other modules
    "A2N701": effects(),                # httpd ignores it too
    "A2N702": effects("header", "backend header", "status@status-403", "connection", "body"),  # readers of the
    # variable (Header env=, RequestHeader env=, Require env, no-gzip, nokeepalive, ...) see it unset
    "A2N717": effects("header:missing", "header:added", "header:changed@proxied", "backend header:missing",
                      "backend header:changed"),  # the reader's header is not sent where the value differs,
    # or (a header's env= condition taken to hold everywhere) sent where httpd does not send it
    "A2N715": effects("body"),          # a script's output or an SSI page's echo without the variable
    "A2N716": effects("body"),          # the variable empty in httpd, unset in nginx
    "A2N703": effects(),
    "A2N704": effects("header content-encoding", "body"),  # compressed differently
    "A2N705": effects("backend header x-forwarded-for", "status"),  # a private address from a trusted proxy
    "A2N706": effects(),                # trusts every client in both servers
    "A2N707": effects("body", "header"),  # stub_status's counters instead of the scoreboard
    "A2N708": effects("status", "body", "backend:added", "header"),  # nothing served there
    "A2N760": effects("header", "backend header"),  # Header/RequestHeader env= see the variable unset
    "A2N761": effects("header content-encoding", "body"),  # gzip may encode the file once more
    "A2N709": effects("header cache-control@proxied", "header expires@proxied"),  # replaces a backend's own
    "A2N710": effects("header etag"),
    "A2N711": effects("status@encoded-slash", "location@encoded-slash", "body@encoded-slash",
                      "backend@encoded-slash", "header@encoded-slash"),  # nginx decodes %2F and serves the path
    "A2N712": effects("header cache-control:missing", "header expires:missing"),  # the type maps to off
    "A2N713": effects("header cache-control:changed", "header expires:changed"),  # an old file's expiry
    "A2N774": effects(),                # both servers answer 500 there
    "A2N775": effects(),                # both servers answer 500 there
    "A2N897": effects("status:changed@server-error,nginx-refused"),  # 403 where httpd answers 500
    "A2N776": effects(),                # both servers answer 500 there
    "A2N773": effects(),                # the section applies to no request in either server
    "A2N730": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the URLs of overlapping sections are refused (403)
    "A2N740": effects("*"),             # a <Directory> left out, or the server refused
    "A2N741": effects("*"),             # a file section left out
    "A2N742": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the region is refused (403)
    "A2N743": effects("status", "body", "header", "location"),  # Options (Indexes, MultiViews...) not applied
    "A2N744": effects(),                # no .htaccess is read by the verified httpd either (A2N749 when converted)
    "A2N745": effects(*_REWRITE),       # rules left out, or a redirect that runs before the access rules
    # a directory named like a refused file is refused (its 403 carries none of the headers of the answer httpd
    # gives there, an OPTIONS Allow); a URL whose file (or directory) does not exist gets the section's rules in
    # nginx, where httpd answers 404 without them, and OPTIONS with its Allow (200: httpd's OPTIONS answer
    # needs no file); a status-gated `Header always` is sent with its value on nginx's login or refusal, where
    # httpd's own 401 for an existing file does not send it; nginx's login or refusal in place of httpd's 404
    # carries that answer's headers (the challenge, the headers its ErrorDocument page is sent with) which
    # httpd's bare 404 lacks
    "A2N747": effects("status@status-403", "header@status-403", "status:changed@status-404,nginx-refused",
                      "header:added@status-404,nginx-refused",
                      "header:added@httpd-refused,nginx-refused",
                      "status:changed@options-method,success,nginx-refused",
                      "header www-authenticate:added@options-method,success,nginx-refused",
                      "header allow:missing@options-method,success,nginx-refused"),
    "A2N748": effects("status@status-403"),  # 403 where httpd answers 500
    "A2N749": effects(),
    "A2N778": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the directory is refused (403)
    "A2N779": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the directory is refused (403)
    "A2N750": effects(),                # a handler outside the input: the verified httpd lacks it too
    "A2N751": effects("status@status-404", "header@status-404"),  # no negotiation: extensionless URLs 404
    "A2N752": effects("body"),          # pages sent unparsed
    "A2N757": effects("body"),          # another SSI dialect
    "A2N758": effects("body"),          # parsed where httpd does not, or the other way
    "A2N759": effects("body", "header etag"),  # nginx's default formats and validators
    "A2N762": effects("header etag", "status@conditional-request"),  # only the validators differ
    "A2N753": effects("status@status-404"),  # path info answers 404
    "A2N754": effects("status@credentials", "header www-authenticate@credentials"),  # a hash nginx cannot check
    "A2N755": effects(),                # the group's members are written out: the same decision
    "A2N756": effects(),                # differs only for a repeated request header, which verify never sends
    "A2N785": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the aliased URLs are refused (403)
    "A2N784": effects(),                # httpd ignores the directive, and so does the translation
    "A2N258": effects(),                # httpd never uses the directive; the translation leaves it out
    "A2N768": effects("header"),       # a Header line's env= read on the request's own path, not the rewritten one
    "A2N770": effects("status:changed@status-403", "header www-authenticate:missing@status-403"),  # 403 before
    # the login where httpd answers 401
    "A2N771": effects("status@success,redirect", "location:added@success,redirect", "header@success,redirect",
                      "body@success,redirect"),  # nginx redirects where httpd lists the directory
    # ... and a URL whose file's directory does not exist: httpd applies the directory's rules (the section sees the
    # missing segment's name), nginx the section's, which grant: 404 where httpd asks for a login or refuses
    # the fallback's 401 carries auth_basic's challenge in nginx, none in httpd (the subrequest keeps it)
    "A2N767": effects("header www-authenticate:added@httpd-refused"),
    # the requests falling back into the refused section are refused (403) where httpd answers the fallback URL
    "A2N766": effects("status@nginx-refused", "header@nginx-refused", "location@nginx-refused",
                      "body@nginx-refused", "backend@nginx-refused"),
    "A2N772": effects("status:changed@path-info,status-404", "header www-authenticate:added@path-info,status-404",
                      "status:changed@status-404,httpd-refused",
                      "header www-authenticate:missing@status-404,httpd-refused"),
    # the directory's answer (403, 401) to path info after a file the section grants, where httpd answers 404
    "A2N867": effects("header www-authenticate:changed@inner-segment,httpd-refused,nginx-refused"),  # the
    # directory's realm where httpd challenges in the file section's, after a matching name going on
    "A2N720": effects("status", "body", "header"),  # a script under a ^~ prefix is served as a file
    "A2N721": effects("status@no-backend-process", "header@no-backend-process", "body@no-backend-process"),  # the
    # FastCGI server must run
    "A2N722": effects("status", "header@no-backend-process", "body@no-backend-process"),  # fcgiwrap; 403/404
    # where httpd answers 500/403
    "A2N723": effects(),                # both servers refuse
    "A2N724": effects("status@status-403", "header@status-403"),  # all refused where some ran
    "A2N725": effects("body@https,no-backend-process"),  # a script reading another SSL_* variable
    "A2N726": effects("status", "body", "header"),  # a directory named like a script goes to the handler
    "A2N727": effects("header:added@status-404"),  # a missing directory's section headers on nginx's 404

    # ------------------------------------------------------------ A2N8xx mod_rewrite
    "A2N801": effects(),                # httpd does not start
    "A2N802": effects(*_REWRITE),       # the parent's rules are not copied
    "A2N803": effects(*_REWRITE),       # a few requests rewritten differently
    "A2N804": effects(*_REWRITE),       # the rule is not translated
    "A2N805": effects(*_REWRITE),
    "A2N806": effects(*_REWRITE),
    "A2N807": effects(*_REWRITE),
    "A2N808": effects(*_REWRITE),
    "A2N809": effects(*_REWRITE),
    "A2N810": effects(*_REWRITE),       # an empty file counts as present
    "A2N811": effects(*_REWRITE),
    "A2N812": effects(*_REWRITE),       # the [P] rule is not translated: not proxied
    "A2N813": effects(*_REWRITE),
    "A2N814": effects("header", "backend header"),  # Header/RequestHeader env= do not see the variable
    "A2N815": effects("status", "location"),  # not translated: no redirect loop in nginx
    "A2N816": effects("location@redirect"),   # unescaped target
    "A2N817": effects(),                # httpd ignores it too
    "A2N818": effects(),                # httpd ignores the rules too
    "A2N819": effects(),                # exact
    "A2N820": effects("status", "body", "backend", "header"),  # existing files served instead of the script
    "A2N821": effects("status@httpd-refused"),  # a rewrite into another location skips the access rules httpd refused by
    "A2N822": effects("status@host-port", "location@host-port", "body@host-port", "backend@host-port",
                      "header@host-port"),  # nginx redirects a Host with a port that httpd's condition does not match
    "A2N823": effects(),                # reproduced
    "A2N824": effects(*_REWRITE),       # httpd ignores the snippet's rules on their own
    "A2N869": effects("status@nginx-refused,unsafe-method", "header@nginx-refused,unsafe-method",
                      "location@nginx-refused,unsafe-method", "body@nginx-refused,unsafe-method"),  # the
    # methods a limit_except catches are refused (403) where a rewrite-phase refusal would not run for them
    "A2N868": effects("header:added@proxied,inner-segment"),  # a file section's headers on a per-directory
    # [P] rule's answer for a URL under a missing directory, where httpd's walk stopped before the file's name
    "A2N825": effects(),                # no connection reuse: nothing a request shows
    "A2N826": effects(*_REWRITE),
    "A2N827": effects("header content-type"),  # the forced type is missing under ^~ prefixes
    "A2N828": effects("backend path", "backend query", "location"),  # captures copied unescaped
    "A2N830": effects(*_REWRITE),
    "A2N831": effects(*_REWRITE),       # the map is empty in the translation
    "A2N832": effects("status@host-port", "location@host-port", "backend@host-port"),  # $host has no port
    "A2N833": effects(*_REWRITE),       # a URL needing more rounds
    "A2N834": effects(*_REWRITE),       # another random pick
    "A2N835": effects(),                # no URL reaches the directory
    "A2N838": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the directory is refused (403)
    "A2N882": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the directory of the [P] rule is refused (403)
    "A2N780": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the rule's requests are refused (403)
    "A2N890": effects("status@status-403", "header@status-403", "location@status-403",
                      "backend@status-403"),  # the regex location is refused (403)
    "A2N839": effects("status@status-403", "header@status-403", "location@status-403"),  # 403 before nginx's
    # access checks (a redirect of httpd's where a <LocationMatch> taking FollowSymLinks away is refused whole)
    "A2N844": effects("status@status-403", "header@status-403", "location@status-403"),  # the directory refused
    "A2N837": effects(),                # httpd does not run them either
    "A2N836": effects("status@path-info", "body@path-info", "header@path-info", "location@path-info"),
    "A2N829": effects("header set-cookie:changed"),  # Max-Age instead of expires=
    # mod_dir's redirect of the request's own path where a rewrite maps it to a directory, not reproduced
    "A2N840": effects("status@redirect", "location@redirect", "body@redirect", "header@redirect"),
    # mod_dir's index subrequest runs the rules again on the request's path plus the index name
    "A2N841": effects("status@directory-request", "location@directory-request", "body@directory-request",
                      "header@directory-request"),
    # what nginx would proxy for a directory a server rule moved (and its index lookup) is refused (403)
    "A2N883": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),
    "A2N842": effects(*_REWRITE),       # the rule is not translated: refused
    "A2N879": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the rule's requests are refused (403)
    # a request the `if` keeps is served without try_files: 404 where httpd serves the fallback URL, which
    # mod_dir also takes from a ProxyPass (its subrequest's proxy-server handler): no backend answers in nginx
    "A2N843": effects("status:changed@status-404", "body@status-404", "header@status-404",
                      "backend:missing@status-404"),
    "A2N846": effects(),                # httpd never applies the replaced rules either
    # the file section's `always` headers on the error a rule answers for a directory's index file
    "A2N847": effects("header@directory-request,error-status"),
    "A2N850": effects("status", "body"),  # httpd serves a file path nginx reads as a URL path
    "A2N851": effects(*_REWRITE),       # the rule is not emitted
    "A2N852": effects("location:changed@redirect"),  # nginx's escaping of a redirect's captures
    "A2N860": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the [END] rule's requests are refused (403)
    "A2N861": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the rule's requests are refused (403)
    "A2N863": effects("header:changed@nginx-refused"),  # the refusal sends a header's always line alone where
    # httpd's success sends its onsuccess line too
    "A2N866": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the requests rewritten into the refused section are refused (403)
    "A2N889": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the requests rewritten into the refused directory are refused (403)
    "A2N870": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the requests rewritten into the refused section are refused (403)
    "A2N871": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the requests rewritten under the refused Alias are refused (403)
    # a login where httpd redirects its 404 to an ErrorDocument URL (a missing directory): the challenge (the status
    # and Location go with the 404 the redirect stands for, A2N747)
    "A2N891": effects("header www-authenticate:added@redirect,nginx-refused"),
    "A2N893": effects("header:added@directory-request,error-status"),  # the index file's refusal with its headers
    "A2N895": effects("status:changed@server-error,nginx-refused"),  # 403 where httpd answers the .htaccess
    # failure's 500, for the requests the rule rewrites into the directory
    "A2N899": effects("backend header"),  # a server's RequestHeader applied again after the internal redirect
    "A2N880": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the [P] rule's requests are refused (403)
    "A2N862": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the [END] rule's requests are refused (403)
    "A2N877": effects("status@status-403", "header@status-403", "location@status-403", "body@status-403",
                      "backend@status-403"),  # the [END] rule's requests are refused (403)

    # ------------------------------------------------------------ A2N9xx self-checks and lint: they judge nginx
    # files, not the translation's behaviour, and explain nothing in verify
    "A2N900": effects(),
    "A2N901": effects(),
    "A2N902": effects(),
    "A2N903": effects(),
    "A2N904": effects(),
    "A2N905": effects(),
    "A2N960": effects(),
    "A2N961": effects(),
    "A2N962": effects(),
    "A2N963": effects(),
    "A2N964": effects(),
    "A2N965": effects(),
    "A2N966": effects(),
    "A2N967": effects(),
    "A2N968": effects(),
    "A2N969": effects(),
}
