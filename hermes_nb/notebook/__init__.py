"""The notebook surface: magics, ``%hermes``, rendering, widgets, Markdown and ``{{name}}`` interpolation."""
