"""What the server counts for its operator, in Prometheus' text format at
``GET /metrics`` (through ``prometheus-client``: the metric kinds, the text format
and the sharing between several server processes are its own).

Every metric is named ``blockyard_…``:

==========================================  ===========================================
metric                                      what it counts
==========================================  ===========================================
``blockyard_http_requests_total``           answers by ``route`` (the path's template,
                                            ``/api/tables/{table_id}``), ``method``
                                            and ``status``
``blockyard_http_request_seconds``          the time to answer, by ``route`` and
                                            ``method`` (a histogram)
``blockyard_live_connections``              live connections open, by ``channel``
                                            (``table``, ``player``)
``blockyard_tables``                        live tables by ``status`` (``waiting``,
                                            ``playing``, ``finished``), read from the
                                            database at each scrape
``blockyard_actions_total``                 table actions by ``outcome`` (``accepted``,
                                            ``refused``) and refusal ``kind``
``blockyard_verifications_queued``          submitted games waiting for or in a
                                            verifying process
``blockyard_verification_seconds``          a verification's time (a histogram)
``blockyard_verifications_refused_total``   submitted games the replay check refused
``blockyard_group_commit_size``             rows per group commit, by ``store``
                                            (``actions``, ``presence``)
``blockyard_build_info``                    1, with the server's Blockyard
                                            ``version`` as its label (which build
                                            answers, as ``/api/health`` says it)
==========================================  ===========================================

With ``blockyard serve --workers N`` above 1 every process writes its figures to
files in a folder of ``blockyard serve``'s own (``PROMETHEUS_MULTIPROC_DIR``,
prometheus-client's multiprocess mode), and whichever process answers
``/metrics`` adds them up: the figures are the server's, not one process's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ..version import __version__

__all__ = ["CONTENT_TYPE_LATEST", "MULTIPROC_ENV", "TABLE_STATUSES", "actions",
           "group_commit", "http_request", "live_connections", "process_gone",
           "scrape", "verification_refused", "verification_seconds",
           "verifications_queued"]

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's folder for the figures of several processes."""
TABLE_STATUSES = ("waiting", "playing", "finished")

# a counter's moment of creation as a series of its own (``…_created``) doubles
# the page for what Prometheus' own process start time already tells
disable_created_metrics()  # type: ignore[no-untyped-call]

http_requests = Counter("blockyard_http_requests", "HTTP answers by route, method and status",
                        ["route", "method", "status"])
http_seconds = Histogram("blockyard_http_request_seconds", "Time to answer an HTTP request",
                         ["route", "method"],
                         buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10))
live_connections = Gauge("blockyard_live_connections", "Live connections open, by channel",
                         ["channel"], multiprocess_mode="livesum")
actions = Counter("blockyard_actions", "Table actions by outcome and refusal kind",
                  ["outcome", "kind"])
verifications_queued = Gauge("blockyard_verifications_queued",
                             "Submitted games waiting for or in a verifying process",
                             multiprocess_mode="livesum")
verification_seconds = Histogram("blockyard_verification_seconds",
                                 "Time to verify a submitted game (queue included)",
                                 buckets=(.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30))
verification_refused = Counter("blockyard_verifications_refused",
                               "Submitted games the replay check refused")
group_commit = Histogram("blockyard_group_commit_size", "Rows stored per group commit",
                         ["store"], buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512))
# prometheus-client's Info has no multiprocess mode: a gauge of 1 with the label,
# the same in every process ("max" adds nothing up)
build_info = Gauge("blockyard_build_info", "The server's Blockyard build (1, its version a label)",
                   ["version"], multiprocess_mode="max")
build_info.labels(__version__).set(1)


def http_request(route: str, method: str, status: int, seconds: float) -> None:
    """Count one HTTP answer."""
    http_requests.labels(route, method, str(status)).inc()
    http_seconds.labels(route, method).observe(seconds)


class TablesByStatus(Collector):
    """``blockyard_tables``: the live tables by status, counted when scraped
    (``count`` answers ``{status: n}``; the database is shared by every server
    process, so one count is the server's)."""

    def __init__(self, count: Callable[[], Mapping[str, int]]) -> None:
        self.count = count

    def collect(self) -> Iterable[Metric]:
        family = GaugeMetricFamily("blockyard_tables", "Live tables by status",
                                   labels=["status"])
        try:
            counts = self.count()
        except Exception:  # the database away: no figure rather than no page
            return [family]
        for status in TABLE_STATUSES:
            family.add_metric([status], counts.get(status, 0))
        return [family]


def scrape(count_tables: Callable[[], Mapping[str, int]]) -> bytes:
    """The page of ``GET /metrics``: every process's figures (prometheus-client's
    multiprocess collector when :data:`MULTIPROC_ENV` is set, this process's
    otherwise) and the tables by status. Blocking: one query."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(TablesByStatus(count_tables))
        return generate_latest(registry)
    registry.register(TablesByStatus(count_tables))
    return generate_latest(REGISTRY) + generate_latest(registry)


def process_gone() -> None:
    """This process stops: its live gauges leave the sums (multiprocess mode)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
