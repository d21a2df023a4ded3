from surveys.xlsform.parsed import Parsed


def test_problems_are_kept_by_cell_in_the_order_found():
    parsed = Parsed()
    parsed.problem("survey!B2", "first")
    parsed.problem("settings!A2", "other cell")
    parsed.problem("survey!B2", "second")
    assert parsed.errors == {"survey!B2": ["first", "second"], "settings!A2": ["other cell"]}
    assert parsed.body == {} and parsed.where == {}
