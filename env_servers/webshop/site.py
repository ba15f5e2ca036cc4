"""The shop as a website (Flask), for people: the same pages the environment
reads, at the URLs of views.URL_MAP, plus an index of episodes at "/".

`create_app(shop)` builds the app; `serve_site(shop, host, port)` returns a
running werkzeug server (threaded) whose `.port` is the bound port.
"""

from __future__ import annotations

import threading

from flask import Flask, abort, request
from werkzeug.serving import BaseWSGIServer, make_server

from env_servers.webshop.goals import task_id
from env_servers.webshop.pages import PageNotFound
from env_servers.webshop.shop import Shop, UnknownTask
from env_servers.webshop.views import URL_MAP, BadPageAddress, View, view_from_arguments, view_url

INDEX_EPISODES = 50


def create_app(shop: Shop) -> Flask:
    app = Flask(__name__)

    @app.get("/")
    def index():
        count = min(INDEX_EPISODES, shop.store.goal_count)
        episodes = [{"task_id": task_id(p), "url": view_url(task_id(p), View()),
                     "instruction": shop.store.goal(p)["instruction_text"]} for p in range(count)]
        template = shop.pages.templates.get_template("index.html")
        return template.render(episodes=episodes, total=shop.store.goal_count)

    def page(endpoint: str):
        def handler(**arguments):
            try:
                view = view_from_arguments(endpoint, arguments, request.args.to_dict())
                return shop.page_html(arguments["task_id"], view)
            except (UnknownTask, PageNotFound) as error:
                abort(404, description=str(error))
            except BadPageAddress as error:
                abort(400, description=str(error))
        handler.__name__ = f"page_{endpoint}"
        return handler

    for rule in URL_MAP.iter_rules():
        app.add_url_rule(rule.rule, endpoint=rule.endpoint, view_func=page(rule.endpoint))
    return app


def serve_site(shop: Shop, host: str = "127.0.0.1", port: int = 0) -> BaseWSGIServer:
    """Starts the site in a daemon thread; stop it with `.shutdown()`."""
    server = make_server(host, port, create_app(shop), threaded=True)
    threading.Thread(target=server.serve_forever, name="webshop-site", daemon=True).start()
    return server
