"""The differential fuzzer's engine: generated Apache configurations (generator), the requests aimed at
what they name (probes), a run of `apache2nginx verify` judged by its strict explainer (verifier), and the
delta-debugging reducer that shrinks a failing case to a fixture candidate (reducer).

bench/difffuzz.py is the runner. Only the standard library and apache2nginx (run as a process) are used.
"""
