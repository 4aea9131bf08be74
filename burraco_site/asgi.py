"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Every WebSocket is authenticated (session cookie) and origin-checked: scheme, host and port
must be this site's own (burraco_site/origin.py).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "burraco_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from burraco_site import gcwatch  # noqa: E402
from burraco_site.datareach import StepAsideWhenCut  # noqa: E402
from burraco_site.origin import SameOriginValidator  # noqa: E402
from burraco_site.wsauth import SessionKeyMiddleware  # noqa: E402  (needs Django set up first)
from games.routing import websocket_urlpatterns  # noqa: E402

gcwatch.watch()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # A process cut from its data refuses handshakes and closes its sockets (datareach.py).
        "websocket": StepAsideWhenCut(SameOriginValidator(
            SessionKeyMiddleware(URLRouter(websocket_urlpatterns))
        )),
    }
)

if settings.CELERY_EMBEDDED_WORKER and os.environ.get("BURRACO_NO_EMBEDDED_WORKER") != "1":
    from burraco_site.celery import start_embedded_worker

    start_embedded_worker()

gcwatch.freeze_startup_objects()
