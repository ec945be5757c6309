"""Worker parameter numbers read as httpd 2.4 reads them (checked against `apache2 -t`), and the upstream server
values nginx refuses (checked against `nginx -t`)."""
from __future__ import annotations

import pytest

from apache2nginx.emit.limits import out_of_range
from apache2nginx.passes.proxy_numbers import atoi_seconds, c_atoi, loadfactor, nginx_duration, timeout_ms


@pytest.mark.parametrize("value, seconds", [("1500ms", 1500), ("2mi", 2), ("1h", 1), ("+5", 5), ("1x", 1),
                                            ("0", 0), ("4294967296", 0), ("4294967297", 1)])
def test_atoi_seconds_reads_the_leading_number(value, seconds):
    assert atoi_seconds(value, 0) == seconds


@pytest.mark.parametrize("value", ["-1", "2147483648", "99999999999999999999"])
def test_atoi_seconds_refuses_what_httpd_refuses(value):
    assert atoi_seconds(value, 0) is None      # "Retry must be a positive value"
    assert c_atoi("2147483648") == -(1 << 31)


@pytest.mark.parametrize("value, ms", [("5", 5000), ("500ms", 500), ("3mi", 180_000), ("3min", 180_000),
                                       ("2hours", 7_200_000), ("5sec", 5000), ("+5", 5000),
                                       ("9223372036854", 9_223_372_036_854_000),
                                       ("9223372036854775ms", 9_223_372_036_854_775)])
def test_timeout_ms_takes_units(value, ms):
    assert timeout_ms(value) == ms


@pytest.mark.parametrize("value", ["0ms", "", "-5", "1x", "9223372036855", "9223372036854776ms"])
def test_timeout_ms_refuses_what_httpd_refuses(value):
    assert timeout_ms(value) is None


def test_loadfactor_in_hundredths():
    assert loadfactor("1.005") == 100 and loadfactor("2.5") == 250 and loadfactor("100.004") == 10000
    assert loadfactor("0.5") is None and loadfactor("101") is None and loadfactor("abc") is None


def test_nginx_duration():
    assert nginx_duration(1500) == "1500ms" and nginx_duration(180_000) == "180s"


@pytest.mark.parametrize("args", [["a:1", "fail_timeout=1500mss"], ["a:1", "fail_timeout=1ms"],
                                  ["a:1", "weight=0"], ["a:1", "max_fails=9223372036854775808"],
                                  ["a:1", "max_conns=9223372036854775808"],
                                  ["a:1", "fail_timeout=9223372036854775808"]])
def test_upstream_server_values_nginx_refuses(args):
    assert out_of_range("server", args)


@pytest.mark.parametrize("args", [["a:1", "max_fails=1", "fail_timeout=60s", "backup"], ["a:1", "weight=10000"],
                                  ["a:1", "max_fails=0"], ["a:1", "fail_timeout=9223372036854775807"]])
def test_upstream_server_values_nginx_reads(args):
    assert out_of_range("server", args) is None
