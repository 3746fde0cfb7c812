"""Build the perturbation-quality gold (issue 27, Deliver 6) from GUM's hand-made entity and coreference annotation.

GUM (Zeldes 2017; github.com/amir-zeldes/gum) annotates, by hand, every mention of every entity in its documents —
proper names, pronouns and common-noun phrases — with the entity's type (person, place, organization, object …) and
its coreference chain. That is exactly what judging a counterfactual needs: which capitalised spans are people and
which are not, and which pronouns and nouns ("the congressman", "his wife", "a British man") refer to which person.
This script converts it, for the 42 Wikinews articles of ``data/news_real/wikinews.jsonl`` and the 20 Wikipedia
biographies of GUM (``data/news_real/wikipedia_bio.jsonl``, written by this script too), into one gold record per
article, with character offsets into the article text as summbias reads it:

- ``people``: every person entity, with ``gender`` (from its gendered pronouns, titles and nouns as annotated:
  ``male``, ``female``, ``mixed`` where its words disagree, ``unknown`` where it has none), ``named`` (it has a
  mention whose head is a proper noun), ``individual`` (a named individual, not a group or a role: a mention outside
  any coordination names it by two singular proper nouns, or by one when the person also has a gendered word, with
  no determiner before them — not "the Afghans", "Bos and colleagues", "the Joker", "a Fellow of the Royal
  Society"), its ``mentions`` (``kind`` name — it holds proper nouns of the entity itself, listed as character spans in
  ``names`` — else pronoun or nominal) and its
  ``gendered_words`` (each gendered pronoun, title, suffix and gendered head noun of its mentions, with the gender
  it has in the original);
- ``non_people``: every other entity with a proper-noun mention, with those mentions (what no name swap may touch).

The articles are split once, before any rule of issue 27 was written, into a tuning half and a held-out half (seeded
shuffle within each genre: news, interview, bio); ``benchmarks/perturb_quality.py --coherence`` reports on the
held-out half, and no rule may be written from it.

Usage (GUM read from a git directory)::

    python data/news_real/build_gum_gold.py /path/to/gum.git
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

from build_wikinews import MAX_WORDS, MIN_WORDS, _document, _git

GOLD_DIR = REPO / "tests" / "fixtures" / "perturb"
BIO_LICENSE = "CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/)"
BIO_ATTRIBUTION = "Wikipedia contributors"
SEED = 27

PRONOUNS = {"he": "male", "him": "male", "his": "male", "himself": "male",
            "she": "female", "her": "female", "hers": "female", "herself": "female"}
TITLES = {"mr": "male", "mr.": "male", "messrs": "male", "messrs.": "male", "sir": "male", "lord": "male",
          "jr": "male", "jr.": "male", "sr": "male", "sr.": "male",
          "mrs": "female", "mrs.": "female", "ms": "female", "ms.": "female", "miss": "female", "dame": "female",
          "lady": "female", "mmes": "female", "mmes.": "female"}
# The evaluation's own list of gendered person nouns (male, female), singular and plural; written for this gold,
# independently of the lists the perturbation uses, so that the evaluation does not grade the rules by themselves.
_NOUN_PAIRS = """man woman; men women; boy girl; boys girls; son daughter; sons daughters; father mother;
fathers mothers; dad mum; dad mom; husband wife; husbands wives; brother sister; brothers sisters; uncle aunt;
uncles aunts; nephew niece; nephews nieces; grandfather grandmother; grandson granddaughter; grandsons granddaughters;
grandfathers grandmothers; stepfather stepmother; stepson stepdaughter; king queen; kings queens; prince princess;
princes princesses; duke duchess; emperor empress; actor actress; actors actresses; chairman chairwoman;
spokesman spokeswoman; congressman congresswoman; businessman businesswoman; sportsman sportswoman;
policeman policewoman; fireman firewoman; gentleman lady; gentlemen ladies; boyfriend girlfriend; fiancé fiancée;
widower widow; schoolboy schoolgirl; waiter waitress; host hostess; hero heroine; monk nun; priest priestess;
lord lady; heir heiress; god goddess; male female; males females; baron baroness; count countess; sir madam;
bachelor spinster; landlord landlady; headmaster headmistress; masseur masseuse; steward stewardess;
groom bride; bridegroom bride; patriarch matriarch; brethren sisters; lad lass; fella gal"""
NOUNS: dict[str, str] = {}
for _pair in _NOUN_PAIRS.replace("\n", " ").split(";"):
    _male, _female = _pair.split()
    NOUNS.setdefault(_male, "male")
    NOUNS.setdefault(_female, "female")
NOUNS.pop("host", None)  # "host" is mostly neutral ("hosted", a host of …)
NOUNS.pop("count", None)
NOUNS.pop("god", None)


def _entity_events(misc: str) -> list[tuple[str, str, str]]:
    """The mention events of one token's Entity field: ("open", id, fields), ("close", id, "") or ("single", …)."""
    match = re.search(r"Entity=([^|]+)", misc)
    if not match:
        return []
    events = []
    for part in re.findall(r"\([^()]*\)|\([^()]*|[^()]+\)", match.group(1)):
        if part.startswith("(") and part.endswith(")"):
            fields = part[1:-1]
            events.append(("single", fields.split("-")[0], fields))
        elif part.startswith("("):
            events.append(("open", part[1:].split("-")[0], part[1:]))
        else:
            events.append(("close", part[:-1], ""))
    return events


def _sentences(conllu: str):
    """Yield (sentence text, tokens) with tokens as dicts of the CoNLL-U columns."""
    text, tokens = None, []
    for line in conllu.splitlines() + [""]:
        if line.startswith("# text = "):
            text = line[len("# text = "):]
        elif line and not line.startswith("#"):
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:
                continue
            tokens.append({"id": int(cols[0]), "form": cols[1], "lemma": cols[2], "upos": cols[3], "xpos": cols[4],
                           "feats": cols[5], "head": int(cols[6]), "misc": cols[9]})
        elif not line and tokens:
            yield text, tokens
            text, tokens = None, []


def gold_for(doc_id: str, text: str, conllu: str) -> dict:
    """One article's gold record (see the module docstring)."""
    entities: dict[str, dict] = {}
    kept: list[bool] = []
    _document("GUM_x_x", conllu, "", kept)  # which sentences the article text keeps, as build_wikinews decides
    cursor = 0
    for keep, (sentence, tokens) in zip(kept, _sentences(conllu), strict=True):
        if not keep:
            continue  # a headline, caption or figure the article text leaves out
        found = text.find(sentence, cursor)
        if found < 0 or text[cursor:found].strip():
            raise ValueError(f"{doc_id}: sentence {sentence[:40]!r} not where the text has it")
        cursor = found + len(sentence)
        offsets, position = [], found
        for token in tokens:
            start = text.find(token["form"], position, cursor)
            if start < 0:
                raise ValueError(f"{doc_id}: token {token['form']!r} not found in {sentence!r}")
            offsets.append((start, start + len(token["form"])))
            position = start + len(token["form"])
        stack: dict[str, list[tuple[int, str]]] = {}
        spans = []
        for index, token in enumerate(tokens):
            for event, entity_id, fields in _entity_events(token["misc"]):
                if event == "single":
                    spans.append((entity_id, fields, index, index))
                elif event == "open":
                    stack.setdefault(entity_id, []).append((index, fields))
                else:
                    first, fields = stack[entity_id].pop()
                    spans.append((entity_id, fields, first, index))
        for entity_id, fields, first, last in spans:
            parts = fields.split("-")
            record = entities.setdefault(entity_id, {"id": entity_id, "etype": parts[1],
                                                     "identity": parts[7] if len(parts) > 7 else "",
                                                     "mentions": [], "words": []})
            span_ids = {tokens[i]["id"] for i in range(first, last + 1)}
            heads = [i for i in range(first, last + 1) if tokens[i]["head"] not in span_ids]
            head = tokens[heads[0]] if heads else tokens[last]
            # The entity's own name words: runs of proper nouns not inside a mention of another entity nested in
            # this one ("Eddie Chu" of "nonpartisan pan-democrat Eddie Chu"; not "Washington" of "the Hall in
            # Washington").
            nested = {i for other, _, f, l in spans if other != entity_id and first <= f and l <= last
                      and (f, l) != (first, last) for i in range(f, l + 1)}
            runs: list[list[int]] = []
            for i in range(first, last + 1):
                if tokens[i]["upos"] == "PROPN" and i not in nested:
                    if runs and runs[-1][-1] == i - 1:
                        runs[-1].append(i)
                    else:
                        runs.append([i])
            names = [[offsets[run[0]][0], offsets[run[-1]][1]] for run in runs]
            kind = ("name" if names else "pronoun" if head["upos"] == "PRON" else "nominal")
            start, end = offsets[first][0], offsets[last][1]
            record["mentions"].append({"start": start, "end": end, "text": text[start:end], "kind": kind,
                                       "names": names})
            if not any(tokens[i]["upos"] == "CCONJ" for i in range(first, last + 1)):
                for run in runs:
                    words = [i for i in run if tokens[i]["xpos"] == "NNP" and tokens[i]["form"].lower() not in TITLES]
                    determiner = run[0] > 0 and tokens[run[0] - 1]["upos"] == "DET"
                    if words and not determiner:
                        # one singular name word counts when the person also has a gendered word (checked below)
                        record["individual"] = max(record.get("individual", 0), 2 if len(words) > 1 else 1)
            if kind == "pronoun" and head["form"].lower() in PRONOUNS and last == first:
                record["words"].append((offsets[first], head["form"], PRONOUNS[head["form"].lower()]))
            if head["upos"] == "NOUN" and head["form"].lower() in NOUNS and heads:
                record["words"].append((offsets[heads[0]], head["form"], NOUNS[head["form"].lower()]))
            for i in range(first, last + 1):
                word = tokens[i]["form"].lower()
                if names and word in TITLES and tokens[i]["upos"] in ("PROPN", "NOUN", "ADJ") and i not in nested:
                    record["words"].append((offsets[i], tokens[i]["form"], TITLES[word]))
    people, non_people = [], []
    for record in entities.values():
        named = [m for m in record["mentions"] if m["kind"] == "name"]
        if record["etype"] == "person":
            words = sorted({(s, e, w, g) for (s, e), w, g in record["words"]})
            genders = {g for *_, g in words}
            people.append({
                "id": record["id"], "identity": record["identity"],
                "gender": genders.pop() if len(genders) == 1 else ("mixed" if genders else "unknown"),
                "named": bool(named),
                "individual": record.get("individual", 0) == 2 or bool(record.get("individual") and words),
                "mentions": sorted(record["mentions"], key=lambda m: m["start"]),
                "gendered_words": [{"start": s, "end": e, "word": w, "gender": g} for s, e, w, g in words],
            })
        elif named:
            non_people.append({"id": record["id"], "etype": record["etype"], "identity": record["identity"],
                               "mentions": sorted(named, key=lambda m: m["start"])})
    return {"id": doc_id, "people": people, "non_people": non_people}


def _bio_document(name: str, conllu: str, source: str) -> dict:
    document = _document(name, conllu, source)
    document["id"] = "wikipedia-" + name.split("_", 2)[2]
    document["meta"].update(license=BIO_LICENSE, attribution=BIO_ATTRIBUTION, genre="bio")
    return document


def main(gitdir: str) -> None:
    commit = _git(gitdir, "rev-parse", "HEAD").strip()
    paths = sorted(p for p in _git(gitdir, "ls-tree", "--name-only", "HEAD", "dep/").split()
                   if re.match(r"dep/GUM_(news|interview|bio)_\w+\.conllu$", p))
    wikinews = {json.loads(line)["id"]: json.loads(line)
                for line in (REPO / "data/news_real/wikinews.jsonl").read_text().splitlines()}
    bios, golds = [], []
    for path in paths:
        name = path[len("dep/"):-len(".conllu")]
        genre = name.split("_")[1]
        conllu = _git(gitdir, "show", f"HEAD:{path}")
        if genre == "bio":
            source = f"Wikipedia, via GUM (github.com/amir-zeldes/gum @ {commit[:7]}, dep/{name}.conllu)"
            document = _bio_document(name, conllu, source)
            if not MIN_WORDS <= len(document["text"].split()) <= MAX_WORDS:
                continue
            bios.append(document)
        else:
            document = wikinews.get("wikinews-" + name.split("_", 2)[2])
            if document is None:
                continue
        gold = gold_for(document["id"], document["text"], conllu)
        gold["genre"] = genre
        gold["corpus"] = "data/news_real/" + ("wikipedia_bio.jsonl" if genre == "bio" else "wikinews.jsonl")
        golds.append(gold)
    (REPO / "data/news_real/wikipedia_bio.jsonl").write_text(
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in bios))
    rng = random.Random(SEED)
    for genre in ("news", "interview", "bio"):
        members = sorted((g for g in golds if g["genre"] == genre), key=lambda g: g["id"])
        rng.shuffle(members)
        for index, gold in enumerate(members):
            gold["split"] = "tune" if index % 2 == 0 else "heldout"
    for split in ("tune", "heldout"):
        rows = sorted((g for g in golds if g["split"] == split), key=lambda g: g["id"])
        (GOLD_DIR / f"gum_gold_{split}.jsonl").write_text(
            "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in rows))
        print(f"{split}: {len(rows)} articles, {sum(len(g['people']) for g in rows)} people, "
              f"{sum(len(g['non_people']) for g in rows)} named non-people", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
