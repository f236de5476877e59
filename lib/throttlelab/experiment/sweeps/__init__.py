"""Sweeps: specs, plans, the run store and the loop that runs them on a backend."""
