"""The site's settings with channels_redis as it comes (``bench/sockets.py --layer plain``): the figures before
``threethirteen_site/redis_layer.py`` set the Redis client's timeouts and pool."""

from threethirteen_site.settings import *  # noqa: F403
from threethirteen_site.settings import REDIS_URL

CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}}
