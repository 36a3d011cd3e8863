"""Page controls printed as text leave a reading; text that mentions them stays."""

from __future__ import annotations

from hermes_nb.web.extraction.control_lines import drop_control_lines

TEXT = "Our kitchen opens at noon and serves until the last guest has left."


def test_lines_that_are_only_a_page_control_go() -> None:
    controls = [
        "Skip to main content",
        "[Sign in](https://shop.example/login)",
        "- [Log in / Sign up](/account)",
        "Open menu",
        "Back to top",
        "Sort by:",
        "Page 1 of 8",
        "**Sign up for our weekly newsletter!**",
        "6 min read",
        "[Share this post](https://x.example/share)",
        "Subscribe",
        "[Back to blog](/blog)",
        "Tags:",
        "Was this helpful?",
        "### Join Our Newsletter",  # headings that head none of the page's text
        "## Table of Contents",
        "1 Like",  # the counts printed on a post's reaction and reply buttons
        "[12 Replies](/t/123#replies)",
        "941 comments",
    ]
    markdown = "\n\n".join([TEXT, *controls, TEXT])
    assert drop_control_lines(markdown) == (f"{TEXT}\n\n{TEXT}", len(controls))


def test_headings_sentences_code_and_tables_keep_their_words() -> None:
    markdown = "\n\n".join(
        [
            "## Menu",  # a restaurant's menu heads its dishes
            "## Tags",
            "Back to the Future",  # a title, not a way back
            "Sign in to your account to see your orders and returns.",
            "12 replies came in within the hour.",  # a sentence about replies
            "```\nSign in\n```",
            "| Action | Where |\n|---|---|\n| Sign in | top right |",
            TEXT,
        ]
    )
    assert drop_control_lines(markdown) == (markdown, 0)
