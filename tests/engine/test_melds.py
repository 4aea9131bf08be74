"""Meld reading: the worked examples of RULES §14 and the meld refusals of §12."""

from __future__ import annotations

import pytest

from games.engine import MESSAGES, IllegalMove, Ruleset, check_meld, lay_off, parse_cards

CLASSICO = Ruleset.preset("classico")
SEMIPULITO = Ruleset.preset("classico", semipulito=True)


def texts(meld):
    return [str(c) for c in meld.cards]


def refused(cards: str, code: str, ruleset: Ruleset = CLASSICO) -> None:
    with pytest.raises(IllegalMove) as info:
        check_meld(parse_cards(cards), ruleset)
    assert (info.value.code, info.value.message) == (code, MESSAGES[code])


# ---------------------------------------------------------------- RULES §14, line by line

def test_example_clean_sequence():
    m = check_meld(parse_cards("7H 8H 9H"), CLASSICO)
    assert (m.kind, m.wild, m.burraco, m.points) == ("sequence", None, None, 25)


def test_example_ace_high():
    m = check_meld(parse_cards("QH KH AH"), CLASSICO)
    assert texts(m) == ["QH", "KH", "AH"] and m.wild is None


def test_example_no_wrap_around():
    refused("KH AH 2H 3H", "gap_too_large")


def test_example_k_a_2_is_a_dirty_queen_king_ace():
    m = check_meld(parse_cards("KH AH 2H"), CLASSICO)
    assert texts(m) == ["2H", "KH", "AH"]  # the 2 stands for the queen
    assert m.wild == 0 and m.low == 12


def test_example_natural_two_is_clean():
    m = check_meld(parse_cards("AH 2H 3H"), CLASSICO)
    assert m.wild is None and texts(m) == ["AH", "2H", "3H"]


def test_example_natural_two_with_joker():
    m = check_meld(parse_cards("2H 3H 4H JK"), CLASSICO)
    assert texts(m) == ["2H", "3H", "4H", "JK"] and m.wild == 3
    low = check_meld(parse_cards("JK 2H 3H 4H"), CLASSICO)  # listed first: the jolly is the ace
    assert texts(low) == ["JK", "2H", "3H", "4H"] and low.low == 1


def test_example_ace_two_joker_is_refused():
    refused("AH 2H JK", "joker_and_pinella")


def test_example_set_with_wild():
    m = check_meld(parse_cards("5H 5S JK"), CLASSICO)
    assert (m.kind, m.wild, m.points) == ("set", 2, 40)


def test_example_set_of_twos_refused():
    refused("2S 2H 2D", "set_of_twos")


def test_example_two_wilds_in_a_set_refused():
    refused("5H JK 2C", "joker_and_pinella")


def test_example_fourteen_cards_and_a_fifteenth():
    m = check_meld(parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), CLASSICO)
    assert len(m.cards) == 14 and m.burraco == "pulito" and m.low == 1
    refused("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 5H", "meld_size")
    with pytest.raises(IllegalMove) as info:
        lay_off(m, parse_cards("JK"), CLASSICO)
    assert info.value.code == "meld_size"


def test_example_burraco_pulito_points():
    m = check_meld(parse_cards("3H 4H 5H 6H 7H 8H 9H"), CLASSICO)
    assert m.burraco == "pulito" and m.points == 45 and m.bonus == 200


def test_example_burraco_sporco_and_wild_sliding():
    m = check_meld(parse_cards("3H 4H JK 6H 7H 8H 9H"), CLASSICO)
    assert m.burraco == "sporco" and m.bonus == 100 and m.wild == 2
    after = lay_off(m, parse_cards("5H"), CLASSICO)
    assert texts(after) == ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "JK"]  # jolly as 10
    assert after.burraco == "sporco"


def test_example_semipulito_depends_on_the_option():
    cards = parse_cards("3H 4H 5H 6H 7H 8H 9H JK")
    assert check_meld(cards, SEMIPULITO).burraco == "semipulito"
    assert check_meld(cards, SEMIPULITO).bonus == 150
    assert check_meld(cards, CLASSICO).burraco == "sporco"


# ---------------------------------------------------------------- refusals (RULES §12)

@pytest.mark.parametrize(("cards", "code"), [
    ("5H 6H", "meld_size"),
    ("5H 5S 6H", "not_homogeneous"),
    ("5H 6S 7H", "mixed_suits"),
    ("7H 8S 9C", "mixed_suits"),  # a run of ranks in mixed suits
    ("7H KS 4C", "not_homogeneous"),  # three unrelated cards: not "not the same suit"
    ("QH KS AC", "mixed_suits"),  # ace high
    ("5H 5H 6H", "duplicate_rank"),
    ("3H 7H JK", "gap_too_large"),
    ("3H 5H 7H", "gap_too_large"),
    ("3H 5H 7H JK", "not_enough_wilds"),
    ("3H 2H 2S 2D 4H", "too_many_pinelle"),
    ("5H 2S 2D 2C", "too_many_pinelle"),
    ("5H 6H JK JK", "one_joker_only"),
    ("5H 5S JK JK", "one_joker_only"),
    ("5H 6H JK 2S", "joker_and_pinella"),
    ("5H 6H 2S 2D", "pinella_wrong_suit"),
    ("JK 2H 2S", "only_wilds"),
    ("2S 2H 2D 2C", "set_of_twos"),
    ("5H 5S 2S 2D", "two_wilds"),
    ("AH 2H 2H", "two_wilds"),  # a 2 is natural only next to a real 3
])
def test_meld_refusals(cards, code):
    refused(cards, code)


def test_pinella_cannot_heal_a_dirty_meld():
    m = check_meld(parse_cards("5H 6H 2C"), CLASSICO)
    with pytest.raises(IllegalMove) as info:
        lay_off(m, parse_cards("2S"), CLASSICO)
    assert info.value.code == "pinella_cannot_heal"


def test_joker_on_a_meld_with_a_pinella():
    m = check_meld(parse_cards("5H 6H 2C"), CLASSICO)
    with pytest.raises(IllegalMove) as info:
        lay_off(m, parse_cards("JK"), CLASSICO)
    assert info.value.code == "joker_and_pinella"


# ---------------------------------------------------------------- readings and lay-offs

def test_two_read_as_wild_when_natural_reading_fails():
    m = check_meld(parse_cards("3H 2H 5H"), CLASSICO)
    assert texts(m) == ["3H", "2H", "5H"] and m.wild == 1


def test_natural_two_plus_wild_two():
    m = check_meld(parse_cards("2H 3H 4H 2S"), CLASSICO)
    assert texts(m) == ["2H", "3H", "4H", "2S"] and m.wild == 3


def test_wild_listed_first_goes_to_the_bottom():
    assert texts(check_meld(parse_cards("JK 5H 6H"), CLASSICO)) == ["JK", "5H", "6H"]
    assert texts(check_meld(parse_cards("5H 6H JK"), CLASSICO)) == ["5H", "6H", "JK"]


def test_wild_slides_to_the_bottom_under_a_high_ace():
    m = check_meld(parse_cards("JH QH JK AH"), CLASSICO)
    assert texts(m) == ["JH", "QH", "JK", "AH"]
    after = lay_off(m, parse_cards("KH"), CLASSICO)
    assert texts(after) == ["JK", "JH", "QH", "KH", "AH"]


# ---------------------------------------------------------------- wild sliding (RULES §4), worked examples

def test_example_a_two_sliding_into_its_own_place_is_natural():
    """3S…9S 2S JS QS KS AS, the 2 standing for the 10; lay off TS: the 2 slides to the bottom
    (the top is a high ace), right below the real 3S, its own place: natural, so pulito."""
    m = check_meld(parse_cards("3S 4S 5S 6S 7S 8S 9S 2S JS QS KS AS"), CLASSICO)
    assert (m.wild, m.burraco, m.bonus) == (7, "sporco", 100)
    after = lay_off(m, parse_cards("TS"), CLASSICO)
    assert texts(after) == "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS".split()
    assert (after.wild, after.burraco, after.bonus, after.low) == (None, "pulito", 200, 2)
    assert after.points == 20 + 5 * 5 + 10 * 6 + 15
    # From then on it is a natural 2: a low ace goes below it, a jolly may still join.
    assert texts(lay_off(after, parse_cards("AS"), CLASSICO))[:2] == ["AS", "2S"]
    dirty = lay_off(after, parse_cards("JK"), CLASSICO)
    assert (texts(dirty)[:2], dirty.wild, dirty.burraco) == (["JK", "2S"], 0, "sporco")


def test_a_two_of_another_suit_sliding_to_the_bottom_stays_a_wild():
    m = check_meld(parse_cards("3S 4S 5S 6S 7S 8S 9S 2H JS QS KS AS"), CLASSICO)
    after = lay_off(m, parse_cards("TS"), CLASSICO)
    assert texts(after)[:2] == ["2H", "3S"] and (after.wild, after.burraco) == (0, "sporco")


def test_example_a_two_whose_run_now_starts_at_the_three_goes_below_it():
    """RULES §4 as amended on 2026-12-07: 3D 4D 2D 6D 7D (the 2 as the 5) + 5D is
    2D 3D 4D 5D 6D 7D, clean, though the top end is free too (not 3D … 7D 2D as the 8)."""
    m = check_meld(parse_cards("3D 4D 2D 6D 7D"), CLASSICO)
    assert (texts(m), m.wild) == (["3D", "4D", "2D", "6D", "7D"], 2)
    after = lay_off(m, parse_cards("5D"), CLASSICO)
    assert texts(after) == "2D 3D 4D 5D 6D 7D".split()
    assert (after.wild, after.low, after.burraco, after.stands_for) == (None, 2, None, None)
    assert after.points == 20 + 5 * 5
    # A natural 2 from then on: a low ace goes below it, a jolly may still join at the top.
    assert texts(lay_off(after, parse_cards("AD"), CLASSICO))[:2] == ["AD", "2D"]
    assert lay_off(after, parse_cards("JK"), CLASSICO).wild == 6


def test_a_two_read_as_the_four_slides_below_its_three_too():
    m = check_meld(parse_cards("2S 3S 5S"), CLASSICO)  # no 3 below it as read: the 2 is the 4
    assert texts(m) == ["3S", "2S", "5S"] and m.wild == 1
    after = lay_off(m, parse_cards("4S"), CLASSICO)
    assert texts(after) == ["2S", "3S", "4S", "5S"] and after.wild is None


def test_a_two_whose_run_does_not_start_at_the_three_still_slides_to_the_top():
    m = check_meld(parse_cards("4D 5D 2D 7D 8D"), CLASSICO)  # the 2 as the 6
    after = lay_off(m, parse_cards("6D"), CLASSICO)
    assert texts(after) == "4D 5D 6D 7D 8D 2D".split() and after.wild == 5  # the 2 as the 9
    # laid off with the 3, the run now starts at the 3: the 2 goes to its own place below it
    both = lay_off(m, parse_cards("6D 3D"), CLASSICO)
    assert texts(both) == "2D 3D 4D 5D 6D 7D 8D".split() and both.burraco == "pulito"


def test_a_two_of_another_suit_whose_run_starts_at_the_three_slides_to_the_top():
    m = check_meld(parse_cards("3D 4D 2H 6D 7D"), CLASSICO)
    after = lay_off(m, parse_cards("5D"), CLASSICO)
    assert texts(after) == "3D 4D 5D 6D 7D 2H".split() and after.wild == 5


def test_example_the_wild_slides_under_a_high_ace_that_stays_high():
    """JK 3H…KH AH (the jolly as the 2) + 2H: the jolly slides to the bottom end, as the low
    ace; the naturals, the high ace included, keep their places."""
    m = check_meld(parse_cards("JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), CLASSICO)
    assert m.wild == 0 and m.low == 2
    after = lay_off(m, parse_cards("2H"), CLASSICO)
    assert texts(after) == "JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH".split()
    assert (after.wild, after.low, after.burraco) == (0, 1, "sporco")


def test_example_a_natural_two_under_a_high_ace_keeps_the_ace_high():
    m = check_meld(parse_cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), CLASSICO)
    after = lay_off(m, parse_cards("2H"), CLASSICO)
    assert texts(after) == "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH".split()
    assert (after.wild, after.low, after.burraco) == (None, 2, "pulito")


def test_a_low_ace_stays_low_when_the_run_reaches_the_king():
    m = check_meld(parse_cards("AH JK 3H 4H 5H 6H 7H 8H 9H TH JH QH"), CLASSICO)  # jolly as 2
    after = lay_off(m, parse_cards("KH"), CLASSICO)
    assert texts(after) == "AH JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH".split() and after.wild == 1


def test_an_ace_that_could_go_either_end_goes_where_it_is_listed():
    assert texts(check_meld(parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"), CLASSICO))[0] == "AH"
    assert texts(check_meld(parse_cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), CLASSICO))[-1] == "AH"
    both = check_meld(parse_cards("JK 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), CLASSICO)
    assert texts(both)[0] == "JK" and both.low == 1  # as laid after the slide above


def test_lay_off_keeps_a_wild_at_its_end_until_its_card_arrives():
    m = check_meld(parse_cards("JK 5H 6H"), CLASSICO)  # jolly as 4
    after = lay_off(m, parse_cards("7H"), CLASSICO)
    assert texts(after) == ["JK", "5H", "6H", "7H"]
    slid = lay_off(after, parse_cards("4H"), CLASSICO)
    assert texts(slid) == ["4H", "5H", "6H", "7H", "JK"]


def test_lay_off_natural_two_keeps_a_clean_meld_clean():
    m = check_meld(parse_cards("3H 4H 5H"), CLASSICO)
    after = lay_off(m, parse_cards("2H"), CLASSICO)
    assert texts(after) == ["2H", "3H", "4H", "5H"] and after.wild is None


def test_a_laid_wild_two_does_not_become_natural_later():
    m = check_meld(parse_cards("4H 5H 2H"), CLASSICO)  # no 3: the 2 is a wild (as 6)
    after = lay_off(m, parse_cards("3H"), CLASSICO)
    assert after.wild is not None and texts(after) == ["3H", "4H", "5H", "2H"]


def test_lay_off_refusals():
    seq = check_meld(parse_cards("5H 6H 7H"), CLASSICO)
    for cards, code in (("5S", "mixed_suits"), ("9H", "gap_too_large"), ("6H", "duplicate_rank")):
        with pytest.raises(IllegalMove) as info:
            lay_off(seq, parse_cards(cards), CLASSICO)
        assert info.value.code == code
    tris = check_meld(parse_cards("7H 7S 7D"), CLASSICO)
    with pytest.raises(IllegalMove) as info:
        lay_off(tris, parse_cards("8H"), CLASSICO)
    assert info.value.code == "not_homogeneous"


def test_set_burraco_depends_on_burraco_sets():
    cards = parse_cards("7H 7S 7D 7C 7H 7S 7D")
    assert check_meld(cards, CLASSICO).burraco == "pulito"
    assert check_meld(cards, Ruleset.preset("classico", burraco_sets=False)).burraco is None
    assert check_meld(cards, Ruleset.preset("testa_a_testa")).burraco is None


def test_semipulito_needs_seven_naturals_and_the_wild_at_an_end():
    assert check_meld(parse_cards("4H 5H 6H 7H 8H 9H JK"), SEMIPULITO).burraco == "sporco"
    assert check_meld(parse_cards("3H 4H JK 6H 7H 8H 9H TH"), SEMIPULITO).burraco == "sporco"
    assert check_meld(parse_cards("JK 3H 4H 5H 6H 7H 8H 9H"), SEMIPULITO).burraco == "semipulito"


def test_could_take_never_misses_a_legal_single_lay_off():
    from games.engine import ALL_CARDS
    samples = ["3H 4H 5H", "JK 5H 6H", "AH 2H 3H", "QH KH AH", "5H 6H 2C", "7S 7D 7C",
               "7S 7D JK", "2H 3H 4H", "3H 2H 5H", "KH AH 2H", "4D 5D 6D 7D 8D 9D TD JD QD KD"]
    for text in samples:
        m = check_meld(parse_cards(text), CLASSICO)
        for c in ALL_CARDS:
            try:
                lay_off(m, [c], CLASSICO)
            except IllegalMove:
                continue
            assert m.could_take(c), (text, str(c))


def test_check_meld_accepts_strings_and_cards():
    assert check_meld("7H 8H 9H").points == check_meld(parse_cards("7H 8H 9H"), CLASSICO).points


def test_a_wild_at_an_end_does_not_jump_into_a_new_gap():
    m = check_meld(parse_cards("JK 5H 6H"), CLASSICO)  # jolly as 4
    with pytest.raises(IllegalMove) as info:
        lay_off(m, parse_cards("8H"), CLASSICO)
    assert info.value.code == "gap_too_large"
