"""Builds the tree-sitter Apache grammar into the package as `apache2nginx._grammar`.

Only a C compiler is needed: the generated parser (grammars/tree-sitter-apache/src)
is committed, so neither node nor the tree-sitter CLI is required to install.
"""
from setuptools import Extension, setup

GRAMMAR = "grammars/tree-sitter-apache/src"

setup(
    ext_modules=[
        Extension(
            "apache2nginx._grammar",
            sources=["src/apache2nginx/_grammar.c", f"{GRAMMAR}/parser.c", f"{GRAMMAR}/scanner.c"],
            include_dirs=[GRAMMAR],
            extra_compile_args=["-std=c11", "-O2", "-w"],
        )
    ],
)
