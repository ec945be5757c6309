"""Corpus report: how the translator does on real-world Apache configurations.

    python3 bench/corpus_report.py ../shared/corpus [--no-nginx] [--quiet] [--top N]

Reads the corpus's INPUTS.txt and converts every input on its own (missing
includes reported, not fatal, since the corpus holds single files cut out of
larger trees). Prints, per file and in total: crashes, refusals (input httpd
would refuse too, exit 2), directives by disposition (exact / approximate /
unsupported / not applicable / unknown), and whether the output passes the
real `nginx -t` through the lint sandbox. It reports figures; it is not a test.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics
from apache2nginx.lint.sandbox import find_nginx, nginx_test
from apache2nginx.syntax.loader import LoadOptions

KEYS = ("exact", "approximate", "unsupported", "not_applicable", "unknown")
# Access directives may only be exact or unsupported (an error, and the region refused): never approximate.
ACCESS_NAMES = {"require", "order", "allow", "deny", "satisfy", "authtype", "authname", "authuserfile",
                "authgroupfile", "authbasicprovider", "authmerging", "authdigestprovider", "authdigestdomain",
                "authldapurl", "authdbmuserfile", "authdbduserpwquery", "sslrequire", "sslrequiressl",
                "<requireall", "<requireany", "<requirenone", "<limit", "<limitexcept"}
SECTION_NAMES = {"<directory", "<directorymatch", "<files", "<filesmatch", "<location", "<locationmatch", "<if",
                 "<elseif", "<else", "<proxy", "<proxymatch", "options", "allowoverride", "allowoverridelist"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--no-nginx", action="store_true", help="skip the nginx -t check")
    ap.add_argument("--quiet", action="store_true", help="print only the totals")
    ap.add_argument("--top", type=int, default=0, metavar="N",
                    help="also print the N directives most often unsupported or unknown")
    args = ap.parse_args()
    inputs = [line.strip() for line in (args.corpus / "INPUTS.txt").read_text().splitlines() if line.strip()]
    nginx = None if args.no_nginx else find_nginx()
    totals: Counter = Counter()
    families = {"rewrite (RewriteRule/RewriteCond)": {"rewriterule", "rewritecond"},
                "access and auth": ACCESS_NAMES,
                "sections (Directory/Files/Location...)": SECTION_NAMES}
    family_totals = {name: Counter() for name in families}
    untranslated: Counter = Counter()
    start = time.perf_counter()
    width = max(len(i) for i in inputs)
    if not args.quiet:
        print(f"{'file':<{width}}  {'dirs':>5} " + " ".join(f"{k[:6]:>6}" for k in KEYS) + "  result  nginx -t")
    with tempfile.TemporaryDirectory(prefix="a2n-corpus-") as tmp:
        for i, rel in enumerate(inputs):
            path = args.corpus / rel
            diags = Diagnostics()
            status, nginx_ok = "ok", "-"
            try:
                result = convert([InputSpec(rel, path)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                                 diags)
            except Exception:  # a crash is exactly what this report exists to find
                totals["crashes"] += 1
                print(f"CRASH {rel}", file=sys.stderr)
                traceback.print_exc()
                continue
            summary = result.tally.summary()
            for fam, names in families.items():
                for name in names:
                    for disp, n in result.tally.by_name.get(name, {}).items():
                        family_totals[fam][disp.value] += n
            for name, counts in result.tally.by_name.items():
                for disp, n in counts.items():
                    if disp.value in ("unsupported", "unknown"):
                        untranslated[name] += n
            for k in KEYS:
                totals[k] += summary[k]
            named = {(s.file, s.line) for x in diags for s in [x.span, *x.related] if s is not None}
            totals["silent"] += sum(1 for span, _, _ in result.tally.inexact if (span.file, span.line) not in named)
            totals["directives"] += summary["directives"]
            totals["files"] += 1
            if result.fatal:
                status = "refused"
                totals["refused"] += 1
            elif nginx:
                out = Path(tmp) / f"{i}.conf"
                out.write_text("".join(result.outputs.values()))
                ok = nginx_test(str(out), nginx).ok
                nginx_ok = "pass" if ok else "FAIL"
                totals["nginx_pass" if ok else "nginx_fail"] += 1
            if not args.quiet:
                print(f"{rel:<{width}}  {summary['directives']:>5} " + " ".join(f"{summary[k]:>6}" for k in KEYS)
                      + f"  {status:<7} {nginx_ok}")
    elapsed = time.perf_counter() - start
    d = totals["directives"] or 1
    covered = totals["exact"] + totals["approximate"]
    print(f"\nfiles: {totals['files']}  crashes: {totals['crashes']}  refused (httpd refuses them too): "
          f"{totals['refused']}")
    print(f"directives: {totals['directives']}  " + "  ".join(f"{k}: {totals[k]}" for k in KEYS))
    print(f"exact or approximate: {covered / d:.2%} ({covered} of {totals['directives']})")
    print(f"approximate or unsupported with no diagnostic naming their line: {totals['silent']}")
    applicable = d - totals["not_applicable"]
    print(f"exact or approximate among directives nginx needs something for (not-applicable ones, such as "
          f"LoadModule, left out): {covered / (applicable or 1):.1%}")
    for fam, counts in family_totals.items():
        n = sum(counts.values()) or 1
        print(f"{fam}: {sum(counts.values())} directives, "
              f"{(counts['exact'] + counts['approximate']) / n:.1%} exact or approximate, "
              + ", ".join(f"{k}: {counts[k]}" for k in KEYS))
    access = family_totals["access and auth"]
    loose = access["approximate"] + access["not_applicable"] + access["unknown"]
    print(f"access directives translated exactly or reported as errors: "
          f"{'yes' if not loose else f'NO ({loose} approximate, not applicable or unknown)'}")
    if args.top:
        print("most often unsupported or unknown: "
              + ", ".join(f"{name} {n}" for name, n in untranslated.most_common(args.top)))
    if nginx:
        print(f"nginx -t: {totals['nginx_pass']} pass, {totals['nginx_fail']} fail")
    print(f"time: {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
