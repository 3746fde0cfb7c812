"""Gendered nouns tied to a person through the parse, so that a gender swap can make them agree (issue 27, Deliver 1;
METHODS §1.1 step 7; Steen & Markert App. J).

The nouns are those of ``data/perturb/gendered_words.tsv`` (``lexicon.CONTENT_WORD_GENDER``: Steen & Markert's
Table 18, HELM's gender term mappings and role nouns such as *congressman*), plus the adjectives *female*/*male*
where they describe a noun tied to a person. A noun belongs to a person — a name mention or an attributed pronoun —
only when the parse says the noun denotes that person:

- **compound** ("schoolgirl Charlotte Baker", "Chairman Diane Sasser");
- **apposition**, either way ("Lund, the son of a physicist"; "a British man, Ruth Okafor"; "a man who lost his
  job, John Smith"), and the fronted "The son of a physicist, Ms. Lund studied …" that the small model parses as two
  subjects: the noun's phrase ends in a comma right before the name, and the name does not hang from a word inside
  that phrase ("the son of a physicist, Ms. Lund" with *Lund* in apposition to *physicist* says the physicist is
  Lund, not the son);
- **copula**, either way ("She is a mother", "The chairman is John Smith"; a coordinated predicate noun too, however
  long the list: "was a son of X and a nephew of Y", "is a YouTube personality, vlogger, comedian and actress"; a
  bracketed aside between the name and the verb: "Jeanne Moreau (…; 1928 – 2017) was a French actress"; a gendered
  modifier of a predicate noun: "Japan's first prominent woman writer"), a role after "as" ("Norton made a living as a
  businessman"), and a **naming clause** ("a woman named Jane Doe", "a man known as X");
- **coordination**: a plural noun in apposition with or predicated of coordinated people ("Okafor and Sims, both
  women"; "Lund and Okafor are sisters"), and a plural subject continuing the previous sentence whose subject is
  coordinated people ("Okafor and Sims met. Both women said …");
- **continuation**: a definite singular subject ("The congressman said …") refers back to a person of the previous
  sentence or earlier in its own sentence, only when exactly one person of the noun's gender is named there, and
  only for nouns of kind ``person``: a ``relation`` noun alone ("The mother said") is somebody's relative, usually of
  someone just named, not that person;
- **repetition**: a definite repeat of a noun the parse tied to exactly one person elsewhere in the text ("Ahmed
  Mohamed, a 14-year-old boy … images of the boy"), and for a relation noun a repeat with a possessor of the same
  person ("his daughter, Sofia Ferreira … Luis pointed at his daughter").

Never tied: a noun for an unnamed person ("a spokesman for Acme"), a noun whose possessor is a person ("Okafor's
wife", "her husband": somebody else; the possessor is never a referent), a noun inside a name of something other
than a person ("Boys & Girls Club", tagged ORG), and a noun whose gender disagrees with the person's known original
gender (a parse error, or a woman who is "chairman" in the original; rewriting it would change the original arm's
wording). A plural noun needs every referent to be a person of its gender; its slot belongs to the first referent,
so under C_loc, where coordinated people may get different genders, it follows the first one (a known limit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bias_core.common.nlp import sentence_of
from bias_core.perturb.entity_template import Slot
from bias_core.perturb.lexicon import CONTENT_WORD_GENDER, CONTENT_WORD_KIND, NEUTRAL_TITLES, PRONOUN_GENDER, title_key
from bias_core.perturb.name_parts import is_census_first_name
from bias_core.perturb.pronoun_referents import person_nouns

if TYPE_CHECKING:
    from spacy.tokens import Token

_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
_PLURAL_TAGS = frozenset({"NNS", "NNPS"})
_ADJECTIVES = frozenset({"female", "male"})  # describe the noun they modify ("a female officer")
_PERSON_ENTS = frozenset({"", "PERSON", "NORP"})  # any other label: part of a name of a place, firm, work …
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_DEFINITE = frozenset({"the", "this", "that", "these", "those", "both"})
_NAMING_VERBS = frozenset({"named", "called", "known", "identified", "dubbed", "nicknamed"})
# Copular verbs by form: the perturbations' parse runs without the lemmatizer.
_COPULAS = frozenset({"be", "is", "are", "was", "were", "been", "being", "am", "'s", "become", "becomes", "became",
                      "becoming", "remain", "remains", "remained"})
_NAMED_DEPS = frozenset({"oprd", "attr", "pobj", "dobj", "appos", "npadvmod"})
# Where the parser hangs a name on a copula's predicate side ("My brother was Mayor later, Thomas D’Alesandro").
_PREDICATE_SIDE = frozenset({"attr", "npadvmod", "appos", "parataxis"})
_NAME_DEPS = frozenset({"appos", "compound", "npadvmod"})
# Children that make a definite noun a new referent ("the man who …", "the spokesman for Acme", "the Acme spokesman").
_RESTRICTIVE = frozenset({"relcl", "acl", "prep", "poss", "compound"})


def content_word_slots(tokens: Sequence[Token], owner: Mapping[int, str],
                       genders: Mapping[str, str | None] | None = None) -> list[Slot]:
    """A ``content_word`` slot per gendered noun the parse ties to a person (module docstring). ``owner`` maps the
    token index of every name mention and attributed pronoun to its entity; ``genders`` gives each entity's original
    gender (None: unknown), used to reject disagreeing ties and for the continuation rule."""
    genders = genders or {}
    candidates = [token for token in tokens if token.text.lower() in CONTENT_WORD_GENDER and token.i not in owner
                  and _usable(token, token.text.lower(), owner)]
    tied: dict[int, list[str]] = {}
    for token in candidates:
        entities = _agreeing(token, _referents(token, owner), owner, genders)
        if entities:
            tied[token.i] = entities
    described = _descriptions(tied, tokens, owner)
    for token in candidates:
        if token.i in tied or token.text.lower() in _ADJECTIVES:
            continue
        gender = CONTENT_WORD_GENDER[token.text.lower()]
        entities = _agreeing(token, _continuation(token, gender, owner, genders), owner, genders) \
            or _repeated(token, described, owner)
        if entities:
            tied[token.i] = entities
    return [Slot(token.idx, token.idx + len(token.text), "content_word", token.text, tied[token.i][0])
            for token in candidates if token.i in tied]


def world_noun_slots(tokens: Sequence[Token], taken: set[int], pronoun_slots: Sequence[Slot] = ()) -> list[Slot]:
    """A ``world`` content-word slot per gendered common noun no person holds ("a spokesman for Acme", "her
    husband"; ``taken``: the token indices of tied nouns and names), rewritten only in a one-gender world (C_glob
    under "coherent": every person there has the arm's gender), and per kinship word used as a name ("Mom says",
    "To Judy, from Mom": that unnamed person's, like "my mom"). Left alone: a noun beside its counterpart ("men and
    women", "ladies and gentlemen": people of both genders, not one person), a modifier of a word that names no person
    ("mother tongue", "man hours"), a noun inside a name of something else (``_usable``), and a noun the parse ties
    to somebody every world keeps as written: a name no swap renames ("My brother was Mayor later, Thomas
    D’Alesandro"; "her husband, Franklin", a census given name in apposition whatever its NER label), or a pronoun
    none of ``pronoun_slots`` rewrites ("KAMALA HARRIS … she is the first woman" with Harris found by no swap)."""
    rewritten = {slot.start for slot in pronoun_slots if slot.entity_id is not None or slot.world}
    kept = {t.i: "kept" for t in tokens if (t.text.lower() in PRONOUN_GENDER and t.idx not in rewritten)
            or (t.ent_type_ == "PERSON" and t.i not in taken)}
    # A given name in apposition that no swap renames keeps its noun whatever the NER made of it ("his father,
    # Abram" with Abram tagged WORK_OF_ART); only in apposition, as its pronouns elsewhere are the world's.
    unnamed = {t.i for t in tokens if t.tag_ == "NNP" and t.i not in taken and is_census_first_name(t.text)}
    slots = []
    for token in tokens:
        word = token.text.lower()
        if word not in CONTENT_WORD_GENDER or token.i in taken:
            continue
        if not _as_name(token, word) and (not _usable(token, word, {})
                                          or _capitalised_proper(token)):
            continue
        if _referents(token, kept) or _predicated_of(token, kept) \
                or any(c.dep_ == "appos" and c.i in unnamed for c in token.children):
            continue
        if token.dep_ in ("compound", "amod", "nmod") and not _names_person(token.head):
            continue
        if _beside_counterpart(token) or _names_somebody(token):
            continue
        slots.append(Slot(token.idx, token.idx + len(token.text), "content_word", token.text, None, world="unnamed"))
    return slots + _address_titles(tokens, taken)


def _address_titles(tokens: Sequence[Token], taken: set[int]) -> list[Slot]:
    """A world slot per "Mr." or "Madam" that addresses or names the holder of an office with no name after it
    ("Mr. President, you exhibit …", "Madam Speaker"): the office holder's title, in the world's gender."""
    slots = []
    for token in tokens[:-1]:
        office = token.doc[token.i + 1]
        if title_key(token.text) in ("mr", "madam", "madame") and token.text[:1].isupper() and token.i not in taken \
                and office.text[:1].isupper() and title_key(office.text) in NEUTRAL_TITLES and office.i not in taken \
                and not (office.i + 1 < len(token.doc) and office.nbor(1).ent_type_ == "PERSON"):
            slots.append(Slot(token.idx, token.idx + len(token.text), "title", token.text, None, "address",
                              world="unnamed"))
    return slots


def _as_name(token: Token, word: str) -> bool:
    """Whether a kinship word stands as a person's name ("Mom has Cara on a diet", "Oh Mom"): capitalised and
    singular, with no article, possessor or name of its own ("Mother Teresa", "Uncle Sam" are a name's title)."""
    return token.tag_ == "NNP" and CONTENT_WORD_KIND.get(word) == "relation" and token.ent_type_ in ("", "PERSON") \
        and token.dep_ != "compound" and not any(c.dep_ in ("det", "poss", "compound") for c in token.children)


def _predicated_of(token: Token, owner: Mapping[int, str]) -> bool:
    """Whether a noun is the subject of a copula with a name of ``owner`` on the predicate's side, or, through a
    chain of apposition and coordination however the parser hung it, a predicate of a copula whose subject is in
    ``owner`` ("she is not the 49th but the first—the first African-American woman, …, and the first woman":
    *woman* hangs from *first*, coordinated with the verb)."""
    if token.dep_ in _SUBJECTS and token.head.text.lower() in _COPULAS:
        # the subject's side: a name on the predicate's, however the parser hung it ("My brother was Mayor later,
        # Thomas D’Alesandro": the name hangs from the verb as a modifier, or from the predicate noun)
        predicates = [c for c in token.head.children if c.dep_ in _PREDICATE_SIDE]
        return any(t.i in owner for p in predicates for t in (p, *(c for c in p.children if c.dep_ in _NAME_DEPS)))
    while token.dep_ in ("appos", "conj", "attr", "oprd") and token.head.i != token.i:
        token = token.head
        if token.text.lower() in _COPULAS:
            return any(child.dep_ in _SUBJECTS and child.i in owner for child in token.children)
    return False


def _names_somebody(token: Token) -> bool:
    """Whether a gendered noun stands beside a name no swap renames ("Her father Mohammed Hadid", "Mohammed, her
    father"): that person keeps their words in every world. The name must be spaCy's PERSON or a proper noun with
    no label, close to what keeps a pronoun (``pronouns._kept_name_near``: spaCy's PERSON): a name the NER took for a
    place ("Valeska Paris, an Australian woman") keeps neither, so her nouns and pronouns change together."""
    near = [token.head, *token.children] if token.dep_ in ("compound", "appos") else list(token.children)
    return any(other.dep_ in ("compound", "appos", "flat") or other == token.head for other in near
               if other.ent_type_ == "PERSON" or (other.tag_ in ("NNP", "NNPS") and not other.ent_type_))


def _names_person(token: Token) -> bool:
    """Whether a word a gendered modifier describes is a person (a person noun, or a name)."""
    word = token.text.lower()
    return word in CONTENT_WORD_GENDER or token.tag_ in ("NNP", "NNPS") or word in person_nouns() \
        or (token.tag_ == "NNS" and word[:-1] in person_nouns())


def _beside_counterpart(token: Token) -> bool:
    """Whether a gendered noun is coordinated with one of the other gender ("men and women", "his mother and
    father"): both genders are meant, and a one-gender world would write "women and women"."""
    gender = CONTENT_WORD_GENDER[token.text.lower()]
    if token.dep_ == "amod":
        token = token.head
    if any(child.dep_ == "poss" for child in token.children) and token.tag_ == "NN":
        return False  # "Moreau's father … and her mother": two people, each of one person
    for other in token.conjuncts:
        words = [other, *(child for child in other.children if child.dep_ in ("amod", "compound"))]
        if any(CONTENT_WORD_GENDER.get(w.text.lower()) not in (None, gender) for w in words):
            return True
    return False


def _agreeing(token: Token, referents: list[int], owner: Mapping[int, str],
              genders: Mapping[str, str | None]) -> list[str]:
    """The entities of ``referents`` when they agree with the noun: none of another known gender, and for a plural
    noun at least two, all of its gender."""
    gender = CONTENT_WORD_GENDER[token.text.lower()]
    entities = list(dict.fromkeys(owner[i] for i in referents))
    if not entities or any(genders.get(eid) not in (None, gender) for eid in entities):
        return []
    if token.tag_ in _PLURAL_TAGS and (len(entities) < 2 or any(genders.get(e) != gender for e in entities)):
        return []
    return entities


def _descriptions(tied: Mapping[int, list[str]], tokens: Sequence[Token],
                  owner: Mapping[int, str]) -> dict[tuple[str, str | None], set[str]]:
    """Per gendered noun (and, for a relation noun, the entity of its possessor) the singular people the parse tied
    it to: "Ahmed Mohamed, a 14-year-old boy" describes Ahmed as *boy*; "his brother, George Whitman" describes George
    as *brother* of the entity "his" refers to."""
    described: dict[tuple[str, str | None], set[str]] = {}
    for i, entities in tied.items():
        if len(entities) == 1:
            described.setdefault(_description_key(tokens[i], owner), set()).add(entities[0])
    return described


def _description_key(token: Token, owner: Mapping[int, str]) -> tuple[str, str | None]:
    word = token.text.lower()
    if CONTENT_WORD_KIND.get(word) != "relation":
        return word, None
    possessor = next((child for child in token.children if child.dep_ == "poss"), None)
    return word, owner.get(possessor.i) if possessor is not None else None


def _repeated(token: Token, described: Mapping[tuple[str, str | None], set[str]],
              owner: Mapping[int, str]) -> list[str]:
    """The one person a noun already describes elsewhere in the text, for a definite repeat of it ("a 14-year-old
    boy … images of the boy"; a relation noun with a possessor of the same person: "his brother, George Whitman …
    his brother was injured"). Not for a noun in a relative clause's head ("the man who …") or the plural."""
    if token.tag_ in _PLURAL_TAGS or any(child.dep_ == "relcl" for child in token.children):
        return []
    key = _description_key(token, owner)
    if CONTENT_WORD_KIND.get(key[0]) == "relation":
        if key[1] is None:
            return []
    else:
        determiners = [c.text.lower() for c in token.children if c.dep_ == "det"]
        if not determiners or determiners[0] not in _DEFINITE or any(c.dep_ == "poss" for c in token.children):
            return []
    people = described.get(key, set())
    return sorted(people) if len(people) == 1 else []


def syntactic_owner(token: Token, owner: Mapping[int, str]) -> str | None:
    """Return the entity a gendered noun denotes through the parse alone (compound, apposition, copula, naming
    clause), if any; the continuation rule, which needs the people's genders, is in ``content_word_slots``."""
    referents = _referents(token, owner)
    return owner[referents[0]] if referents else None


def _usable(token: Token, word: str, owner: Mapping[int, str]) -> bool:
    """Whether a gendered word is a common noun (or *female*/*male* describing one) outside a non-person name; a
    capitalised one only as a compound before a name ("Congressman Dale Hughes", not "Man Booker Prize")."""
    if token.ent_type_ not in _PERSON_ENTS:
        return False
    if word in _ADJECTIVES and token.dep_ == "amod":
        return True
    if token.tag_ not in _NOUN_TAGS:
        return False
    if _capitalised_proper(token):
        # "Congressman Dale Hughes"; a predicate or apposition with an article ("she was made a Dame", "Barrett, an
        # Englishman"): no name's word
        return (token.dep_ == "compound" and _named_head(token, owner) is not None) or (
            token.dep_ in ("attr", "oprd", "appos") and any(c.dep_ == "det" for c in token.children))
    return True


def _capitalised_proper(token: Token) -> bool:
    """A proper noun written with a capital inside a sentence ("Man Booker Prize"); the tagger also calls some
    lower-case nouns proper ("her father, Leonard"), and those are common nouns, as is a capitalised kinship word
    after a possessive ("my Mom is a stay-at-home mom")."""
    return token.tag_ in ("NNP", "NNPS") and not token.is_sent_start and token.text[:1].isupper() and not (
        CONTENT_WORD_KIND.get(token.lower_) == "relation" and any(c.tag_ == "PRP$" for c in token.children))


def _named_head(token: Token, owner: Mapping[int, str]) -> int | None:
    """The name a compound noun stands before: its head, or a later compound of the same head when the head is the
    name's numeral ("Queen Elizabeth II": the parse hangs "Queen" and "Elizabeth" both from "II")."""
    if token.head.i in owner:
        return token.head.i
    return next((c.i for c in token.head.children if c.dep_ == "compound" and c.i > token.i and c.i in owner), None)


def _referents(token: Token, owner: Mapping[int, str]) -> list[int]:
    """Token indices (in ``owner``) of the people a noun denotes through the parse, in text order."""
    if token.text.lower() in _ADJECTIVES and token.dep_ == "amod":
        head = token.head
        return [head.i] if head.i in owner else _referents(head, owner)
    head = token.head
    if token.dep_ in ("amod", "nmod") and head.i in owner:
        return [head.i]
    named = _named_head(token, owner) if token.dep_ == "compound" else None
    if named is not None:
        return [named]
    if token.dep_ in ("compound", "amod", "nmod", "appos") and head.tag_ in ("NN", "NNS") and head.i != token.i:
        # a gendered modifier, or a noun in apposition, describes whom its head noun describes: "Japan's first
        # prominent woman writer" (she was … writer), "a Swiss mathematician, the son of Johann" (Daniel was …);
        # an appositive that describes nobody so may still name somebody itself ("the parents of Jules, his brother
        # Tom and …", "Anything else … My wife Liz and I")
        described = _referents(head, owner)
        if described or token.dep_ != "appos":
            return described
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if following is not None and following.i in owner and following.tag_ == "NNP" and following.head.i != token.i \
            and any(c.dep_ == "poss" for c in token.children) and CONTENT_WORD_KIND.get(token.lower_) == "relation":
        # "his wife Miriam" that the parser split (wife a conjunct, Miriam a modifier elsewhere): the name right
        # after a possessed kinship noun is that relative's
        return [following.i]
    own_name = next((c for c in token.children if c.dep_ in ("appos", "compound") and c.i in owner), None)
    if token.dep_ == "appos" and head.i in owner and not (
            own_name is not None and any(c.dep_ == "poss" for c in token.children)):
        # "Lund, the son of …"; "Okafor and Sims, both women"; but "Jules Bianchi, …, his brother Tom" is Tom
        return _with_conjuncts(head, owner)
    if token.dep_ == "appos" and head.ent_type_ in ("GPE", "LOC", "FAC") and head.dep_ == "pobj":
        # "Moreau was born in Paris, the daughter of …": a person noun cannot describe the place the parser hung
        # it from; it describes the clause's subject
        verb = head.head.head
        subject = next((c for c in verb.children if c.dep_ in _SUBJECTS), None)
        if subject is not None:
            people = [t.i for t in (subject, *subject.conjuncts) if t.i in owner]
            if len(people) == 1:
                return people
    for child in token.children:
        if child.dep_ in ("appos", "compound") and child.i in owner:  # "a British man, Ruth Okafor"
            return _with_conjuncts(child, owner)
        if child.dep_ == "acl" and child.text.lower() in _NAMING_VERBS:  # "a woman named Jane Doe"
            named = [t for t in child.subtree if t.i in owner and t.dep_ in _NAMED_DEPS]
            if named:
                return _with_conjuncts(named[0], owner)
    if token.dep_ == "pobj" and head.text.lower() == "as" and head.head.tag_[:2] == "VB":
        # "Norton made a living as a businessman", "She served as chairwoman": the role of the verb's subject
        subject = next((c for c in head.head.children if c.dep_ in _SUBJECTS), None)
        if subject is not None and subject.i in owner:
            return _with_conjuncts(subject, owner)
    if token.dep_ == "conj" and token.tag_ in ("NN", "NNS"):
        # "Daniel was a son of Johann and a nephew of Jacob", "is a YouTube personality, vlogger, comedian and
        # actress": a noun coordinated with a predicate or appositive noun (the parser chains each conjunct to the
        # one before) describes whom the first conjunct describes
        first = head
        while first.dep_ == "conj" and first.head.i != first.i:
            first = first.head
        if first.dep_ in ("attr", "oprd", "appos") and first.tag_ == token.tag_:
            return _referents(first, owner)
        before = _noun_before_aside(first)
        if before is not None and before.dep_ in ("attr", "oprd", "appos") and before.tag_ == token.tag_:
            # "was a son of Johann Bernoulli (one of the early developers of calculus) and a nephew of Jacob": the
            # parser coordinated the noun with a word of the aside; it continues the noun before the aside
            return _referents(before, owner)
    if token.dep_ == "conj" and token.tag_ in ("NN", "NNS") and head.text.lower() in _COPULAS:
        # the parser coordinated a second predicate noun with the verb ("she was one of the first … and Japan's first
        # prominent woman writer"): it is predicated of the verb's subject
        subject = next((c for c in head.children if c.dep_ in _SUBJECTS), None)
        if subject is not None and subject.i in owner:
            return _with_conjuncts(subject, owner)
    if token.dep_ in ("attr", "oprd") or token.dep_ in _SUBJECTS:  # "She is a mother"; "The chairman is John Smith"
        partner_deps = _SUBJECTS if token.dep_ in ("attr", "oprd") else frozenset({"attr"})
        for child in head.children:
            if child.dep_ in partner_deps and child.i in owner and child.i != token.i:
                return _with_conjuncts(child, owner)
        if token.dep_ in ("attr", "oprd") and head.dep_ == "relcl" \
                and any(c.dep_ in _SUBJECTS and c.tag_ == "WP" for c in head.children):
            # "Sam Houston, a former soldier who had been a congressman": the relative pronoun's antecedent
            antecedent = head.head
            if antecedent.i in owner:
                return _with_conjuncts(antecedent, owner)
            if antecedent.tag_ in ("NN", "NNS"):
                return _referents(antecedent, owner)
        if token.dep_ in ("attr", "oprd") and head.text.lower() in _COPULAS:
            before = _name_before_brackets(head)
            if before is not None and before.i in owner:
                # "Jeanne Moreau (French pronunciation: …; 23 January 1928 – 31 July 2017) was a French actress":
                # the parser takes a word of the brackets for the subject; the name before them is it
                return _with_conjuncts(before, owner)
        if token.dep_ in ("attr", "oprd") and head.tag_ in ("VBG", "VBN") and head.dep_ in ("advcl", "xcomp") \
                and not any(c.dep_ in _SUBJECTS for c in head.children):
            # a participle with no subject of its own takes its clause's: "…, becoming the third woman to appear"
            subject = next((c for c in head.head.children if c.dep_ in _SUBJECTS), None)
            if subject is not None and subject.i in owner:
                return _with_conjuncts(subject, owner)
    return _fronted_apposition(token, owner)


def _aside_start(token: Token) -> int | None:
    """The index of the unmatched "(" left of ``token`` in its sentence: where the bracketed aside around it opens
    (None outside brackets, or when the aside opens the sentence)."""
    doc, floor = token.doc, sentence_of(token).start
    depth, i = 0, token.i
    while i > floor:
        depth += {")": 1, "(": -1}.get(doc[i].text, 0)
        if depth < 0:
            return i
        i -= 1
    return None


def _name_before_brackets(verb: Token) -> Token | None:
    """The word right before a bracketed aside that ends just before ``verb`` ("Moreau (…; 1928 – 2017) was"), the
    subject the aside interrupts; None when the verb does not follow brackets."""
    doc = verb.doc
    if verb.i < 2 or doc[verb.i - 1].text != ")":
        return None
    start = _aside_start(doc[verb.i - 2])
    return doc[start - 1] if start is not None else None


def _noun_before_aside(token: Token) -> Token | None:
    """For a token inside a bracketed aside, the noun the aside follows ("son of Johann Bernoulli (one of …)": the
    head of the phrase that ends right before the bracket, *son*); None outside brackets."""
    start = _aside_start(token)
    if start is None:
        return None
    word = token.doc[start - 1]
    while word.head.i != word.i and (word.dep_ == "prep" or word.dep_ in ("pobj", "compound")
                                     and word.head.i < start - 1):
        word = word.head  # "son of Johann Bernoulli" → son
    return word if word.tag_ in ("NN", "NNS") else None


def _with_conjuncts(token: Token, owner: Mapping[int, str]) -> list[int]:
    """A name token and the names coordinated with it ("Okafor and Sims")."""
    found = [token.i]
    for conj in token.conjuncts:
        if conj.i in owner:
            found.append(conj.i)
    return sorted(found)


def _fronted_apposition(token: Token, owner: Mapping[int, str]) -> list[int]:
    """The name right after the noun's phrase and a comma ("The son of a physicist, Ms. Lund studied"; "a man who
    lost his job, John Smith"), when the parse joins them (below) and the name is not one of a list."""
    doc = token.doc
    phrase = list(token.subtree)
    end = phrase[-1].i
    while end > token.i and doc[end].is_punct:
        end -= 1
    if end + 2 >= len(doc) or doc[end + 1].text != ",":
        return []
    name = doc[end + 2]
    while name.dep_ == "compound" and name.head.i > name.i:
        name = name.head
    if name.i not in owner or name.dep_ == "conj" or any(c.dep_ == "conj" for c in name.children):
        return []
    # The name hangs from the noun itself, or the parser made both subjects of one verb (its mistake on a fronted
    # apposition); "After meeting the king, Smith said" has the name as the only subject, so it is not tied.
    if name.head.i == token.i or (token.dep_ in _SUBJECTS and name.dep_ in _SUBJECTS and name.head == token.head):
        return [name.i]
    return []


def _continuation(token: Token, gender: str, owner: Mapping[int, str],
                  genders: Mapping[str, str | None]) -> list[int]:
    """A definite subject noun referring back (module docstring): a singular one to the only person of its gender
    named in the previous sentence or earlier in its own; a plural one to the coordinated subject of the previous
    sentence."""
    if token.dep_ not in _SUBJECTS or CONTENT_WORD_KIND.get(token.text.lower()) != "person":
        return []
    determiners = [c.text.lower() for c in token.children if c.dep_ in ("det", "predet")]
    if not determiners or determiners[0] not in _DEFINITE or any(c.dep_ in _RESTRICTIVE for c in token.children):
        return []
    sentence = sentence_of(token)
    doc = token.doc
    previous = sentence_of(doc[sentence.start - 1]) if sentence.start > 0 else None
    if token.tag_ in _PLURAL_TAGS:
        if previous is None:
            return []
        subjects = [t for t in previous if t.dep_ in _SUBJECTS and t.head == previous.root and t.i in owner]
        return _with_conjuncts(subjects[0], owner) if subjects else []
    start = previous.start if previous is not None else sentence.start
    in_scope: dict[str, int] = {}
    for i in range(start, token.i):
        if i in owner and genders.get(owner[i]) == gender:
            in_scope.setdefault(owner[i], i)
    return list(in_scope.values()) if len(in_scope) == 1 else []
