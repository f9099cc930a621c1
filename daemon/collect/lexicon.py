"""Per-language word lists of the heuristic extractor (seed 002 phase 3; issue 11 item 1).

Data only, in English, German, Spanish, Chinese and Japanese: the verbs that
open an instruction, the modal verbs and quantifiers of a norm, the
predicates of emphasis, the words of agreement and refusal, the markers of a
recommendation, of evidence and of the moment. Every entry is ordinary
vocabulary of its language, chosen for what it means, never for a sentence
seen in a transcript; the rules in ``dreamd.collect.rules``,
``dreamd.collect.norms``, ``dreamd.collect.choices`` and
``dreamd.collect.acceptance`` combine them.

Invariants:

- a word list is a ``frozenset`` of lower-case words (``wordset``); a pattern
  fragment is a regular-expression alternation without groups that capture;
- Spanish lists hold each form with and without its written accent (users
  often type "actua" for "actúa");
- nothing here reads text: no rule, no clock, no I/O.
"""

# The lists hold Japanese and Chinese punctuation on purpose.
# ruff: noqa: RUF001

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = [
    "ACCEPT_CJK",
    "ACCEPT_WORDS",
    "DEICTIC",
    "DE_IMPERATIVES",
    "DE_MANNER",
    "DE_STOP",
    "EMPHATIC_CJK",
    "EMPHATIC_LATIN",
    "EN_MANNER",
    "EN_STOP",
    "EN_VERBS",
    "ES_IMPERATIVES",
    "ES_MANNER",
    "ES_PROHIBITIVES",
    "ES_STOP",
    "EVIDENTIALS",
    "NOT_A_RULE_NOUNS",
    "PRODUCT_NOUNS",
    "PROFANITY",
    "QUALITY_NOUN",
    "QUALITY_NOUN_CJK",
    "RECOMMENDATION",
    "REFUSAL",
    "ROLE",
    "ZH_JA_MANNER",
    "alternation",
    "unaccented",
    "wordset",
]


def wordset(text: str) -> frozenset[str]:
    """A word list written as one string, as a set."""
    return frozenset(text.split())


def unaccented(word: str) -> str:
    """``word`` without its written accents ("actúa" → "actua"); the tilde of ñ stays."""
    kept: list[str] = []
    for ch in unicodedata.normalize("NFD", word):
        if unicodedata.category(ch) != "Mn" or (ch == "\u0303" and kept[-1:] in (["n"], ["N"])):
            kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


def _es_wordset(text: str) -> frozenset[str]:
    """A Spanish word list: every form with and without its accent."""
    words = wordset(text)
    return words | frozenset(unaccented(word) for word in words)


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first (so "use" does not shadow "used")."""
    return "|".join(re.escape(word) for word in sorted(set(words), key=lambda w: (-len(w), w)))


# --- Verbs that open an instruction ----------------------------------------------------------

#: English verbs an imperative instruction opens with (base forms).
EN_VERBS = wordset(
    """add address adopt align amend annotate answer apply ask assume avoid await back benchmark
    build bump bundle bypass cache call cast catch cd check chmod cite clean clear clone close
    comment commit compile confirm consult convert copy create debug declare default define
    delete deploy describe disable document double downgrade download drop edit emit enable
    encrypt escape explain export expose extract fetch fix follow force format generate give
    guard handle hardcode hard hash ignore import include inline install keep label leave lint
    list load lock log make mark mask measure mention merge migrate mock modify move name
    normalize notify open override overwrite pass paste patch persist pin ping place plan prefer
    prefix print profile prompt pull push put quote raise read rebase rebuild redact refactor
    reference reinstall release reload rely remember remove rename reply report request require
    reset respond restart retry return reuse review revert rewrite run sanitize save say send set
    ship show sign silence skip sort speak specify split squash stage start stay stick stop store
    strip stub submit suggest summarize suppress switch sync tag talk target tell test throw touch
    translate trust truncate type typecheck uninstall update upgrade upload use validate vendor
    verify wait wrap write"""
)

#: German imperatives (du, ihr) of the same kind of verbs.
DE_IMPERATIVES = wordset(
    """achte aktiviere aktualisiere antworte baue benenne benutze benutzt bestätige checke
    committe deaktiviere denk denke dokumentiere entferne erstelle exportiere formatiere frag frage
    führe füge gib halte ignoriere importiere installiere kommentiere lass lasse lies logge lösche
    mach mache merge nenne nimm nutze nutzt pinne prüfe pushe räume rebase rede rufe schreib
    schreibe setze sortiere speichere sprich starte stoppe squashe teste update validiere
    verifiziere vermeide verwende verwendet überprüfe ändere behalte bewahre lege"""
)

#: Spanish affirmative imperatives (tú and usted) of the same kind of verbs.
ES_IMPERATIVES = _es_wordset(
    """usa use utiliza utilice emplea emplee ejecuta ejecute corre corra escribe escriba haz haga
    pon ponga mantén mantenga guarda guarde agrega agregue añade añada evita evite revisa revise
    verifica verifique comprueba compruebe lee lea responde responda contesta conteste explica
    explique prueba pruebe actúa actúe edita edite crea cree borra borre elimina elimine sigue siga
    deja deje sube suba documenta documente comenta comente formatea formatee nombra nombre llama
    llame instala instale configura configure define defina separa separe ordena ordene respeta
    respete pregunta pregunte avisa avise confirma confirme habla hable aplica aplique cambia
    cambie incluye incluya añade commitea"""
)

#: Spanish negative imperatives (no + subjunctive, tú and usted): "no uses", "no toque".
ES_PROHIBITIVES = _es_wordset(
    """uses use utilices utilice ejecutes ejecute corras corra escribas escriba hagas haga pongas
    ponga agregues agregue añadas añada toques toque cambies cambie borres borre elimines elimine
    modifiques modifique expliques explique inventes invente asumas asuma supongas suponga
    compliques complique dejes deje subas suba crees cree comentes comente mezcles mezcle
    muestres muestre imprimas imprima preguntes pregunte adivines adivine especules especule
    disculpes disculpe instales instale actualices actualice renombres renombre"""
)

#: Words that carry no content of their own in an English instruction.
EN_STOP = wordset(
    """a all also always an any anything else everything for here in it just like me more much
    never nothing now of off on once one ones out please so something stuff that the them there
    these they thing things this those to too up us way with yet you"""
)
#: The same in German.
DE_STOP = wordset(
    """auch bitte das dem den der des die dies doch du es hier ihr immer jetzt mal man mir nicht
    nie niemals noch sie so stets wieder wir"""
)
#: The same in Spanish.
ES_STOP = _es_wordset(
    """a al algo ahora aquí con de del el ella ello en es esa ese eso esta este esto la las le lo
    los me más mi no nos nunca o para pero por que se siempre sin su también te todo tu un una y
    ya yo"""
)
#: Pointers at the thing at hand or the moment (pronouns included), in every language.
DEICTIC = re.compile(
    r"\b(?:this|that|it|these|those|them|here|yet|now|today|for now|right now|this time"
    r"|anything|everything|something|das|dies|diese[nmrs]?|es|hier|jetzt|noch|gerade|heute"
    r"|erstmal|vorerst|esto|eso|este|esta|estos|estas|aquí|aqui|ahora|hoy|todavía|todavia"
    r"|por ahora|esta vez)\b|これ|それ|あれ|この|その|あの|ここ|そこ|今回|いま(?![すせしさ])|まだ"
    r"|一旦|いったん"
    r"|とりあえず|しばらく|ちょっと|这|那|它|现在|先|暂时|还|这次|刚才|目前",
    re.I,
)

# --- Manner of working and roles --------------------------------------------------------------

#: English verbs of a way of working that a bare prohibition forbids ("don't guess").
EN_MANNER = wordset(
    """overcomplicate over-complicate overengineer over-engineer overthink over-think guess
    assume speculate hallucinate apologize apologise explain ramble improvise invent"""
)
#: German infinitives and imperatives of the same ("nicht raten", "rate nicht").
DE_MANNER = wordset(
    """raten rate übertreiben übertreibe verkomplizieren verkompliziere spekulieren spekuliere
    erklären erkläre entschuldigen entschuldige erfinden erfinde"""
)
#: Spanish negative imperatives of the same ("no adivines", "no me expliques").
ES_MANNER = _es_wordset(
    """compliques complique adivines adivine supongas suponga asumas asuma especules especule
    expliques explique inventes invente disculpes disculpe"""
)
#: Chinese and Japanese stems of the same (after 不要/别, before しないで).
ZH_JA_MANNER = (
    "过度设计|过度工程|过度封装|瞎猜|猜测|臆测|解释|道歉|啰嗦|编造|推測|憶測|説明|謝罪|言い訳"
    "|複雑に|謝ら|推測し|説明し"
)

#: "Act as <role>": a standing instruction on the assistant's role, per language.
ROLE = (
    r"\b(?:act|behave|work)\s+(?:as|like)\s+(?:a|an)\b|\bagiere\s+als\b|\bhandle\s+als\b"
    r"|\bverhalte\s+dich\s+(?:wie|als)\b|\barbeite\s+als\b"
    r"|\b(?:actúa|actua|actúe|actue|compórtate|comportate|trabaja)\s+como\b"
    r"|扮演|作为一名|作为一个|として振る舞|として行動|になりきって"
)

# --- Emphasis ---------------------------------------------------------------------------------

#: Predicates that make a short statement a priority ("<quality> is crucial"), Latin scripts.
EMPHATIC_LATIN = (
    r"crucial|critical|essential|paramount|vital|key|mandatory|non-negotiable|a must|a priority"
    r"|(?:the |our )?(?:top |first |highest )?priority|a hard requirement|very important"
    r"|extremely important|really important|super important|the most important thing"
    r"|entscheidend|essenziell|essentiell|unverzichtbar|zwingend|pflicht|das wichtigste"
    r"|oberste priorität|sehr wichtig|extrem wichtig|fundamental|esencial|imprescindible"
    r"|prioritari[oa]|obligatori[oa]|clave|crítico|critico|lo más importante|lo mas importante"
    r"|muy importante"
)
#: The same in Chinese and Japanese, as sentence endings.
EMPHATIC_CJK = (
    r"(?:非常|很|极其|特别)?(?:重要|关键)|至关重要|是重中之重|是第一位的?|是必须的"
    r"|(?:は|が)(?:とても|非常に|最も|一番)?(?:重要|大事|必須|最優先|不可欠)(?:です|だ)?"
)

#: Abstract quality nouns, by their suffixes or as common words: what a priority is about
#: ("performance", "readability", "Sicherheit", "legibilidad", 可读性, 互換性).
QUALITY_NOUN = (
    r"(?:ity|ness|ance|ence|ancy|ency|acy|ion|ty|ment|ship|heit|keit|ität|ung|idad|ancia|encia"
    r"|ción|cion|miento|ura|ez)$|^(?:speed|quality|ux|dx|ui|coverage|latency|uptime|style|design"
    r"|tempo|geschwindigkeit|qualität|velocidad|calidad|diseño|estilo)$"
)
#: The same in Chinese and Japanese: the abstraction suffix 性 or a common quality word.
_QUALITY_WORDS_CJK = (
    "性能|速度|质量|品质|品質|安全|稳定|安定|体验|セキュリティ|パフォーマンス|ユーザー体験"
)
QUALITY_NOUN_CJK = rf"性$|^(?:{_QUALITY_WORDS_CJK})"

#: Nouns after "no" that make an exclamation a report or a reply, not a prohibition.
NOT_A_RULE_NOUNS = wordset(
    """problem problems worries worry way idea ideas thanks thank need rush luck clue wonder
    kidding doubt joke shit comment comments errors error warnings warning failures failure
    issues issue bugs bug crashes crash complaints change changes difference differences matter
    wait prob probs biggie sweat hard feelings offense offence more longer further response
    reply fehler probleme problem ahnung sorge sorgen problema problemas errores error pasa
    importa hay"""
)

#: Intensifying swear words: skipped in titles, never a content word.
PROFANITY = wordset(
    """fucking fuckin fucken freaking frigging bloody damn damned goddamn goddamned effing
    verdammt scheiß scheiss puta puto pinche jodido"""
)

# --- Projects, evidence, recommendations and replies --------------------------------------------

#: Nouns of a software product: "we are building a <...> app".
PRODUCT_NOUNS = (
    r"app|apps|application|tool|service|library|cli|api|website|site|web app|game|plugin"
    r"|extension|bot|platform|sdk|framework|daemon|backend|frontend|server|dashboard"
    r"|anwendung|dienst|bibliothek|webseite|plattform|erweiterung|spiel|aplicación|aplicacion"
    r"|herramienta|servicio|librería|libreria|biblioteca|sitio|plataforma|juego|extensión"
    r"|extension"
)

#: The speaker has checked a statement against a source ("I just checked the docs").
EVIDENTIALS = (
    r"\bi(?:'ve| have)?\s+(?:just\s+|also\s+)?(?:checked|verified|confirmed|looked\s+(?:it\s+)?up)"
    r"\s+(?:in\s+)?(?:the|their|its)\s+(?:docs|documentation|source|spec|specification|manual)"
    r"|\b(?:according to|per)\s+(?:the|their|its)\s+(?:docs|documentation|spec|manual)\b"
    r"|\bich\s+habe\s+(?:gerade\s+|eben\s+)?(?:in\s+der\s+)?(?:doku|dokumentation)\s+"
    r"(?:nachgesehen|nachgeschaut|geprüft)|\blaut\s+(?:der\s+)?(?:doku|dokumentation)\b"
    r"|\b(?:acabo de\s+)?(?:revisé|revise|verifiqué|verifique|comprobé|comprobe)\s+(?:en\s+)?la\s+"
    r"documentación|\bsegún\s+la\s+documentación\b|\bsegun\s+la\s+documentacion\b"
    r"|我(?:刚|刚刚)?(?:查了|看了|确认了)(?:一下)?(?:文档|官方文档|源码)|根据(?:官方)?文档"
    r"|ドキュメント(?:を|で)確認しました|(?:公式)?ドキュメントによると"
)

#: An assistant sentence that recommends one choice (not an offer to act: "Should I ...?").
RECOMMENDATION = (
    r"\bi(?:'d| would)?\s+(?:strongly\s+)?(?:recommend|suggest|propose|go with)\b"
    r"|\bmy\s+(?:recommendation|suggestion|pick)\b|\(recommended\b|\brecommended\)"
    r"|\bthe best (?:option|approach|choice) (?:is|would be)\b"
    r"|\bich\s+(?:würde\s+)?(?:empfehle|empfehlen|schlage\s+vor)\b|\bmeine\s+empfehlung\b"
    r"|\(empfohlen\)|\b(?:te\s+|le\s+)?(?:recomiendo|sugiero|propongo)\b|\bmi\s+recomendación\b"
    r"|\(recomendado\)|我(?:建议|推荐)|（推荐）|\(推荐\)|をお勧めします|をおすすめします"
    r"|がおすすめです|（推奨）|\(推奨\)"
)

#: Whole replies that accept a proposal, Latin scripts (after lower-casing, without marks).
ACCEPT_WORDS = (
    r"yes|yeah|yep|yup|sure|ok|okay|agreed|perfect|great|sounds good|sounds great|lgtm"
    r"|let'?s do (?:it|that|this)|let'?s go with (?:it|that|this)|do it|go ahead|go for it"
    r"|go with (?:it|that|this|option \w+|\d+|[a-c])|makes sense|ja|jawohl|gerne|passt|klingt gut"
    r"|machen wir so|einverstanden|sí|si|vale|dale|de acuerdo|perfecto|hagámoslo|hagamoslo"
    r"|me parece bien|adelante"
)
#: The same in Chinese and Japanese.
ACCEPT_CJK = (
    r"はい|いいですね|いいね|それで(?:お願いします|いきましょう)?|お願いします|了解(?:です)?"
    r"|了解しました|賛成|好的|好|可以|就这样|同意|行|没问题|就按这个来"
)

#: A reply that refuses a proposal on its merits ("bad idea", "no, because ...").
REFUSAL = (
    r"^(?:(?:it'?s|that'?s|this is|that is)\s+(?:a\s+)?(?:bad|terrible|poor|horrible|awful)"
    r"\s+(?:idea|approach|choice)|no\b[,.]?\s+(?:because|since|as)\b|(?:das\s+ist\s+)?(?:eine\s+)?"
    r"schlechte\s+idee|nein,?\s+(?:weil|denn)\b|(?:es\s+)?(?:una\s+)?mala\s+idea"
    r"|no,?\s+(?:porque|ya que)\b|这不是(?:个)?好(?:主意|办法)|不好[，,]\s*因为|不行[，,]\s*因为"
    r"|(?:それは)?(?:よくない|ダメ|だめ)(?:です)?(?:ね)?[、,]?(?:なぜなら|理由は)?)"
)
