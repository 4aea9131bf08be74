"""Use a logged-in player's saved language, whatever device they come from."""

from django.utils import translation


class UserLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or not user.language:
            return self.get_response(request)
        # override, not activate: the thread goes back to its language after the request.
        with translation.override(user.language):
            request.LANGUAGE_CODE = user.language
            return self.get_response(request)
