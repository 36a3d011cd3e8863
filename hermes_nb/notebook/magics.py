"""IPython magics: ``%web_search``, ``%web_extract``, ``%web_crawl``, ``%imagine``, ``%video``, ``%hermes``.

Load with ``%load_ext hermes_nb``; to load it in every session, put this into
``~/.ipython/profile_default/ipython_config.py``::

    c.InteractiveShellApp.extensions = ["hermes_nb"]

The magics are thin: they parse arguments, interpolate ``{{name}}`` placeholders from the
notebook's variables (``hermes_nb.notebook.interpolate``) and call the SDK (``hermes_nb.web``,
``hermes_nb.batch``, ``hermes_nb.images``). Line magics return the rich result (``r = %web_search
q``); cell magics store it with ``-o VAR`` and return it too. A ``HermesError`` is shown as one
short line that names the fix, in an error output (``MagicError``: the cell fails under nbval,
nbmake, papermill and ``nbconvert --execute``); ``%config HermesMagics.short_errors = False`` shows
the full traceback instead. Display options are traits: ``%config HermesMagics.embed = "link"``.
"""

from __future__ import annotations

import functools
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.utils.process import arg_split
from traitlets import Bool, Enum, Integer, observe, validate

from hermes_nb.errors import HermesError, ProviderNotConfiguredError, ProviderNotFoundError
from hermes_nb.notebook.interpolate import InterpolationError, interpolate
from hermes_nb.notebook.magic_error import MagicError
from hermes_nb.notices import note

__all__ = ["HermesMagics", "load_ipython_extension", "unload_ipython_extension"]

F = TypeVar("F", bound=Callable[..., Any])

#: The loaded magics instance (the Python API and tests reach the traits through it).
_current: HermesMagics | None = None
#: (kind, name) of the magics a plugin registered, removed again on unload.
_plugin_magics: list[tuple[str, str]] = []

_HINTS = {
    "search": "%hermes use search <provider>",
    "extract": "%hermes use extract <provider>",
    "crawl": "%hermes use crawl <provider>",
    "image": "%hermes use image <provider>",
    "video": 'hn.config.set("video_gen.provider", "<provider>")',
}


def _short_errors(capability: str | None = None) -> Callable[[F], F]:
    """Turn a ``HermesError`` raised inside a magic into one ``MagicError`` line that names the fix.

    A usage error (bad arguments) becomes a ``MagicError`` too, so every failed magic fails its cell.
    """

    def deco(func: F) -> F:
        @functools.wraps(func)
        def wrapper(self: HermesMagics, *args: Any, **kwargs: Any) -> Any:
            try:
                return func(self, *args, **kwargs)
            except MagicError:
                raise
            except UsageError as exc:
                raise MagicError(str(exc)) from None
            except HermesError as exc:
                if not self.short_errors:
                    raise
                message = f"{exc.code}: {exc.message}"
                hint = _HINTS.get(capability or "")
                if (
                    hint
                    and isinstance(exc, ProviderNotConfiguredError | ProviderNotFoundError)
                    and "%hermes" not in message
                ):
                    message += f" (or pick another provider: {hint}; list them with %hermes providers)"
                raise MagicError(_wrapped(message)) from None

        return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature

    return deco


#: Error text is wrapped here, between words: JupyterLab shows error output with ``word-break:
#: break-all``, which splits a long line anywhere ("%herm es") when the browser wraps it.
ERROR_WIDTH = 76


def _wrapped(message: str) -> str:
    return textwrap.fill(message, ERROR_WIDTH, break_long_words=False, break_on_hyphens=False)


def _text(tokens: list[str]) -> str:
    """Positional tokens back into one string; a single fully quoted token loses its quotes."""
    text = " ".join(tokens).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text.count(text[0]) == 2:
        return text[1:-1]
    return text


def _local_or_url(text: str) -> Any:
    """``./report.pdf``, ``~/notes.md`` or an existing file → a ``Path`` (read locally); else the URL."""
    if "://" in text:
        return text
    path = Path(text).expanduser()
    if text.startswith(("./", "../", "/", "~")) or path.is_file():
        return path
    return text


def _parse(func: Callable[..., Any], line: str) -> Any:
    try:
        return parse_argstring(func, line)
    except ValueError as exc:  # unbalanced quotes and the like
        raise UsageError(f"could not parse the arguments: {exc}") from None


@magics_class
class HermesMagics(Magics):
    """Web search, extraction, crawling and image generation from notebook cells."""

    max_results = Integer(
        None, allow_none=True, config=True, help="Search hits shown inline (default: display.max_results)."
    )
    embed = Enum(
        ["thumb", "full", "link"],
        "thumb",
        config=True,
        help="Images: embed a thumbnail (thumb), the full image (full) or only a link (link).",
    )
    use_widgets = Bool(False, config=True, help="Add an anywidget view to results (static HTML stays).")
    short_errors = Bool(True, config=True, help="Show hermes_nb errors as one line; False shows tracebacks.")

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell, **kwargs)
        self._apply_display_options()
        #: the last image ``%imagine`` made (``%video --from last`` animates it)
        self.last_image: Any = None

    @validate("use_widgets")
    def _check_widgets(self, proposal: Any) -> bool:
        """Without ipywidgets the option stays off, with a warning naming the extra (not a logged error)."""
        if proposal["value"]:
            from hermes_nb.extras import FeatureNotInstalledError, require  # lazy: keeps %load_ext fast

            try:
                require("anywidget", "use_widgets")
                require("ipywidgets", "use_widgets")
            except FeatureNotInstalledError as exc:
                note(f"{exc.message} (the static result views work without it; use_widgets stays False)")
                return False
        return bool(proposal["value"])

    @observe("max_results", "embed", "use_widgets")
    def _display_changed(self, change: Any) -> None:
        self._apply_display_options()

    def _apply_display_options(self) -> None:
        from hermes_nb.notebook import rendering  # lazy: keeps %load_ext fast

        rendering.set_options(max_results=self.max_results, embed=self.embed, use_widgets=self.use_widgets)

    def _ns(self) -> dict[str, Any]:
        return self.shell.user_ns if self.shell is not None else {}

    def _prompt(self, magic: str, words: list[str], cell: str | None, example: str) -> str:
        """The prompt of a generating magic: the cell body (cell form) or the line's words, with
        ``{{name}}`` filled in; a usage error when both are given or neither says anything."""
        if cell is not None and words:
            raise UsageError(
                f"%%{magic} takes its prompt from the cell body; put only options on the first line"
            )
        prompt = self._fill(cell.strip() if cell is not None else _text(words))
        if not prompt:
            raise UsageError(f"%{magic} needs a prompt, e.g. %{magic} {example}")
        return prompt

    def _fill(self, text: str) -> str:
        """``text`` with ``{{name}}`` filled from the notebook; a ``{{…}}`` expression is a usage error."""
        try:
            return interpolate(text, self._ns())
        except InterpolationError as exc:
            raise UsageError(str(exc)) from None

    def _store(self, name: str | None, value: Any) -> Any:
        if name:
            if not name.isidentifier():
                raise UsageError(f"-o needs a Python variable name, got {name!r}")
            self._ns()[name] = value
        return value

    # ------------------------------------------------------------------ web

    @no_var_expand
    @magic_arguments()
    @argument("-n", "--limit", type=int, default=5, help="Number of results (default 5).")
    @argument("-b", "--backend", default=None, help="Provider to use (default: configured or auto).")
    @argument("--json", action="store_true", help="Show the raw Hermes search envelope.")
    @argument("--no-cache", action="store_true", help="Neither read nor write the cache for this call.")
    @argument("--refresh", action="store_true", help="Ask the provider again and overwrite the cache.")
    @argument("-o", "--output", default=None, help="Cell form: store the results in this variable.")
    @argument("query", nargs="*", help="Search query; {{name}} inserts a Python variable.")
    @line_cell_magic
    @_short_errors("search")
    def web_search(self, line: str, cell: str | None = None) -> Any:
        """Search the web. Cell form: one query per line, run as a batch."""
        args = _parse(self.web_search, line)
        if cell is None:
            query = self._fill(_text(args.query))
            if not query:
                raise UsageError("%web_search needs a query, e.g. %web_search -n 3 jupyter widgets")
            from hermes_nb import web  # lazy: keeps %load_ext fast

            result = web.search(
                query, args.limit, backend=args.backend, no_cache=args.no_cache, refresh=args.refresh
            )
            return self._store(args.output, result.envelope if args.json else result)
        if args.query:
            raise UsageError("%%web_search takes its queries from the cell body, one per line")
        queries = [q.strip() for q in self._fill(cell).splitlines() if q.strip()]
        if not queries:
            raise UsageError("%%web_search needs one query per line in the cell body")
        from hermes_nb import batch  # lazy: keeps %load_ext fast
        from hermes_nb.notebook.rendering import ResultList  # lazy: keeps %load_ext fast

        results = ResultList(
            batch.search_many(
                queries, limit=args.limit, backend=args.backend, no_cache=args.no_cache, refresh=args.refresh
            )
        )
        value: Any = [r.envelope for r in results] if args.json else results
        return self._store(args.output, value)

    @no_var_expand
    @magic_arguments()
    @argument("-b", "--backend", default=None, help="Provider to use (default: configured or auto).")
    @argument("--max-chars", type=int, default=None, help="Characters kept inline per page.")
    @argument("--format", default="markdown", choices=("markdown", "text", "html"),
              help="Content as Markdown (default), plain text or the cleaned main-content HTML.")
    @argument("--images", dest="images", action="store_const", const=True, default=None,
              help="Keep the pages' figures in the Markdown (default: web.extract.images).")
    @argument("--no-images", dest="images", action="store_const", const=False,
              help="Leave the figures out, whatever web.extract.images says.")
    @argument("--no-cache", action="store_true", help="Neither read nor write the cache for this call.")
    @argument("--refresh", action="store_true", help="Ask the provider again and overwrite the cache.")
    @argument("-o", "--output", default=None, help="Store the result in this variable as well.")
    @argument("urls", nargs="+", help="One or more URLs; {{name}} inserts a Python variable.")
    @line_magic
    @_short_errors("extract")
    def web_extract(self, line: str) -> Any:
        """Extract the readable content (Markdown) of web pages."""
        args = _parse(self.web_extract, line)
        urls = [_local_or_url(_text([self._fill(u)])) for u in args.urls]
        from hermes_nb import web  # lazy: keeps %load_ext fast

        result = web.extract(
            urls, backend=args.backend, max_chars=args.max_chars, no_cache=args.no_cache,
            refresh=args.refresh, format=args.format, images=args.images,
        )
        return self._store(args.output, result)

    @no_var_expand
    @magic_arguments()
    @argument("--depth", type=int, default=2, help="Link depth to follow (default 2).")
    @argument("--limit", type=int, default=20, help="Maximum pages (default 20).")
    @argument("-b", "--backend", default=None, help="Provider to use (default: configured or auto).")
    @argument("--images", dest="images", action="store_const", const=True, default=None,
              help="Keep each page's figures in its Markdown (default: web.extract.images).")
    @argument("--no-images", dest="images", action="store_const", const=False,
              help="Leave the figures out, whatever web.extract.images says.")
    @argument("--no-cache", action="store_true", help="Neither read nor write the cache for this call.")
    @argument("--refresh", action="store_true", help="Ask the provider again and overwrite the cache.")
    @argument("-o", "--output", default=None, help="Store the result in this variable as well.")
    @argument("url", help="Start URL; {{name}} inserts a Python variable.")
    @line_magic
    @_short_errors("crawl")
    def web_crawl(self, line: str) -> Any:
        """Crawl a site from a start URL and extract each page."""
        args = _parse(self.web_crawl, line)
        url = _text([self._fill(args.url)])
        from hermes_nb import web  # lazy: keeps %load_ext fast

        return self._store(
            args.output,
            web.crawl(
                url,
                depth=args.depth,
                limit=args.limit,
                backend=args.backend,
                no_cache=args.no_cache,
                refresh=args.refresh,
                images=args.images,
            ),
        )

    # ------------------------------------------------------------------ images

    @no_var_expand
    @magic_arguments()
    @argument(
        "-a",
        "--aspect",
        default="landscape",
        choices=["landscape", "square", "portrait"],
        help="Aspect ratio (default landscape).",
    )
    @argument("-m", "--model", default=None, help="Model id (default: the provider's).")
    @argument("-b", "--backend", default=None, help="Image provider (default: image_gen.provider or auto).")
    @argument("-n", type=int, default=1, help="Number of images (a gallery when > 1).")
    @argument("--seed", type=int, default=None, help="Seed, where the provider supports one.")
    @argument("--new", action="store_true", help="Generate again even if this exact image is stored.")
    @argument("--no-cache", action="store_true", help="Neither read nor write the cache for this call.")
    @argument("--refresh", action="store_true", help="Ask the provider again and overwrite the cache.")
    @argument("-o", "--output", default=None, help="Store the result in this variable as well.")
    @argument("prompt", nargs="*", help="The prompt (cell form: the cell body); {{name}} inserts a variable.")
    @line_cell_magic
    @_short_errors("image")
    def imagine(self, line: str, cell: str | None = None) -> Any:
        """Generate an image from a prompt. Cell form: the cell body is the prompt."""
        args = _parse(self.imagine, line)
        prompt = self._prompt("imagine", args.prompt, cell, "-a square a lighthouse at dusk")
        from hermes_nb import images  # lazy: keeps %load_ext fast

        result = images.imagine(
            prompt,
            aspect_ratio=args.aspect,
            model=args.model,
            backend=args.backend,
            n=args.n,
            seed=args.seed,
            new=args.new,
            no_cache=args.no_cache, refresh=args.refresh,
        )
        from hermes_nb.images.results import ImageGallery

        self.last_image = result[0] if isinstance(result, ImageGallery) else result
        return self._store(args.output, result)

    # ------------------------------------------------------------------ video

    @no_var_expand
    @magic_arguments()
    @argument(
        "--from",
        dest="source",
        default=None,
        help="Animate an image: 'last' (the last %%imagine), a variable, a path or a URL.",
    )
    @argument("-d", "--duration", type=int, default=None, help="Seconds (default: the provider's).")
    @argument("-a", "--aspect", default=None, help="Aspect ratio: 16:9, 9:16, 1:1… (default: provider's).")
    @argument("-r", "--resolution", default=None, help="Resolution, e.g. 720p (default: the provider's).")
    @argument("--seed", type=int, default=None, help="Seed, where the provider supports one.")
    @argument("--negative", default=None, help="Negative prompt, where the provider supports one.")
    @argument("--audio", action="store_true", default=None, help="Ask for a soundtrack, where supported.")
    @argument("-m", "--model", default=None, help="Model id (default: the provider's).")
    @argument("-b", "--backend", default=None, help="Video provider (default: video_gen.provider or auto).")
    @argument("--new", action="store_true", help="Generate again even if this exact video is stored.")
    @argument("--no-cache", action="store_true", help="Neither read nor write the cache for this call.")
    @argument("-o", "--output", default=None, help="Store the result in this variable as well.")
    @argument("prompt", nargs="*", help="The prompt (cell form: the cell body); {{name}} inserts a variable.")
    @line_cell_magic
    @_short_errors("video")
    def video(self, line: str, cell: str | None = None) -> Any:
        """Generate a video from a prompt, or animate an image (--from). Cell form: the body is the prompt."""
        args = _parse(self.video, line)
        prompt = self._prompt("video", args.prompt, cell, "-d 4 waves rolling onto a beach at dusk")
        from hermes_nb import videos  # lazy: keeps %load_ext fast

        result = videos.video(
            prompt,
            image=self._video_source(args.source),
            duration=args.duration,
            aspect_ratio=args.aspect,
            resolution=args.resolution,
            seed=args.seed,
            negative_prompt=args.negative,
            audio=args.audio,
            model=args.model,
            backend=args.backend,
            new=args.new,
            no_cache=args.no_cache,
        )
        return self._store(args.output, result)

    def _video_source(self, source: str | None) -> Any:
        """``--from``: ``last`` (the last ``%imagine`` image), a variable's value, else a path or URL."""
        if source is None:
            return None
        if source == "last":
            if self.last_image is None:
                raise UsageError(
                    "--from last needs an image: run %imagine first (or give a path, URL or variable)"
                )
            return self.last_image
        if source.isidentifier() and source in self._ns():
            return self._ns()[source]
        return source

    # ------------------------------------------------------------------ %hermes

    @no_var_expand
    @line_magic
    @_short_errors()
    def hermes(self, line: str) -> Any:
        """Manage hermes_nb from a cell.

        Subcommands:

            %hermes plugins                          loaded plugins and their errors
            %hermes providers [web|image_gen|video_gen]   providers, ✅/❌ and why
            %hermes use search|extract|crawl|image PROVIDER   select a provider (auto: undo)
            %hermes config [show|get KEY|set KEY VALUE]       effective settings (never secrets)
            %hermes tools [list|call NAME JSON]      registered tools
            %hermes cache [stats|entries|clear|export|load|drift|costs]   the result store
            %hermes doctor                           check the installation
            %hermes mcp [--http HOST:PORT | servers] register hermes-nb mcp with an MCP client
        """
        from hermes_nb.notebook import commands  # lazy: keeps %load_ext fast

        return commands.run(arg_split(line))


def _register_plugin_magics(ip: Any) -> None:
    from hermes_nb.plugins import loader  # lazy: keeps %load_ext fast

    for magic in loader.get_plugin_magics().values():
        ip.register_magic_function(magic.func, magic_kind=magic.kind, magic_name=magic.name)
        kinds = ("line", "cell") if magic.kind == "line_cell" else (magic.kind,)
        _plugin_magics.extend((kind, magic.name) for kind in kinds)


def _fire(hook: str) -> None:
    from hermes_nb.plugins import hooks  # lazy: keeps %load_ext fast

    getattr(hooks, hook)()


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext hermes_nb``: register the magics, load plugins and their magics, start the session."""
    global _current
    from hermes_nb.plugins import loader  # lazy: keeps %load_ext fast

    magics = HermesMagics(ip)
    ip.register_magics(magics)
    _current = magics
    # Discovery reads every manifest; plugin code is imported on first use through the registries'
    # loader hook, which keeps provider SDKs and httpx out of %load_ext (load-time budget).
    try:
        loader.get_plugin_manager().discover()
        _register_plugin_magics(ip)
        _fire("session_start")
    except HermesError as exc:
        # A broken config.yaml: one line naming the fix, not a traceback. The magics stay loaded, so
        # `%hermes config set` can repair it; every call says the same until it is repaired.
        print(_wrapped(f"{exc.code}: {exc.message}; then %reload_ext hermes_nb"), file=sys.stderr)


def unload_ipython_extension(ip: Any) -> None:
    """Remove everything ``load_ipython_extension`` installed and end the session."""
    global _current
    manager = ip.magics_manager
    if _current is not None:
        for kind, names in _current.magics.items():
            for name in names:
                manager.magics[kind].pop(name, None)
        manager.registry.pop(type(_current).__name__, None)
        if _current in ip.configurables:
            ip.configurables.remove(_current)
    for kind, name in _plugin_magics:
        manager.magics[kind].pop(name, None)
    _plugin_magics.clear()
    _current = None
    from hermes_nb.notebook import rendering  # lazy: keeps %load_ext fast

    rendering.set_options(**rendering.DEFAULTS)
    _fire("session_end")
