"""hermes_nb: Hermes Agent plugins in Jupyter notebooks."""
