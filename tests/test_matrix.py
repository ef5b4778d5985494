"""results/matrix.toml: every environment pins what its release resolved to, numpy included."""

from __future__ import annotations

import pytest

from verified.matrix import MatrixError, environments

GOOD = """
[[environment]]
name = "paddle-2.6.2"
framework = "paddle"
version = "2.6.2"
requirements = [{reqs}]
"""


def load(tmp_path, reqs: str):
    path = tmp_path / "matrix.toml"
    path.write_text(GOOD.format(reqs=reqs), encoding="utf-8")
    return environments(path)


def test_the_committed_matrix_pins_numpy_in_every_environment():
    envs = environments()
    assert envs
    for env in envs:
        assert any(r.startswith("numpy==") for r in env.requirements), env.name


def test_a_pinned_environment_loads(tmp_path):
    (env,) = load(tmp_path, '"paddlepaddle==2.6.2", "numpy==2.1.1", "protobuf==5.28.1"')
    assert env.requirements == ("paddlepaddle==2.6.2", "numpy==2.1.1", "protobuf==5.28.1")


@pytest.mark.parametrize(
    "reqs, message",
    [
        ('"paddlepaddle==2.6.2", "numpy"', "'numpy' is not pinned"),
        ('"paddlepaddle==2.6.2", "numpy>=1.26"', "'numpy>=1.26' is not pinned"),
        ('"paddlepaddle==2.6.2", "numpy==2.1.1", "protobuf<6"', "'protobuf<6' is not pinned"),
        ('"paddlepaddle==2.6.2", "protobuf==5.28.1"', "pin numpy"),
        ('"paddlepaddle==3.0.0", "numpy==2.1.1"', "needs paddlepaddle==2.6.2"),
        ('"numpy==2.1.1"', "needs paddlepaddle==2.6.2"),
    ],
)
def test_an_environment_that_floats_is_refused(tmp_path, reqs, message):
    with pytest.raises(MatrixError, match="environment\\[0\\].requirements") as raised:
        load(tmp_path, reqs)
    assert message in str(raised.value)
