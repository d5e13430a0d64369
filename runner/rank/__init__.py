"""Ranking a season: standings, ratings, a knockout's bracket, the history of seasons."""
