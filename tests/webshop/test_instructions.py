"""Goal parsing from human instructions: type, attributes, options."""

from __future__ import annotations

import pytest

from env_servers.webshop.instructions import parse_instruction


@pytest.mark.parametrize(("instruction", "product_type", "attributes", "options"), [
    ("i need gluten free vegetarian smoked peppered bacon - 4 ounce (pack of 2)",
     "smoked peppered bacon", ("gluten free", "vegetarian"), {"size": "4 ounce (pack of 2)"}),
    ("im looking for a queen size bedspread set in the color redwood",
     "bedspread set", (), {"size": "queen", "color": "redwood"}),
    ("i want to find xx-large black workout sweatpants with a relaxed fit",
     "workout sweatpants", ("relaxed fit",), {"size": "xx-large", "color": "black"}),
    ("i am looking for a synthetic sole flip flop. also, choose munsell white color and 5 "
     "narrow size",
     "flip flop", ("synthetic sole",), {"size": "5 narrow", "color": "white"}),
    ("i am looking for sparkling water of fizzy lychee flavor having low carb",
     "sparkling water", ("low carb",), {"flavor name": "fizzy lychee"}),
    ("can i get arm & hammer ultramax anti-perspirant deodorant with fresh scent",
     "ultramax anti-perspirant deodorant", (), {"scent": "fresh"}),
    ("i am looking for an easy to install iphone 12 case with a butterfly orchid design on it",
     "iphone case", ("easy to install",), {}),
    ("i am looking for a high quality wig that is sky blue colored",
     "wig", ("high quality",), {"color": "sky blue"}),
])
def test_instructions_parse_into_type_attributes_and_options(instruction, product_type,
                                                              attributes, options):
    parsed = parse_instruction(instruction)
    assert parsed.product_type == product_type
    assert parsed.attributes == attributes
    assert parsed.options == options


def test_x_free_phrases_are_attributes_but_not_for_free():
    parsed = parse_instruction("i want paraben free and sulfate free shampoo for free")
    assert parsed.attributes == ("paraben free", "sulfate free")
    assert parsed.product_type == "shampoo"


def test_an_instruction_without_a_noun_falls_back_to_item():
    assert parse_instruction("i need some").product_type == "item"
