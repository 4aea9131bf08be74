"""Settings for the Burraco site, all read from the environment.

With nothing set the site runs on embedded defaults (SQLite, the in-memory channel layer and a
Celery worker thread inside the server process), so one command serves a working site. In
production DATABASE_URL and REDIS_URL switch to PostgreSQL and Redis; see the README.
"""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
# A development key only works with DEBUG on; production must provide its own.
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "dev-only-insecure-key-burraco-" + "x" * 40

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",  # first, so that runserver is Daphne and serves WebSockets too
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "burraco_site.middleware.RejectNulMiddleware",  # before anything reads the session or the user
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "burraco_site.urls"
WSGI_APPLICATION = "burraco_site.wsgi.application"
ASGI_APPLICATION = "burraco_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.waiting_tables",
                "games.context_processors.bell",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Under ASGI every request may run on another thread: a pool, not persistent
        # connections (CONN_MAX_AGE must stay 0 with it).
        # Parameters travel apart from the query text (no quoting of the game state into SQL),
        # and a statement run DB_PREPARE_THRESHOLD times on a pooled connection is prepared
        # there, so PostgreSQL stops parsing and planning the play path's read and write on every
        # action (Django's default, None, never prepares; "none" restores it, for a pooler in
        # transaction mode).
        threshold = os.environ.get("DB_PREPARE_THRESHOLD", "2")
        DATABASES["default"]["OPTIONS"] = DATABASES["default"].get("OPTIONS", {}) | {
            "server_side_binding": True,
            "prepare_threshold": None if threshold.lower() == "none" else int(threshold),
        }
        from burraco_site.dbpool import check_pooled, keep_trying

        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": int(os.environ.get("DB_POOL_MIN", "2")),
            "max_size": int(os.environ.get("DB_POOL_MAX", "20")),
            # How long a request, a socket's frame or a task waits for a connection. A thread never
            # waits for another's (DB_THREADS <= DB_POOL_MAX): only for PostgreSQL. While it is
            # down, a socket's frames wait in line behind this: at 10 s an action was answered
            # `unavailable` after the page had given up (6 s).
            "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "1")),
            # A dead idle connection (PostgreSQL restarted) is dropped before it fails a request.
            "check": check_pooled,
            # While the server is down: about one connection attempt a second (burraco_site/dbpool.py).
            "reconnect_timeout": float(os.environ.get("DB_POOL_RECONNECT_TIMEOUT", "2")),
            "reconnect_failed": keep_trying,
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "CONN_MAX_AGE": 0,
            "OPTIONS": {
                # WAL lets readers go on while a game is written; IMMEDIATE takes the write lock
                # at BEGIN so two writers queue instead of failing half-way.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file, not memory, so that a live server process in the tests sees the same data;
            # one per test run so that parallel runs do not share it.
            "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"burraco-test-{os.getpid()}.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels and Celery ------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")


def redis_channel_layer(url: str) -> dict:
    """The channel layer on the Redis at `url`. Redis has one Pub/Sub space for all its
    databases: the groups are named after the database the URL picks, so two sites on one Redis
    (or two workers of a parallel test run, each on a database of its own) never hear each
    other's frames."""
    database = urlsplit(url).path.strip("/") or "0"
    return {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [{"address": url, "max_connections": 1000}], "prefix": f"asgi-db{database}"},
    }


if REDIS_URL:
    CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)}
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
    CACHES = {
        "default": {
            "BACKEND": "burraco_site.cache.SharedPoolRedisCache",
            "LOCATION": REDIS_URL,
        }
    }
    # Sessions are read from Redis first (every socket handshake looks one up) and kept in the
    # database too, so a Redis restart logs nobody out.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    # channels' in-memory layer, safe to send to from the embedded worker's and scheduler's threads.
    CHANNEL_LAYERS = {"default": {"BACKEND": "burraco_site.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "memory://")
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# With Redis as the broker a Redis restart makes the Celery worker exit (kombu's restore_unacked:
# "AttributeError: 'NoneType' object has no attribute 'hostname'"), and with it every computer
# move and turn timer, until something starts it again. Production refuses it unless the operator
# says a supervisor restarts the worker (deploy/systemd does; the fault tests' stack too).
REDIS_BROKER_SUPERVISED = env_bool("CELERY_REDIS_BROKER_SUPERVISED", False)
if not DEBUG and CELERY_BROKER_URL.startswith(("redis://", "rediss://")) and not REDIS_BROKER_SUPERVISED:
    raise ImproperlyConfigured(
        "CELERY_BROKER_URL is Redis (by default it is REDIS_URL): a Redis restart makes the Celery worker exit "
        "and every computer move and turn timer stops with it. Use RabbitMQ: "
        "CELERY_BROKER_URL=amqp://user:password@host:5672// (docs/operations.md), or set "
        "CELERY_REDIS_BROKER_SUPERVISED=1 if a supervisor restarts the worker whenever it exits."
    )

# Embedded mode: no separate worker process, so the server runs one in a thread.
CELERY_EMBEDDED_WORKER = env_bool("CELERY_EMBEDDED_WORKER", not REDIS_URL)
if CELERY_BROKER_URL.startswith("memory://"):
    # The embedded worker polls the in-memory broker every 0.1 s rather than every second, so a
    # computer's move follows its pause promptly (an idle in-process poll costs nothing).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"polling_interval": 0.1}
# The queue tasks go to and a worker started without -Q reads: tests give each run its own.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
# Analisi della partita runs for tens of seconds per match: on its own queue and worker, so it
# never holds the slots that play the computer's moves (a table waiting behind an analysis
# stalls). The embedded worker and the tests' workers read both queues.
CELERY_ANALYSIS_QUEUE = os.environ.get("CELERY_ANALYSIS_QUEUE", CELERY_TASK_DEFAULT_QUEUE + ".analysis")
# The reviews a person asks for from the replay wait on a queue of their own, which the analysis
# worker reads besides the automatic one: they never wait behind the automatic backlog, only for
# the review in progress and at most one automatic review more (docs/performance.md).
CELERY_ANALYSIS_ASKED_QUEUE = os.environ.get("CELERY_ANALYSIS_ASKED_QUEUE", CELERY_ANALYSIS_QUEUE + ".asked")
# The turn scheduler (games/services/scheduler.py) runs in every worker (and in the embedded
# server): it scans the due games about once a second. No beat schedule is needed.
SCHEDULER_INTERVAL_SECONDS = float(os.environ.get("SCHEDULER_INTERVAL_SECONDS", "1"))
SCHEDULER_IN_WORKER = env_bool("SCHEDULER_IN_WORKER", True)

# --- Live play ----------------------------------------------------------------------------
# New tables are refused past this many waiting or playing (0: no limit); size it from the load
# benchmark on the production machines (docs/performance.md: the tables per core at p99 150 ms).
MAX_TABLES_IN_PLAY = int(os.environ.get("MAX_TABLES_IN_PLAY", "0"))
# A Daphne process answers "busy" instead of queueing more than this many socket calls for its
# database threads (a bounded queue: under overload frames are refused, not delayed for ever).
DB_QUEUE_MAX = int(os.environ.get("DB_QUEUE_MAX", "400"))
# A person's action runs its statements on the server's event loop, on this many connections
# per Daphne process, instead of hopping to a database thread (burraco_site/dbasync.py).
DB_ASYNC_PLAY = env_bool("DB_ASYNC_PLAY", True)
DB_ASYNC_CONNECTIONS = max(1, int(os.environ.get("DB_ASYNC_CONNECTIONS", "4")))
# How long one of those connections may take to open before the action is answered `unavailable`.
DB_CONNECT_SECONDS = max(0.1, float(os.environ.get("DB_CONNECT_SECONDS", "1")))
# The computer's human-like pause before each action (0 in tests).
# Analisi della partita (games/services/history/analysis.py): queue it when a match with a person ends,
# and how many worlds esperto samples per reviewed decision.
ANALYSIS_AFTER_GAME = env_bool("ANALYSIS_AFTER_GAME", True)
ANALYSIS_WORLDS = max(1, int(os.environ.get("ANALYSIS_WORLDS", "24")))
# The automatic reviews within the analysis worker's means (docs/operations.md, capacity): past
# ANALYSIS_QUEUE_MAX of them waiting (0: no cap) a match's review is skipped, and one that waited
# longer than ANALYSIS_QUEUE_EXPIRE_SECONDS is skipped when it is taken; either can be asked for
# from the replay. A person's request is neither capped nor expired.
ANALYSIS_QUEUE_MAX = max(0, int(os.environ.get("ANALYSIS_QUEUE_MAX", "60")))
ANALYSIS_QUEUE_EXPIRE_SECONDS = max(1, int(os.environ.get("ANALYSIS_QUEUE_EXPIRE_SECONDS", "3600")))
BOT_MOVE_DELAY_SECONDS = max(0.0, float(os.environ.get("BOT_MOVE_DELAY_SECONDS", "0.8")))
# Extra seconds on the first draw of every hand after the first: the scoring of the hand just
# over is on screen when the next deal arrives (games.services.table.seating.deadline_for).
HAND_BREAK_SECONDS = max(0, int(os.environ.get("HAND_BREAK_SECONDS", "15")))
# A Daphne whose PostgreSQL or Redis host has not answered a TCP handshake for this many seconds
# closes its sockets (4503) and refuses new ones, so the pages move to a Daphne that reaches its
# data (burraco_site/datareach.py); 0 turns it off.
DATA_CUT_SECONDS = max(0.0, float(os.environ.get("DATA_CUT_SECONDS", "4")))
# Presence (games/live/presence.py): every open table socket says it is there every
# PRESENCE_HEARTBEAT_SECONDS, and a socket that stopped saying so counts for PRESENCE_TTL_SECONDS.
PRESENCE_HEARTBEAT_SECONDS = max(0.5, float(os.environ.get("PRESENCE_HEARTBEAT_SECONDS", "15")))
PRESENCE_TTL_SECONDS = max(2 * PRESENCE_HEARTBEAT_SECONDS + 1,
                           float(os.environ.get("PRESENCE_TTL_SECONDS", "40")))
# "Gioca con persone" (games/services/lobby/matchmaking.py): a lobby socket says every
# QUEUE_HEARTBEAT_SECONDS that its person is still there; an entry not heard of for
# QUEUE_STALE_SECONDS (a Daphne process died) or whose last lobby socket closed
# QUEUE_LEAVE_GRACE_SECONDS ago (a reload comes back sooner) leaves the queue; who opted in plays
# the computer after QUEUE_COMPUTER_AFTER_SECONDS without a match.
QUEUE_HEARTBEAT_SECONDS = max(0.5, float(os.environ.get("QUEUE_HEARTBEAT_SECONDS", "5")))
QUEUE_STALE_SECONDS = max(3 * QUEUE_HEARTBEAT_SECONDS, float(os.environ.get("QUEUE_STALE_SECONDS", "30")))
QUEUE_LEAVE_GRACE_SECONDS = max(0.0, float(os.environ.get("QUEUE_LEAVE_GRACE_SECONDS", "10")))
QUEUE_COMPUTER_AFTER_SECONDS = max(1.0, float(os.environ.get("QUEUE_COMPUTER_AFTER_SECONDS", "60")))
# A challenge (an invitation to a private, unrated table for two) waits this long for an answer.
CHALLENGE_EXPIRE_SECONDS = max(10, int(os.environ.get("CHALLENGE_EXPIRE_SECONDS", "600")))
# Tests only: let games.live.clock move the game clock (the offset lives in the cache).
BURRACO_CLOCK_ADJUSTABLE = env_bool("BURRACO_CLOCK_ADJUSTABLE", False)
# The load benchmark's echo socket (/ws/echo/): never on in production.
BURRACO_BENCH_ECHO = env_bool("BURRACO_BENCH_ECHO", False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker that goes away is waited for, however long: the worker never gives up and exits.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# ... and tried again every second, not on kombu's growing back-off (burraco_site/worker_consumer.py).
CELERY_WORKER_CONSUMER = "burraco_site.worker_consumer:PromptConsumer"
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # keep the server's own logging as configured below

# --- Accounts -----------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses locked-out log-ins
    "django.contrib.auth.backends.ModelBackend",
]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "accounts.validators.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "lobby"  # people sign in to play: the tables, not the home page
LOGOUT_REDIRECT_URL = "home"

AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
# Username and address together: a stranger cannot lock a player out from elsewhere.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
# New accounts per address per hour (0 = no cap); the count lives in the cache (Redis with
# REDIS_URL, shared by every process). The address is the one django-axes uses (REMOTE_ADDR:
# behind a proxy, run Daphne with --proxy-headers; see docs/operations.md).
SIGNUP_LIMIT_PER_HOUR = int(os.environ.get("SIGNUP_LIMIT_PER_HOUR", "5"))
SIGNUP_LIMIT_WINDOW_SECONDS = 3600
AXES_HANDLER = os.environ.get("AXES_HANDLER", "axes.handlers.database.AxesDatabaseHandler")

# --- E-mail -------------------------------------------------------------------------------
# In development the console (reset links appear in the server's output); in production, or
# whenever EMAIL_HOST is set, SMTP.
if os.environ.get("EMAIL_HOST") or not DEBUG:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": os.environ.get("EMAIL_HOST", "localhost"),
                "port": int(os.environ.get("EMAIL_PORT", "587" if os.environ.get("EMAIL_HOST") else "25")),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", bool(os.environ.get("EMAIL_HOST"))),
                "use_ssl": env_bool("EMAIL_USE_SSL", False),
                "timeout": 20,
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Burraco <noreply@localhost>")

# --- Language -----------------------------------------------------------------------------
LANGUAGE_CODE = "it"
LANGUAGES = [("it", _("Italiano")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "Europe/Rome"

# --- Static files -------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Security -----------------------------------------------------------------------------
# Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER_ENABLED=1 (and usually leave the
# redirect to the proxy with SECURE_SSL_REDIRECT=0).
if env_bool("SECURE_PROXY_SSL_HEADER_ENABLED", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "accounts.views.csrf_failure"

# One line per event with a timestamp (docs/operations.md); the Redis client libraries' passing
# connection errors are folded to one line each instead of a traceback.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"format": "%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s"}},
    "filters": {"one_line": {"()": "burraco_site.logging.OneLine"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "line"},
        "console_one_line": {"class": "logging.StreamHandler", "formatter": "line", "filters": ["one_line"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        name: {"handlers": ["console_one_line"], "level": "WARNING", "propagate": False}
        for name in ("channels_redis", "redis", "daphne.server", "celery.worker.consumer")
    },
}
CELERY_WORKER_LOG_FORMAT = "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"
CELERY_WORKER_TASK_LOG_FORMAT = (
    "%(asctime)s %(levelname)s %(processName)s %(task_name)s[%(task_id)s]: %(message)s"
)
