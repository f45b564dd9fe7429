from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import push_views, views
from .forms import FocusedSetPasswordForm

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile, name="profile"),
    path("turn-sound/", views.turn_sound, name="turn_sound"),
    path("push/subscribe/", push_views.subscribe, name="push_subscribe"),
    path("push/unsubscribe/", push_views.unsubscribe, name="push_unsubscribe"),
    # Django's views with throttling (or the cursor's place) added; the rest of django.contrib.auth.urls as they are.
    path("password_reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("password_change/", views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(form_class=FocusedSetPasswordForm),
        name="password_reset_confirm",
    ),
    path("", include("django.contrib.auth.urls")),
]
