"""Claims: loading and validating ``snippets/<article>/claims.toml``.

The format is described in ``snippets/README.md``. Everything here is plain data; running a
claim is :mod:`verified.runner`'s job.

A :class:`Case` is one claim for one framework on one device, for one framework version: the
expectation it checks is merged from the claim, the framework's table, the device's table and
any version-range override that contains that version. A case's :meth:`Case.source_hash`
covers everything that decides its verdict: the snippet and every file it runs or reads, the
merged expectation, the engine code that runs and judges it, and the framework version.
"""

from __future__ import annotations

import hashlib
import json
import io
import re
import tokenize
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from verified.versions import check_range, in_range, installed

ENGINE = Path(__file__).resolve().parent
ROOT = ENGINE.parent
SNIPPETS = ROOT / "snippets"

FRAMEWORKS = ("paddle", "torch")
FRAMEWORK_NAMES = {"paddle": "PaddlePaddle", "torch": "PyTorch"}  # the tab titles
LANGS = ("en", "zh")  # page languages; every statement has one text per language
DEVICES = ("cpu", "gpu")
KINDS = ("error", "value", "behaviour", "memory", "timing", "measurement")
ISOLATED_KINDS = ("memory", "timing")
ID_RE = re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")
ANCHOR_RE = re.compile(r"^[\w-]+$")

# The engine code whose change can change a verdict: part of every case's hash.
ENGINE_FILES = ("claims.py", "runner.py", "worker.py", "versions.py")

# Keys allowed at claim level (and, apart from the first group, inside expect.<fw>[.<device>]).
CLAIM_ONLY_KEYS = {"id", "kind", "statement", "devices", "expect", "silent"}
SHARED_KEYS = {"snippet", "timeout", "mode", "observe", "files", "env"}
KIND_KEYS = {
    "error": {"type", "match"},
    "value": {"value", "tol"},
    "behaviour": {"facts"},
    "memory": {"region", "regions", "theoretical", "bytes", "tol_bytes", "tol_theoretical"},
    "timing": {"baseline", "candidate", "repeat", "statistic", "verdict", "margin", "max_noise"},
    "measurement": set(),
}
REQUIRED = {
    "error": ("type", "match"),
    "value": ("observe", "value"),
    "behaviour": ("observe", "facts"),
    "memory": ("theoretical", "bytes"),
    "timing": ("baseline", "candidate", "verdict"),
    "measurement": ("observe",),
}
# "shown": the pair is timed once, as declared, and its figures are shown with the host they
# were measured on; nothing about their direction is asserted (see snippets/README.md).
TIMING_VERDICTS = ("faster", "similar", "shown")
# Kinds whose figures may come from a clock: timing claims (judged against their same-run
# control, in every condition of verified.runner.TIMING_CONDITIONS) and measurements (shown,
# never asserted). Any other kind asserts what its snippet computed, so its snippet (and every
# file it runs or reads) must not read a clock: a verdict from elapsed time outside the timing
# mechanism fails on the next machine (issue 25).
CLOCK_KINDS = ("timing", "measurement")
CLOCK_NAMES = {
    "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
    "process_time_ns", "thread_time", "thread_time_ns", "time_ns", "clock_gettime",
    "clock_gettime_ns", "timeit", "ru_utime", "ru_stime", "getitimer",
}  # fmt: skip
# Environment variables that set the C allocator's parameters (glibc reads them when the
# process starts): a case that declares ``env`` runs with exactly its own, and none inherited.
ALLOCATOR_VARIABLES = re.compile(r"^(MALLOC_[A-Z_]+_?|GLIBC_TUNABLES)$")
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Keys of a version-range override ([[claim.expect.<fw>.versions]]) besides expectation keys.
OVERRIDE_KEYS = {"range", "note", "unrunnable"}
SILENT_KEYS = {"fact", "section", "symptom", "fix"}

# Files a snippet names or imports next to itself are inputs of its claims (a launcher and the
# worker script it starts, a data file it reads).
FILE_LITERAL = re.compile(r"""["']([\w.-]+\.(?:py|json|toml|txt|csv|npy))["']""")
IMPORT_LINE = re.compile(r"^\s*(?:from\s+(\w+)\s+import\b|import\s+(\w+))", re.MULTILINE)


class ClaimError(ValueError):
    """A malformed claim: the message names the file and the field."""

    def __init__(self, path: Path, field_name: str, problem: str) -> None:
        try:
            shown = path.relative_to(ROOT)
        except ValueError:
            shown = path
        super().__init__(f"{shown}: {field_name}: {problem}")


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()[:16]


@cache
def engine_hash(folder: Path = ENGINE) -> str:
    """Hash of the engine code that runs and judges claims (``ENGINE_FILES`` in ``folder``)."""
    return _digest(*(name.encode() + b"\0" + (folder / name).read_bytes() for name in ENGINE_FILES))


def clock_reads(path: Path) -> list[str]:
    """The clocks a Python file reads, as ``line N: name``, from its code only (comments and
    strings are not code): a name of ``CLOCK_NAMES``, ``time.time``, and ``time`` imported
    from the module ``time``."""
    found: list[str] = []
    text = path.read_text(encoding="utf-8")
    words: list[str] = []  # the names and operators of the statement so far
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NEWLINE:
            words = []
            continue
        if token.type not in (tokenize.NAME, tokenize.OP):
            continue
        name = token.string
        if (
            name in CLOCK_NAMES
            or (name == "time" and words[-2:] == ["time", "."])
            or (name == "time" and words[:3] == ["from", "time", "import"])
        ):
            found.append(f"line {token.start[0]}: {'time.time' if name == 'time' else name}")
        words.append(name)
    return found


def input_files(snippet: Path, declared: tuple[Path, ...] = ()) -> list[Path]:
    """The snippet and every file it runs or reads: files it names in a string literal or
    imports, found next to it (recursively), plus the declared ones."""
    found: list[Path] = []
    queue = [snippet, *declared]
    while queue:
        path = queue.pop(0)
        if path in found:
            continue
        found.append(path)
        if path.suffix != ".py":
            continue
        text = path.read_text(encoding="utf-8")
        names = FILE_LITERAL.findall(text)
        names += [f"{a or b}.py" for a, b in IMPORT_LINE.findall(text)]
        for name in names:
            candidate = path.parent / name
            if candidate.is_file() and candidate not in found:
                queue.append(candidate)
    return found


@dataclass(frozen=True)
class Case:
    """One claim for one framework on one device and framework version: what pytest runs and
    the report records."""

    claim: Claim
    framework: str
    device: str
    spec: dict  # merged keys: claim < expect.<fw> < expect.<fw>.<device> < version override
    version: str | None = None  # the framework version the expectation was merged for
    override: dict | None = None  # the version-range override that applies: range, note, ...

    @property
    def name(self) -> str:
        return f"{self.claim.id}[{self.framework}-{self.device}]"

    @property
    def snippet_path(self) -> Path:
        return self.claim.path.parent / f"{self.spec['snippet']}_{self.framework}.py"

    @property
    def isolated(self) -> bool:
        return (
            self.claim.kind in ISOLATED_KINDS
            or self.spec.get("mode") == "script"
            or "env" in self.spec
        )

    @property
    def allocator_env(self) -> dict[str, str] | None:
        """The environment variables the case's process runs with, instead of any inherited
        allocator setting, or None where the case inherits the caller's (see ``env``). Timing
        cases always set theirs: no inherited setting reaches a timed process."""
        if "env" in self.spec or self.claim.kind == "timing":
            return dict(self.spec.get("env", {}))
        return None

    @property
    def timeout(self) -> float:
        return float(self.spec.get("timeout", 120))

    @property
    def unrunnable(self) -> str | None:
        """Regular expression for the error that makes the snippet unrunnable on this version
        (from a version override), or None."""
        return (self.override or {}).get("unrunnable")

    def expected(self) -> dict:
        keys = KIND_KEYS[self.claim.kind]
        return {k: v for k, v in self.spec.items() if k in keys}

    def files(self) -> list[Path]:
        declared = tuple(self.claim.path.parent / name for name in self.spec.get("files", ()))
        return input_files(self.snippet_path, declared)

    def relative_files(self) -> list[str]:
        base = self.claim.path.parent.parent
        return [p.relative_to(base).as_posix() for p in self.files()]

    def inputs_hash(self) -> str:
        """The snippet files, the merged expectation (with any override) and the kind."""
        base = self.claim.path.parent.parent
        parts = [
            p.relative_to(base).as_posix().encode() + b"\0" + p.read_bytes() for p in self.files()
        ]
        spec = {"spec": self.spec, "kind": self.claim.kind, "unrunnable": self.unrunnable}
        parts.append(json.dumps(spec, sort_keys=True).encode())
        return _digest(*parts)

    def source_hash(self, engine: str | None = None) -> str:
        """A record whose hash differs from this one is stale: inputs, engine or version.
        ``engine``: the hash of the engine code (default: ``engine_hash()``; a run passes the
        one its context captured)."""
        engine = engine_hash() if engine is None else engine
        return _digest(self.inputs_hash().encode(), engine.encode(), str(self.version).encode())

    def hashes(self, engine: str | None = None) -> dict:
        engine = engine_hash() if engine is None else engine
        return {"inputs": self.inputs_hash(), "engine": engine, "version": self.version}


@dataclass(frozen=True)
class Claim:
    id: str
    kind: str
    path: Path  # the claims.toml it was declared in
    statement: dict
    devices: tuple
    raw: dict = field(repr=False, compare=False, hash=False)
    silent: tuple = ()  # rows of the silent-failures page: fact, section, symptom, fix

    @property
    def article(self) -> str:
        return self.path.parent.name

    def case(self, framework: str, device: str, version: str | None = None) -> Case:
        """The case for a framework version (default: the installed one)."""
        if version is None:
            version = installed(framework)
        spec, override = _merge(self.raw, framework, device, version)
        return Case(self, framework, device, spec, version, override)

    def cases(self, versions: dict[str, str | None] | None = None) -> list[Case]:
        versions = versions or {}
        return [
            self.case(fw, dev, versions.get(fw) or installed(fw))
            for fw in FRAMEWORKS
            for dev in self.devices
        ]

    def overrides(self, framework: str) -> list[dict]:
        return list(self.raw["expect"][framework].get("versions", []))


def _merge(raw: dict, framework: str, device: str, version: str | None) -> tuple[dict, dict | None]:
    spec = {k: v for k, v in raw.items() if k not in CLAIM_ONLY_KEYS}
    per_fw = dict(raw["expect"][framework])
    overrides = per_fw.pop("versions", [])
    per_dev = {d: per_fw.pop(d) for d in DEVICES if d in per_fw}
    spec.update(per_fw)
    spec.update(per_dev.get(device, {}))
    applied = None
    for override in overrides:
        if version is not None and in_range(version, override["range"]):
            spec.update({k: v for k, v in override.items() if k not in OVERRIDE_KEYS})
            applied = dict(override)
    return spec, applied


def load_claims(path: Path) -> list[Claim]:
    """Load and validate one claims.toml; raise ClaimError naming file and field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ClaimError(path, "toml", str(exc)) from None
    unknown_top = set(data) - {"claim"}
    if unknown_top:
        raise ClaimError(path, ", ".join(sorted(unknown_top)), "unknown top-level key")
    claims = [_validate(path, i, raw) for i, raw in enumerate(data.get("claim", []))]
    if not claims:
        raise ClaimError(path, "claim", "no [[claim]] entries")
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise ClaimError(path, f"claim {claim.id!r}.id", "duplicate id")
        seen.add(claim.id)
    return claims


def _texts(value) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == set(LANGS)
        and all(isinstance(v, str) and v.strip() for v in value.values())
    )


def _validate(path: Path, index: int, raw: dict) -> Claim:
    where = f"claim[{index}]"
    cid = raw.get("id")
    if not isinstance(cid, str) or not ID_RE.match(cid):
        raise ClaimError(path, f"{where}.id", f"missing or malformed id {cid!r}")
    where = f"claim {cid!r}"
    if not cid.startswith(path.parent.name + "."):
        raise ClaimError(path, f"{where}.id", f"must start with '{path.parent.name}.'")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ClaimError(path, f"{where}.kind", f"unknown kind {kind!r} (expected one of {KINDS})")
    allowed = CLAIM_ONLY_KEYS | SHARED_KEYS | KIND_KEYS[kind]
    for key in raw:
        if key not in allowed:
            raise ClaimError(path, f"{where}.{key}", f"unknown key for kind {kind!r}")
    if not _texts(raw.get("statement")):
        raise ClaimError(path, f"{where}.statement", "needs non-empty 'en' and 'zh' strings")
    devices = tuple(raw.get("devices", DEVICES))
    if not devices or any(d not in DEVICES for d in devices):
        raise ClaimError(path, f"{where}.devices", f"must be a non-empty subset of {DEVICES}")
    expect = raw.get("expect")
    if not isinstance(expect, dict):
        raise ClaimError(path, f"{where}.expect", "missing [claim.expect.<framework>] tables")
    for fw in expect:
        if fw not in FRAMEWORKS:
            raise ClaimError(path, f"{where}.expect.{fw}", "unknown framework")
    inner = allowed - CLAIM_ONLY_KEYS
    for fw in FRAMEWORKS:
        if fw not in expect:
            raise ClaimError(path, f"{where}.expect.{fw}", "missing expectation for framework")
        for key, value in expect[fw].items():
            here = f"{where}.expect.{fw}.{key}"
            if key in DEVICES:
                if not isinstance(value, dict):
                    raise ClaimError(path, here, "must be a table")
                for sub in value:
                    if sub not in inner:
                        raise ClaimError(path, f"{here}.{sub}", "unknown key")
            elif key == "versions":
                _validate_overrides(path, here, value, inner)
            elif key not in inner:
                raise ClaimError(path, here, "unknown key")
    silent = _validate_silent(path, f"{where}.silent", raw.get("silent", []), kind)
    claim = Claim(cid, kind, path, raw["statement"], devices, raw, silent)
    for fw in FRAMEWORKS:
        for dev in devices:
            base, _ = _merge(raw, fw, dev, None)
            _validate_case(path, f"{where}.expect.{fw}", Case(claim, fw, dev, base))
            for i, override in enumerate(claim.overrides(fw)):
                changes = {k: v for k, v in override.items() if k not in OVERRIDE_KEYS}
                case = Case(claim, fw, dev, {**base, **changes}, None, override)
                _validate_case(path, f"{where}.expect.{fw}.versions[{i}]", case)
    for i, row in enumerate(silent):
        for fw in FRAMEWORKS:
            facts = _merge(raw, fw, "cpu", None)[0].get("facts", {})
            if row["fact"] not in facts or not isinstance(facts[row["fact"]], bool):
                raise ClaimError(
                    path,
                    f"{where}.silent[{i}].fact",
                    f"{row['fact']!r} must be a boolean fact of expect.{fw}.facts",
                )
    return claim


def _validate_overrides(path: Path, where: str, value, inner: set) -> None:
    if not isinstance(value, list) or not all(isinstance(o, dict) for o in value):
        raise ClaimError(path, where, "must be an array of tables [[...versions]]")
    for i, override in enumerate(value):
        here = f"{where}[{i}]"
        rng = override.get("range")
        problem = "missing" if not isinstance(rng, str) else check_range(rng)
        if problem:
            raise ClaimError(path, f"{here}.range", f"not a version range ({problem})")
        if not _texts(override.get("note")):
            raise ClaimError(path, f"{here}.note", "needs 'en' and 'zh' texts saying what differs")
        for key in override:
            if key not in OVERRIDE_KEYS and key not in inner:
                raise ClaimError(path, f"{here}.{key}", "unknown key")
        if "unrunnable" in override:
            try:
                re.compile(override["unrunnable"])
            except (re.error, TypeError) as exc:
                raise ClaimError(
                    path, f"{here}.unrunnable", f"not a regular expression: {exc}"
                ) from None
        if len(override) == 2:  # range and note only
            raise ClaimError(path, here, "changes nothing: give expectation keys or 'unrunnable'")


def _validate_silent(path: Path, where: str, value, kind: str) -> tuple:
    if not value:
        return ()
    if kind != "behaviour":
        raise ClaimError(path, where, "only behaviour claims can mark silent failures (a fact)")
    if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
        raise ClaimError(path, where, "must be an array of tables [[claim.silent]]")
    for i, row in enumerate(value):
        here = f"{where}[{i}]"
        for key in row:
            if key not in SILENT_KEYS:
                raise ClaimError(path, f"{here}.{key}", "unknown key")
        if not isinstance(row.get("fact"), str):
            raise ClaimError(path, f"{here}.fact", "missing: the boolean fact that shows it")
        if not isinstance(row.get("section"), str) or not ANCHOR_RE.match(row["section"]):
            raise ClaimError(
                path, f"{here}.section", "missing or not an anchor: the section that shows it"
            )
        for key in ("symptom", "fix"):
            if not _texts(row.get(key)):
                raise ClaimError(path, f"{here}.{key}", "needs non-empty 'en' and 'zh' strings")
    return tuple(value)


def _validate_case(path: Path, where: str, case: Case) -> None:
    spec = case.spec
    kind = case.claim.kind
    if "snippet" not in spec:
        raise ClaimError(path, f"{where}.snippet", "missing")
    if not case.snippet_path.is_file():
        raise ClaimError(path, f"{where}.snippet", f"file not found: {case.snippet_path.name}")
    files = spec.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise ClaimError(path, f"{where}.files", "must be a list of file names")
    for name in files:
        if not (path.parent / name).is_file():
            raise ClaimError(path, f"{where}.files", f"file not found: {name}")
    for key in REQUIRED[kind]:
        if key not in spec:
            raise ClaimError(path, f"{where}.{key}", f"required for kind {kind!r}")
    if kind not in CLOCK_KINDS:
        _refuse_clocks(path, where, case)
    if kind == "memory" and ("region" in spec) == ("regions" in spec):
        raise ClaimError(path, f"{where}.region", "give exactly one of 'region' or 'regions'")
    if kind == "memory" and "regions" in spec:
        regions = set(spec["regions"])
        for key in ("bytes", "theoretical"):
            if not isinstance(spec[key], dict) or set(spec[key]) != regions:
                raise ClaimError(
                    path, f"{where}.{key}", f"needs one entry per region {sorted(regions)}"
                )
    if spec.get("mode", "namespace") not in ("namespace", "script"):
        raise ClaimError(path, f"{where}.mode", "must be 'namespace' or 'script'")
    if spec.get("statistic", "median") not in ("median", "min"):
        raise ClaimError(path, f"{where}.statistic", "must be 'median' or 'min'")
    env = spec.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and ENV_NAME.match(k) and isinstance(v, str) for k, v in env.items()
    ):
        raise ClaimError(path, f"{where}.env", 'must be a table of NAME = "string" variables')
    if kind == "timing":
        if spec["verdict"] not in TIMING_VERDICTS:
            raise ClaimError(path, f"{where}.verdict", f"must be one of {TIMING_VERDICTS}")
        for key in ("margin", "max_noise"):
            if spec["verdict"] == "shown" and key in spec:
                raise ClaimError(
                    path, f"{where}.{key}", "a timing shown only asserts nothing: no bound to give"
                )
        for key, low in (("margin", 1.0), ("max_noise", 1.0)):
            value = spec.get(key, 1.5)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= low:
                raise ClaimError(path, f"{where}.{key}", f"must be a number above {low}")
    if kind == "error":
        try:
            re.compile(spec["match"])
        except re.error as exc:
            raise ClaimError(
                path, f"{where}.match", f"regular expression does not compile: {exc}"
            ) from None
    if kind == "behaviour" and not isinstance(spec["facts"], dict):
        raise ClaimError(path, f"{where}.facts", "must be a table")
    for key in ("observe", "region", "baseline", "candidate"):
        if key in spec and isinstance(spec[key], str):
            try:
                compile(spec[key], f"{path}:{where}.{key}", "eval")
            except SyntaxError as exc:
                raise ClaimError(
                    path, f"{where}.{key}", f"not a Python expression: {exc.msg}"
                ) from None


def _refuse_clocks(path: Path, where: str, case: Case) -> None:
    """A claim of a kind that asserts what its snippet computed must not rest on a clock."""
    claim_where = where.split(".expect.")[0]
    base = case.claim.path.parent.parent
    for file in case.files():
        if file.suffix != ".py":
            continue
        try:
            reads = clock_reads(file)
        except (SyntaxError, tokenize.TokenError) as exc:
            raise ClaimError(path, f"{claim_where}.snippet", f"{file.name}: {exc}") from None
        if reads:
            shown = file.relative_to(base).as_posix()
            raise ClaimError(
                path,
                f"{claim_where}.snippet",
                f"snippet {shown} reads a clock ({', '.join(reads[:3])}), and a "
                f"{case.claim.kind!r} claim asserts what its snippet computed: a verdict from "
                "elapsed time must be a 'timing' claim (same-run control, every condition), "
                "and figures that are only shown a 'measurement' claim",
            )


_DISCOVERED: dict[tuple, list[Claim]] = {}


def discover(root: Path = SNIPPETS) -> list[Claim]:
    """Every claim under ``root``. Remembered by the text of each claims file and the names of
    the files in its folder (validation checks that the files a claim names exist): reports,
    pages and tests ask for them again and again."""
    paths = sorted(root.glob("*/claims.toml"))
    key = tuple(
        (
            str(path),
            path.read_text(encoding="utf-8"),
            tuple(sorted(str(f.relative_to(path.parent)) for f in path.parent.rglob("*"))),
        )
        for path in paths
    )
    if key not in _DISCOVERED:
        _DISCOVERED[key] = [claim for path in paths for claim in load_claims(path)]
    return list(_DISCOVERED[key])


def all_cases(
    root: Path = SNIPPETS, versions: dict[str, str | None] | None = None
) -> dict[tuple[str, str, str], Case]:
    """Every declared case, keyed by (claim id, framework, device), merged for ``versions``
    (default: the installed framework versions)."""
    return {
        (case.claim.id, case.framework, case.device): case
        for claim in discover(root)
        for case in claim.cases(versions)
    }
