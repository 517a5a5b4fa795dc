"""The answer keys' grading notes (scripts/teach/build.py): the check's hints and the rubric."""

from bs4 import BeautifulSoup

from resnet_nb.book import exercises
from scripts.teach import build


def test_a_checked_exercise_lists_its_hints_and_rubric_in_the_key():
    soup = BeautifulSoup(build.grading_html("hm-ex-pi"), "html.parser")
    items = [li.get_text() for li in soup.select("li")]
    assert exercises.hint("hm-ex-pi", "bound") in items
    assert all(step in items for step in exercises.rubric("hm-ex-pi"))
    assert build.checked_note("hm-ex-pi")


def test_an_unchecked_exercise_says_why_and_gives_its_rubric():
    text = BeautifulSoup(build.grading_html("hm-ex-largest"), "html.parser").get_text()
    assert "No automatic check" in text and exercises.UNCHECKED["hm-ex-largest"] in text
    assert exercises.rubric("hm-ex-largest")[0] in text
    assert build.checked_note("hm-ex-largest") == ""
