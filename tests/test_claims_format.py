"""Loading claims: merging per framework, device and version range; what a case's hash covers;
malformed claims rejected with the file and field named. No framework runs here."""

from __future__ import annotations

import pytest
from claimkit import CLAIMS, VERSIONS, make_snippets

from verified import claims as claims_module
from verified.claims import (
    Claim,
    ClaimError,
    _digest,
    _validate_silent,
    all_cases,
    clock_reads,
    discover,
    input_files,
    load_claims,
)
from verified.versions import check_range, in_range, release


@pytest.fixture
def snippets(tmp_path):
    return make_snippets(tmp_path)


@pytest.fixture
def claims(snippets) -> dict[str, Claim]:
    return {c.id: c for c in load_claims(snippets / "fixture" / "claims.toml")}


def test_cases_per_framework_and_device(snippets):
    cases = all_cases(snippets, VERSIONS)
    assert len(cases) == 2 * 2 + 2 + 2 + 2 * 2 + 2  # leaf, grad, launch, chain, speed
    assert ("fixture.grad", "torch", "gpu") not in cases
    assert cases[("fixture.chain", "torch", "gpu")].name == "fixture.chain[torch-gpu]"
    assert [c.id for c in discover(snippets)] == [
        "fixture.leaf",
        "fixture.grad",
        "fixture.launch",
        "fixture.chain",
        "fixture.speed",
    ]


def test_discover_notices_every_change_after_a_first_load(snippets):
    first = discover(snippets)
    assert discover(snippets) == first  # remembered
    path = snippets / "fixture" / "claims.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("fixture.speed", "fixture.pace"))
    assert [c.id for c in discover(snippets)][-1] == "fixture.pace"
    # a file renamed (as many files as before): the names are part of what is remembered
    (snippets / "fixture" / "grad_torch.py").rename(snippets / "fixture" / "grad_torch_old.py")
    with pytest.raises(ClaimError, match="grad_torch.py"):
        discover(snippets)


def test_framework_table_wins_over_claim_level(claims):
    grad = claims["fixture.grad"]
    assert grad.case("torch", "cpu", "2.13.0").spec["observe"] == "w.grad.item()"
    assert grad.case("paddle", "cpu", "3.3.1").spec["observe"] == "w.grad.item() * 1"


def test_device_table_wins_over_framework_table(claims):
    chain = claims["fixture.chain"]
    assert chain.case("paddle", "gpu", "3.3.1").spec["tol_bytes"] == 512
    assert "tol_bytes" not in chain.case("paddle", "cpu", "3.3.1").spec
    assert chain.case("torch", "gpu", "2.13.0").spec["tol_bytes"] == 16


def test_version_override_applies_only_to_its_range(claims):
    leaf = claims["fixture.leaf"]
    base = "Leaf .* can't use inplace"
    for version, match in [
        ("3.3.1", base),
        ("3.0.0", base),
        ("2.6.2", "Var .* can't use inplace"),
        ("2.99", "Var .* can't use inplace"),
        ("1.5.0", "Var .* can't use inplace"),  # both ranges: the later override wins
    ]:
        case = leaf.case("paddle", "cpu", version)
        assert case.spec["match"] == match, version
        assert case.version == version
    assert leaf.case("paddle", "cpu", "3.3.1").override is None
    assert leaf.case("paddle", "cpu", "2.6.2").override["range"] == "<3.0"
    assert leaf.case("paddle", "cpu", "2.6.2").unrunnable is None
    assert leaf.case("paddle", "cpu", "1.5.0").unrunnable == "AttributeError: .*inplace"
    assert leaf.case("paddle", "cpu", "3.3.1").unrunnable is None
    # the other framework never sees paddle's override
    assert leaf.case("torch", "cpu", "1.0").spec["match"] == "a leaf Variable"
    assert leaf.case("torch", "cpu", "1.0").override is None
    # an unknown version gets the base expectation
    assert leaf.case("paddle", "cpu", "not-a-version").spec["match"] == base


def test_cases_take_the_given_versions(claims):
    cases = {(c.framework, c.device): c for c in claims["fixture.leaf"].cases({"paddle": "2.6.2"})}
    assert cases[("paddle", "cpu")].version == "2.6.2"
    assert cases[("paddle", "cpu")].spec["match"] == "Var .* can't use inplace"
    assert cases[("torch", "cpu")].version == claims_module.installed("torch")


def test_versions_helpers():
    assert in_range("2.6.2", "<3.0") and not in_range("3.0.0", "<3.0")
    assert in_range("2.13.0+cpu", ">=2.13,<2.14")  # the local label does not matter
    assert not in_range("garbage", "<3.0")
    assert check_range("<3.0") is None
    assert check_range("3.0") == "Invalid specifier: '3.0'"
    assert check_range("") == "empty range"
    assert in_range("3.1.0rc1", ">=3.0")  # a pre-release of a later release is in the range
    assert not in_range("3.1.0rc1", ">=3.2")
    from packaging.version import Version

    from verified.versions import installed, sort_key

    assert sort_key("garbage") == Version("0") and sort_key("2.6.2") == Version("2.6.2")
    assert sorted(["3.10.0", "3.9.1", "garbage"], key=sort_key) == ["garbage", "3.9.1", "3.10.0"]
    import importlib.metadata

    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:  # the mutation session has no framework
        torch_version = None
    assert installed("torch") == torch_version
    from verified.versions import installed_versions

    assert installed_versions() == {"paddle": installed("paddle"), "torch": torch_version}
    assert release("2.13.0+cpu") == "2.13.0" and release(None) == "?"
    assert release("odd") == "odd"


def test_expected_keeps_only_expectation_keys(claims):
    case = claims["fixture.chain"].case("torch", "cpu", "2.13.0")
    assert case.expected() == {
        "regions": {"out": "chain(x)", "inplace": "chain_(x)"},
        "theoretical": {"out": "2 * 1024", "inplace": "0"},
        "bytes": {"out": 2048, "inplace": 0},
        "tol_bytes": 16,
        "tol_theoretical": 16,
    }
    assert case.claim.kind == "memory" and case.isolated
    assert not claims["fixture.grad"].case("torch", "cpu").isolated
    assert claims["fixture.grad"].case("torch", "cpu").timeout == 120


def test_silent_rows_are_loaded(claims):
    (row,) = claims["fixture.launch"].silent
    assert row["fact"] == "silent_loss" and row["section"] == "a-section"
    assert claims["fixture.grad"].silent == ()


# -- inputs and hashes ------------------------------------------------------------------------


def test_input_files_follow_names_imports_and_declarations(snippets):
    folder = snippets / "fixture"
    found = input_files(folder / "launch_torch.py", (folder / "data.json",))
    assert [p.name for p in found] == ["launch_torch.py", "data.json", "work_torch.py", "helper.py"]
    case = load_claims(folder / "claims.toml")[2].case("torch", "cpu", "2.13.0")
    assert case.relative_files() == [
        "fixture/launch_torch.py",
        "fixture/data.json",
        "fixture/work_torch.py",
        "fixture/helper.py",
    ]
    # a name that is not a file next to the snippet is not an input
    (folder / "grad_torch.py").write_text('print("missing.py")\n', encoding="utf-8")
    assert [p.name for p in input_files(folder / "grad_torch.py")] == ["grad_torch.py"]


def hash_of(snippets, claim_id="fixture.launch", fw="torch", version="2.13.0"):
    claim = next(c for c in discover(snippets) if c.id == claim_id)
    return claim.case(fw, "cpu", version)


@pytest.mark.parametrize("changed", ["launch_torch.py", "work_torch.py", "helper.py", "data.json"])
def test_hash_covers_every_file_the_snippet_runs_or_reads(snippets, changed):
    before = hash_of(snippets)
    inputs, source = before.inputs_hash(), before.source_hash()
    path = snippets / "fixture" / changed
    path.write_text(path.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    after = hash_of(snippets)
    assert after.inputs_hash() != inputs
    assert after.source_hash() != source


def test_hash_covers_the_expectation_not_the_statement(snippets):
    before = hash_of(snippets).source_hash()
    path = snippets / "fixture" / "claims.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Both workers agree.", "Both agree."), encoding="utf-8")
    assert hash_of(snippets).source_hash() == before
    changed = text.replace("agree = true, silent_loss = true", "agree = false, silent_loss = true")
    path.write_text(changed, encoding="utf-8")
    assert hash_of(snippets).source_hash() != before


def test_hash_covers_the_version_and_the_override(snippets):
    a = hash_of(snippets, "fixture.leaf", "paddle", "3.3.1")
    b = hash_of(snippets, "fixture.leaf", "paddle", "3.2.2")
    c = hash_of(snippets, "fixture.leaf", "paddle", "2.6.2")
    assert a.inputs_hash() == b.inputs_hash() != c.inputs_hash()  # the override changes the spec
    assert len({a.source_hash(), b.source_hash(), c.source_hash()}) == 3
    assert a.hashes() == {
        "inputs": a.inputs_hash(),
        "engine": claims_module.engine_hash(),
        "version": "3.3.1",
    }


def test_hash_covers_the_engine(snippets):
    case = hash_of(snippets)
    before = case.source_hash()
    assert case.source_hash(claims_module.engine_hash()) == before  # the default: the code's now
    assert case.source_hash("another-engine") != before
    assert case.hashes("another-engine")["engine"] == "another-engine"


def test_engine_hash_covers_each_engine_file(tmp_path):
    for name in claims_module.ENGINE_FILES:
        (tmp_path / name).write_text(name, encoding="utf-8")
    first = claims_module.engine_hash(tmp_path)
    assert {"claims.py", "runner.py", "worker.py", "versions.py"} <= set(claims_module.ENGINE_FILES)
    for name in claims_module.ENGINE_FILES:
        folder = tmp_path / name.replace(".", "-")
        folder.mkdir()
        for other in claims_module.ENGINE_FILES:
            (folder / other).write_text(other + ("!" if other == name else ""), encoding="utf-8")
        assert claims_module.engine_hash(folder) != first, name


# -- malformed claims ---------------------------------------------------------------------------

RE_OPEN = "missing ), unterminated subpattern at position 0"
BAD = [
    (
        ('kind = "value"', 'kind = "guess"'),
        "claim 'fixture.grad'.kind: unknown kind 'guess' (expected one of ('error', 'value', 'behaviour', 'memory', 'timing', 'measurement'))",
    ),
    (
        ('id = "fixture.grad"', 'id = "other.grad"'),
        "claim 'other.grad'.id: must start with 'fixture.'",
    ),
    (
        ('id = "fixture.grad"', 'id = "Fixture Grad"'),
        "claim[1].id: missing or malformed id 'Fixture Grad'",
    ),
    (('id = "fixture.grad"', "id = 7"), "claim[1].id: missing or malformed id 7"),
    (('id = "fixture.grad"', 'id = "fixture.leaf"'), "claim 'fixture.leaf'.id: duplicate id"),
    (
        ("expect.torch.value = -16.0", ""),
        "claim 'fixture.grad'.expect.torch: missing expectation for framework",
    ),
    (
        (
            'expect.torch.value = -16.0\n[claim.expect.paddle]\nvalue = -16.0\nobserve = "w.grad.item() * 1"\n',
            "expect = 3\n",
        ),
        "claim 'fixture.grad'.expect: missing [claim.expect.<framework>] tables",
    ),
    (
        ("[claim.expect.torch]\nfacts", "[claim.expect.jax]\nfacts"),
        "claim 'fixture.launch'.expect.jax: unknown framework",
    ),
    (
        ('snippet = "grad"', 'snippet = "nope"'),
        "claim 'fixture.grad'.expect.paddle.snippet: file not found: nope_paddle.py",
    ),
    (('snippet = "grad"\n', ""), "claim 'fixture.grad'.expect.paddle.snippet: missing"),
    (
        ('type = "RuntimeError"', ""),
        "claim 'fixture.leaf'.expect.torch.type: required for kind 'error'",
    ),
    (
        ('match = "a leaf Variable"', 'match = "(unclosed"'),
        f"claim 'fixture.leaf'.expect.torch.match: regular expression does not compile: {RE_OPEN}",
    ),
    (
        ('observe = "w.grad.item()"', 'observe = "w.grad.item("'),
        "claim 'fixture.grad'.expect.torch.observe: not a Python expression: '(' was never closed",
    ),
    (
        ('baseline = "chain(x)"', 'baseline = "chain(x"'),
        "claim 'fixture.speed'.expect.paddle.baseline: not a Python expression: '(' was never closed",
    ),
    (("repeat = 5", "repeats = 5"), "claim 'fixture.speed'.repeats: unknown key for kind 'timing'"),
    (
        ("repeat = 5", 'repeat = 5\nstatistic = "mean"'),
        "claim 'fixture.speed'.expect.paddle.statistic: must be 'median' or 'min'",
    ),
    (
        (
            'statement = {en = "The gradient is -16.", zh = "梯度为 -16。"}',
            'statement = {en = "x"}',
        ),
        "claim 'fixture.grad'.statement: needs non-empty 'en' and 'zh' strings",
    ),
    (
        (
            'statement = {en = "The gradient is -16.", zh = "梯度为 -16。"}',
            'statement = {en = "x", zh = " "}',
        ),
        "claim 'fixture.grad'.statement: needs non-empty 'en' and 'zh' strings",
    ),
    (
        ('statement = {en = "The gradient is -16.", zh = "梯度为 -16。"}', 'statement = "x"'),
        "claim 'fixture.grad'.statement: needs non-empty 'en' and 'zh' strings",
    ),
    (
        ('devices = ["cpu"]\nobserve = "w', 'devices = ["tpu"]\nobserve = "w'),
        "claim 'fixture.grad'.devices: must be a non-empty subset of ('cpu', 'gpu')",
    ),
    (
        ('devices = ["cpu"]\nobserve = "w', 'devices = []\nobserve = "w'),
        "claim 'fixture.grad'.devices: must be a non-empty subset of ('cpu', 'gpu')",
    ),
    (
        ("[claim.expect.paddle.gpu]\ntol_bytes = 512", "[claim.expect.paddle.gpu]\nwrong = 512"),
        "claim 'fixture.chain'.expect.paddle.gpu.wrong: unknown key",
    ),
    (
        ("tol_bytes = 512", "tol_bytes = 512\n[claim.expect.paddle.tpu]"),
        "claim 'fixture.chain'.expect.paddle.tpu: unknown key",
    ),
    (
        (
            "bytes = {out = 2048, inplace = 0}\n[claim.expect.paddle.gpu]",
            "bytes = {out = 2048, inplace = 0}\ncpu = 3\n[claim.expect.paddle.gpu]",
        ),
        "claim 'fixture.chain'.expect.paddle.cpu: must be a table",
    ),
    (
        ('range = "<3.0"', 'range = "3.0"'),
        "claim 'fixture.leaf'.expect.paddle.versions[0].range: not a version range (Invalid specifier: '3.0')",
    ),
    (
        ('range = "<3.0"', 'rang = "<3.0"'),
        "claim 'fixture.leaf'.expect.paddle.versions[0].range: not a version range (missing)",
    ),
    (
        ('note = {en = "Paddle 2 says Var.", zh = "飞桨 2 的报错写作 Var。"}', ""),
        "claim 'fixture.leaf'.expect.paddle.versions[0].note: needs 'en' and 'zh' texts saying what differs",
    ),
    (
        ('match = "Var .* can\'t use inplace"', 'matches = "x"'),
        "claim 'fixture.leaf'.expect.paddle.versions[0].matches: unknown key",
    ),
    (
        ('match = "Var .* can\'t use inplace"', ""),
        "claim 'fixture.leaf'.expect.paddle.versions[0]: changes nothing: give expectation keys or 'unrunnable'",
    ),
    (
        ('match = "Var .* can\'t use inplace"', 'match = "(bad"'),
        f"claim 'fixture.leaf'.expect.paddle.versions[0].match: regular expression does not compile: {RE_OPEN}",
    ),
    (
        ('unrunnable = "AttributeError: .*inplace"', 'unrunnable = "(bad"'),
        f"claim 'fixture.leaf'.expect.paddle.versions[1].unrunnable: not a regular expression: {RE_OPEN}",
    ),
    (
        ('unrunnable = "AttributeError: .*inplace"', "unrunnable = 3"),
        "claim 'fixture.leaf'.expect.paddle.versions[1].unrunnable: not a regular expression: first argument must be string or compiled pattern",
    ),
    (
        ('match = "a leaf Variable"', 'match = "a leaf Variable"\nversions = 3'),
        "claim 'fixture.leaf'.expect.torch.versions: must be an array of tables [[...versions]]",
    ),
    (
        ('fact = "silent_loss"', 'fact = "absent"'),
        "claim 'fixture.launch'.silent[0].fact: 'absent' must be a boolean fact of expect.paddle.facts",
    ),
    (
        ("facts = {agree = true, silent_loss = false}", "facts = {agree = true, silent_loss = 0}"),
        "claim 'fixture.launch'.silent[0].fact: 'silent_loss' must be a boolean fact of expect.paddle.facts",
    ),
    (
        ("facts = {agree = true, silent_loss = true}", "facts = {agree = true}"),
        "claim 'fixture.launch'.silent[0].fact: 'silent_loss' must be a boolean fact of expect.torch.facts",
    ),
    (
        ('fact = "silent_loss"', ""),
        "claim 'fixture.launch'.silent[0].fact: missing: the boolean fact that shows it",
    ),
    (
        ('section = "a-section"', 'section = "a section"'),
        "claim 'fixture.launch'.silent[0].section: missing or not an anchor: the section that shows it",
    ),
    (
        ('section = "a-section"', ""),
        "claim 'fixture.launch'.silent[0].section: missing or not an anchor: the section that shows it",
    ),
    (
        ('fix = {en = "Keep the loss.", zh = "保留损失。"}', 'fix = {en = "Keep the loss."}'),
        "claim 'fixture.launch'.silent[0].fix: needs non-empty 'en' and 'zh' strings",
    ),
    (
        (
            'symptom = {en = "The loss is lost.", zh = "损失丢失。"}',
            'symptom = {en = "", zh = "损失丢失。"}',
        ),
        "claim 'fixture.launch'.silent[0].symptom: needs non-empty 'en' and 'zh' strings",
    ),
    (
        ('symptom = {en = "The loss is lost.", zh = "损失丢失。"}', "symptoms = 1"),
        "claim 'fixture.launch'.silent[0].symptoms: unknown key",
    ),
    (
        ('[[claim.silent]]\nfact = "silent_loss"', '[claim.silent]\nfact = "silent_loss"'),
        "claim 'fixture.launch'.silent: must be an array of tables [[claim.silent]]",
    ),
    (
        ('files = ["data.json"]', 'files = ["absent.json"]'),
        "claim 'fixture.launch'.expect.paddle.files: file not found: absent.json",
    ),
    (
        ('files = ["data.json"]', 'files = "data.json"'),
        "claim 'fixture.launch'.expect.paddle.files: must be a list of file names",
    ),
    (
        ('files = ["data.json"]', "files = [3]"),
        "claim 'fixture.launch'.expect.paddle.files: must be a list of file names",
    ),
    (
        ('theoretical = {out = "2 * 1024", inplace = "0"}', 'theoretical = {out = "2 * 1024"}'),
        "claim 'fixture.chain'.expect.paddle.theoretical: needs one entry per region ['inplace', 'out']",
    ),
    (
        ('theoretical = {out = "2 * 1024", inplace = "0"}', 'theoretical = "2 * 1024"'),
        "claim 'fixture.chain'.expect.paddle.theoretical: needs one entry per region ['inplace', 'out']",
    ),
    (
        (
            "bytes = {out = 2048, inplace = 0}\n[claim.expect.paddle.gpu]",
            "bytes = {out = 2048}\n[claim.expect.paddle.gpu]",
        ),
        "claim 'fixture.chain'.expect.paddle.bytes: needs one entry per region ['inplace', 'out']",
    ),
    (
        (
            'regions = {out = "chain(x)", inplace = "chain_(x)"}',
            'region = "chain(x)"\nregions = {out = "chain(x)", inplace = "chain_(x)"}',
        ),
        "claim 'fixture.chain'.expect.paddle.region: give exactly one of 'region' or 'regions'",
    ),
    (
        ('snippet = "launch"', 'snippet = "launch"\nmode = "thread"'),
        "claim 'fixture.launch'.expect.paddle.mode: must be 'namespace' or 'script'",
    ),
    (
        ("facts = {agree = true, silent_loss = false}", "facts = 3"),
        "claim 'fixture.launch'.expect.paddle.facts: must be a table",
    ),
    # the environment a timing case's process starts with: NAME = "string" pairs only
    *[
        (
            ("repeat = 5", f"repeat = 5\nenv = {env}"),
            "claim 'fixture.speed'.expect.paddle.env: must be a table of NAME = \"string\" "
            "variables",
        )
        for env in ("3", '{lower_case = "1"}', "{MALLOC_ARENA_MAX = 2}", '{"1ST" = "1"}')
    ],
    (
        (
            'expect.torch = {verdict = "faster", margin = 1.5}',
            'expect.torch = {verdict = "slower"}',
        ),
        "claim 'fixture.speed'.expect.torch.verdict: must be one of ('faster', 'similar', 'shown')",
    ),
    # a bound must be a number above 1.0: 1.0 itself, a boolean or a string is refused
    *[
        (
            ("margin = 1.25, max_noise = 1.2", bounds),
            f"claim 'fixture.speed'.expect.paddle.{key}: must be a number above 1.0",
        )
        for bounds, key in (
            ("margin = 1.0, max_noise = 1.2", "margin"),
            ("margin = true, max_noise = 1.2", "margin"),
            ("margin = 1.25, max_noise = 1.0", "max_noise"),
            ('margin = 1.25, max_noise = "2"', "max_noise"),
        )
    ],
    (
        ('candidate = "chain_(x)"', 'candidate = "chain_(x"'),
        "claim 'fixture.speed'.expect.paddle.candidate: not a Python expression: '(' was never "
        "closed",
    ),
    (
        ('regions = {out = "chain(x)", inplace = "chain_(x)"}', 'region = "chain_(x"'),
        "claim 'fixture.chain'.expect.paddle.region: not a Python expression: '(' was never closed",
    ),
]


@pytest.mark.parametrize(("edit", "message"), BAD, ids=[b[1].split(":")[0] for b in BAD])
def test_malformed_claims_name_file_and_field(tmp_path, edit, message):
    old, new = edit
    assert old in CLAIMS, old
    snippets = make_snippets(tmp_path, CLAIMS.replace(old, new, 1))
    with pytest.raises(ClaimError) as excinfo:
        load_claims(snippets / "fixture" / "claims.toml")
    assert str(excinfo.value) == f"{snippets / 'fixture' / 'claims.toml'}: {message}"


def test_claim_errors_name_the_file_relative_to_the_repository():
    from verified.claims import ROOT, SNIPPETS

    error = ClaimError(SNIPPETS / "inplace" / "claims.toml", "claim 'x'.kind", "unknown")
    assert str(error) == "snippets/inplace/claims.toml: claim 'x'.kind: unknown"
    assert ROOT / "snippets" == SNIPPETS


def test_silent_only_on_behaviour_claims(tmp_path):
    text = CLAIMS.replace(
        "expect.torch.value = -16.0\n",
        'expect.torch.value = -16.0\n[[claim.silent]]\nfact = "x"\nsection = "s"\n'
        'symptom = {en = "a", zh = "b"}\nfix = {en = "a", zh = "b"}\n',
    )
    snippets = make_snippets(tmp_path, text)
    with pytest.raises(ClaimError) as excinfo:
        load_claims(snippets / "fixture" / "claims.toml")
    assert str(excinfo.value).endswith(
        "claim 'fixture.grad'.silent: only behaviour claims can mark silent failures (a fact)"
    )


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[[claim]\n", "toml"),
        ("title = 1\n", "title: unknown top-level key"),
        ("", r"claim: no \[\[claim\]\] entries"),
    ],
)
def test_malformed_files(tmp_path, text, field):
    snippets = make_snippets(tmp_path, text)
    with pytest.raises(ClaimError, match=field):
        load_claims(snippets / "fixture" / "claims.toml")


def test_digest_separates_its_parts():
    from verified.claims import _digest

    assert _digest(b"ab", b"c") != _digest(b"a", b"bc")
    assert _digest(b"a") == _digest(b"a") and len(_digest(b"a")) == 16
    assert _digest() != _digest(b"")


def test_inputs_hash_covers_names_kind_and_unrunnable(snippets):
    folder = snippets / "fixture"
    launch = hash_of(snippets)
    before = launch.inputs_hash()
    # the same bytes under another name are another input
    (folder / "helper.py").rename(folder / "helper2.py")
    (folder / "work_torch.py").write_text("import helper2\n", encoding="utf-8")
    renamed = hash_of(snippets).inputs_hash()
    (folder / "helper2.py").rename(folder / "helper.py")
    (folder / "work_torch.py").write_text("import helper\n", encoding="utf-8")
    assert renamed != before == hash_of(snippets).inputs_hash()
    claim = launch.claim
    other_kind = type(claim)(
        claim.id, "value", claim.path, claim.statement, claim.devices, claim.raw
    )
    assert (
        type(launch)(other_kind, "torch", "cpu", launch.spec, launch.version).inputs_hash()
        != before
    )
    leaf = hash_of(snippets, "fixture.leaf", "paddle", "1.5.0")
    override = dict(leaf.override)
    override["unrunnable"] = "Other"
    changed = type(leaf)(leaf.claim, "paddle", "cpu", leaf.spec, "1.5.0", override)
    assert changed.inputs_hash() != leaf.inputs_hash()
    assert changed.source_hash() != leaf.source_hash()


# -- clocks: a verdict from elapsed time only through the timing mechanism (issue 25) ---------

CLOCKS = [
    ("import time\nstart = time.perf_counter()\n", "line 2: perf_counter"),
    ("import time\nstart = time.perf_counter_ns()\n", "line 2: perf_counter_ns"),
    ("import time\nstart = time.time()\n", "line 2: time.time"),
    ("from time import sleep, time\nstart = time()\n", "line 1: time.time"),
    ("import time\nstart = time.monotonic()\n", "line 2: monotonic"),
    ("import time\ncpu = time.process_time()\n", "line 2: process_time"),
    ("import timeit\n", "line 1: timeit"),
    ("import resource\nu = resource.getrusage(0).ru_utime\n", "line 2: ru_utime"),
    ("import resource\ns = resource.getrusage(0).ru_stime\n", "line 2: ru_stime"),
]


@pytest.mark.parametrize(("code", "read"), CLOCKS, ids=[c[1].split(": ")[1] for c in CLOCKS])
def test_a_claim_that_asserts_what_a_clock_measured_is_refused(tmp_path, code, read):
    """A value claim whose snippet reads a clock: refused, naming the claims file, the claim
    and the snippet, with the line that reads it."""
    snippets = make_snippets(tmp_path)
    (snippets / "fixture" / "grad_paddle.py").write_text(code + "w = 1\n", encoding="utf-8")
    path = snippets / "fixture" / "claims.toml"
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value) == (
        f"{path}: claim 'fixture.grad'.snippet: snippet fixture/grad_paddle.py reads a clock "
        f"({read}), and a 'value' claim asserts what its snippet computed: a verdict from "
        "elapsed time must be a 'timing' claim (same-run control, every condition), and "
        "figures that are only shown a 'measurement' claim"
    )


def test_a_clock_in_a_file_the_snippet_runs_is_refused_too(tmp_path):
    """The behaviour claim fixture.launch runs work_*.py, which imports helper.py."""
    snippets = make_snippets(tmp_path)
    (snippets / "fixture" / "helper.py").write_text(
        "import time\nVALUE = time.monotonic()\n", encoding="utf-8"
    )
    with pytest.raises(ClaimError) as excinfo:
        load_claims(snippets / "fixture" / "claims.toml")
    message = str(excinfo.value)
    assert "claim 'fixture.launch'.snippet: snippet fixture/helper.py reads a clock" in message
    assert "(line 2: monotonic), and a 'behaviour' claim" in message


def test_only_code_counts_as_reading_a_clock(tmp_path):
    """Comments, strings and page-fault counts are not clocks; a timing claim and a
    measurement may read one."""
    harmless = tmp_path / "harmless.py"
    harmless.write_text(
        '"""Not timed with time.perf_counter()."""\nimport resource  # no timeit here\n'
        "faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\ntime = 3\n",
        encoding="utf-8",
    )
    assert clock_reads(harmless) == []
    timed = 'snippet = "sweep"\ndevices = ["cpu"]\nbaseline'  # fixture.speed times the sweep
    text = CLAIMS.replace('snippet = "chain"\ndevices = ["cpu"]\nbaseline', timed) + MEASUREMENT
    snippets = make_snippets(tmp_path, text)
    for fw in ("paddle", "torch"):
        (snippets / "fixture" / f"sweep_{fw}.py").write_text(
            "import time\nstart = time.perf_counter()\n", encoding="utf-8"
        )
    loaded = {c.id: c for c in load_claims(snippets / "fixture" / "claims.toml")}
    assert loaded["fixture.speed"].kind == "timing"
    assert loaded["fixture.sweep"].kind == "measurement"


def test_every_clock_the_site_reads_is_in_a_timing_claim_or_a_measurement():
    """The site's own claims: the snippets that read a clock are the size sweeps, and only
    measurements run them."""
    clocked = {}
    for claim in discover():
        for case in claim.cases():
            reads = [f.name for f in case.files() if f.suffix == ".py" and clock_reads(f)]
            if reads:
                clocked[claim.id] = claim.kind
    assert clocked == {
        "inplace.speed-sizes": "measurement",
        "inplace.speed-sizes-reused": "measurement",
    }


# -- figures shown only -----------------------------------------------------------------------

MEASUREMENT = """
[[claim]]
id = "fixture.sweep"
kind = "measurement"
snippet = "sweep"
devices = ["cpu"]
statement = {en = "Measured here.", zh = "本机实测。"}
observe = "{'start': start}"
expect.torch = {}
expect.paddle = {}
"""


def test_a_measurement_observes_and_asserts_nothing(tmp_path):
    """Kind "measurement": an ``observe`` expression and no expectation; ``facts``, a value or
    a tolerance are refused (they would assert), and ``observe`` is required."""
    (tmp_path / "snippets" / "fixture").mkdir(parents=True)
    for fw in ("paddle", "torch"):
        (tmp_path / "snippets" / "fixture" / f"sweep_{fw}.py").write_text("start = 1\n")
    path = make_snippets(tmp_path, CLAIMS + MEASUREMENT) / "fixture" / "claims.toml"
    sweep = {c.id: c for c in load_claims(path)}["fixture.sweep"]
    case = sweep.case("torch", "cpu", "2.13.0")
    assert case.expected() == {} and case.spec["observe"] == "{'start': start}"
    assert case.isolated is False
    for key, value in (("facts", "{start = 1}"), ("value", "1"), ("tol", "0.1")):
        table = f"expect.torch = {{{key} = {value}}}"
        text = CLAIMS + MEASUREMENT.replace("expect.torch = {}", table)
        make_snippets(tmp_path, text)
        with pytest.raises(ClaimError) as excinfo:
            load_claims(path)
        assert str(excinfo.value).endswith(f"claim 'fixture.sweep'.expect.torch.{key}: unknown key")
    make_snippets(tmp_path, CLAIMS + MEASUREMENT.replace("observe = \"{'start': start}\"\n", ""))
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value).endswith(
        "claim 'fixture.sweep'.expect.paddle.observe: required for kind 'measurement'"
    )


def test_a_timing_shown_only_takes_no_bound(tmp_path):
    """``verdict = "shown"``: timed and shown, with no margin or noise limit to give."""
    shown = CLAIMS.replace(
        'expect.paddle = {verdict = "similar", margin = 1.25, max_noise = 1.2}',
        'expect.paddle = {verdict = "shown"}',
    )
    path = make_snippets(tmp_path, shown) / "fixture" / "claims.toml"
    speed = {c.id: c for c in load_claims(path)}["fixture.speed"]
    assert speed.case("paddle", "cpu", "3.3.1").expected() == {
        "baseline": "chain(x)",
        "candidate": "chain_(x)",
        "repeat": 5,
        "verdict": "shown",
    }
    for key in ("margin = 1.25", "max_noise = 1.2"):
        make_snippets(tmp_path, shown.replace('verdict = "shown"', f'verdict = "shown", {key}'))
        with pytest.raises(ClaimError) as excinfo:
            load_claims(path)
        assert str(excinfo.value).endswith(
            f"claim 'fixture.speed'.expect.paddle.{key.split()[0]}: a timing shown only "
            "asserts nothing: no bound to give"
        )


def test_the_accepted_spellings_of_mode_statistic_and_a_single_region(tmp_path):
    """What the refusals above leave open loads: ``mode = "script"``, ``statistic = "min"``,
    a memory claim measuring one ``region`` (numbers, not one entry per region)."""
    text = CLAIMS.replace('snippet = "launch"', 'snippet = "launch"\nmode = "script"', 1)
    text = text.replace("repeat = 5", 'repeat = 5\nstatistic = "min"', 1)
    text = text.replace(
        'regions = {out = "chain(x)", inplace = "chain_(x)"}', 'region = "chain_(x)"', 1
    )
    text = text.replace('theoretical = {out = "2 * 1024", inplace = "0"}', 'theoretical = "0"', 1)
    text = text.replace("bytes = {out = 2048, inplace = 0}", "bytes = 0")
    assert text.count('mode = "script"') == 1 and text.count('statistic = "min"') == 1
    path = make_snippets(tmp_path, text) / "fixture" / "claims.toml"
    loaded = {c.id: c for c in load_claims(path)}
    assert loaded["fixture.launch"].case("paddle", "cpu", "3.3.1").spec["mode"] == "script"
    assert loaded["fixture.speed"].case("torch", "cpu", "2.13.0").spec["statistic"] == "min"
    chain = loaded["fixture.chain"].case("paddle", "cpu", "3.3.1").spec
    assert (chain["region"], chain["bytes"]) == ("chain_(x)", 0)


# -- what the mutation run found untested (issue 30) -------------------------------------------


def test_a_refused_clock_names_the_first_three_reads(tmp_path):
    snippets = make_snippets(tmp_path)
    code = "import time\na = time.monotonic()\nb = time.time()\nc = time.perf_counter()\n"
    code += "d = time.process_time()\n"
    (snippets / "fixture" / "grad_paddle.py").write_text(code + "w = 1\n", encoding="utf-8")
    with pytest.raises(ClaimError) as excinfo:
        load_claims(snippets / "fixture" / "claims.toml")
    assert "reads a clock (line 2: monotonic, line 3: time.time, line 4: perf_counter), and" in (
        str(excinfo.value)
    )


def test_the_hash_format_is_the_one_of_the_committed_records(snippets):
    """Every committed record (results/*.json) holds hashes made this way, and a change of the
    format would make each of them stale: tests/test_results.py checks the real records, and
    this pins the format on the fixture, where mutation testing sees it (inside mutmut's copy
    the engine's own files are rewritten, so the real records' engine hash cannot match)."""
    assert _digest(b"a", b"bc") == "3fafa1cf2f19a7c1"
    assert _digest(b"ab", b"c") != _digest(b"a", b"bc")  # each part's length is in it
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "paddle", "cpu")]
    assert case.inputs_hash() == "c8134cbc6c67e1ce"
    assert case.source_hash("e") == "67382d09e418fe63"


def test_a_case_without_a_version_is_for_the_installed_release(claims, monkeypatch):
    monkeypatch.setattr(claims_module, "installed", lambda framework: "2.6.2")
    case = claims["fixture.leaf"].case("paddle", "cpu")
    assert case.version == "2.6.2" and case.override is not None  # the 2.6 override applies


def test_a_silent_row_that_is_not_a_table_is_refused(tmp_path):
    path = tmp_path / "claims.toml"
    for rows in (["row"], [{"fact": "x"}, "row"], {"fact": "x"}):
        with pytest.raises(ClaimError, match="array of tables"):
            _validate_silent(path, "claim 'x'.silent", rows, "behaviour")


def test_input_files_go_on_past_a_data_file(tmp_path):
    """A named data file before an imported module, named twice: each is an input once (the
    data file is not read for names, the module is), and the second name goes on to the next."""
    (tmp_path / "main.py").write_text(
        "open('data.json')\nopen('data.json')\nimport helper\n", encoding="utf-8"
    )
    (tmp_path / "data.json").write_text("{}", encoding="utf-8")
    (tmp_path / "helper.py").write_text("open('table.csv')\n", encoding="utf-8")
    (tmp_path / "table.csv").write_text("1\n", encoding="utf-8")
    found = [p.name for p in input_files(tmp_path / "main.py")]
    assert found == ["main.py", "data.json", "helper.py", "table.csv"]


def test_clock_reads_of_the_forms_of_time(tmp_path):
    """``time.time`` through the module, ``from time import time``; not a ``time`` of one's
    own, nor the module ``time`` itself."""
    file = tmp_path / "f.py"
    for code, reads in (
        ("import time\nx = time.time()\n", ["line 2: time.time"]),
        ("x = my.time\n", []),
        ("time . time\n", ["line 1: time.time"]),
        ("from time import sleep, time\n", ["line 1: time.time"]),
        ("from time import (time, sleep)\n", ["line 1: time.time"]),
        ("from time import sleep\ntime = 3\n", []),
        ("import time\n", []),
    ):
        file.write_text(code, encoding="utf-8")
        assert clock_reads(file) == reads, code


def test_a_snippet_that_does_not_tokenize_is_refused_naming_it(tmp_path):
    snippets = make_snippets(tmp_path)
    (snippets / "fixture" / "grad_paddle.py").write_text('w = """never closed\n')
    path = snippets / "fixture" / "claims.toml"
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value) == (
        f"{path}: claim 'fixture.grad'.snippet: grad_paddle.py: ('EOF in multi-line string', "
        "(1, 4))"
    )


def test_a_claims_file_that_is_not_toml_or_has_unknown_tables_is_refused(tmp_path):
    path = make_snippets(tmp_path, CLAIMS) / "fixture" / "claims.toml"
    path.write_text('id = \n[[claim]]\nid = "fixture.x"\n', encoding="utf-8")
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value) == f"{path}: toml: Invalid value (at line 1, column 6)"
    path.write_text("zeta = 1\nalpha = 2\n" + CLAIMS, encoding="utf-8")
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value) == f"{path}: alpha, zeta: unknown top-level key"


def test_a_device_table_is_validated_for_its_device(tmp_path):
    """A malformed key in [claim.expect.paddle.gpu] is refused, though the CPU case is fine."""
    text = CLAIMS.replace("[claim.expect.paddle.gpu]\n", '[claim.expect.paddle.gpu]\nmode = "x"\n')
    assert text != CLAIMS
    path = make_snippets(tmp_path, text) / "fixture" / "claims.toml"
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value) == (
        f"{path}: claim 'fixture.chain'.expect.paddle.mode: must be 'namespace' or 'script'"
    )


def test_the_order_of_keys_in_a_claim_does_not_change_its_hash(tmp_path):
    """A claim's hash covers its expectation, not how the TOML orders it: reordering the
    keys of a table leaves every record fresh."""
    first = hash_of(make_snippets(tmp_path / "a"), "fixture.speed", "paddle", "3.3.1").source_hash()
    reordered = CLAIMS.replace(
        'expect.paddle = {verdict = "similar", margin = 1.25, max_noise = 1.2}',
        'expect.paddle = {max_noise = 1.2, margin = 1.25, verdict = "similar"}',
    )
    assert reordered != CLAIMS
    again = hash_of(make_snippets(tmp_path / "b", reordered), "fixture.speed", "paddle", "3.3.1")
    again = again.source_hash()
    assert again == first
    changed = reordered.replace("margin = 1.25", "margin = 1.3")
    other = hash_of(make_snippets(tmp_path / "c", changed), "fixture.speed", "paddle", "3.3.1")
    other = other.source_hash()
    assert other != first


def test_from_time_import_time_alone_is_a_clock(tmp_path):
    """Found by the mutation run of 2026-12-06: ``from time import time`` with no other name
    went unseen (the statement needed a fourth word)."""
    file = tmp_path / "f.py"
    file.write_text("from time import time\nstart = time()\n", encoding="utf-8")
    assert clock_reads(file) == ["line 1: time.time"]


def test_a_silent_facts_row_may_rest_on_the_cpu_tables(tmp_path):
    """A silent row's fact is looked up in each framework's CPU expectation, device table
    included: facts declared in [claim.expect.<fw>.cpu] count."""
    text = CLAIMS.replace("[claim.expect.paddle]\nfacts", "[claim.expect.paddle.cpu]\nfacts")
    text = text.replace("[claim.expect.torch]\nfacts", "[claim.expect.torch.cpu]\nfacts")
    assert text.count("[claim.expect.paddle.cpu]\nfacts") == 1 and "expect.torch.cpu" in text
    claims = {
        c.id: c for c in load_claims(make_snippets(tmp_path, text) / "fixture" / "claims.toml")
    }
    assert [row["fact"] for row in claims["fixture.launch"].silent] == ["silent_loss"]


def test_a_silent_fact_only_in_gpu_tables_is_refused(tmp_path):
    """A claim for the GPU alone, its facts in [claim.expect.<fw>.gpu]: its silent row names no
    fact of the CPU expectation, which is where a silent row's fact is looked up."""
    text = CLAIMS.replace("[claim.expect.paddle]\nfacts", "[claim.expect.paddle.gpu]\nfacts")
    text = text.replace("[claim.expect.torch]\nfacts", "[claim.expect.torch.gpu]\nfacts")
    text = text.replace(
        'snippet = "launch"\ndevices = ["cpu"]', 'snippet = "launch"\ndevices = ["gpu"]'
    )
    assert text.count('devices = ["gpu"]') == 1 and "expect.torch.gpu]\nfacts" in text
    path = make_snippets(tmp_path, text) / "fixture" / "claims.toml"
    with pytest.raises(ClaimError) as excinfo:
        load_claims(path)
    assert str(excinfo.value) == (
        f"{path}: claim 'fixture.launch'.silent[0].fact: 'silent_loss' must be a boolean fact of "
        "expect.paddle.facts"
    )


def test_claims_and_snippets_are_read_as_utf8_whatever_the_locale(tmp_path, ascii_locale):
    """The claims files hold Chinese; a snippet may too (a comment, a string)."""
    snippets = make_snippets(tmp_path)
    folder = snippets / "fixture"
    (folder / "work_torch.py").write_text("# 工作进程\nimport helper\n", encoding="utf-8")
    (folder / "grad_torch.py").write_text('w = "梯度"\n', encoding="utf-8")
    assert [c.id for c in discover(snippets)][:2] == ["fixture.leaf", "fixture.grad"]
    assert load_claims(folder / "claims.toml")[0].statement["zh"] == "叶子张量报错。"
    found = input_files(folder / "launch_torch.py")
    assert [p.name for p in found] == ["launch_torch.py", "work_torch.py", "helper.py"]
    (folder / "timed.py").write_text("# 计时\nimport time\nx = time.time()\n", encoding="utf-8")
    assert clock_reads(folder / "timed.py") == ["line 3: time.time"]
