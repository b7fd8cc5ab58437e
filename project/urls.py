from django.contrib import admin
from django.urls import include, path

from stats.learner_page.views import learner

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("leaderboard/", include("stats.urls")),
    path("skills/", include("users.urls")),
    path("learners/<str:username>/", learner, name="learner"),
    path("api/", include("api.urls")),
]

handler400 = "project.errors.bad_request"
