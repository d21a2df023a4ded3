"""Respondent pages in Chromium (issue 10): phone and desktop layout, one randomizer visual per
design, keyboard focus through the flips, focus-ring contrast and reduced motion."""

from __future__ import annotations

import re

import pytest

from tests.e2e.respondent_support import (
    FOCUS_IS_VISIBLE_CONTROL,
    MIXED,
    SIZES,
    TRUTHS,
    check_axe,
    contrast,
    no_sideways_scroll,
    shot,
)
from testsupport.factories import make_campus_survey as make_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["phone", "desktop"])
def test_layout_visuals_and_focus_through_every_flip(live_server, new_page, width, height):
    survey = make_survey(MIXED)
    page, problems = new_page(viewport={"width": width, "height": height})
    # The longest browser test here (7 steps, animations, axe 3×): room for a loaded CI box.
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    shot(page, f"first-screen-{width}")
    # Question 1 is on the first screen, whole.
    box = page.locator("#step-cheated .question-text").bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= height, box
    truth_box = page.locator('#step-cheated [data-truth="true"]').bounding_box()
    assert truth_box["y"] + truth_box["height"] <= height  # and its first answer button
    no_sideways_scroll(page)
    check_axe(page, f"respondent page with JS, {width} px")

    for key, truth in TRUTHS.items():
        step = page.locator(f"#step-{key}")
        q = next(q for q in MIXED if q["key"] == key)
        coins = q["kind"] == "yes_no" and "design" not in q
        flip_button = step.locator("[data-role=flip]")
        assert flip_button.inner_text() == ("Flip the coins" if coins else "Spin the spinner")
        # Keyboard only: pick the truth with Space, flip with Enter.
        step.locator(f'[data-truth="{truth}"]').focus()
        page.keyboard.press("Space")
        flip_button.focus()
        page.keyboard.press("Enter")
        # During the animation focus is on the (visible) skip button, not the page.
        assert page.evaluate(FOCUS_IS_VISIBLE_CONTROL) == "ok", key
        assert page.evaluate("document.activeElement.dataset.role") == "skip"
        if key == "drugs":
            shot(page, f"spinner-turning-{width}")
        step.locator("[data-role=result] .reported").wait_for()
        assert page.evaluate(FOCUS_IS_VISIBLE_CONTROL) == "ok", key
        assert page.evaluate("document.activeElement.dataset.role") == "next"
        stage = step.locator("[data-role=stage]")
        if coins:
            faces = stage.locator(".coin").all_inner_texts()
            assert faces in (["TAILS"], ["HEADS", "HEADS"], ["HEADS", "TAILS"]), faces
            assert stage.locator(".spinner").count() == 0
        else:
            assert stage.locator(".coin").count() == 0
            result = stage.locator(".spinner-result").inner_text()
            legend = stage.locator(".spinner-legend li").all_inner_texts()
            landed = stage.locator(".spinner-legend li.landed").inner_text()
            assert result == "Result: " + re.sub(r" \(\d+%\)$", "", landed), (result, landed)
            assert landed in legend
        no_sideways_scroll(page)
        shot(page, f"result-{key}-{width}", full_page=True)
        page.keyboard.press("Enter")  # Next, from where focus is

    page.locator("#step-region label", has_text="S").first.click()
    page.locator("#step-region [data-role=next]").click()
    page.locator("#step-age input").fill("41")
    page.locator("#step-age [data-role=next]").click()
    summary = page.locator("#step-summary")
    summary.wait_for()
    items = summary.locator("#summary-list li").all()
    assert [li.get_attribute("data-handling") for li in items] == ["randomized"] * 5 + [
        "direct"
    ] * 2
    assert "Not randomized: sent exactly as you enter it." in items[5].inner_text()
    assert "randomized on this device; nobody who sees it can tell whether it is your true" in (
        items[0].inner_text()
    )
    assert "times as likely" in items[4].inner_text()
    no_sideways_scroll(page)
    shot(page, f"summary-{width}", full_page=True)
    check_axe(page, f"summary step, {width} px")
    page.locator("#send-button").click()
    thanks = page.locator("#thanks")
    thanks.wait_for()
    text = thanks.inner_text()
    assert "Only the randomized answers left this device" not in text
    assert "sent exactly as you gave them" in text
    shot(page, f"thanks-js-{width}")
    check_axe(page, f"thank-you (JS), {width} px")
    assert problems.messages == []


def test_focus_ring_has_3_to_1_contrast(live_server, new_page):
    survey = make_survey(MIXED[:1])
    page, _ = new_page(viewport={"width": 360, "height": 740})
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator('#step-cheated [data-truth="true"]').focus()
    page.keyboard.press("Tab")  # keyboard focus: :focus-visible applies
    style = page.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
                   return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"""
    )
    assert style[0] == "solid" and float(style[1].removesuffix("px")) >= 2, style
    # The ring sits 2 px outside the control, on the card (white) or the page background
    # (painted by the root element; the body is transparent).
    page_background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert page_background.startswith("rgb(")
    for background in ("rgb(255, 255, 255)", page_background):
        assert contrast(style[2], background) >= 3.0, (style[2], background)


def test_reduced_motion_keeps_focus_on_a_control(live_server, new_page):
    survey = make_survey(MIXED[:3])
    page, problems = new_page(reduced_motion="reduce", viewport={"width": 360, "height": 740})
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for key in ("cheated", "drove", "drugs"):
        step = page.locator(f"#step-{key}")
        step.locator('[data-truth="true"]').click()
        step.locator("[data-role=flip]").click()
        step.locator("[data-role=result] .reported").wait_for()
        assert page.evaluate(FOCUS_IS_VISIBLE_CONTROL) == "ok", key
        step.locator("[data-role=next]").click()
    assert problems.messages == []
