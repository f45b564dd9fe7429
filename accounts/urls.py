from django.urls import include, path

from . import push_views, views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile, name="profile"),
    path("turn-sound/", views.turn_sound, name="turn_sound"),
    path("push/subscribe/", push_views.subscribe, name="push_subscribe"),
    path("push/unsubscribe/", push_views.unsubscribe, name="push_unsubscribe"),
    # Django's view with throttling added; the rest of django.contrib.auth.urls as they are.
    path("password_reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("password_change/", views.PasswordChangeView.as_view(), name="password_change"),
    path("", include("django.contrib.auth.urls")),
]
