"""The study history: sessions, days and keys, recording a session, streaks, verifying totals."""
