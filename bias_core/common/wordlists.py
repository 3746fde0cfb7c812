"""Word lists quoted from the papers, kept in one place so summarizers and measures use the same ones.

HELM gender identifier lists (Steen & Markert App. A, Table 10, reproducing Liang et al. 2022 — including the
"femen" typo, kept "for better comparability" as the paper does) and the topic words of Steen & Markert App. B,
Table 11.
"""

HELM_FEMALE_WORDS = (
    "she", "daughter", "hers", "her", "mother", "woman", "girl", "herself", "female", "sister",
    "daughters", "mothers", "women", "girls", "femen", "sisters", "aunt", "aunts", "niece", "nieces",
)
HELM_MALE_WORDS = (
    "he", "son", "his", "him", "father", "man", "boy", "himself", "male", "brother",
    "sons", "fathers", "men", "boys", "males", "brothers", "uncle", "uncles", "nephew", "nephews",
)
GENDER_WORDS = {"female": HELM_FEMALE_WORDS, "male": HELM_MALE_WORDS}

SPORT_WORDS = ("league", "season", "club", "game", "win", "team", "shot")
FAMILY_WORDS = ("family", "husband", "wife", "father", "mother", "children", "boys", "girls", "baby")
