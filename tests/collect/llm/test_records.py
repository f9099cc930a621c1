"""The LLM extractor's pure rules: quotes, the update rule, people guards and matching."""

from __future__ import annotations

import msgspec
import pytest

from dreamd.collect.llm.records import (
    KnownPerson,
    apply_update_rule,
    citable,
    fact_item,
    is_guarded_person,
    item_name,
    match_person,
    person_item,
    topic_item,
    verified_quotes,
)
from dreamd.collect.llm.schema import FactFind, PersonFind, QuoteRef, TopicRecord
from tests.collect.llm.answers import window

TEXT = "From now on, always   run the linter\nbefore committing. Thanks!"
PIECE = window(TEXT, "Sure, I will.")
M0 = "claude-code:box:s-1:m0"


def quotes(*pairs: tuple[str, str]) -> list[QuoteRef]:
    return [QuoteRef(message_id=mid, text=text) for mid, text in pairs]


def test_a_verbatim_quote_is_kept_spacing_aside() -> None:
    """The quote is found in its message once spacing is normalised; marks around it go."""
    kept, redacted = verified_quotes(
        quotes((M0, "always run the linter before committing")), citable([PIECE])
    )
    assert [(q.message_id, q.text) for q in kept] == [
        (M0, "always run the linter before committing")
    ]
    assert redacted == 0
    kept, _ = verified_quotes(quotes((M0, '"always run the linter"')), citable([PIECE]))
    assert kept[0].text == "always run the linter"


@pytest.mark.parametrize(
    "ref",
    [
        (M0, "always run the linter after committing"),  # paraphrased
        ("claude-code:box:s-1:m7", "always run the linter"),  # a message not shown
        ("claude-code:box:s-2:m0", "always run the linter"),  # another session
        (M0, "   "),  # nothing
    ],
)
def test_a_quote_not_found_where_it_says_is_dropped(ref: tuple[str, str]) -> None:
    """A paraphrase, a wrong id or an empty quote is no evidence."""
    assert verified_quotes(quotes(ref), citable([PIECE])) == ((), 0)


def test_a_bare_reader_id_is_resolved_to_the_qualified_one() -> None:
    """A model citing ``m1`` (or ``[m1]``) means the window's message m1."""
    kept, _ = verified_quotes(quotes(("[m1]", "Sure, I will.")), citable([PIECE]))
    assert kept[0].message_id == "claude-code:box:s-1:m1"


def test_a_quote_of_a_redacted_span_is_dropped_and_counted() -> None:
    """The model saw ``[REDACTED:…]`` where a credential was: quoting it is dropped."""
    secret = window("Use the token ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2" + " for CI.")
    kept, redacted = verified_quotes(
        quotes(("claude-code:box:s-1:m0", "Use the token [REDACTED:github-token]")),
        citable([secret]),
    )
    assert (kept, redacted) == ((), 1)


def test_a_long_quote_keeps_its_verbatim_start() -> None:
    """Cut at 300 characters: still a substring of the message."""
    long = window("word " * 200)
    [kept], _ = verified_quotes(quotes((f"{long.message_ids[0]}", "word " * 150)), citable([long]))
    assert len(kept.text) == 300 and kept.text in "word " * 200


def test_technical_accumulates_and_other_categories_consolidate() -> None:
    """Seed 002 update rule: Technical keeps what it said; a Decision takes the new word."""
    old, new = "Tests need the docker socket.", "CI runs tests with podman."
    assert apply_update_rule("Technical", old, new) == f"{old}\n{new}"
    assert apply_update_rule("Technical", old, f"{old} Also: {new}") == f"{old} Also: {new}"
    assert (
        apply_update_rule("Decision", "Use pip.", "Use uv instead of pip.")
        == "Use uv instead of pip."
    )
    assert apply_update_rule("Technical", None, new) == new


def record(**changes: object) -> TopicRecord:
    base = TopicRecord(
        title="Docker socket", existing="", category="Technical", description="tests need docker",
        body="Tests need the docker socket.", confidence=4, quotes=[],
    )  # fmt: skip
    return msgspec.structs.replace(base, **changes)


def test_an_update_keeps_the_existing_name_and_category() -> None:
    """A record updating an item is that item: same name, its category, accumulated body."""
    [quote], _ = verified_quotes(quotes((M0, "run the linter")), citable([PIECE]))
    first = topic_item(PIECE, record(), None, (quote,))
    assert first is not None and first.name == item_name("Technical", "Docker socket")
    later = topic_item(PIECE, record(title="Podman", body="CI uses podman.", category="Rule"),
                       first, (quote,))  # fmt: skip
    assert later is not None
    assert (later.name, later.category) == (first.name, "Technical")
    assert later.body == "Tests need the docker socket.\nCI uses podman."


def test_an_item_needs_a_quote_and_no_redaction() -> None:
    """Without a verified quote, or with a redaction marker in its text, there is no item."""
    [quote], _ = verified_quotes(quotes((M0, "run the linter")), citable([PIECE]))
    assert topic_item(PIECE, record(), None, ()) is None
    assert (
        topic_item(PIECE, record(body="Set [REDACTED:github-token] first."), None, (quote,)) is None
    )


def person(name: str, *ids: str, speaker: bool = False, hypothetical: bool = False) -> PersonFind:
    return PersonFind(
        name=name, identifiers=list(ids), relationship="colleague", description="owns the parser",
        is_speaker=speaker, is_hypothetical=hypothetical, confidence=4, quotes=[],
    )  # fmt: skip


@pytest.mark.parametrize(
    "find",
    [
        person("Ana", speaker=True),
        person("Bob", hypothetical=True),
        person("The user"),
        person("Claude"),
        person("  "),
    ],
)
def test_the_speaker_the_assistant_and_hypothetical_people_are_guarded(find: PersonFind) -> None:
    """Seed 002 people guards."""
    assert is_guarded_person(find)


def test_a_real_colleague_is_not_guarded() -> None:
    assert not is_guarded_person(person("Ana Lima", "@ana"))


def test_people_match_by_identifier_before_name() -> None:
    """Same handle wins over same name; a name alone matches when no identifier does."""
    [quote], _ = verified_quotes(quotes((M0, "run the linter")), citable([PIECE]))
    by_handle = person_item(PIECE, person("Ana Lima", "@ana"), None, (quote,))
    by_name = person_item(PIECE, person("Sam"), None, (quote,))
    assert by_handle is not None and by_name is not None
    known = [by_name, by_handle]
    assert match_person(person("Sam", "ANA"), known) is by_handle
    assert match_person(person("sam"), known) is by_name
    assert match_person(person("Kim", "mailto:kim@example.org"), known) is None


def test_a_matched_person_keeps_every_identifier() -> None:
    """Consolidated under the known person's name, identifiers of both finds kept."""
    [quote], _ = verified_quotes(quotes((M0, "run the linter")), citable([PIECE]))
    first = person_item(PIECE, person("Ana Lima", "@ana"), None, (quote,))
    assert isinstance(first, KnownPerson)
    again = person_item(PIECE, person("Ana", "ana@example.org", "@ana"), first, (quote,))
    assert again is not None and again.item.name == first.item.name
    assert again.item.body.endswith("Identifiers: @ana, ana@example.org")
    assert again.names == {"ana lima", "ana"}


def test_a_fact_must_be_on_the_missing_list() -> None:
    """Facts not asked for are not planted; the list's own wording names the fact."""
    [quote], _ = verified_quotes(quotes((M0, "run the linter")), citable([PIECE]))
    find = FactFind(fact="TimeZone", value="CET", confidence=5, quotes=[])
    item = fact_item(PIECE, find, ["timezone"], (quote,))
    assert item is not None and item.body == "timezone: CET" and item.type == "user"
    assert fact_item(PIECE, find, ["editor"], (quote,)) is None


def test_names_are_stable_per_category_and_title() -> None:
    """The same title names the same item; case and punctuation do not count."""
    assert item_name("Rule", "Run the linter!") == item_name("Rule", "run the  LINTER")
    assert item_name("Rule", "Run the linter") != item_name("Decision", "Run the linter")
    assert item_name("Rule", "Run the linter").startswith("rule-run-the-linter-")
