from django.urls import path

from .boards import views

app_name = "stats"

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
]
