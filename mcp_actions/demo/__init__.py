"""The bundled demo: a small task board web app, its static server, and the ``demo`` command."""
