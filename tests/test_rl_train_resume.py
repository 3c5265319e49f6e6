"""``python -m pi_env.rl.train`` / ``pi_env.rl.imitate`` command lines: ``--resume`` keeps the saved
settings, refuses changes to the network's shape and input, an interruption saves a resumable run
(exit 130), failed validation leaves no directory behind, a one-update curve is drawn."""

from __future__ import annotations

import csv
import hashlib
import json

import pytest

from helpers import need_extra


def _rl():
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")


# 64 games x 16 steps: 1024 steps per update
TINY = ["--num-envs", "64", "--n-steps", "16", "--batch-size", "512", "--n-epochs", "1", "--trunk", "32",
        "--hidden", "16", "--opponents", "random:1", "--checkpoint-every", "2048", "--seed", "5"]


def _train(*argv):
    from pi_env.rl.cli import train_main as main

    return main([*argv, "--no-progress"])


def _curve_steps(out):
    with open(out / "curve.csv", newline="") as f:
        return [int(float(r["timesteps"])) for r in csv.DictReader(f)]


def _digest(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def run2048(tmp_path_factory):
    _rl()
    out = tmp_path_factory.mktemp("rl") / "run"
    assert _train("2p", "--out", str(out), "--timesteps", "2048", *TINY) == 0
    return out


def test_resume_takes_the_saved_settings_and_timesteps_is_the_total(run2048, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(run2048, out)
    assert _train("2p", "--out", str(out), "--resume", "--timesteps", "4096") == 0
    run = json.loads((out / "run.json").read_text())
    s = run["settings"]
    assert (s["num_envs"], s["n_steps"], s["batch_size"], s["opponents"], s["trunk"], s["hidden"], s["seed"],
            s["timesteps"]) == (64, 16, 512, "random:1", [32], [16], 5, 2048)  # as started
    assert run["num_envs"] == 64 and run["opponents"] == "random:1" and run["timesteps"] == 4096
    assert run["resumes"] == [{"at_step": 2048, "changed": {"timesteps": 4096}}]
    assert [(x["started_at_step"], x["timesteps"]) for x in run["sessions"]] == [(0, 2048), (2048, 4096)]
    # one row per update of 64 x 16 steps, in both sessions
    assert _curve_steps(out) == [1024, 2048, 3072, 4096]
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == ["step_2048.zip", "step_4096.zip"]
    # a second resume without --timesteps takes the last target (4096): nothing left to do, refused
    with pytest.raises(SystemExit) as exc:
        _train("2p", "--out", str(out), "--resume")
    assert exc.value.code == 2
    assert _train("2p", "--out", str(out), "--resume", "--timesteps", "5000") == 0  # rounded up to whole updates
    run = json.loads((out / "run.json").read_text())
    assert run["sessions"][-1]["timesteps"] == 5120 and run["resumes"][-1]["changed"] == {"timesteps": 5000}


@pytest.mark.parametrize("argv, message", [
    (["4p"], "was started with task 2p, not 4p"),
    (["2p", "--encoding", "compact-v2"], "was started with --encoding compact-v1, not compact-v2"),
    (["2p", "--hidden", "8"], "was started with --hidden 16, not 8"),
    (["2p", "--trunk", "32,32"], "was started with --trunk 32, not 32,32"),
    (["2p", "--timesteps", "1000"], "is already at step 2048; --timesteps is the total over every session "
                                    "(1000 given): give a larger one"),
])
def test_a_conflicting_resume_is_one_line_and_changes_nothing(run2048, capsys, argv, message):
    before = _digest(run2048)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        _train(argv[0], "--out", str(run2048), "--resume", *argv[1:])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"the run in '{run2048}'" in err[0] and message in err[0], err
    assert _digest(run2048) == before


def test_an_interrupted_run_is_saved_and_resumes(tmp_path, monkeypatch, capsys):
    _rl()
    from pi_env.agents.learned import load_model
    from pi_env.rl.engine_env import SB3LearnerVecEnv

    real, calls = SB3LearnerVecEnv.step_wait, [0]

    def step_wait(self):
        calls[0] += 1
        if calls[0] == 41:  # Ctrl-C during the 41st step: 40 x 64 steps done
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(SB3LearnerVecEnv, "step_wait", step_wait)
    out = tmp_path / "run"
    capsys.readouterr()
    assert _train("2p", "--out", str(out), "--timesteps", "4096", *TINY) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"python -m pi_env.rl.train: interrupted at step 2,560; saved in {out}; continue with: "
                   f"python -m pi_env.rl.train 2p --out {out} --resume"]
    run = json.loads((out / "run.json").read_text())
    assert run["sessions"] == [{**run["sessions"][0], "started_at_step": 0, "timesteps": 2560, "interrupted": True}]
    assert run["settings"]["timesteps"] == 4096 and run["settings"]["num_envs"] == 64
    assert (out / "checkpoints" / "step_2560.zip").is_file() and (out / "model.zip").is_file()
    assert load_model(str(out / "policy.pt"))[1]["card"]["timesteps"] == 2560
    assert not list(out.rglob("*.tmp"))
    monkeypatch.setattr(SB3LearnerVecEnv, "step_wait", real)
    first_rows = (out / "curve.csv").read_text().splitlines()
    assert first_rows[1].split(",")[0] == "1024"  # steps, an integer column
    # --resume goes on to the saved target, in whole updates of 1024 steps: 2560 + 2 x 1024
    assert _train("2p", "--out", str(out), "--resume") == 0
    # the earlier rows are rewritten exactly as they were (integers stay integers, not 1024.0), with
    # empty fields for columns that came later (the evaluation at the end of the session)
    again = (out / "curve.csv").read_text().splitlines()[:len(first_rows)]
    assert len(again) == len(first_rows) and all(a.startswith(f) for a, f in zip(again, first_rows)), again
    run = json.loads((out / "run.json").read_text())
    assert [(x["started_at_step"], x["timesteps"]) for x in run["sessions"]] == [(0, 2560), (2560, 4608)]
    assert run["resumes"] == [{"at_step": 2560, "changed": {}}]


@pytest.mark.parametrize("argv, message", [
    (["--opponents", "nobody:1"], "unknown agent 'nobody'"),
    (["--encoding", "nope"], "--encoding: unknown encoding 'nope' (one of: flat-v1, compact-v1, compact-v2, compact-v3, compact-v4)"),
    (["--encoding", "solo-compact-v1"], "--encoding: encoding 'solo-compact-v1' is for Solo Time Attack models"),
    (["--imitate", "nobody"], "unknown agent 'nobody'"),
    (["--imitate", "gain", "--imitate-opponents", "zz:1"], "unknown agent 'zz'"),
    (["--imitate", "gain", "--demos", "missing.npz"], "--demos: no file 'missing.npz'"),
    (["--demos", "missing.npz"], "--demos: no file 'missing.npz'"),
    (["--imitate", "gain", "--imitate-workers", "100000"], "--imitate-workers 100000: this machine has "),
])
def test_failed_validation_leaves_no_run_directory(tmp_path, capsys, argv, message):
    _rl()
    out = tmp_path / "new" / "run"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        _train("2p", "--out", str(out), "--timesteps", "1024", *argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "new").exists()


def test_imitate_interrupted_writes_nothing_and_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    _rl()
    from pi_env.rl import imitate
    from pi_env.rl.cli import imitate_main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(imitate, "collect_parallel", interrupted)
    out = tmp_path / "demos.npz"
    out.write_bytes(b"old rows")
    capsys.readouterr()
    assert imitate_main(["2p", "--rows", "10", "--out", str(out), "--force", "--no-progress"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"python -m pi_env.rl.imitate: interrupted; nothing written ({out} unchanged)"]
    assert out.read_bytes() == b"old rows" and sorted(p.name for p in tmp_path.iterdir()) == ["demos.npz"]


def test_a_one_update_curve_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.image as mpimg

    from pi_env.rl.train import plot_curve

    plot_curve([], tmp_path / "empty.png", "t")
    plot_curve([{"timesteps": 1024, "win_rate": 0.5, "score_mean": 3.0}], tmp_path / "one.png", "t")
    empty, one = mpimg.imread(tmp_path / "empty.png"), mpimg.imread(tmp_path / "one.png")
    assert empty.shape == one.shape

    def pixels(img, rgb):
        return int(((img[:, :, :3] * 255).round().astype(int) == rgb).all(axis=-1).sum())

    # the point is drawn in both series' colours (C0 #1f77b4, C1 #ff7f0e; the axis labels use them too)
    for rgb in ((31, 119, 180), (255, 127, 14)):
        assert pixels(one, rgb) > pixels(empty, rgb) + 4


def _copy(run, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(run, out)
    return out


def _edit_settings(**changes):
    def edit(doc):
        doc["settings"].update(changes)
        return doc
    return edit


@pytest.mark.parametrize("edit, message", [
    (lambda doc: [doc], "run.json: top level: expected a JSON object, got list"),
    ("directory", "run.json: is a directory, not a file"),
    (lambda doc: {**doc, "settings": "x"}, "run.json: settings: 'x' is not of type 'object'"),
    (lambda doc: {**doc, "resumes": 5}, "run.json: resumes: 5 is not of type 'array'"),
    (lambda doc: {**doc, "sessions": {"a": 1}}, "run.json: sessions: {'a': 1} is not of type 'array'"),
    (lambda doc: {**doc, "resumes": [{"at_step": 2048, "changed": {"num_envs": 0}}]},
     "run.json: resumes.0.changed.num_envs: 0 is less than the minimum of 1"),
    (_edit_settings(learning_rate="fast"), "run.json: settings.learning_rate: 'fast' is not of type 'number'"),
    (_edit_settings(num_envs="64"), "run.json: settings.num_envs: '64' is not of type 'integer'"),
    (_edit_settings(num_envs=-1), "run.json: settings.num_envs: -1 is less than the minimum of 1"),
    (_edit_settings(num_envs=64.5), "run.json: settings.num_envs: 64.5 is not of type 'integer'"),
    (_edit_settings(num_envs=None), "run.json: settings.num_envs: null is not of type 'integer'"),
    (_edit_settings(n_steps=None), "run.json: settings.n_steps: null is not of type 'integer'"),
    (_edit_settings(trunk="128"), "run.json: settings.trunk: '128' is not of type 'array'"),
    (_edit_settings(task=2), "run.json: settings.task: 2 is not one of ['2p', '3p', '4p', '5p']"),
    (_edit_settings(bogus=1), "run.json: settings: unknown setting(s) ('bogus' was unexpected)"),
])
def test_a_corrupt_run_json_is_one_line_naming_the_field_and_changes_nothing(run2048, tmp_path, capsys, edit,
                                                                               message):
    out = _copy(run2048, tmp_path)
    path = out / "run.json"
    if edit == "directory":
        path.unlink()
        path.mkdir()
    else:
        path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    before = _digest(out)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        _train("2p", "--out", str(out), "--resume", "--timesteps", "4096")
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"python -m pi_env.rl.train: error: {out}/{message}"]
    assert _digest(out) == before and path.is_dir() == (edit == "directory")


def test_the_top_level_card_follows_the_settings_in_force_after_a_resume(run2048, tmp_path):
    from pi_env.rl.train import saved_settings

    out = _copy(run2048, tmp_path)
    assert _train("2p", "--out", str(out), "--resume", "--timesteps", "3072", "--learning-rate", "0.001",
                  "--ent-coef", "0.05") == 0
    run = json.loads((out / "run.json").read_text())
    assert (run["settings"]["learning_rate"], run["settings"]["ent_coef"]) == (3e-4, 0.01)  # as started
    assert (run["ppo"]["learning_rate"], run["ppo"]["ent_coef"], run["ppo"]["n_steps"]) == (0.001, 0.05, 16)
    assert (run["timesteps"], run["num_envs"], run["opponents"]) == (3072, 64, "random:1")
    with open(out / "curve.csv", newline="") as f:
        assert run["seconds"] == round(float(list(csv.DictReader(f))[-1]["seconds"]), 1)
    assert run["seconds"] == pytest.approx(sum(x["seconds"] for x in run["sessions"]), abs=0.15)  # consistent
    assert run["resumes"] == [{"at_step": 2048, "changed": {"timesteps": 3072, "learning_rate": 0.001,
                                                            "ent_coef": 0.05}}]
    got = saved_settings(out)
    assert (got["learning_rate"], got["ent_coef"], got["timesteps"]) == (0.001, 0.05, 3072)


def test_ctrl_c_before_the_first_checkpoint_is_one_line_and_a_plain_rerun_starts_again(tmp_path, monkeypatch,
                                                                                       capsys):
    _rl()
    from pi_env.rl import train as train_mod
    from pi_env.rl.engine_env import SB3LearnerVecEnv

    out = tmp_path / "run"
    real_sb3 = train_mod._sb3

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "_sb3", interrupted)  # during the imports: nothing created yet
    capsys.readouterr()
    assert _train("2p", "--out", str(out), "--timesteps", "1024", *TINY) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        "python -m pi_env.rl.train: interrupted before the first checkpoint; nothing to resume "
        "(run the same command again to start)"]
    assert not out.exists()
    monkeypatch.setattr(train_mod, "_sb3", real_sb3)
    monkeypatch.setattr(SB3LearnerVecEnv, "__init__", interrupted)  # while the games are built
    assert _train("2p", "--out", str(out), "--timesteps", "1024", *TINY) == 130
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert [str(f.relative_to(out)) for f in out.rglob("*") if f.is_file()] == ["run.json"]
    with pytest.raises(SystemExit) as exc:  # nothing to resume
        _train("2p", "--out", str(out), "--resume")
    assert exc.value.code == 2 and "holds no checkpoint" in capsys.readouterr().err
    monkeypatch.undo()
    assert _train("2p", "--out", str(out), "--timesteps", "1024", *TINY) == 0  # no --force needed
    run = json.loads((out / "run.json").read_text())
    assert [(x["started_at_step"], x["timesteps"]) for x in run["sessions"]] == [(0, 1024)]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit) as exc:  # a run with a checkpoint is still refused without --force
        _train("2p", "--out", str(out), "--timesteps", "1024", *TINY)
    assert exc.value.code == 2 and "exists and is not empty" in capsys.readouterr().err


def test_ctrl_c_while_a_resume_starts_leaves_the_run_unchanged(run2048, tmp_path, monkeypatch, capsys):
    from pi_env.rl import train as train_mod

    out = _copy(run2048, tmp_path)
    before = _digest(out)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "_sb3", interrupted)
    capsys.readouterr()
    assert _train("2p", "--out", str(out), "--resume", "--timesteps", "4096") == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        "python -m pi_env.rl.train: interrupted before training resumed; the run is unchanged (--resume again)"]
    assert _digest(out) == before


def test_imitate_ctrl_c_during_setup_is_one_line_and_an_existing_out_names_the_option(tmp_path, monkeypatch,
                                                                                      capsys):
    _rl()  # imitate.main checks the rl extra before anything else
    from pi_env.rl import imitate
    from pi_env.rl.cli import imitate_main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(imitate, "check_agent", interrupted)  # before any collection
    out = tmp_path / "demos.npz"
    capsys.readouterr()
    assert imitate_main(["2p", "--rows", "10", "--out", str(out), "--no-progress"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["python -m pi_env.rl.imitate: interrupted; nothing written"]
    assert not list(tmp_path.iterdir())
    monkeypatch.undo()  # the options are checked before --out: the agents must build now
    out.write_bytes(b"old rows")
    with pytest.raises(SystemExit) as exc:
        imitate_main(["2p", "--rows", "10", "--out", str(out), "--no-progress"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"python -m pi_env.rl.imitate: error: --out: {out} exists: --force to overwrite it"]
    assert out.read_bytes() == b"old rows"


@pytest.mark.parametrize("argv, message", [
    (["--learning-rate", "-1"], "--learning-rate: -1.0 is less than or equal to the minimum of 0"),
    (["--gamma", "2"], "--gamma: 2.0 is greater than the maximum of 1"),
    (["--snapshot-weight", "-1"], "--snapshot-weight: -1.0 is less than the minimum of 0"),
    (["--num-envs", "0"], "--num-envs must be at least 1, got 0"),
])
def test_options_pass_the_checks_of_the_saved_settings(tmp_path, capsys, argv, message):
    _rl()
    out = tmp_path / "run"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        _train("2p", "--out", str(out), "--timesteps", "1024", *argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"python -m pi_env.rl.train: error: {message}"]
    assert not out.exists()


def test_force_refuses_a_folder_that_is_not_a_run_and_keeps_it(tmp_path, capsys, monkeypatch):
    """``--force`` replaces only a run (``run.json``): never a folder of other files, ``..``, or a link."""
    _rl()
    notrun = tmp_path / "notrun"
    notrun.mkdir()
    (notrun / "thesis.tex").write_text("chapter 1")
    (tmp_path / "link").symlink_to(notrun)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    for out, message in ((str(notrun), "is not a pi-env training run (no run.json) and not empty"),
                         ("..", "is the working directory or one of its parents"),
                         (str(tmp_path / "link"), "is a symbolic link")):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            _train("2p", "--out", out, "--timesteps", "1024", "--force", *TINY)
        assert exc.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err
    assert [p.name for p in notrun.iterdir()] == ["thesis.tex"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "notrun", "work"]


@pytest.mark.parametrize("damage", ["empty", "truncated", "other_zip"])
def test_a_corrupt_checkpoint_on_resume_is_one_line_naming_it_and_changes_nothing(run2048, tmp_path, capsys,
                                                                                  damage):
    import shutil
    import zipfile

    run = tmp_path / "run"
    shutil.copytree(run2048, run)
    ckpt = max((run / "checkpoints").glob("step_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
    if damage == "empty":
        ckpt.write_bytes(b"")
    elif damage == "truncated":
        ckpt.write_bytes(ckpt.read_bytes()[:1000])
    else:
        with zipfile.ZipFile(ckpt, "w") as z:
            z.writestr("notes.txt", "not a model")
    before = _digest(run)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        _train("2p", "--out", str(run), "--timesteps", "4096", "--resume")
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--resume: the checkpoint '{ckpt}' is not a readable model" in err[0], err
    assert _digest(run) == before


def test_ctrl_c_during_the_warm_start_before_a_round_is_saved_says_a_plain_rerun_starts_again(tmp_path, monkeypatch,
                                                                                              capsys):
    _rl()
    from pi_env.rl import train as train_mod

    def interrupted(*args, out, **kwargs):
        (out / "imitation").mkdir()  # what the warm start makes before its first round is saved
        raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "warm_start", interrupted)
    out = tmp_path / "run"
    capsys.readouterr()
    assert _train("2p", "--out", str(out), "--timesteps", "1024", "--imitate", "gain", *TINY) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        "python -m pi_env.rl.train: interrupted before the first checkpoint; nothing to resume "
        "(run the same command again to start)"]
    assert train_mod.never_started(out)  # so the same command starts again, without --force


def test_ctrl_c_while_the_finished_run_is_saved_exits_130_with_the_files_complete(tmp_path, monkeypatch, capsys):
    _rl()
    import os
    import signal

    from pi_env.rl import train as train_mod

    real = train_mod._finish

    def finish(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # ~the last seconds of a run
        return real(*args, **kwargs)

    monkeypatch.setattr(train_mod, "_finish", finish)
    out = tmp_path / "run"
    capsys.readouterr()
    assert _train("2p", "--out", str(out), "--timesteps", "1024", *TINY) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"python -m pi_env.rl.train: interrupted while saving the finished run (step 1,024); it is complete in {out}"]
    run = json.loads((out / "run.json").read_text())
    assert run["sessions"][-1]["timesteps"] == 1024 and (out / "policy.pt").is_file()
