"""The class: a teacher starts one, students join with a code, a link or a QR code; the dashboard follows them."""

import ui

entry = ui.tool("classroom")
ui.explain(
    "A class connects every student's page to the teacher's: the teacher asks a lesson's question and reveals "
    "the class's answers next to the truth, hands each student a different training setting and pools the runs "
    "into one chart, and puts one student's run on the projector. Nothing here needs an account."
)
ui.class_page()
