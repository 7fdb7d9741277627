"""`GET /api/docs`: the OpenAPI description in Swagger UI, its script, style and
icon served by the server itself, so that the page works without the internet."""

from __future__ import annotations

import re
from pathlib import Path

from test_server_logs import _app, ask


def test_the_docs_page_loads_nothing_from_elsewhere(tmp_path: Path) -> None:
    app = _app(tmp_path)
    page = ask(app, "/api/docs")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    addresses = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", page.text)
    assert addresses, page.text
    assert not [a for a in addresses if re.match(r"(https?:)?//", a)], addresses
    assert "/api/openapi.json" in page.text
    for asset, kind in (("swagger-ui-bundle.js", "javascript"), ("swagger-ui.css", "css"),
                        ("favicon.png", "image/png")):
        answer = ask(app, f"/api/docs-assets/{asset}")
        assert answer.status_code == 200 and kind in answer.headers["content-type"], asset
        assert len(answer.content) > 1000, asset
        assert f"/api/docs-assets/{asset}" in page.text
