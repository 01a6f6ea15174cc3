"""Attention Lab: the home page, a map of the course."""

import streamlit as st

import ui
from lessons.common import catalog
from lessons.common.catalog import COURSE

ui.page("Course map", icon="🧭", heading="Attention Lab")
st.markdown(
    "Learn attention from the inside. Every lesson runs or trains a small PyTorch model right here and draws "
    "its attention weights as they are computed. Start with recurrence and the bottleneck that made attention "
    "necessary, then build attention up piece by piece, and end in two research labs."
)

states = ui.progress_panel()  # the learner's progress: resume, done / in progress per lesson

number = 0
for part in COURSE:
    st.header(part.title, divider="gray")
    columns = st.columns(2)
    for i, lesson in enumerate(part.lessons):
        number += 1
        with columns[i % 2].container(border=True):
            if lesson.built:
                state = {"done": " · ✓ done", "in progress": " · in progress"}.get(states.get(lesson.slug), "")
                st.page_link(lesson.page, label=f"**{number}. {lesson.title}**{state}", icon=lesson.icon)
                st.markdown(lesson.promise)
            else:
                st.markdown(f":gray[**{number}. {lesson.title}** · *coming*]")
                st.markdown(f":gray[{lesson.promise}]")

tools = [entry for entry in catalog.TOOLS if entry.built]
if tools:
    st.header("Tools", divider="gray")
    columns = st.columns(2)
    for i, entry in enumerate(tools):
        with columns[i % 2].container(border=True):
            st.page_link(entry.page, label=f"**{entry.title}**", icon=entry.icon)
            st.markdown(entry.promise)

st.caption(
    "The course follows a Transformer lecture, an NLP lecture on attention, “How much attention do you "
    "need?” (Sockeye, ACL 2018) and “Multilingual NMT with a language-independent attention bridge”."
)
