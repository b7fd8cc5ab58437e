"""The learner page at /learners/<username>/: its view, the assembled page data, the charts."""
