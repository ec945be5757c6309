"""The maps that decide Require env / Require expr / Allow from env= regions, evaluated as nginx would and
compared with a model of httpd's own evaluation (mod_authz_core's apply_authz_sections, mod_access_compat's
three passes)."""
from __future__ import annotations

import ipaddress
import itertools
import random
import re

from apache2nginx.model import NginxModel, Server
from apache2nginx.passes.access import Authz
from apache2nginx.passes.access_cond import GRANTED, Conditions, compat_condition

VARS = ["a", "b", "c"]


def _model() -> tuple[NginxModel, Server]:
    model = NginxModel()
    main = Server(span=None, is_main=True)
    model.main_server = main
    # as SetEnvIf would leave them: one map chain variable per name
    main.settings["setenvif"] = {v: f"$a2n_setenv_{v}" for v in VARS}
    return model, main


def _evaluate(model: NginxModel, value: str, inputs: dict[str, str]) -> str:
    """nginx's reading of VALUE: a constant, or a variable computed by the model's maps."""
    maps = {m.variable: m for m in model.maps}

    def var(name: str) -> str:
        if name in inputs:
            return inputs[name]
        m = maps[name]
        source = re.sub(r"\$[a-z0-9_]+", lambda x: var(x.group(0)), m.source)
        for key, out in m.entries:        # plain strings first (ignoring case), then regexes in order
            k = "" if key == '""' else key
            if not k.startswith("~") and k.lower() == source.lower():
                return "" if out == '""' else out
        for key, out in m.entries:
            if key.startswith("~") and re.search(key[1:], source):
                return "" if out == '""' else out
        return "" if m.default in (None, '""') else m.default
    return var(value) if value.startswith("$") else value


def _httpd(node: Authz, env: dict[str, bool]) -> str:
    """apply_authz_sections over env leaves (G/D/N)."""
    if node.op == "leaf":
        if node.kind == "all":
            result = "G" if node.args[0] == "granted" else "D"
        elif node.kind == "ip":
            result = "G" if env["addr"] in ipaddress.ip_network(node.args[0]) else "D"
        else:
            result = "G" if any(env[a] for a in node.args) else "D"
    else:
        children = [_httpd(c, env) for c in node.children]
        first, second = ("D", "G") if node.op == "all" else ("G", "D")
        result = first if first in children else second if second in children else "N"
        if node.op == "none":
            node = Authz("x", negated=True)
    if node.negated:
        result = "D" if result == "G" else "N"
    return result


def _random_tree(rng: random.Random, depth: int) -> Authz:
    if depth == 0 or rng.random() < 0.4:
        if rng.random() < 0.2:
            return Authz("leaf", "all", [rng.choice(["granted", "denied"])], negated=False)
        if rng.random() < 0.25:
            return Authz("leaf", "ip", [rng.choice(["10.0.0.0/8", "10.1.0.0/17"])], negated=rng.random() < 0.4)
        return Authz("leaf", "env", rng.sample(VARS, rng.choice([1, 1, 2])), negated=rng.random() < 0.4)
    return Authz(rng.choice(["all", "any", "none"]), children=[_random_tree(rng, depth - 1)
                                                               for _ in range(rng.randint(1, 3))])


def _tree_decision(model: NginxModel, cond: Conditions, tree: Authz):
    value = cond.tri(tree)
    stmts = cond.refuse_unless(value, (GRANTED,), None, "Require env/expr")

    def admitted(inputs: dict[str, str]) -> bool:
        for st in stmts:
            if st.name == "deny":
                return False
            test = re.fullmatch(r'\((\$\w+) (=|!=) ("?)(\w*)"?\)', st.args[0])
            actual = _evaluate(model, test.group(1), inputs)
            wanted = "" if test.group(3) else test.group(4)
            if (actual == wanted) == (test.group(2) == "="):
                return False
        return True
    return admitted


def test_require_trees_decide_as_httpd_does():
    rng = random.Random(7)
    for _ in range(300):
        model, main = _model()
        cond = Conditions(model, main)
        tree = _random_tree(rng, 3)
        admitted = _tree_decision(model, cond, tree)
        for bits in itertools.product([False, True], repeat=len(VARS)):
            for addr in ("10.1.2.3", "10.1.200.3", "192.168.0.1"):
                env = dict(zip(VARS, bits))
                inputs = {f"$a2n_setenv_{v}": ("1" if on else "") for v, on in env.items()}
                inputs["$request_method"] = "GET"
                inputs["$remote_addr"] = addr
                env["addr"] = ipaddress.ip_address(addr)
                assert admitted(inputs) == (_httpd(tree, env) == "G"), (tree, env)


def test_a_variable_set_to_zero_counts_as_set():
    model, main = _model()
    cond = Conditions(model, main)
    admitted = _tree_decision(model, cond, Authz("leaf", "env", ["a"]))
    assert admitted({"$a2n_setenv_a": "0"})
    assert not admitted({"$a2n_setenv_a": ""})


def test_a_variable_nothing_sets_never_matches():
    model, main = _model()
    cond = Conditions(model, main)
    assert cond.tri(Authz("leaf", "env", ["never_set"])) == "D"
    assert cond.tri(Authz("leaf", "env", ["never_set"], negated=True)) == "N"


def test_compat_env_entries_follow_the_three_passes():
    for order in ("deny,allow", "allow,deny"):
        for allows in ([], ["a"], ["!a"], ["a", "b"]):
            for denies in ([], ["b"], ["!c"], ["b", "c"]):
                model, main = _model()
                cond = Conditions(model, main)
                value = compat_condition(cond, [("env=" + a, None) for a in allows],
                                         [("env=" + d, None) for d in denies], order, None)
                value = cond.variable(value)
                for bits in itertools.product([False, True], repeat=len(VARS)):
                    env = dict(zip(VARS, bits))
                    inputs = {f"$a2n_setenv_{v}": ("1" if on else "") for v, on in env.items()}

                    def match(entry: str) -> bool:
                        return not env[entry[1:]] if entry.startswith("!") else env[entry]
                    allow = any(match(a) for a in allows)
                    deny = any(match(d) for d in denies)
                    expected = (allow or not deny) if order == "deny,allow" else (allow and not deny)
                    assert (_evaluate(model, value, inputs) == "G") == expected, (order, allows, denies, env)


def test_certificate_name_comparisons_read_the_first_attribute_of_the_certificate():
    """nginx's $ssl_client_s_dn is RFC 2253 (reversed): the certificate's first CN is the last one there."""
    from apache2nginx.passes.header_expr import HeaderCondition
    model = NginxModel()
    HeaderCondition(model, request_only=True, exact_case=True).compile('%{SSL_CLIENT_S_DN_CN} in {"alice", "bob"}')
    key = model.maps[-1].entries[0][0]
    rx = re.compile(key[1:])
    assert rx.search("CN=alice,O=Example,C=DE")
    assert rx.search("emailAddress=x@y,CN=bob")
    assert rx.search("CN=alice+UID=7,O=x")
    assert not rx.search("CN=alice,CN=carol")          # the certificate's first CN is carol
    assert rx.search("CN=carol,CN=alice")
    assert not rx.search("CN=alicex,O=x")
    assert not rx.search("O=x\\,CN=alice")              # an escaped comma inside another value
    assert not rx.search("CN=Alice")                    # case-sensitive, as httpd's ==
    assert not rx.search("")


def test_ipv4_networks_match_exactly_as_expressions():
    from apache2nginx.passes.access_cond import ipv4_regex
    rng = random.Random(3)
    for net in ["10.0.0.0/8", "172.16.0.0/12", "192.168.1.0/24", "1.2.3.4/30", "1.2.3.4", "10.1.0.0/17"]:
        rx, network = re.compile(ipv4_regex(net)), ipaddress.ip_network(net)
        for _ in range(3000):
            a = ipaddress.ip_address(rng.getrandbits(32)) if rng.random() < 0.5 else \
                network.network_address + rng.randrange(network.num_addresses)
            assert bool(rx.search(str(a))) == (a in network), (net, a)
            assert bool(rx.search("::ffff:" + str(a))) == (a in network), (net, a)
