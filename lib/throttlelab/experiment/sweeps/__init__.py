"""Sweeps: specs, plans, the backend registry, the run store and the loop that runs them; ``adaptive/`` picks runs."""
