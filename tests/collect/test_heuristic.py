"""The heuristic extractor (seed 002 phase 3; issue 4 item 2) on conversations written here.

What a user explicitly establishes is planted, in English, German, Japanese and
Chinese; chit-chat, questions, hypotheticals, pasted output and assistant text
plant nothing, and a corpus of ordinary coding requests plants nothing at all.
"""

# Japanese and Chinese test sentences use their own punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from dreamd.collect.heuristic import CONFIDENCE, HEURISTIC, user_prose
from dreamd.collect.pipeline import MIN_CONFIDENCE, SessionInfo, Window, run_pipeline
from dreamd.readers import READERS, Conversation, Message, SessionRef
from dreamd.stores import MemoryItem

SESSION = SessionInfo("claude-code", "laptop", "sess-1", "/work/app", date(2025, 3, 4))


def window(*turns: str | tuple[str, str], technical: bool = True) -> Window:
    """A window of the test session; a bare string is a user turn."""
    messages = []
    for index, turn in enumerate(turns):
        role, text = ("user", turn) if isinstance(turn, str) else turn
        messages.append(Message(f"m{index}", role, text, None))  # type: ignore[arg-type]
    return Window(SESSION, tuple(messages), technical_context=technical)


def topics(*turns: str | tuple[str, str], technical: bool = True) -> list[MemoryItem]:
    return HEURISTIC.topics(window(*turns, technical=technical))


# Each case: what the user says, the item type, category and the rule's confidence key.
PLANTED = [
    # English
    ("Always run ruff format before committing.", "feedback", "Rule", "always_never"),
    ("Please never push directly to main.", "feedback", "Rule", "always_never"),
    ("Before opening a PR, always run the full test suite.", "feedback", "Rule", "always_never"),
    ("I'd like you to always use pathlib for file paths.", "feedback", "Rule", "always_never"),
    ("Don't mock the database in integration tests.", "feedback", "Rule", "dont"),
    ("Do not use print for logging in this repo.", "feedback", "Rule", "dont_durable"),
    ("From now on, write commit messages in English.", "feedback", "Rule", "from_now_on"),
    ("Going forward we use pnpm for every package.", "feedback", "Rule", "from_now_on"),
    ("Remember that the staging database is read-only.", "feedback", "Rule", "remember"),
    ("Remember to bump the version before every release.", "feedback", "Rule", "remember"),
    ("Invalid themes must never crash the app.", "feedback", "Rule", "must"),
    ("I prefer tabs over spaces.", "user", "Preference", "preference"),
    ("I prefer you ask before deleting any file.", "feedback", "Preference", "preference"),
    (
        "We decided to use PostgreSQL because several machines write to the store.",
        "project",
        "Decision",
        "decision_because",
    ),
    (
        "Let's go with SQLite because it needs no server.",
        "project",
        "Decision",
        "decision_because",
    ),
    ("Use ruff instead of black.", "project", "Decision", "instead_of"),
    (
        "The dashboard is at https://grafana.example.com/d/abc",
        "reference",
        "Reference",
        "reference",
    ),
    ("docs: https://docs.example.com/api", "reference", "Reference", "reference"),
    ("The runbook lives in docs/runbook.md", "reference", "Reference", "reference"),
    # German
    ("Verwende immer pnpm.", "feedback", "Rule", "always_never"),
    ("Nie direkt auf main pushen.", "feedback", "Rule", "always_never"),
    ("Bitte nicht direkt auf den main Branch pushen.", "feedback", "Rule", "dont"),
    (
        "Ab jetzt bitte Commit-Nachrichten auf Englisch schreiben.",
        "feedback",
        "Rule",
        "from_now_on",
    ),
    ("Merk dir: die Staging-Datenbank ist schreibgeschützt.", "feedback", "Rule", "remember"),
    ("Ich bevorzuge Tabs statt Leerzeichen.", "user", "Preference", "preference"),
    (
        "Wir haben uns für PostgreSQL entschieden, weil mehrere Rechner schreiben.",
        "project",
        "Decision",
        "decision_because",
    ),
    ("Verwende pnpm statt npm.", "project", "Decision", "instead_of"),
    ("Die Doku liegt unter https://docs.example.com/api", "reference", "Reference", "reference"),
    # Japanese
    ("常にpnpmを使ってください。", "feedback", "Rule", "always_never"),
    ("絶対にmainブランチに直接プッシュしないでください。", "feedback", "Rule", "always_never"),
    ("mainブランチに直接プッシュしないでください。", "feedback", "Rule", "dont"),
    ("今後はコミットメッセージを英語で書いてください。", "feedback", "Rule", "from_now_on"),
    ("覚えておいてください：ステージングのDBは読み取り専用です。", "feedback", "Rule", "remember"),
    ("私はタブの方が好きです。", "user", "Preference", "preference"),
    (
        "複数のマシンから書き込むので、PostgreSQLを使うことにしました。",
        "project",
        "Decision",
        "decision_because",
    ),
    ("npmの代わりにpnpmを使ってください。", "project", "Decision", "instead_of"),
    (
        "ダッシュボードは https://grafana.example.com/d/abc です。",
        "reference",
        "Reference",
        "reference",
    ),
    # Chinese
    ("总是使用pnpm。", "feedback", "Rule", "always_never"),
    ("永远不要直接推送到main分支。", "feedback", "Rule", "always_never"),
    ("不要在集成测试里模拟数据库。", "feedback", "Rule", "dont"),
    ("以后都用英文写提交信息。", "feedback", "Rule", "from_now_on"),
    ("记住：预发布数据库是只读的。", "feedback", "Rule", "remember"),
    ("我更喜欢用tab缩进。", "user", "Preference", "preference"),
    (
        "我们决定用PostgreSQL，因为需要多台机器写入。",
        "project",
        "Decision",
        "decision_because",
    ),
    ("用pnpm代替npm。", "project", "Decision", "instead_of"),
    ("文档在 https://docs.example.com/api", "reference", "Reference", "reference"),
]


class TestPlanted:
    @pytest.mark.parametrize(("text", "kind", "category", "rule"), PLANTED)
    def test_statement_is_planted_with_its_type_category_and_confidence(
        self, text: str, kind: str, category: str, rule: str
    ) -> None:
        """Each rule kind in each language plants exactly one item of its type and category."""
        items = topics("let's work on the store", ("assistant", "Sure."), text)
        assert [(i.type, i.category, i.confidence) for i in items] == [
            (kind, category, CONFIDENCE[rule])
        ]

    @pytest.mark.parametrize(("text", "kind", "category", "rule"), PLANTED)
    def test_the_same_words_from_the_assistant_plant_nothing(
        self, text: str, kind: str, category: str, rule: str
    ) -> None:
        """Assistant text is never planted, whatever it says."""
        assert topics("ok", ("assistant", text)) == []

    def test_item_carries_provenance_and_a_verbatim_quote(self) -> None:
        """Source, collected day, project and a quote citing the user's fully qualified id."""
        text = "Some context first.\nOK, always run the migrations before deploying."
        (item,) = topics("hello there", ("assistant", "Hi."), text)
        assert item.source == "source:claude-code:laptop:sess-1"
        assert item.collected == date(2025, 3, 4)
        assert item.project == "/work/app"
        (quote,) = item.quotes
        assert quote.message_id == "claude-code:laptop:sess-1:m2"
        assert quote.text == "OK, always run the migrations before deploying."
        assert quote.text in text

    def test_description_is_one_line_and_body_is_the_statement_without_fillers(self) -> None:
        """The description names the category; the body drops "ok, please"."""
        (item,) = topics("ok, please never force-push to main.")
        assert item.description == "Rule: never force-push to main."
        assert "\n" not in item.description
        assert item.body == "never force-push to main."

    def test_a_reason_in_the_next_sentence_joins_the_body(self) -> None:
        """ "Never X. Because Y." keeps the reason as a Why line; an unrelated sentence does not."""
        (item,) = topics("Never commit generated files. Because they drift from the source.")
        assert (
            item.body
            == "Never commit generated files.\n**Why:** Because they drift from the source."
        )
        (other,) = topics("Never commit generated files. Now fix the test.")
        assert other.body == "Never commit generated files."

    def test_long_statements_are_cut_to_their_limits(self) -> None:
        """Description stays within 120 characters; quotes stay verbatim."""
        text = "Always use " + " and ".join(f"tool{i}" for i in range(20)) + "."
        (item,) = topics(text)
        assert len(item.description) <= 120
        assert item.quotes[0].text == text

    def test_run_on_sentences_plant_nothing(self) -> None:
        """A sentence over 300 characters is not a clean statement."""
        assert topics("Always use " + " and ".join(f"tool{i}" for i in range(40)) + ".") == []

    def test_several_rules_in_one_message_are_several_items(self) -> None:
        """A list of rules typed one a line plants one item per rule."""
        items = topics("Some rules:\n- always use pnpm\n- never push to main\n- I prefer tabs")
        assert [i.category for i in items] == ["Rule", "Rule", "Preference"]
        assert len({i.name for i in items}) == 3

    def test_rule_typed_before_a_pasted_log_is_kept(self) -> None:
        """The user's own lead-in survives; the pasted output does not count."""
        text = (
            "Always run the linter before pushing.\n"
            "$ npm run lint\n"
            "error: never use var  no-var\n"
            "    at lint (/app/lint.js:10:3)\n"
            "Error: 1 problem"
        )
        items = topics(text)
        assert [i.body for i in items] == ["Always run the linter before pushing."]


class TestCalibration:
    def test_every_rule_clears_the_pipelines_confidence_floor(self) -> None:
        """No heuristic item is ever dropped as low-confidence by the pipeline."""
        assert min(CONFIDENCE.values()) >= MIN_CONFIDENCE
        windows = [
            Window(replace(SESSION, session_id=f"s{i}"), (Message("m", "user", text, None),))
            for i, (text, *_) in enumerate(PLANTED)
        ]
        result = run_pipeline(HEURISTIC, windows)
        assert (len(result.items), result.dropped_low_confidence) == (len(PLANTED), 0)

    def test_explicit_markers_score_above_bare_instructions(self) -> None:
        """From-now-on > always/never > remember > decisions > instead-of > bare don't."""
        c = CONFIDENCE
        assert c["from_now_on"] > c["always_never"] > c["remember"] > c["decision_because"]
        assert c["decision_because"] > c["instead_of"] > c["dont"]
        assert c["dont_durable"] > c["dont"]


class TestSameRuleTwice:
    def test_repeated_in_one_window_is_one_item_with_both_quotes(self) -> None:
        """The same rule said twice (case, punctuation, fillers aside) is one item."""
        items = topics("Always use pnpm.", ("assistant", "Noted."), "please, ALWAYS use pnpm!")
        (item,) = items
        assert [q.message_id for q in item.quotes] == [
            "claude-code:laptop:sess-1:m0",
            "claude-code:laptop:sess-1:m2",
        ]

    def test_repeated_across_windows_of_a_session_is_one_item(self) -> None:
        """Through the pipeline, a later window's repetition merges into the earlier item."""
        first = Window(SESSION, (Message("a", "user", "Never push to main.", None),))
        second = Window(SESSION, (Message("b", "user", "never push to main", None),))
        result = run_pipeline(HEURISTIC, [first, second])
        (item,) = result.items
        assert [q.message_id for q in item.quotes] == [
            "claude-code:laptop:sess-1:a",
            "claude-code:laptop:sess-1:b",
        ]

    def test_different_rules_have_different_names(self) -> None:
        """Names are stable per statement and distinct between statements."""
        one = topics("Always use pnpm.")[0]
        two = topics("Always use yarn.")[0]
        assert one.name != two.name
        assert topics("Always use pnpm.")[0] == one


NOT_PLANTED = [
    # questions, in every language (including rules asked back as questions)
    "Always use pnpm?",
    "never push to main, right?",
    "The dashboard is at https://grafana.example.com/d/abc?",
    "Verwende immer pnpm?",
    "总是使用pnpm吗",
    "常にpnpmを使ってくださいか",
    "can you always check the lint before pushing?",
    "Should we always run the migrations first?",
    "could you never use print there",
    "Is the dashboard at https://grafana.example.com?",
    "なぜ常にテストが落ちるのですか？",
    "常にpnpmを使うべきですか",
    "可以总是检查一下吗",
    "为什么总是报错",
    "Kannst du immer die Tests laufen lassen?",
    "Verwendest du immer pnpm",
    # hypotheticals, hedges and reported speech
    "If we always used pnpm we would avoid this.",
    "What if we never cache it",
    "maybe we should always use tabs",
    "I think we should never use mocks here",
    "You said you would always run the tests.",
    "the docs say never use eval",
    "もし常にpnpmを使うなら、速くなる。",
    "如果我们总是用pnpm会更快。",
    "Wenn wir immer pnpm nutzen würden, wäre es schneller.",
    "Quizás deberíamos usar siempre pnpm.",
    "Si usamos siempre pnpm, será más rápido.",
    # promises and self-descriptions
    "I will always review before merging.",
    "I always forget how this works.",
    "it always fails on CI",
    "I never said that",
    # complaints and one-offs
    "that should never happen",
    "they should always know better",
    "The build should never take this long",
    "don't do that",
    "Don't commit this yet.",
    "don't change anything else",
    "don't add notes",
    "Don't modify the theme, look into the footer sources.",
    "Never mind, I found it.",
    "never seen this error before",
    "Always happy to help",
    "I prefer the second approach.",
    "let's go with option B",
    "we decided to revert it",
    "let's go with it because it works",
    "We decided to use Postgres because yes.",
    "PostgreSQLを使うことにしました。",
    "use the typed id instead of a string here",
    "use the new typed checkpoint id helper everywhere instead of raw strings",
    "use pnpm instead of that",
    "remember the refactor.md file",
    "remember to commit",
    "remember to update the changelog too",
    "from now on it should be fine",
    "I was able to do it through the UI -> https://linear.app/x/document/task-list",
    # Japanese, Chinese and German chit-chat
    "いつもありがとうございます",
    "今後ともよろしくお願いします",
    "それは削除しないでください",
    "まだコミットしないでください",
    "いつもテストが落ちる",
    "你总是忘记跑测试",
    "它总是报错",
    "以后再说",
    "这个先不要提交",
    "总是先跑这个",
    "永远不要删除这个文件",
    "Es schlägt immer noch fehl",
    "Immer wieder dasselbe Problem",
    "Mach das nie wieder",
    "Mach das immer so",
    "Bitte nicht das hier löschen",
    "Nicht so schnell bitte",
]


class TestNotPlanted:
    @pytest.mark.parametrize("text", NOT_PLANTED)
    def test_questions_hypotheticals_promises_and_one_offs_plant_nothing(self, text: str) -> None:
        """Nothing is planted from a sentence that establishes nothing."""
        assert topics(text) == []

    @pytest.mark.parametrize(
        "text",
        [
            "```\n# always use pnpm\nnever_push = True\n```",
            "> Always use pnpm, never npm.",
            'He wrote "always use pnpm" in the README.',
            "Look at this:\n    // never call this twice\n    always_call();",
            "<command-name>/init</command-name> always use pnpm",
            "/review always use pnpm",
            "Implement the following plan:\n\nAlways use pnpm.",
        ],
    )
    def test_code_quotes_and_machine_prompts_plant_nothing(self, text: str) -> None:
        """Rules inside code blocks, quoted lines, quotes or machine prompts do not count."""
        assert topics(text) == []

    def test_a_pasted_document_plants_nothing(self) -> None:
        """A message with several Markdown headings is a pasted document, not the user speaking."""
        text = "# Plan\n\n## Rules\n\n- Always use pnpm.\n- Never push to main.\n"
        assert topics(text) == []

    def test_short_fragments_plant_nothing(self) -> None:
        """ "always", "never again" and two-word fragments are not statements."""
        for text in ("always", "never again", "Always pnpm", "常に", "总是"):
            assert topics(text) == []


class TestGotchas:
    FAILURE = "pytest fails with ModuleNotFoundError: No module named 'dreamd'"
    FIX = "The issue was that the package was not installed in editable mode. I reinstalled it."

    def test_failure_fix_and_confirmation_plant_a_gotcha(self) -> None:
        """Report, assistant fix, "that fixed it": one Gotcha quoting all three messages."""
        (item,) = topics(self.FAILURE, ("assistant", self.FIX), "that fixed it, thanks")
        assert (item.type, item.category, item.confidence) == ("project", "Gotcha", 0.6)
        assert [q.message_id.rsplit(":", 1)[1] for q in item.quotes] == ["m0", "m1", "m2"]
        assert item.quotes[0].text == self.FAILURE
        assert item.quotes[1].text.startswith("The issue was that")
        assert "editable mode" in item.body and "ModuleNotFoundError" in item.body

    @pytest.mark.parametrize(
        ("failure", "fix", "confirmation"),
        [
            ("ビルドでエラーが出ます", "原因はキャッシュでした。削除しました。", "直りました"),
            ("构建报错了", "原因是缓存过期，我已经清理了。", "修好了"),
            ("Der Build schlägt fehl", "Die Ursache war ein fehlender Ordner.", "Jetzt geht's"),
            ("npm run build crashes with ENOENT", "I added the missing dist folder.", "works now"),
            ("el build falla con ENOENT", "El problema era la carpeta dist.", "ya funciona"),
            (
                "the avatar is not shown correctly",
                "The issue was a stale cache key.",
                "that did it",
            ),
        ],
    )
    def test_gotchas_in_every_language(self, failure: str, fix: str, confirmation: str) -> None:
        """Japanese, Chinese, German, Spanish and English confirmations all count."""
        items = topics(failure, ("assistant", fix), confirmation)
        assert [i.category for i in items] == ["Gotcha"]

    @pytest.mark.parametrize(
        "turns",
        [
            (FAILURE, ("assistant", FIX), "still broken"),
            (FAILURE, ("assistant", FIX), "works now but the other test fails"),
            (FAILURE, ("assistant", FIX), "does it work now?"),
            (
                FAILURE,
                ("assistant", FIX),
                "that fixed it, thanks, now let's move on to the next part of the big refactor",
            ),
            ("let's refactor the parser", ("assistant", "I changed the parser."), "works now"),
            (FAILURE, ("assistant", "Let me look at the imports."), "works now"),
            (("assistant", FIX), "works now"),
            (FAILURE, "hmm", ("assistant", FIX)),
        ],
    )
    def test_no_gotcha_without_failure_fix_and_clean_confirmation(
        self, turns: tuple[str | tuple[str, str], ...]
    ) -> None:
        """No report, no fix cue, or a hedged/partial confirmation: nothing."""
        assert topics(*turns) == []

    def test_gotchas_need_technical_context(self) -> None:
        """Outside a coding session there is no gotcha to learn."""
        assert topics(self.FAILURE, ("assistant", self.FIX), "works now", technical=False) == []


class TestOtherStages:
    def test_facts_plant_what_the_user_states_about_a_missing_fact(self) -> None:
        """ "my timezone is CET" fills the missing fact; questions and other facts do not."""
        w = window("My timezone is CET.", "what is my editor?", "my shell is zsh", "我的城市是柏林")
        items = HEURISTIC.facts(w, ["timezone", "editor", "城市"])
        assert [(i.type, i.category, i.description) for i in items] == [
            ("user", "Fact", "Fact: timezone: CET"),
            ("user", "Fact", "Fact: 城市: 柏林"),
        ]

    def test_people_and_events_are_always_empty(self) -> None:
        """The heuristic names no people and finds no events (a model's job)."""
        w = window("Ask Alice about the release; she always knows.", ("assistant", "Will do."))
        assert HEURISTIC.people(w) == []
        assert HEURISTIC.events([w]) == []

    def test_the_heuristic_spends_no_tokens(self) -> None:
        """tokens_used is 0 before and after a run."""
        run_pipeline(HEURISTIC, [window("Always use pnpm.")], missing_facts=["timezone"])
        assert (HEURISTIC.name, HEURISTIC.tokens_used) == ("heuristic", 0)


class TestUserProse:
    def test_code_fences_and_log_lines_are_removed(self) -> None:
        """Only typed prose lines remain."""
        text = "Please look.\n```py\nx = 1\n```\nTraceback (most recent call last):\nThanks"
        assert user_prose(text) == "Please look.\nThanks"

    def test_mostly_pasted_messages_keep_only_their_lead_in(self) -> None:
        """Prose after a long paste is part of the paste."""
        text = "fix this:\n$ make\nError: boom\n    at main (a.js:1:1)\nplease always check"
        assert user_prose(text) == "fix this:"

    def test_machine_prompts_and_slash_commands_are_not_prose(self) -> None:
        """Envelopes, slash commands and plan pastes give no prose."""
        for text in (
            "<system-reminder>x</system-reminder>",
            "/mode",
            "Implement the following plan:",
        ):
            assert user_prose(text) == ""


#: Ordinary, non-memorable user messages of coding sessions: none may plant anything.
PRECISION_CORPUS = [
    "fix the failing test",
    "why does this crash?",
    "ok continue",
    "continue",
    "yes",
    "yes continue",
    "looks good, thanks!",
    "commit this",
    "commit this, push, open draft PR",
    "run the tests again",
    "what does this function do",
    "hmm that's weird",
    "can you always check the types before you run the tests?",
    "could you add a docstring to parse_config",
    "rename foo to bar everywhere",
    "show me the diff",
    "please summarize the changes",
    "the build is broken again",
    "where were we?",
    "are we all committed?",
    "wow, it works",
    "great work",
    "thanks, that's all for today",
    "do 1, 2 and 5",
    "Implement 1,2 and 3.",
    "let's get back to the review please",
    "can we move the linear doc into its task context?",
    "not as a comment, but as a document attached to the issue directly.",
    "explore more of current repo",
    "what else?",
    "how can we know which agent is active ?",
    "yes, update the architecture document first",
    "can you write a summary for the issue and the options into a md file?",
    "I had 2 sessions in parallel, let's start there first",
    "no, then it's good",
    "track it in the same file as metrics were originally tracked",
    "show me json structure for session tracking",
    "ok, create a branch refactor",
    "will this also allow us to test the agent core?",
    "ok, this looks amazing, start implementing",
    "i reviewed what we have, it's good. continue",
    "why do you go 100 lines at a time?",
    "same for queued messages?",
    "move src/utils/config.ts to src/",
    "ls",
    "what did i just execute?",
    "truncated text must stop when it encounters a new line",
    "i don't understand, does it capture the theme variable imported at creation time?",
    "actually, it's the bg color of the tool execution that doesn't change",
    "when hitting enter in the command window, the size of the font changes. don't do that",
    "main.js:23 ChunkLoadError: Loading chunk 179 failed.\n    at r.f.j (runtime.js:1:2170)",
    "Hello, Codex! Please explain what you do.",
    "What languages can you work with?",
    "Read hello.py and summarize what it prints without editing files.",
    "Add one concise follow-up sentence.",
    "I always get confused by this API",
    "never thought about that",
    "it never worked on Windows anyway",
    "we never got the cache working",
    "you always do this",
    "Always the same problem with this library.",
    "I prefer option 2",
    "keep the button on the left for now",
    "we should update all callers of the parser",
    "No errors!",
    "this step is crucial",
    "make sure it builds when you're done",
    "I only want the summary",
    "Thanks! I'll take it from here.",
    "テストを直して",
    "これで大丈夫です",
    "ありがとう、続けて",
    "继续",
    "好的，提交吧",
    "这个函数是做什么的？",
    "Danke, weiter so",
    "Was macht diese Funktion?",
    "Bitte die Tests nochmal laufen lassen",
]


class TestPrecision:
    def test_corpus_is_large_enough(self) -> None:
        """The precision corpus holds at least 60 realistic messages."""
        assert len(PRECISION_CORPUS) >= 60

    def test_no_ordinary_message_plants_anything(self) -> None:
        """Each corpus message alone, and all of them in one window, plant nothing."""
        planted = {text: topics(text) for text in PRECISION_CORPUS}
        assert {text: items for text, items in planted.items() if items} == {}
        assert topics(*PRECISION_CORPUS) == []


def real_windows(fixtures: Path, home: Path) -> Iterator[list[Window]]:
    """Every real fixture session read through the readers, cut into windows of 30."""
    for layout in sorted(Path(__file__).parents[1].glob("readers/layout_*.py")):
        importlib.import_module(f"tests.readers.{layout.stem}").lay_out(fixtures, home)
    for reader in READERS.values():
        for root in reader.default_roots({}, home):
            for ref in reader.discover(root):
                if not isinstance(ref, SessionRef):
                    continue
                conversation = reader.read(ref)
                if isinstance(conversation, Conversation) and conversation.messages:
                    info = SessionInfo.of(conversation, machine="host", collected=date(2025, 1, 1))
                    messages = conversation.messages
                    yield [Window(info, messages[i : i + 30]) for i in range(0, len(messages), 30)]


@pytest.mark.fixtures
def test_real_transcripts_plant_little_and_only_from_users(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """Over every real session: few items each, quotes verbatim, every item quoting the user.

    Assistant text is quoted only beside the user's words: the fix of a gotcha
    the user confirmed, the recommendation a user accepted or refused.
    """
    sessions = list(real_windows(shared_transcripts, isolated_home))
    assert sessions
    for windows in sessions:
        messages = {w.qualify(m): m for w in windows for m in w.messages}
        items = run_pipeline(HEURISTIC, windows).items
        assert len(items) <= 5, [i.body for i in items]
        for item in items:
            cited = [messages[q.message_id] for q in item.quotes]
            assert all(q.text in m.text for q, m in zip(item.quotes, cited, strict=True))
            roles = {m.role for m in cited}
            assert "user" in roles
            if item.category not in ("Gotcha", "Decision"):
                assert roles == {"user"}
