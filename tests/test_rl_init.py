"""Training from a model's weights (``python -m pi_env.rl.train --init MODEL``): the first update
starts from the model's exact tensors, ``--value-warmup`` trains only the new value head at
:data:`pi_env.rl.train.VALUE_WARMUP_LR`, and a model that does not fit the task or the network
options is refused in one line before anything is written.

Needs the ``rl`` extra (skipped without it)."""

from __future__ import annotations

import json
import re

import pytest

from helpers import need_extra

from pi_env.core.errors import PIError


def _rl():
    need_extra("rl", "torch", "stable_baselines3", "sb3_contrib")


def _argv(out, *extra, steps=2048):
    return ["2p", "--timesteps", str(steps), "--out", str(out), "--num-envs", "64", "--n-steps", "16",
            "--batch-size", "512", "--n-epochs", "1", "--no-progress", "--eval-every", "0",
            "--learning-rate", "1e-4", "--checkpoint-every", "1000000", *extra]


def _record_updates(monkeypatch):
    """Patch MaskablePPO.train to record, before every update, the policy tensors (as a model file
    holds them), the value head's tensors and the learning rate in force."""
    from sb3_contrib import MaskablePPO

    from pi_env.rl.train import VALUE_PARAMS, _policy_state

    seen: list[dict] = []
    original = MaskablePPO.train

    def train(self):
        seen.append({"policy": _policy_state(self),
                     "value": {k: v.detach().clone() for k, v in self.policy.named_parameters()
                               if k.startswith(VALUE_PARAMS)},
                     "lr": self.lr_schedule(self._current_progress_remaining)})
        return original(self)

    monkeypatch.setattr(MaskablePPO, "train", train)
    return seen


def _shipped():
    from pi_env.agents.learned import model_path

    return model_path("2p")


def _equal(a, b):
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_first_update_starts_from_the_models_exact_weights(tmp_path, monkeypatch, capsys):
    _rl()
    import torch

    from pi_env.rl.cli import train_main

    shipped = torch.load(_shipped(), weights_only=True)
    seen = _record_updates(monkeypatch)
    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "learned:2p", steps=1024)) == 0
    assert len(seen) == 1
    assert _equal(seen[0]["policy"], shipped["state_dict"])  # the solve bias too (not INITIAL_SOLVE_BIAS)
    assert seen[0]["lr"] == 1e-4
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["init"] == "learned:2p" and run["settings"]["value_warmup"] == 0
    assert (run["settings"]["trunk"], run["settings"]["hidden"], run["settings"]["encoding"]) == \
        ([256], [128], "compact-v4")  # the model's network, taken without --trunk/--hidden/--encoding
    assert run["init"] == {"model": "learned:2p", "value_warmup": 0}
    after = torch.load(out / "policy.pt", weights_only=True)
    assert (after["trunk"], after["hidden"]) == ([256], [128])
    assert not _equal(after["state_dict"], shipped["state_dict"])  # the update changed the policy
    # learned:2p carries a solve-timing head; the run says it starts from the network alone
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: --init")]
    assert notes == ["note: --init learned:2p: the run starts from the model's network only; its solve-timing "
                     "head is not carried over (fit one on the result with python -m pi_env.rl.solve_timing)"]
    assert "solve_timing" not in after


def test_a_refused_run_prints_no_note_about_the_head(tmp_path, monkeypatch, capsys):
    """The ``note:`` on the solve-timing head comes once the run is past every refusal: a Ray
    cluster that cannot be reached (checked after the start model is read) refuses the run with
    its one-line error and no note, and leaves no run directory."""
    _rl()
    pytest.importorskip("ray")
    from pi_env.rl import ray_collect
    from pi_env.rl.cli import train_main

    def unreachable(address, workers, *args, **kwargs):
        raise PIError(f"--ray-address {address}: Failed to connect to Ray cluster at {address}")

    monkeypatch.setattr(ray_collect, "connect_ray", unreachable)
    out = tmp_path / "run"
    with pytest.raises(SystemExit):
        train_main(_argv(out, "--init", "learned:2p", "--ray-actors", "1", "--ray-address", "10.0.0.1:1"))
    err = capsys.readouterr().err
    assert "Failed to connect to Ray cluster at 10.0.0.1:1" in err
    assert "note:" not in err
    assert not out.exists()


def test_value_warmup_trains_only_the_value_head_then_everything(tmp_path, monkeypatch):
    _rl()
    import torch

    from pi_env.rl.cli import train_main
    from pi_env.rl.train import VALUE_WARMUP_LR

    shipped = torch.load(_shipped(), weights_only=True)["state_dict"]
    seen = _record_updates(monkeypatch)
    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "learned:2p", "--value-warmup", "2", steps=3072)) == 0
    assert [s["lr"] for s in seen] == [VALUE_WARMUP_LR, VALUE_WARMUP_LR, 1e-4]
    # updates 1 and 2 left the policy exactly as loaded, and changed the value head
    assert all(_equal(s["policy"], shipped) for s in seen)
    assert not _equal(seen[0]["value"], seen[2]["value"])
    # update 3 trained the policy
    after = torch.load(out / "policy.pt", weights_only=True)["state_dict"]
    assert not _equal(after, shipped)
    assert json.loads((out / "run.json").read_text())["init"] == {"model": "learned:2p", "value_warmup": 2}


def test_a_value_warmup_over_the_whole_run_ships_the_model_unchanged(tmp_path):
    _rl()
    import torch

    from pi_env.rl.cli import train_main

    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "2p", "--value-warmup", "5")) == 0
    shipped = torch.load(_shipped(), weights_only=True)["state_dict"]
    assert _equal(torch.load(out / "policy.pt", weights_only=True)["state_dict"], shipped)
    from pi_env.rl.train import init_network

    # the run's model has no head, the shipped one has: init_network says which
    assert init_network(str(out / "policy.pt"), 2)["head"] is False
    assert init_network("learned:2p", 2)["head"] is True


@pytest.mark.parametrize("extra, message", [
    (["--init", "learned:4p"], "--init: 'learned:4p' is a model for 4-player games, the task plays 2"),
    (["--init", "learned:solo"], "--init: 'learned:solo' is a model for solo games, the task plays 2"),
    (["--init", "learned:2p", "--trunk", "128"],
     "--init: the model 'learned:2p' has --trunk 256, not 128; leave --trunk out (the network is the model's)"),
    (["--init", "learned:2p", "--hidden", "128,64"],
     "--init: the model 'learned:2p' has --hidden 128, not 128,64; leave --hidden out (the network is the model's)"),
    (["--init", "learned:2p", "--encoding", "compact-v2"],
     "--init: the model 'learned:2p' has --encoding compact-v4, not compact-v2; leave --encoding out"),
    (["--init", "no/such/model.pt"], "--init: unknown learned model 'no/such/model.pt': not a zoo name"),
    (["--init", "learned:2p", "--imitate", "greedy"], "--init and --imitate exclude each other"),
    (["--value-warmup", "3"], "--value-warmup needs --init"),
    (["--init-temperature", "2"], "--init-temperature needs --init (it softens the starting model's choices)"),
    (["--init", "learned:2p", "--init-temperature", "0"],
     "--init-temperature: 0.0 is less than or equal to the minimum of 0"),
    (["--init", "learned:2p", "--init-temperature", "-1.5"],
     "--init-temperature: -1.5 is less than or equal to the minimum of 0"),
    (["--init", "learned:2p", "--init-temperature", "inf"],
     "--init-temperature must be a finite number above 0, got inf"),
])
def test_a_model_that_does_not_fit_is_refused_in_one_line(tmp_path, capsys, extra, message):
    _rl()
    from pi_env.rl.cli import train_main

    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        train_main(_argv(out, *extra))
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("python -m pi_env.rl.train: error: " + message), err
    assert not out.exists()


def test_init_network_takes_the_models_network(tmp_path):
    _rl()
    from pi_env.core.errors import PIError
    from pi_env.rl.train import init_network

    got = init_network("learned:2p", 2)
    assert (got["encoding"], got["trunk"], got["hidden"]) == ("compact-v4", [256], [128])
    assert sorted(got["state_dict"]) == ["action_net.bias", "action_net.weight", "policy_net.0.bias",
                                         "policy_net.0.weight", "trunk.0.bias", "trunk.0.weight"]
    assert got["file"].endswith("learned_2p.pt")
    with pytest.raises(PIError, match=r"^--init: 'learned:2p' is a model for 2-player games, the task plays 3$"):
        init_network("learned:2p", 3)


def test_an_empty_init_is_refused_not_ignored(tmp_path, capsys):
    _rl()
    from pi_env.rl.cli import train_main

    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        train_main(_argv(out, "--init", ""))
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "python -m pi_env.rl.train: error: --init: learned model name is empty: give a zoo name (2p, 3p, 4p, 5p, solo) "
        "or a .pt file, e.g. learned:2p"]
    assert not out.exists()


@pytest.mark.parametrize("extra, message", [
    (["--init", "no/such/model.pt"], "was started with --init learned:2p, not no/such/model.pt; "
                                     "--init only starts a run (leave it out to resume)"),
    (["--value-warmup", "5"], "was started with --value-warmup 1, not 5; "
                              "--value-warmup only starts a run (leave it out to resume)"),
    (["--init-temperature", "3"], "was started with --init-temperature 1.0, not 3.0; "
                                  "--init-temperature only starts a run (leave it out to resume)"),
])
def test_a_resumed_run_keeps_how_it_started(tmp_path, capsys, extra, message):
    """--init and --value-warmup given on --resume used to be accepted, ignored and recorded (the card
    then named a model the run never started from)."""
    _rl()
    from pi_env.rl.cli import train_main

    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "learned:2p", "--value-warmup", "1", steps=1024)) == 0
    capsys.readouterr()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(SystemExit) as exc:
        train_main(_argv(out, "--resume", *extra, steps=2048))
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"python -m pi_env.rl.train: error: --resume: the run in {str(out)!r} {message}"]
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    # the same values, or none, resume as before
    assert train_main(_argv(out, "--resume", "--init", "learned:2p", steps=2048)) == 0
    assert json.loads((out / "run.json").read_text())["init"] == {"model": "learned:2p", "value_warmup": 1}


def test_a_run_stopped_during_the_value_warmup_does_the_rest_of_it_when_resumed(tmp_path, monkeypatch):
    """--value-warmup 3 stopped by Ctrl-C before the third update trained: the resumed session trains
    the value head alone once more (it used to go straight to full updates), then everything."""
    _rl()
    import torch
    from sb3_contrib import MaskablePPO

    from pi_env.rl.cli import train_main
    from pi_env.rl.train import VALUE_WARMUP_LR

    shipped = torch.load(_shipped(), weights_only=True)["state_dict"]
    seen = _record_updates(monkeypatch)
    recording = MaskablePPO.train

    def stop_at_the_third(self):
        if len(seen) == 2:
            raise KeyboardInterrupt  # as Ctrl-C, after two value-only updates
        return recording(self)

    monkeypatch.setattr(MaskablePPO, "train", stop_at_the_third)
    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "learned:2p", "--value-warmup", "3", steps=5120)) == 130
    assert [s["lr"] for s in seen] == [VALUE_WARMUP_LR] * 2
    ckpt = sorted((out / "checkpoints").glob("step_*.pt"))[-1]
    assert ckpt.name == "step_3072.pt"  # the third rollout was collected, not trained
    assert torch.load(ckpt, weights_only=True)["card"]["value_warmup_done"] == 2

    monkeypatch.setattr(MaskablePPO, "train", recording)
    seen.clear()
    assert train_main(_argv(out, "--resume", steps=6144)) == 0
    assert [s["lr"] for s in seen] == [VALUE_WARMUP_LR, 1e-4, 1e-4]
    # the policy is still the model's before the first full update, the value head has moved on
    assert _equal(seen[0]["policy"], shipped) and _equal(seen[1]["policy"], shipped)
    assert not _equal(seen[0]["value"], seen[1]["value"])
    assert not _equal(seen[2]["policy"], shipped)
    run = json.loads((out / "run.json").read_text())
    assert [s.get("value_warmup_done") for s in run["sessions"]] == [2, 3]


def test_the_warmup_count_of_a_checkpoint_old_odd_or_unreadable(tmp_path):
    """``value_warmup_done`` of a checkpoint's policy card: a policy file without it (a run made
    before the count was kept) or no policy file: the whole warm-up done (as such runs resumed);
    a count above the run's warm-up: capped; a bad count or an unreadable file: one-line PIError."""
    _rl()
    import torch

    from pi_env.rl.train import _warmup_done

    ckpt = tmp_path / "step_2048.zip"
    assert _warmup_done(ckpt, 5) == 5
    for card, want in (({}, 5), ({"value_warmup_done": 2}, 2), ({"value_warmup_done": 9}, 5),
                       ({"value_warmup_done": 0}, 0)):
        torch.save({"card": card}, tmp_path / "step_2048.pt")
        assert _warmup_done(ckpt, 5) == want
    for bad in ("2", -1, 1.5, None, True):
        torch.save({"card": {"value_warmup_done": bad}}, tmp_path / "step_2048.pt")
        with pytest.raises(PIError, match=r"^--resume: '.*step_2048\.pt': card: value_warmup_done must be a whole "
                                          r"number at least 0, got " + re.escape(repr(bad)) + "$"):
            _warmup_done(ckpt, 5)
    (tmp_path / "step_2048.pt").write_bytes(b"not a torch file")
    with pytest.raises(PIError, match=r"^--resume: the checkpoint's policy file '.*step_2048\.pt' is not readable "
                                      r"\(\w+: [^\n]*\)$"):
        _warmup_done(ckpt, 5)


def test_resuming_through_the_library_does_the_rest_of_the_warmup_too(tmp_path, monkeypatch):
    """``train(..., resume=True)`` without ``value_warmup`` (its default 0) continues the run's own
    warm-up as ``--resume`` does (it went straight to full updates: the saved count was ignored)."""
    _rl()
    from sb3_contrib import MaskablePPO

    from pi_env.rl.cli import train_main
    from pi_env.rl.train import VALUE_WARMUP_LR, train

    seen = _record_updates(monkeypatch)
    recording = MaskablePPO.train

    def stop_at_the_second(self):
        if len(seen) == 1:
            raise KeyboardInterrupt  # after one value-only update
        return recording(self)

    monkeypatch.setattr(MaskablePPO, "train", stop_at_the_second)
    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "learned:2p", "--value-warmup", "2", steps=4096)) == 130
    monkeypatch.setattr(MaskablePPO, "train", recording)
    seen.clear()
    saved = json.loads((out / "run.json").read_text())["settings"]
    train("2p", 5120, out, resume=True, num_envs=64, trunk=saved["trunk"], hidden=saved["hidden"],
          encoding=saved["encoding"], n_steps=16, batch_size=512, n_epochs=1, learning_rate=1e-4,
          checkpoint_every=1000000, eval_every=0, progress=False)
    assert [s["lr"] for s in seen] == [VALUE_WARMUP_LR, 1e-4, 1e-4]
    assert [s.get("value_warmup_done") for s in json.loads((out / "run.json").read_text())["sessions"]] == [1, 2]


def test_init_temperature_divides_the_models_logits_and_keeps_its_choices(tmp_path, monkeypatch):
    """``--init-temperature 2``: the first update starts from the model's tensors with the action
    head's weight and bias halved (so every logit is halved: same argmax, softer choices) and the
    rest exact; the run and its card record the temperature."""
    _rl()
    import torch

    from pi_env.rl.cli import train_main

    shipped = torch.load(_shipped(), weights_only=True)["state_dict"]
    seen = _record_updates(monkeypatch)
    out = tmp_path / "run"
    assert train_main(_argv(out, "--init", "learned:2p", "--init-temperature", "2", "--value-warmup", "1",
                            steps=1024)) == 0
    start = seen[0]["policy"]
    assert start.keys() == shipped.keys()
    for k, v in shipped.items():
        want = v / 2 if k.startswith("action_net.") else v
        assert torch.equal(start[k], want), k
    run = json.loads((out / "run.json").read_text())
    assert run["settings"]["init_temperature"] == 2.0
    assert run["init"] == {"model": "learned:2p", "value_warmup": 1, "temperature": 2.0}
    # the logits of any input are the model's halved: the same argmax, a flatter softmax
    from pi_env.agents._policy_net import PolicyNet

    def net(state):
        n = PolicyNet(state["trunk.0.weight"].shape[1], (128,), "relu", (256,))
        n.load_state_dict(state)
        return n

    x = torch.rand(64, shipped["trunk.0.weight"].shape[1])
    with torch.no_grad():
        a, b = net(shipped).logits(x), net(start).logits(x)
    assert torch.allclose(b, a / 2, atol=1e-5)
    assert torch.equal(a.argmax(1), b.argmax(1))
    assert (torch.softmax(b, 1).max(1).values <= torch.softmax(a, 1).max(1).values + 1e-6).all()


def test_init_temperature_through_the_library_is_checked_before_anything_is_written(tmp_path):
    _rl()
    from pi_env.rl.train import train

    for kwargs, message in (({"init_temperature": 2.0}, "--init-temperature needs --init"),
                            ({"init": "learned:2p", "init_temperature": 0.0},
                             "--init-temperature must be a finite number above 0, got 0.0"),
                            ({"init": "learned:2p", "init_temperature": float("inf")},
                             "--init-temperature must be a finite number above 0, got inf"),
                            ({"init": "learned:2p", "init_temperature": float("nan")},
                             "--init-temperature must be a finite number above 0, got nan")):
        out = tmp_path / "run"
        with pytest.raises(PIError, match="^" + re.escape(message)):
            train("2p", 1024, out, num_envs=64, eval_every=0, progress=False, **kwargs)
        assert not out.exists()
