"""The leaderboards: reads and ranks, the cached board pages, the score tiers, the board page."""
