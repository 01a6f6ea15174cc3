"""A teacher shares a model with the class from Your own data; a student in the class loads it there, and it is
their own model everywhere, through the class store."""

from __future__ import annotations

import store
from lessons import own_data
from minimodels.own_data import PairsTask, build_own_model, own_data_train_config, read_example, save_model
from minimodels.train import train
from tests.helpers import open_page

PAGE = "pages/own_data.py"


def _model_file() -> bytes:
    task = PairsTask.from_pairs(read_example("en-fr").pairs, name="en-fr.tsv")
    architecture = next(iter(own_data.ARCHITECTURES))
    model = build_own_model(architecture, task, seed=0)
    config = own_data_train_config(architecture, max_steps=10, max_seconds=10, report_every=5, eval_size=10)
    result = train(model, task, config)
    return save_model(model.eval(), task, curve=result.history, config=config)


def test_a_teacher_shares_a_model_and_a_student_loads_it():
    classes, _ = store.open_store()
    info, key = classes.create_class("share")
    teacher = open_page("pages/classroom.py", params={"class": info.code, "teacher": key})
    teacher.switch_page(PAGE).run()
    assert "Share with the class" in [h.value for h in teacher.subheader]
    teacher.file_uploader(key="own_data.model_upload").set_value(("kept.safetensors", _model_file(), "x")).run()
    share = next(b for b in teacher.button if b.key and b.key.startswith("classroom.share."))
    share.click().run()
    assert not teacher.exception, teacher.exception
    shared = classes.shared_models(info.code)
    assert len(shared) == 1 and shared[0]["name"].endswith(".safetensors")

    student = open_page("pages/classroom.py", params={"join": info.code})
    student.text_input(key="classroom.join.name").set_value("Ana")
    student.button(key="FormSubmitter:classroom.join.form-Join").click().run()
    student.switch_page(PAGE).run()
    assert "Models your teacher shared" in [h.value for h in student.subheader]
    assert not [b for b in student.button if b.key and b.key.startswith("classroom.share.")]  # students cannot share
    student.button(key=f"classroom.load_shared.{shared[0]['id']}").click().run()
    assert not student.exception, student.exception
    assert student.session_state["own_data.models"]  # the student's own model now, in every lesson view


def test_outside_a_class_the_page_offers_no_sharing():
    at = open_page(PAGE)
    assert "Share with the class" not in [h.value for h in at.subheader]
    assert "Models your teacher shared" not in [h.value for h in at.subheader]
